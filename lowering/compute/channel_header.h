// The per-channel constants of a DSP kernel, stored in its packed table in front of each
// block's weights: the bias (with the input's zero point folded in) and the arithmetic's
// requantization constants (ConvArithmetic::channel_constants). A block of output
// channels then reads all of them from the one pointer it reads its weights from, at
// immediate offsets, instead of from a table per constant whose base addresses would each
// take a register in the kernel's loops (C compilers keep them live across the inner
// loop and spill the sums instead).
//
// A block's header holds, for each value in turn (bias, then each constant that differs
// between channels), one word per channel of the block; a channel past the last repeats
// the last channel's values. A constant the same for every channel (a layer quantized per
// tensor) is an immediate in the code instead.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "lowering/compute/convolution.h"

namespace aotc {

class ChannelHeader {
 public:
  // `biases`: one per output channel; `block`: channels per block.
  ChannelHeader(const ConvArithmetic& arithmetic, std::vector<int32_t> biases, int64_t block);

  int64_t words() const { return block_ * (1 + static_cast<int64_t>(stored_.size())); }
  // `body()` inside the arithmetic's own tables, where output() still reads them.
  ir::Stmt wrap(ConvArithmetic& arithmetic, const std::function<ir::Stmt()>& body) const {
    return constants_ > 0 ? body() : arithmetic.wrap(body);
  }
  // Appends block b's header to `bytes` (little-endian words).
  void append(std::vector<uint8_t>& bytes, int64_t b) const;

  // For channel i of the block whose header starts at word `base` of `table`: its bias,
  // and the arithmetic's output for a sum of that channel (`channel`, its index).
  ir::Expr bias(const ir::Buffer& table, const ir::Expr& base, int64_t i) const;
  ir::Expr output(const ir::Buffer& table, const ir::Expr& base, int64_t i, const ir::Expr& sum,
                  const ir::Expr& channel) const;

 private:
  const ConvArithmetic& a_;
  std::vector<int32_t> biases_;
  int64_t block_;
  int64_t constants_;  // per channel; 0 when output() reads tables of its own
  std::vector<int64_t> stored_;  // the constants that differ between channels, in header order
};

// The folded bias of every output channel: bias - zero_point * (sum of the channel's
// weights), wrapped to int32 as the kernels' sums are. `weights_of(oc)` gives the sum of
// channel oc's weights.
std::vector<int32_t> folded_biases(const Tensor* bias, int64_t channels, int32_t zero_point,
                                   const std::function<int64_t(int64_t)>& weights_of);

}  // namespace aotc
