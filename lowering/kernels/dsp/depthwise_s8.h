// int8 NHWC depthwise convolution (depth multiplier 1) channel by channel, with the taps
// unrolled and the bounds checks confined to the windows that reach into the padding.
//
// The generic kernel (convolution.h) checks every tap of every window against the input's
// bounds and subtracts the input's zero point from every input value. Here, for constant
// weights and bias:
//   - the channel's weights are read once per channel into locals (the C compiler cannot
//     keep them in registers itself: the output, also int8, might alias the filter);
//   - the KH x KW taps are written out, so a window inside the input is a straight run of
//     loads and multiply-accumulates with constant offsets; the output positions whose
//     windows reach into the padding (the first and last rows and columns) are generated
//     each on its own, the taps in the padding left out at compile time: no bounds check
//     at run time (same taps, same order, so the same sum);
//   - reading the input directly, a window inside the input sums raw values from the bias
//     with the input's zero point folded in (bias - zp * sum of the channel's weights, in
//     32-bit two's complement like the sum, so the same bits); an edge window sums
//     centred values from the plain bias, as it skips the taps in the padding;
//   - when the output may take the input's memory, each input channel is staged (centred,
//     int16) first, as the generic kernel does, so the memory plan is the same.
// Requantization and the fused epilogue are the arithmetic's, per output element.
#pragma once

#include "lowering/compute/convolution.h"

namespace aotc {

// NHWC, one output channel per input channel, two spatial axes, no dilation, kernels of
// at most 7 x 7.
bool depthwise_s8_applies(const ConvGeometry& geometry);

// The kernel body; `operands.filter` and `operands.bias` are not read.
ir::Stmt lower_depthwise_s8(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                            const ConvOperands& operands, const FoldedConvConstants& constants);

}  // namespace aotc
