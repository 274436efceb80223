// Pooling: MaxPool, AveragePool and GlobalAveragePool over any number of spatial axes.
//
// All three are one loop nest: for each output element, a reduction over the input
// elements of its window into a local accumulator, then one store through the fused
// epilogue. They differ only in the reduction (max or sum), its start value, and how
// the finished value is derived (as is, or divided by the element count).
//
// Padding is never read: MaxPool starts from -infinity and skips padded taps, so padding
// never wins; AveragePool skips them too and accounts for them only in its divisor.
// GlobalAveragePool is an AveragePool whose window is the whole input.
#include <limits>

#include "lowering/ops/kernel_builder.h"
#include "aot/graph/op_registry.h"
#include "lowering/ops/reduction.h"
#include "lowering/ops/window.h"

namespace aotc {
namespace {

using ir::Expr;

struct PoolReduction {
  Expr init;
  std::function<Expr(const Expr& acc, const Expr& x)> combine;
  // The output element from the finished accumulator and the window's output position.
  std::function<Expr(const Expr& acc, const std::vector<Expr>& out_pos)> finish;
};

LoweredOp lower_pool(const LowerContext& ctx,
                     const std::vector<WindowAxis>& axes, const PoolReduction& reduction) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  const std::vector<int64_t>& x_shape = g.tensor(node.inputs[0]).shape;

  std::vector<std::string> names = {"n", "c"};
  for (const std::string& s : spatial_names('o', axes.size())) names.push_back(s);
  std::vector<int64_t> out_shape = windowed_output_shape(x_shape, x_shape[1], axes);
  ir::Stmt body = ir::loop_nest(out_shape, names, [&](const std::vector<Expr>& out_index) {
    std::vector<Expr> out_pos(out_index.begin() + 2, out_index.end());
    return with_accumulator("acc", reduction.init, [&](const Accumulator& acc) {
      ir::Stmt window = for_each_tap(axes, out_pos, [&](const std::vector<Expr>&, const std::vector<Expr>& input_pos) {
        std::vector<Expr> x_index = {out_index[0], out_index[1]};
        x_index.insert(x_index.end(), input_pos.begin(), input_pos.end());
        return acc.set(reduction.combine(acc.value(), ir::load(x, x_index)));
      });
      Expr result = reduction.finish(acc.value(), out_pos);
      return ir::seq({window, ir::store(y, out_index, kb.epilogue(result, out_index))});
    });
  });
  return kb.finish(body);
}

// Window geometry of MaxPool and AveragePool (kernel_shape, strides, pads, auto_pad,
// ceil_mode, dilations) for input 0.
std::vector<WindowAxis> pool_window(const Graph& g, const Node& node) {
  require_spatial_input(g, node, 0);
  const std::vector<int64_t>& x_shape = g.tensor(node.inputs[0]).shape;
  std::vector<int64_t> input_extents(x_shape.begin() + 2, x_shape.end());
  std::vector<int64_t> kernel = pooling_kernel_shape(node, input_extents.size());
  return resolve_window(node, input_extents, kernel, WindowKind::kPooling);
}

void set_pool_output(Graph& g, const Node& node, const std::vector<WindowAxis>& axes) {
  const std::vector<int64_t>& x_shape = g.tensor(node.inputs[0]).shape;
  set_output(g, node, 0, DataType::Float32(), windowed_output_shape(x_shape, x_shape[1], axes));
}

// ---------------------------------------------------------------- MaxPool

// The optional Indices output (argmax positions) is not computed. A model may still
// declare it if nothing reads it; it is then given its type and shape and left unwritten.
void check_max_pool_indices(Graph& g, const Node& node) {
  if (node.outputs.size() < 2 || node.outputs[1] == kNoTensor) return;
  TensorId indices = node.outputs[1];
  if (g.is_graph_output(indices) || !g.consumers(indices).empty())
    node_error(node, "MaxPool Indices output is not supported");
  const Tensor& y = g.tensor(node.outputs[0]);
  set_output(g, node, 1, DataType::Int(64), y.shape);
}

void infer_max_pool(Graph& g, Node& node) {
  std::vector<WindowAxis> axes = pool_window(g, node);
  int64_t storage_order = node.attr_int("storage_order", 0);
  if (storage_order != 0 && storage_order != 1) node_error(node, "storage_order must be 0 or 1");
  set_pool_output(g, node, axes);
  check_max_pool_indices(g, node);
}

LoweredOp lower_max_pool(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  PoolReduction max;
  max.init = ir::make_float(-std::numeric_limits<double>::infinity());
  max.combine = [](const Expr& acc, const Expr& x) { return ir::max(acc, x); };
  max.finish = [](const Expr& acc, const std::vector<Expr>&) { return acc; };
  return lower_pool(ctx, pool_window(g, node), max);
}

// ---------------------------------------------------------------- AveragePool

// How many taps of the window at output position `o` along `axis` the average divides
// by. The counted coordinates are the input's, plus the padding with count_include_pad;
// taps beyond the end padding (the partial last window of ceil_mode) never count.
// Constant when no window is clipped, which is the usual case.
Expr counted_taps(const WindowAxis& axis, const Expr& o, bool count_include_pad) {
  int64_t lo = count_include_pad ? -axis.pad_begin : 0;
  int64_t hi = count_include_pad ? axis.input + axis.pad_end : axis.input;
  TapRange range = tap_range(axis, o, lo, hi);
  return range.end - range.first;
}

std::vector<WindowAxis> average_pool_window(const Graph& g, const Node& node, bool* count_include_pad) {
  int64_t include = node.attr_int("count_include_pad", 0);
  if (include != 0 && include != 1) node_error(node, "count_include_pad must be 0 or 1");
  *count_include_pad = include == 1;
  return pool_window(g, node);
}

void infer_average_pool(Graph& g, Node& node) {
  bool count_include_pad = false;
  set_pool_output(g, node, average_pool_window(g, node, &count_include_pad));
}

PoolReduction average(const std::vector<WindowAxis>& axes, bool count_include_pad) {
  PoolReduction sum;
  sum.init = ir::make_float(0.0);
  sum.combine = [](const Expr& acc, const Expr& x) { return acc + x; };
  sum.finish = [axes, count_include_pad](const Expr& acc, const std::vector<Expr>& out_pos) {
    Expr count = 1;
    for (size_t i = 0; i < axes.size(); ++i) count = count * counted_taps(axes[i], out_pos[i], count_include_pad);
    return acc / ir::cast(DataType::Float32(), count);
  };
  return sum;
}

LoweredOp lower_average_pool(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  bool count_include_pad = false;
  std::vector<WindowAxis> axes = average_pool_window(g, node, &count_include_pad);
  return lower_pool(ctx, axes, average(axes, count_include_pad));
}

// ---------------------------------------------------------------- GlobalAveragePool

// One window covering each spatial axis whole.
std::vector<WindowAxis> global_window(const Graph& g, const Node& node) {
  require_spatial_input(g, node, 0);
  const std::vector<int64_t>& x_shape = g.tensor(node.inputs[0]).shape;
  std::vector<WindowAxis> axes;
  for (size_t i = 2; i < x_shape.size(); ++i) {
    WindowAxis axis;
    axis.input = axis.kernel = x_shape[i];
    axis.output = 1;
    axes.push_back(axis);
  }
  return axes;
}

void infer_global_average_pool(Graph& g, Node& node) { set_pool_output(g, node, global_window(g, node)); }

LoweredOp lower_global_average_pool(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  std::vector<WindowAxis> axes = global_window(g, node);
  return lower_pool(ctx, axes, average(axes, false));
}

AOTC_REGISTER_OP("MaxPool", kernel_op(infer_max_pool, lower_max_pool).with({Role::kAnchor}));
AOTC_REGISTER_OP("AveragePool", kernel_op(infer_average_pool, lower_average_pool).with({Role::kAnchor}));
AOTC_REGISTER_OP("GlobalAveragePool", kernel_op(infer_global_average_pool, lower_global_average_pool).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
