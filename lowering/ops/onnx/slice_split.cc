// Operators that cut a tensor into parts: Slice (one strided box of the input) and Split
// (consecutive pieces along one axis, one output each).
//
// What decides the output shapes must be known at compile time: Slice's starts, ends,
// axes and steps (attributes before opset 10, inputs since) and Split's sizes (an
// attribute before opset 13, an optional input since). Exporters often compute them from
// Shape (PyTorch's `chunk`); infer_shapes folds that arithmetic into constants first.
#include <algorithm>
#include <numeric>

#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

// ---------------------------------------------------------------- Slice

// Along one axis the output takes `count` elements start, start + step, ...
struct AxisSlice {
  int64_t start = 0, step = 1, count = 0;
};

// ONNX's rules: negative starts and ends count from the end; then, for a positive step,
// both are clamped to [0, dim], for a negative step start to [0, dim - 1] and end to
// [-1, dim - 1]; the axis keeps ceil((end - start) / step) elements, or none.
AxisSlice slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
  // A step longer than the axis takes at most one element: limit it, so that the
  // arithmetic below and the kernel's index stay small.
  step = std::clamp<int64_t>(step, -(dim + 1), dim + 1);
  int64_t span = end - start;
  int64_t count = step > 0 ? (span + step - 1) / step : (-span + -step - 1) / -step;
  return {start, step, std::max<int64_t>(count, 0)};
}

std::vector<AxisSlice> plan_slice(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> starts, ends, axes, steps;
  bool axes_given = false;
  if (g.opset < 10) {
    starts = node.attr_ints("starts");
    ends = node.attr_ints("ends");
    axes_given = node.has_attr("axes");
    axes = node.attr_ints("axes");
  } else {
    starts = constant_ints(g, node, 1, "starts");
    ends = constant_ints(g, node, 2, "ends");
    axes_given = has_input(node, 3);
    if (axes_given) axes = constant_ints(g, node, 3, "axes");
    if (has_input(node, 4)) steps = constant_ints(g, node, 4, "steps");
  }
  if (!axes_given) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), int64_t{0});
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    node_error(node, "starts, ends, axes and steps have different lengths (" + std::to_string(starts.size()) + ", " +
                         std::to_string(ends.size()) + ", " + std::to_string(axes.size()) + ", " +
                         std::to_string(steps.size()) + ")");
  axes = normalized_axes(node, axes, rank);
  std::vector<AxisSlice> plan;
  for (int64_t dim : x.shape) plan.push_back({0, 1, dim});
  for (size_t i = 0; i < axes.size(); ++i) {
    if (steps[i] == 0) node_error(node, "step 0 on axis " + std::to_string(axes[i]));
    size_t axis = static_cast<size_t>(axes[i]);
    plan[axis] = slice_axis(x.shape[axis], starts[i], ends[i], steps[i]);
  }
  return plan;
}

void infer_slice(Graph& g, Node& node) {
  std::vector<int64_t> shape;
  for (const AxisSlice& a : plan_slice(g, node)) shape.push_back(a.count);
  // An empty slice of a constant is allowed: it is computed at compile time (an empty
  // prefix of a shape, as in LayerNormalization's function body with axis 0) and only
  // shape arithmetic, such as a Concat, reads it.
  if (!g.tensor(node.inputs[0]).is_constant()) require_elements(node, shape);
  set_output(g, node, 0, g.tensor(node.inputs[0]).dtype, shape);
}

LoweredOp lower_slice(const Graph& g, const Node& node, KernelBuilder& kb) {
  std::vector<AxisSlice> plan = plan_slice(g, node);
  return lower_rearrangement(kb, [&](const std::vector<Expr>& out) {
    std::vector<Expr> in;
    for (size_t d = 0; d < out.size(); ++d) {
      const AxisSlice& a = plan[d];
      Expr strided = a.step == 1 ? out[d] : out[d] * ir::make_int(a.step);
      in.push_back(a.start == 0 ? strided : strided + ir::make_int(a.start));
    }
    return in;
  });
}

// ---------------------------------------------------------------- Split

struct SplitPlan {
  size_t axis;
  std::vector<int64_t> sizes;  // one per output
};

// The sizes: given (attribute or input), else equal parts (opset 18's num_outputs: parts
// of ceil(dim / n), the last one smaller).
SplitPlan plan_split(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) node_error(node, "the input must have rank >= 1");
  SplitPlan plan{static_cast<size_t>(normalize_axis(node, node.attr_int("axis", 0), rank)), {}};
  int64_t dim = x.shape[plan.axis];
  int64_t outputs = static_cast<int64_t>(node.outputs.size());
  if (outputs == 0) node_error(node, "Split needs at least one output");
  if (g.opset < 13 && node.has_attr("split")) plan.sizes = node.attr_ints("split");
  if (g.opset >= 13 && has_input(node, 1)) plan.sizes = constant_ints(g, node, 1, "split");
  if (!plan.sizes.empty()) {
    if (static_cast<int64_t>(plan.sizes.size()) != outputs)
      node_error(node, "split has " + std::to_string(plan.sizes.size()) + " sizes for " + std::to_string(outputs) + " outputs");
    int64_t total = 0;
    for (int64_t s : plan.sizes) {
      if (s < 0) node_error(node, "split " + shape_str(plan.sizes) + " has a negative size");
      check_tensor_sized(node, "split value", s);  // the sum below could overflow
      total += s;
    }
    if (total != dim)
      node_error(node, "split " + shape_str(plan.sizes) + " adds up to " + std::to_string(total) + ", not to the " +
                           std::to_string(dim) + " elements of axis " + std::to_string(plan.axis));
    return plan;
  }
  if (node.has_attr("num_outputs")) {
    int64_t n = node.attr_int("num_outputs", outputs);
    if (n != outputs) node_error(node, "num_outputs " + std::to_string(n) + " but " + std::to_string(outputs) + " outputs");
    int64_t part = (dim + n - 1) / n;
    for (int64_t i = 0; i < n; ++i) plan.sizes.push_back(std::clamp<int64_t>(dim - i * part, 0, part));
    return plan;
  }
  if (dim % outputs != 0)
    node_error(node, "axis " + std::to_string(plan.axis) + " of " + std::to_string(dim) + " elements does not split into " +
                         std::to_string(outputs) + " equal parts");
  plan.sizes.assign(static_cast<size_t>(outputs), dim / outputs);
  return plan;
}

void infer_split(Graph& g, Node& node) {
  SplitPlan plan = plan_split(g, node);
  const Tensor& x = g.tensor(node.inputs[0]);
  for (size_t i = 0; i < plan.sizes.size(); ++i) {
    std::vector<int64_t> shape = x.shape;
    shape[plan.axis] = plan.sizes[i];
    if (node.outputs[i] != kNoTensor) require_elements(node, shape, "output " + std::to_string(i));
    set_output(g, node, i, x.dtype, shape);
  }
}

// One loop nest per output, each copying its piece.
LoweredOp lower_split(const Graph& g, const Node& node, KernelBuilder& kb) {
  SplitPlan plan = plan_split(g, node);
  ir::Buffer x = kb.input(0, "X");
  std::vector<ir::Stmt> copies;
  int64_t offset = 0;
  for (size_t i = 0; i < plan.sizes.size(); ++i) {
    TensorId out = node.outputs[i];
    if (out != kNoTensor) {
      ir::Buffer y = kb.output(i, "Y" + std::to_string(i));
      copies.push_back(ir::loop_nest(g.tensor(out).shape, {}, [&](const std::vector<Expr>& at) {
        std::vector<Expr> in = at;
        if (offset != 0) in[plan.axis] = at[plan.axis] + ir::make_int(offset);
        return ir::store(y, at, ir::load(x, in));
      }));
    }
    offset += plan.sizes[i];
  }
  return kb.finish(ir::seq(copies));
}

AOTC_REGISTER_OP("Slice", kernel_op(infer_slice, lower_slice).with({Role::kAnchor}));
AOTC_REGISTER_OP("Split", kernel_op(infer_split, lower_split));

}  // namespace
}  // namespace aotc
