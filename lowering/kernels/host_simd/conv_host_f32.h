// float32 NCHW convolutions on hosts with wide SIMD (the target's `simd` feature): one call
// per image of a kernel of runtime-c/aotc_host_f32.h, over weights packed at compile time;
// and a fully connected layer of one row ("host_simd.fc_f32", a classifier's Gemm or
// MatMul) as a 1x1 convolution on a 1x1 image.
//
// The generic kernel (convolution.h) sums one output element at a time, a chain of
// dependent multiply-adds that no compiler vectorizes across outputs. Here a convolution
// with groups of 1 is a register-blocked matrix product (4 channels x 16 or 32 pixels, or
// 16 channels x 6 or 12 pixels when there are fewer than 32 pixels) over weights packed in
// the order the block reads them, im2col bands for windows larger than 1x1; a 3x3
// depthwise convolution sums nine taps per output over a zero-padded copy of each channel,
// other depthwise kernels a row-wise multiply-add per tap. Both add the bias and clamp (a
// fused ReLU, or a Clip with constant bounds) in registers before the only store.
//
// Any other fused epilogue (a residual Add...) runs afterwards, element by element, from a
// workspace copy of the kernel's output: the epilogue may read a tensor that the output
// takes the place of, which a whole-tensor kernel would have overwritten.
//
// Not for microcontrollers (their targets lack `simd`): the packed weights, 64 KiB im2col
// bands and block sizes are a host's.
#pragma once

#include "lowering/kernels/conv_kernels.h"
#include "lowering/kernels/fc_kernels.h"

namespace aotc {

// True if the problem can take this path (registered as "host_simd.conv_f32"): the target
// has `simd`, float32 NCHW, two spatial axes, no dilation, constant weights and bias, groups
// of 1 or depthwise (one input channel per output channel).
bool host_f32_conv_applies(const ConvProblem& problem, const TargetFacts& target);

// Declares the output parameter; the kernel body, with the filter and bias packed into its
// table and the problem's leading clamp applied in registers.
ir::Stmt lower_host_f32_conv(KernelBuilder& kb, const ConvProblem& problem, ConvOperands& operands);

}  // namespace aotc
