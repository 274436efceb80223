#include "aot/graph/op_registry.h"

#include <map>
#include <stdexcept>

#include "aot/graph/lowered_op.h"

namespace aotc {

static std::map<std::string, OpDef>& registry() {
  static std::map<std::string, OpDef> table;
  return table;
}

OpDef& OpDef::with(std::initializer_list<Role> added) {
  for (Role r : added) {
    if (r == Role::kEpilogue && !scalar) throw std::logic_error("an epilogue operator needs a scalar form");
    roles.insert(r);
  }
  return *this;
}

OpDef kernel_op(InferFn infer, LowerFn lower) {
  OpDef def;
  def.infer = std::move(infer);
  def.lower = std::move(lower);
  return def;
}

OpDef view_op(InferFn infer) {
  OpDef def;
  def.infer = std::move(infer);
  def.lower = [](const LowerContext& ctx) -> LoweredOp {
    node_error(ctx.node, "internal: a view operator has no kernel");
  };
  def.is_view = true;
  return def;
}

OpDef control_flow_op(InferFn infer, ExpandFn expand) {
  OpDef def;
  def.infer = std::move(infer);
  def.expand = std::move(expand);
  def.lower = [](const LowerContext& ctx) -> LoweredOp {
    node_error(ctx.node, "internal: a control-flow operator has no kernel of its own");
  };
  return def;
}

const OpDef* find_op(const std::string& op) {
  auto it = registry().find(op);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<std::string> registered_ops() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.first);
  return names;
}

std::map<TensorId, TensorId> view_inputs(const Graph& g) {
  std::map<TensorId, TensorId> views;
  for_each_node(g.nodes, [&](const Node& n) {
    if (find_op(n.op)->is_view) views[n.outputs[0]] = n.inputs[0];
  });
  return views;
}

void register_op(const std::string& op, OpDef def) { registry()[op] = std::move(def); }

void set_output(Graph& g, const Node& node, size_t index, DataType dtype, std::vector<int64_t> shape) {
  if (index >= node.outputs.size() || node.outputs[index] == kNoTensor) return;
  Tensor& t = g.tensor(node.outputs[index]);
  std::string problem = shape_size_problem(shape);
  if (!problem.empty()) node_error(node, "output '" + t.name + "' cannot be made: " + problem);
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.shape_known = true;
}

const Tensor& require_input(const Graph& g, const Node& node, size_t index) {
  TensorId id = node.input(index);
  if (id == kNoTensor) node_error(node, "input " + std::to_string(index) + " is required");
  const Tensor& t = g.tensor(id);
  if (!t.shape_known) node_error(node, "the shape of input '" + t.name + "' is not known");
  return t;
}

std::vector<int64_t> broadcast_shapes(const Node& node, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      node_error(node, "shapes " + shape_str(a) + " and " + shape_str(b) + " cannot be broadcast together");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t normalize_axis(const Node& node, int64_t axis, int64_t rank) {
  // A scalar has no axis: every caller indexes the shape with the result.
  if (axis < -rank || axis >= rank)
    node_error(node, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

void require_float32(const Graph& g, const Node& node, size_t index) {
  const Tensor& t = require_input(g, node, index);
  if (t.dtype != DataType::Float32())
    node_error(node, "input '" + t.name + "' is " + t.dtype.str() + "; only float32 is supported here");
}

}  // namespace aotc
