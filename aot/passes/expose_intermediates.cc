// expose_intermediates: for `aotc run --dump-tensors`, every intermediate tensor of the
// model becomes a graph output, so that the compiled program writes it where the runner
// can read it.
//
// A graph output is never fused into the kernel that reads it (fuse_operators), never
// folded into a Conv (BatchNormalization), and has memory of its own that no later kernel
// writes over: so exposing the intermediates is what turns fusion off for them, and the
// dump build runs one kernel per model node. It runs after fold_qdq and fold_constants,
// so that the dump build computes what the normal build computes: the same integer kernels
// for a QDQ model, the same constants; and before channels_last and partition_external, so
// that the layers moved to channels-last keep their model tensors (a graph output's
// transpose stays) and the layers an NPU runs write theirs out of its region. The model
// tensors those passes took away have no run-time value; each record says why
// (ModelTensor::absent), and a tensor fold_constants computed is dumped with its
// compile-time value.
#include <set>

#include "aot/graph/external.h"
#include "aot/passes/graph_passes.h"

namespace aotc {
namespace {

// What the integers of a quantized output mean: the tensor's own quantization, or the
// constant scale and zero point of the QuantizeLinear that computes it.
Quantization output_quantization(const Graph& g, const Node& n, TensorId output) {
  const Tensor& t = g.tensor(output);
  if (!t.quant.empty() || n.op != "QuantizeLinear") return t.quant;
  TensorId scale = n.input(1), zero_point = n.input(2);
  if (scale == kNoTensor || !g.tensor(scale).is_constant()) return t.quant;
  if (zero_point != kNoTensor && !g.tensor(zero_point).is_constant()) return t.quant;
  Quantization q;
  for (double s : g.tensor(scale).floats()) q.scale.push_back(static_cast<float>(s));
  q.zero_point = zero_point != kNoTensor ? g.tensor(zero_point).ints() : std::vector<int64_t>(q.scale.size(), 0);
  if (q.scale.size() > 1) {
    int64_t axis = n.attr_int("axis", 1);
    const Tensor& input = g.tensor(n.inputs[0]);
    if (axis < 0 && input.shape_known) axis += static_cast<int64_t>(input.shape.size());
    if (axis < 0) return t.quant;  // the rank is not known yet: no place to say which axis
    q.axis = static_cast<int>(axis);
  }
  return q;
}

void record_nodes(const Graph& g, const std::vector<Node>& nodes, int* order, int enclosing_order,
                  std::vector<ModelTensor>* out) {
  for (const Node& n : nodes) {
    int node_order = enclosing_order >= 0 ? enclosing_order : (*order)++;
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (n.outputs[i] == kNoTensor) continue;
      ModelTensor t;
      t.tensor = n.outputs[i];
      t.node = n.name;
      t.op = n.op;
      t.order = node_order;
      t.output_index = static_cast<int>(i);
      t.quant = output_quantization(g, n, n.outputs[i]);
      if (enclosing_order >= 0) t.absent = "computed inside a control-flow subgraph (If, Loop, Scan), once per branch or iteration";
      out->push_back(std::move(t));
    }
    for (const Subgraph& sub : n.subgraphs) record_nodes(g, sub.nodes, order, node_order, out);
  }
}

// Every tensor computed inside the regions of external functions (NPU parts).
void collect_external(const std::vector<Node>& nodes, std::set<TensorId>* inside) {
  for (const Node& n : nodes) {
    if (n.op != kExternalOp) continue;
    for (const Subgraph& sub : n.subgraphs)
      for_each_node(sub.nodes, [&](const Node& inner) { inside->insert(inner.outputs.begin(), inner.outputs.end()); });
  }
}

}  // namespace

std::vector<ModelTensor> model_tensors(const Graph& g) {
  std::vector<ModelTensor> out;
  int order = 0;
  record_nodes(g, g.nodes, &order, -1, &out);
  return out;
}

std::vector<TensorId> expose_intermediates(Graph& g, std::vector<ModelTensor>& tensors) {
  std::set<TensorId> computed, read;
  for (const Node& n : g.nodes) {
    computed.insert(n.outputs.begin(), n.outputs.end());
    read.insert(n.inputs.begin(), n.inputs.end());
  }
  std::set<TensorId> in_external;
  collect_external(g.nodes, &in_external);
  std::vector<TensorId> exposed;
  for (ModelTensor& t : tensors) {
    if (!t.absent.empty()) continue;
    const Tensor& tensor = g.tensor(t.tensor);
    if (tensor.is_constant()) {
      t.compile_time = true;
    } else if (g.is_graph_output(t.tensor)) {
      continue;
    } else if (computed.count(t.tensor) && read.count(t.tensor)) {
      // An output nobody reads (an optional output such as MaxPool's indices) is left
      // out: the model never computes it, and asking for it could change the kernel.
      g.outputs.push_back(t.tensor);
      exposed.push_back(t.tensor);
    } else if (computed.count(t.tensor)) {
      t.absent = "an output of its node that nothing in the model reads";
    } else if (in_external.count(t.tensor)) {
      t.absent = "computed inside an external function (the NPU's part of the model)";
    } else {
      t.absent = "removed by a graph pass (fold_qdq folds QuantizeLinear/DequantizeLinear patterns into integer kernels)";
    }
  }
  return exposed;
}

}  // namespace aotc
