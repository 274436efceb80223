// Per-channel constants in front of packed weights; see channel_header.h.
#include "lowering/compute/channel_header.h"

#include <algorithm>

namespace aotc {

ChannelHeader::ChannelHeader(const ConvArithmetic& arithmetic, std::vector<int32_t> biases, int64_t block)
    : a_(arithmetic), biases_(std::move(biases)), block_(block) {
  constants_ = static_cast<int64_t>(a_.channel_constants(0).size());
  for (int64_t v = 0; v < constants_; ++v) {
    bool uniform = true;
    for (size_t c = 1; c < biases_.size() && uniform; ++c)
      uniform = a_.channel_constants(static_cast<int64_t>(c))[static_cast<size_t>(v)] == a_.channel_constants(0)[static_cast<size_t>(v)];
    if (!uniform) stored_.push_back(v);
  }
}

void ChannelHeader::append(std::vector<uint8_t>& bytes, int64_t b) const {
  int64_t last = static_cast<int64_t>(biases_.size()) - 1;
  for (size_t k = 0; k <= stored_.size(); ++k) {
    for (int64_t i = 0; i < block_; ++i) {
      int64_t channel = std::min(b * block_ + i, last);
      int32_t value = k == 0 ? biases_[static_cast<size_t>(channel)] : a_.channel_constants(channel)[static_cast<size_t>(stored_[k - 1])];
      for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<uint8_t>(static_cast<uint32_t>(value) >> (8 * k)));
    }
  }
}

ir::Expr ChannelHeader::bias(const ir::Buffer& table, const ir::Expr& base, int64_t i) const {
  return ir::load(table, {base + i});
}

ir::Expr ChannelHeader::output(const ir::Buffer& table, const ir::Expr& base, int64_t i, const ir::Expr& sum,
                               const ir::Expr& channel) const {
  if (constants_ == 0) return a_.output(sum, channel);
  std::vector<ir::Expr> constants;
  for (int64_t v = 0; v < constants_; ++v) {
    auto at = std::find(stored_.begin(), stored_.end(), v);
    int64_t k = at - stored_.begin() + 1;  // its row in the header
    constants.push_back(at == stored_.end() ? ir::make_int(a_.channel_constants(0)[static_cast<size_t>(v)])
                                            : ir::load(table, {base + (k * block_ + i)}));
  }
  return a_.output_from(sum, constants);
}

std::vector<int32_t> folded_biases(const Tensor* bias, int64_t channels, int32_t zero_point,
                                   const std::function<int64_t(int64_t)>& weights_of) {
  std::vector<int32_t> folded;
  for (int64_t oc = 0; oc < channels; ++oc) {
    int64_t value = (bias ? bias->element_as_int(oc) : 0) - int64_t{zero_point} * weights_of(oc);
    folded.push_back(static_cast<int32_t>(static_cast<uint32_t>(value)));
  }
  return folded;
}

}  // namespace aotc
