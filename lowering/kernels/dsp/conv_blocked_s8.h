// int8 NHWC convolution (groups of 1) as register blocks of two pixels x two output
// channels, for microcontrollers: with the DSP extension (the target's `dsp` feature) its
// micro-kernels use SMLAD, without it (cortex-m0plus, riscv32) aotc_dot.h's plain C.
//
// The generic kernel (convolution.h) computes one output element at a time, subtracting
// the input's zero point from every input value and skipping the taps in the padding.
// Here, with constant weights (zero point 0, as TFLite requires for int8) and bias:
//   - the input's zero point moves into the bias at compile time
//     (sum (x - zp) * w = sum x * w - zp * sum w, in 32-bit two's complement like the
//     generic sum, so every result is the same bit for bit);
//   - a tap in the padding reads a constant row filled with the zero point instead of
//     being skipped: its x * w then cancels its share of zp * sum w, as a skipped tap would;
//   - the weights are packed at compile time, two output channels interleaved word by word,
//     in the order runtime-c/aotc_dot.h's aotc_dot_s8_2x2 reads them, which computes the
//     four sums of two pixels x two channels with SMLAD (two multiply-accumulates per
//     instruction) and one load of each input and weight word for two products; each
//     channel pair's weights follow its header (channel_header.h: the folded biases and
//     the requantization constants, read from the same pointer);
//   - NHWC keeps the KW * C values of one kernel row of one window contiguous, so a window
//     that lies inside the input horizontally is summed as KH runs of KW * C values; the
//     block's two pixels are neighbours in an output row, so their runs lie x stride * C
//     apart, and with whole words in a planned tensor one pointer reads both
//     (aotc_dot_s8_2x2_aligned); a window that reaches past the left or right edge is
//     summed tap by tap (runs of C values), each tap reading the input or the zero-point
//     row; an odd last pixel of a row makes a block of its own;
//   - a 1x1 convolution (a matrix product over pixels) copies the block's two input pixels
//     first, widened to int16 in the order the packed weights unpack in, so the loop over
//     channel pairs loads them without unpacking (aotc_dot_s16_2x2); the copy also lets the
//     output take the input's memory, and lives on the stack up to 128 bytes;
//   - with a channel count that is not a multiple of 4 (first layers: 1 or 3 channels)
//     those runs would be short and unaligned: the block's two windows are gathered first
//     (im2col into a small aligned scratch buffer, the zero point in the padding) and
//     summed as one run each, for every channel pair.
// Requantization and the fused epilogue are the arithmetic's, per output element, as in
// the generic kernel.
#pragma once

#include "lowering/compute/convolution.h"

namespace aotc {

// True if lower_blocked_conv_s8 can compute this convolution: NHWC, groups of 1, two
// spatial axes, no dilation.
bool blocked_conv_s8_applies(const ConvGeometry& geometry);

// The kernel body. `operands.filter` and `operands.bias` are not read (the packed and
// folded tables replace them); input, output and input_tensor are.
ir::Stmt lower_blocked_conv_s8(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                               const ConvOperands& operands, const FoldedConvConstants& constants);

}  // namespace aotc
