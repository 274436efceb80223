// int8 NHWC depthwise convolution (depth multiplier 1) with kernels three wide and a
// stride of 1 or 2 along x, for microcontrollers (SMLAD with the DSP extension, plain C
// without): every depthwise layer of the MLPerf Tiny models (3x3).
//
// Each channel is gathered into a plane: its input rows one after the other, each row
// widened by the padding on both sides and to whole words, the padding rows above and
// below, every padding position holding the input's zero point (filled once per layer;
// only the inside is copied per channel). Then no window reaches past the plane, and
// every output position is computed the same way, with no bounds check and no edge case:
// the bias has the zero point folded in (bias - zp * sum of the channel's weights, in
// 32-bit two's complement like the sum), so a padding tap's zp * w cancels its share, as a
// skipped tap would, and the sums are the generic kernel's bit for bit.
//
// The plane's rows are word-aligned, so one word holds four input columns. The runtime's
// aotc_dw3_s8 (runtime-c/aotc_dot.h) sums one kernel row of three taps for several
// outputs from such words: four outputs of stride 1 (two words) or two of stride 2 (two
// words) per call, with SMLAD for the outer taps (columns 0 and 2 of a window are the two
// halves of a word's SXTB16) and one 16-bit multiply-accumulate for the middle one; the
// taps come packed per channel and kernel row at compile time as (w0, w2) and w1, behind
// the channel's header (channel_header.h: the folded bias and requantization constants),
// read into locals once per channel. A row's last outputs take a call for one or two
// outputs (four computed for three).
// Requantization and the fused epilogue are the arithmetic's, per output element.
//
// The plane holds an int8 copy of one channel: no more memory than the generic kernel's
// staged channel (int16) where the output takes the input's memory, so the memory plan
// stays; other layers need it too (a few KB at most for these models).
#pragma once

#include "lowering/compute/convolution.h"

namespace aotc {

// NHWC, one output channel per input channel, two spatial axes, no dilation, kernels three
// wide with a stride of 1 or 2 along x.
bool depthwise3_s8_applies(const ConvGeometry& geometry);

// The kernel body; `operands.filter` and `operands.bias` are not read.
ir::Stmt lower_depthwise3_s8(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                             const ConvOperands& operands, const FoldedConvConstants& constants);

}  // namespace aotc
