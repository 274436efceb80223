// Checks shared by the shape functions of the TFLite operators (tflite_*.cc).
//
// A .tflite file declares the type and shape of every tensor. The shape functions still
// recompute them from the inputs, and a disagreement is an error: it means the file is
// damaged or the operator's semantics were misunderstood, and either way the generated
// code would be wrong.
#pragma once

#include <string>
#include <vector>

#include "aot/graph/graph.h"
#include "aot/graph/op_registry.h"
#include "lowering/ops/tflite/tflite_common.h"

namespace aotc::tflite {

// Sets output `index` of `node` to (dtype, shape), which must agree with what the model
// declares for that tensor.
inline void set_declared_output(Graph& g, const Node& node, size_t index, DataType dtype,
                                const std::vector<int64_t>& shape) {
  const Tensor& out = g.tensor(node.outputs.at(index));
  if (out.dtype != dtype)
    node_error(node, "output '" + out.name + "' is " + out.dtype.str() + " in the model but the operator computes " +
                         dtype.str());
  if (out.shape_known && out.shape != shape)
    node_error(node, "output '" + out.name + "' is " + shape_str(out.shape) +
                         " in the model but the operator computes " + shape_str(shape));
  set_output(g, node, index, dtype, shape);
}

// Requires tensor `id` to carry one scale and one zero point.
inline void require_per_tensor_quantized(const Graph& g, const Node& node, TensorId id) {
  require_quantized(g, node, id);
  if (is_per_channel(g, id))
    node_error(node, "tensor '" + g.tensor(id).name + "' is quantized per channel; this operator needs one scale");
}

}  // namespace aotc::tflite
