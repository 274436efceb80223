#include "lowering/kernels/conv_kernels.h"

#include "lowering/compute/output_overlap.h"

namespace aotc {
namespace {

// The generic loop nest (lowering/compute/convolution.h): every layout, type and arithmetic.
AOTC_REGISTER_KERNEL(ConvKernels, ({"portable.conv", 0, [](const ConvProblem&, const TargetFacts&) { return true; },
                                    [](KernelBuilder& kb, const ConvProblem& p, ConvOperands& ops) {
                                      ops.filter = kb.tensor_param(p.filter, p.filter_name);
                                      ops.bias = p.bias != kNoTensor ? kb.tensor_param(p.bias, p.bias_name) : nullptr;
                                      ops.output = kb.tensor_param(p.output, p.output_name);
                                      return lower_convolution(kb, p.geometry, *p.arithmetic, ops);
                                    },
                                    /*pixels_in_flight=*/1}));

}  // namespace

bool channels_last_pays(const ConvProblem& problem, const TargetFacts& target) {
  const ConvGeometry& c = problem.geometry;
  if (c.layout != ActivationLayout::kChannelsFirst || c.axes.size() != 2) return false;
  ConvProblem last = problem;
  last.depthwise = c.groups > 1 && c.groups == c.in_channels && c.in_per_group() == 1;
  last.geometry.layout = ActivationLayout::kChannelsLast;
  last.geometry.filter_layout = last.depthwise ? FilterLayout::kOneKO : FilterLayout::kOKI;
  return ConvKernels::select(last, target).priority > ConvKernels::select(problem, target).priority;
}

LoweredOp build_conv_kernel(KernelBuilder& kb, const ConvProblem& problem) {
  const ConvKernels::Entry& kernel = ConvKernels::select(problem, kb.target());
  ConvOperands ops;
  ops.input = kb.tensor_param(problem.input, problem.input_name);
  ops.input_tensor = problem.input;
  LoweredOp lowered = kb.finish(kernel.build(kb, problem, ops));
  if (kernel.pixels_in_flight > 0 && problem.geometry.layout == ActivationLayout::kChannelsLast)
    allow_pixel_order_overlap(lowered, kb.graph(), problem.input, problem.output, problem.geometry.axes,
                              kernel.pixels_in_flight);
  if (kernel.channel_planes && problem.depthwise && problem.geometry.layout == ActivationLayout::kChannelsLast)
    allow_channel_plane_overlap(lowered, kb.graph(), problem.input, problem.output);
  lowered.func.attrs["kernel"] = kernel.name;
  return lowered;
}

}  // namespace aotc
