// The leading clamp of an ONNX node's fused epilogue: the steps right after the anchor that
// are a Relu or a Clip with constant (or absent) bounds, as one FusedClamp range
// (convolution.h). Kernels that clamp in registers (lowering/kernels/host_simd) take it
// from the problem the front end describes; the steps after it stay element-wise.
#pragma once

#include "lowering/compute/convolution.h"

namespace aotc {

FusedClamp leading_clamp(const Graph& g, const Node& node);

}  // namespace aotc
