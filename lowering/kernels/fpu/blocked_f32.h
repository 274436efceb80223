// float32 NHWC convolutions, depthwise convolutions and fully connected layers in register
// blocks, for cores with a single-precision FPU (the target's `fpu` feature).
//
// The generic kernel (convolution.h) computes one output element at a time: every input
// and weight is loaded for one multiply-accumulate, and the window's bounds are checked
// tap by tap. Here, with constant weights, each kernel calls the register blocks of
// runtime-c/aotc_dot_f32.h, which hold several sums in FPU registers for a whole window:
//   - convolutions (groups of 1): four pixels x four output channels per block
//     (aotc_dot_f32_4x4: each loaded input serves four products, each loaded weight four);
//     the weights are packed at compile time four channels side by side in (ky, kx, ic)
//     order, so that one load brings the four channels' weights of an element. NHWC keeps
//     the KW * C values of a kernel row of a window contiguous: a window inside the input
//     horizontally is summed as KH runs of KW * C values, one that reaches past the left or
//     right edge tap by tap (runs of C values). A run in the padding reads a row of zeros:
//     x + 0 * w is x, bit for bit (the sums start at +0, so no -0 arises), which is what
//     TFLite's skipping of padded taps computes. Blocks are four neighbours along an output
//     row (1x1: four pixels in memory order); a last partial block repeats its last pixel
//     and does not store the repeats; channels past the last are zero weights, not stored.
//     A 1x1 convolution whose output may take its input's memory copies the block's four
//     input pixels first (choose_staging), as the generic kernel does pixel by pixel.
//   - depthwise convolutions (multiplier 1, channels a multiple of 4): four channels of one
//     pixel per call (aotc_dw_f32_4ch) over the part of the window inside the input (the
//     bounds computed once per pixel, not per tap), taps packed [tap][4]. When the output
//     may take the input's memory, each group of four channels is first copied as a plane
//     [H][W][4] (the generic kernel copies one channel).
//   - fully connected layers: four units per call (aotc_dot_f32_1x4), weights packed
//     [element][4]; on Helium (`mve.fp`) sixteen per call, four such blocks
//     (aotc_dot_f32_1x16), the rest four at a time.
// Every sum adds its products in TFLite's order (taps, then input channels) from zero, the
// bias after it, then the activation and the fused epilogue, as the generic kernel does:
// the results are the generic kernel's, which are TFLite's reference kernels'.
#pragma once

#include "lowering/compute/convolution.h"
#include "lowering/kernels/fc_kernels.h"

namespace aotc {

// Constant float32 filter, NHWC, groups of 1, two spatial axes, no dilation.
bool blocked_conv_f32_applies(const ConvGeometry& geometry);
// Depthwise (one input channel per group, multiplier 1), channels a multiple of 4, two
// spatial axes, no dilation.
bool depthwise_f32_applies(const ConvGeometry& geometry);

// The kernel bodies. `filter` is the constant weights ([M, KH, KW, C], or depthwise
// [1, KH, KW, M]); operands.filter is not read, operands.bias (may be null), input, output
// and input_tensor are.
ir::Stmt lower_blocked_conv_f32(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                                const ConvOperands& operands, const Tensor& filter);
ir::Stmt lower_depthwise_f32(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                             const ConvOperands& operands, const Tensor& filter);

// output[b, u] = epilogue(arithmetic.output(input[b, :] . filter[u, :] + bias[u])) with the
// problem's filter constant (either storage order); `bias` its parameter or null.
// `sixteen_units`: calls of sixteen units where there are that many (Helium targets).
ir::Stmt lower_fully_connected_f32(KernelBuilder& kb, const FcProblem& problem, const FcViews& views,
                                   const ir::Buffer& bias, bool sixteen_units = false);

}  // namespace aotc
