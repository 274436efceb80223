#include "lowering/ops/onnx/fused_clamp.h"

#include <algorithm>

namespace aotc {
namespace {

bool constant_float(const Graph& g, TensorId id) {
  return id != kNoTensor && g.tensor(id).is_constant() && g.tensor(id).dtype == DataType::Float32();
}

}  // namespace

FusedClamp leading_clamp(const Graph& g, const Node& node) {
  FusedClamp clamp;
  TensorId carried = anchor_output(node);
  for (const Node& step : node.body) {
    if (step.inputs.empty() || step.inputs[0] != carried) break;
    float lo = clamp.lo, hi = clamp.hi;
    if (step.op == "Relu") {
      lo = std::max(lo, 0.0f);
    } else if (step.op == "Clip") {
      TensorId min = step.input(1), max = step.input(2);
      if ((min != kNoTensor && !constant_float(g, min)) || (max != kNoTensor && !constant_float(g, max))) break;
      if (min != kNoTensor) lo = std::max(lo, static_cast<float>(g.tensor(min).element_as_double(0)));
      if (max != kNoTensor) hi = std::min(hi, static_cast<float>(g.tensor(max).element_as_double(0)));
    } else {
      break;
    }
    // Clip with min > max gives max everywhere; a clamp to an empty range would not.
    if (!(lo <= hi)) break;
    clamp.lo = lo;
    clamp.hi = hi;
    carried = step.outputs.at(0);
    ++clamp.steps;
  }
  return clamp;
}

}  // namespace aotc
