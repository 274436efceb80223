// The convolution kernels and how one is chosen for a convolution: the kernel strategy.
//
// A front end (TFLite's CONV_2D and DEPTHWISE_CONV_2D today) reads its operator's attributes
// and tensors into a ConvProblem: the geometry, the arithmetic (how terms enter the sum and
// the sum becomes an output), which tensors are constant and how they are quantized. Then
// build_conv_kernel takes, of the kernels registered for convolutions, the one of highest
// priority whose applies() accepts the problem on the target, and builds it. The kernels
// live one family per folder, lowering/kernels/<isa>/, each registering itself (with
// AOTC_REGISTER_KERNEL) beside its builder, and only they test the target's features;
// the generic loops (lowering/compute/convolution.h, registered here as "portable.conv")
// apply to every problem. A kernel registers with
//   AOTC_REGISTER_KERNEL(ConvKernels, ({"<family>.<kernel>", priority, applies, build}));
// The chosen kernel's name is the function's "kernel" attribute, which metadata.json lists
// per step and --print-after shows.
//
// This is TVM's operator strategy (implementations registered per target with priorities)
// in the small: a kernel family for a new ISA is a new folder, its registrations and the
// target feature that enables it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lowering/kernels/kernel_registry.h"
#include "lowering/compute/convolution.h"

namespace aotc {

// A convolution as the kernels see it, whichever operator it came from.
struct ConvProblem {
  ConvGeometry geometry;
  bool depthwise = false;  // one input channel per group (FilterLayout::kOneKO)
  ConvArithmetic* arithmetic = nullptr;
  TensorId input = kNoTensor, filter = kNoTensor, bias = kNoTensor, output = kNoTensor;
  // What kernels that fold and pack at compile time read: the filter and bias tensors and
  // the input's zero point.
  FoldedConvConstants constants;
  // int8 input with a constant filter of zero points 0 and a constant bias (or none): the
  // input's zero point can be folded into the bias and the weights packed.
  bool int8_constant_symmetric = false;
  // float32 input with a constant float32 filter: the weights can be packed.
  bool float32_constant_filter = false;
  // The arithmetic as TFLite's per-channel requantization, when it is that.
  std::optional<ChannelRequantization> requantization;
  // The leading clamp of the node's fused epilogue (float kernels that clamp in registers).
  FusedClamp clamp;
  // The fused epilogue as a residual ADD, when it is one (kernels that add vectors of it).
  std::optional<FusedResidualAdd> residual_add;
  // The kernel's parameter names, as the operator's definition names its operands.
  std::string input_name = "input", filter_name = "filter", bias_name = "bias", output_name = "output";
};

using ConvKernels = KernelRegistry<ConvProblem, ConvOperands>;

// Whether `problem`, channels-first, would take a kernel of higher priority channels-last
// on `target` (the register blocks of the DSP, Helium and FPU families read a pixel's
// channels as one run): what a front end's prefers_channels_last answers.
bool channels_last_pays(const ConvProblem& problem, const TargetFacts& target);

// The lowered kernel of `problem`: its input declared first, then the selected kernel's
// parameters and body; the function's "kernel" attribute names the kernel.
LoweredOp build_conv_kernel(KernelBuilder& kb, const ConvProblem& problem);

}  // namespace aotc
