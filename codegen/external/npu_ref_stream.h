// Writing command streams of aotc's reference NPU (runtime-c/npu/aotc_npu_ref.h, format 1.0,
// 1.1 for a stream with the _EVEN opcodes, 1.2 for one whose outputs overlap inputs):
// the header and one command at a time, each as its opcode's fixed list of 32-bit words,
// and the constants blob the commands' channel records live in.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime-c/npu/aotc_npu_ref.h"

namespace aotc::npu_ref {

// Where a tensor operand is: a region of the table and a byte offset in it.
struct Operand {
  uint32_t region = 0;
  uint32_t offset = 0;
};

class StreamWriter {
 public:
  // A command of `words` words (AOTC_NPU_REF_*_WORDS) for `opcode`; set its fields with
  // set(), then the next command may start.
  void begin(uint32_t opcode, uint32_t words);
  void set(uint32_t field, int64_t value);  // a field's word; signed values as two's complement
  void set(uint32_t region_field, const Operand& operand);  // the region field and the offset after it

  // The stream: header, then the commands in order.
  std::vector<uint8_t> finish(uint32_t region_count) const;
  size_t commands() const { return commands_; }
  // The format's minor version the stream needs: 1 when it has an opcode of 1.1 (the _EVEN
  // ones), else 0, so that a stream without them runs on a driver of 1.0 too; or more where
  // require_minor_version asked (2: an output placed over its input, as 1.2 allows).
  uint32_t minor_version() const { return minor_version_; }
  void require_minor_version(uint32_t minor) { minor_version_ = std::max(minor_version_, minor); }

 private:
  std::vector<uint32_t> words_;
  uint32_t minor_version_ = 0;
  size_t command_start_ = 0;
  size_t commands_ = 0;
};

// The constants region: channel records (and anything else) appended at 16-byte aligned
// offsets, so every command's parameters start on a boundary a DMA engine likes.
class ConstantsWriter {
 public:
  // Starts a block; returns its offset.
  uint32_t begin_block();
  void int32(int32_t value);
  void bytes(const std::vector<int8_t>& values);  // zero-padded to a multiple of 4
  const std::vector<uint8_t>& data() const { return data_; }

 private:
  std::vector<uint8_t> data_;
};

}  // namespace aotc::npu_ref
