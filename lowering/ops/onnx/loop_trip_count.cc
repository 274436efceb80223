#include "lowering/ops/onnx/loop_trip_count.h"

#include <algorithm>
#include <map>
#include <set>

#include "aot/base/element_bytes.h"
#include "aot/passes/graph_passes.h"
#include "lowering/ops/onnx/control_flow.h"

namespace aotc {
namespace {

// The nodes of `body` that the condition output depends on, in order, and the carried
// values (indices into the loop's carried values) they read. nullopt when the slice
// contains control flow or a fused node.
struct Slice {
  std::vector<Node> nodes;
  std::set<size_t> carried;
  bool reads_iteration = false;
};

std::optional<Slice> condition_slice(const Subgraph& body) {
  std::map<TensorId, size_t> producer;
  for (size_t n = 0; n < body.nodes.size(); ++n)
    for (TensorId out : body.nodes[n].outputs) producer[out] = n;
  std::map<TensorId, size_t> carried_param;  // parameter -> carried index
  for (size_t i = 2; i < body.inputs.size(); ++i) carried_param[body.inputs[i]] = i - 2;

  Slice slice;
  std::set<size_t> needed;
  std::vector<TensorId> pending{body.outputs.at(0)};
  std::set<TensorId> seen;
  while (!pending.empty()) {
    TensorId id = pending.back();
    pending.pop_back();
    if (id == kNoTensor || !seen.insert(id).second) continue;
    if (id == body.inputs.at(0)) slice.reads_iteration = true;
    if (auto c = carried_param.find(id); c != carried_param.end() && slice.carried.insert(c->second).second)
      pending.push_back(body.outputs.at(1 + c->second));  // its next value decides the next test
    auto p = producer.find(id);
    if (p == producer.end() || !needed.insert(p->second).second) continue;
    const Node& n = body.nodes[p->second];
    if (!n.subgraphs.empty() || !n.body.empty()) return std::nullopt;
    for (TensorId in : n.inputs) pending.push_back(in);
  }
  for (size_t n : needed) slice.nodes.push_back(body.nodes[n]);  // std::set: in body order
  return slice;
}

}  // namespace

std::optional<int64_t> counted_trips(const Graph& g, const Node& loop) {
  if (loop.input(0) != kNoTensor) return std::nullopt;  // a trip count of its own
  TensorId first = loop.input(1);
  if (first != kNoTensor && (!g.tensor(first).is_constant() || g.tensor(first).num_elements() != 1)) return std::nullopt;
  const Subgraph& body = subgraph(loop, "body");
  if (body.inputs.size() < 2 || body.outputs.empty() || body.outputs.size() + 1 < body.inputs.size()) return std::nullopt;
  std::optional<Slice> slice = condition_slice(body);
  if (!slice) return std::nullopt;

  // What the slice reads besides its own results must be a constant, or a parameter: the
  // iteration number, the condition (true in every iteration that runs), or a carried
  // value that starts constant.
  std::set<TensorId> made;
  for (const Node& n : slice->nodes) made.insert(n.outputs.begin(), n.outputs.end());
  std::map<TensorId, std::vector<uint8_t>> value;  // parameter -> its value in this iteration
  for (size_t c : slice->carried) {
    const Tensor& start = g.tensor(loop.inputs.at(2 + c));
    if (!start.is_constant()) return std::nullopt;
    value[body.inputs[2 + c]] = *start.data;
  }
  value[body.inputs[1]] = {1};
  for (const Node& n : slice->nodes)
    for (TensorId in : n.inputs)
      if (in != kNoTensor && !made.count(in) && !value.count(in) && in != body.inputs[0] && !g.tensor(in).is_constant())
        return std::nullopt;

  // The slice as a graph of its own, small enough to copy once per iteration.
  Graph mini;
  mini.source_format = g.source_format;
  mini.opset = g.opset;
  std::map<TensorId, TensorId> local;
  auto map_id = [&](TensorId id) {
    if (id == kNoTensor) return id;
    auto it = local.find(id);
    if (it != local.end()) return it->second;
    return local[id] = mini.add_tensor(g.tensor(id));
  };
  for (const Node& n : slice->nodes) {
    Node copy = n;
    for (TensorId& in : copy.inputs) in = map_id(in);
    for (TensorId& out : copy.outputs) out = map_id(out);
    mini.nodes.push_back(std::move(copy));
  }
  TensorId condition = map_id(body.outputs[0]);
  std::vector<std::pair<TensorId, TensorId>> next;  // parameter -> its value after the body
  for (size_t c : slice->carried) next.emplace_back(body.inputs[2 + c], map_id(body.outputs[1 + c]));

  bool running = first == kNoTensor || g.tensor(first).element_as_int(0) != 0;
  for (int64_t t = 0; running; ++t) {
    if (t >= kMostCountedIterations || t * static_cast<int64_t>(mini.nodes.size()) > kMostCountedNodeRuns) return std::nullopt;
    Graph step = mini;
    for (auto& [param, bytes] : value)
      if (local.count(param)) step.tensor(local[param]).data = bytes;
    if (local.count(body.inputs[0]))
      step.tensor(local[body.inputs[0]]).data = encode_int_elements(DataType::Int(64), {t});
    try {
      infer_shapes(step);
      fold_constants(step);
    } catch (const CompileError&) {
      return std::nullopt;  // the Loop's own shape function says what is wrong, if anything
    }
    const Tensor& c = step.tensor(condition);
    if (!c.is_constant() || c.num_elements() != 1) return std::nullopt;
    for (auto& [param, result] : next) {
      if (!step.tensor(result).is_constant()) return std::nullopt;
      value[param] = *step.tensor(result).data;
    }
    running = c.element_as_int(0) != 0;
    if (!running) return t + 1;
  }
  return 0;  // the condition is false before the first iteration
}

}  // namespace aotc
