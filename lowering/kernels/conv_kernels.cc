#include "lowering/kernels/conv_kernels.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace aotc {
namespace {

std::vector<ConvKernel>& registry() {
  static std::vector<ConvKernel> kernels;
  return kernels;
}

// The generic loop nest (lowering/ops/convolution.h): every layout, type and arithmetic.
AOTC_REGISTER_CONV_KERNEL((ConvKernel{"portable.conv", 0, [](const ConvProblem&, const TargetFacts&) { return true; },
                                      [](KernelBuilder& kb, const ConvProblem& p, ConvOperands& ops) {
                                        ops.filter = kb.tensor_param(p.filter, "filter");
                                        ops.bias = p.bias != kNoTensor ? kb.tensor_param(p.bias, "bias") : nullptr;
                                        ops.output = kb.tensor_param(p.output, "output");
                                        return lower_convolution(kb, p.geometry, *p.arithmetic, ops);
                                      }}));

}  // namespace

void register_conv_kernel(ConvKernel kernel) {
  std::vector<ConvKernel>& kernels = registry();
  // Highest priority first; among equal priorities, in registration order.
  auto at = std::find_if(kernels.begin(), kernels.end(), [&](const ConvKernel& k) { return k.priority < kernel.priority; });
  kernels.insert(at, std::move(kernel));
}

std::vector<std::string> registered_conv_kernels() {
  std::vector<std::string> names;
  for (const ConvKernel& kernel : registry()) names.push_back(kernel.name);
  return names;
}

const ConvKernel& select_conv_kernel(const ConvProblem& problem, const TargetFacts& target) {
  for (const ConvKernel& kernel : registry())
    if (kernel.applies(problem, target)) return kernel;
  throw std::logic_error("no convolution kernel applies (portable.conv should)");
}

LoweredOp build_conv_kernel(KernelBuilder& kb, const ConvProblem& problem) {
  const ConvKernel& kernel = select_conv_kernel(problem, kb.target());
  ConvOperands ops;
  ops.input = kb.tensor_param(problem.input, "input");
  ops.input_tensor = problem.input;
  LoweredOp lowered = kb.finish(kernel.build(kb, problem, ops));
  lowered.func.attrs["kernel"] = kernel.name;
  return lowered;
}

}  // namespace aotc
