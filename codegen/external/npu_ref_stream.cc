#include "codegen/external/npu_ref_stream.h"

#include <algorithm>
#include <stdexcept>

namespace aotc::npu_ref {
namespace {

void append_le32(std::vector<uint8_t>& out, uint32_t v) {
  for (int b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
}

}  // namespace

void StreamWriter::begin(uint32_t opcode, uint32_t words) {
  command_start_ = words_.size();
  words_.push_back(opcode | (words << 16));
  words_.resize(command_start_ + words, 0);
  ++commands_;
  if (opcode >= AOTC_NPU_REF_OP_CONV2D_EVEN) minor_version_ = std::max(minor_version_, 1u);
}

void StreamWriter::set(uint32_t field, int64_t value) {
  if (value < INT32_MIN || value > UINT32_MAX) throw std::logic_error("npu-ref stream: a field does not fit 32 bits");
  words_.at(command_start_ + field) = static_cast<uint32_t>(value);
}

void StreamWriter::set(uint32_t region_field, const Operand& operand) {
  set(region_field, operand.region);
  set(region_field + 1, operand.offset);
}

std::vector<uint8_t> StreamWriter::finish(uint32_t region_count) const {
  std::vector<uint8_t> out;
  const uint32_t size = static_cast<uint32_t>(4 * (AOTC_NPU_REF_HEADER_WORDS + words_.size()));
  const uint32_t version = AOTC_NPU_REF_VERSION_MAJOR << 16 | minor_version_;
  for (uint32_t w : {AOTC_NPU_REF_MAGIC, version, size, static_cast<uint32_t>(commands_), region_count, 0u})
    append_le32(out, w);
  for (uint32_t w : words_) append_le32(out, w);
  return out;
}

uint32_t ConstantsWriter::begin_block() {
  data_.resize((data_.size() + 15) / 16 * 16, 0);
  return static_cast<uint32_t>(data_.size());
}

void ConstantsWriter::int32(int32_t value) { append_le32(data_, static_cast<uint32_t>(value)); }

void ConstantsWriter::bytes(const std::vector<int8_t>& values) {
  for (int8_t v : values) data_.push_back(static_cast<uint8_t>(v));
  data_.resize((data_.size() + 3) / 4 * 4, 0);
}

}  // namespace aotc::npu_ref
