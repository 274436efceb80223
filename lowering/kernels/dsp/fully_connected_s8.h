// int8 FULLY_CONNECTED with constant weights for microcontrollers (SMLAD with the DSP
// extension, the target's `dsp` feature; plain C without): blocks of four output units
// over weights packed at compile time, in the order runtime-c/aotc_dot.h's aotc_dot_s8_1x4 reads them (one input word,
// loaded and unpacked once, for four rows: two 16-bit multiply-accumulates per SMLAD).
// Each block's weights follow its header (channel_header.h): the four units' biases, with
// the input's zero point folded in, and requantization constants, all read from the one
// pointer the weights are read from.
#pragma once

#include <cstdint>
#include <vector>

#include "lowering/kernels/fc_kernels.h"

namespace aotc {

// The kernel body of `p`: output[b, u] = arithmetic.output(folded_bias[u] + input[b, :] .
// filter[u, :]). `input` and `output` are the 2-D parameters; `filter` the constant weights.
ir::Stmt lower_fully_connected_s8(const ir::Buffer& input, const ir::Buffer& output, const Tensor& filter,
                                  const FcProblem& p);

}  // namespace aotc
