// Pooling: MaxPool (with its optional Indices output), AveragePool, LpPool and their
// global forms GlobalMaxPool, GlobalAveragePool and GlobalLpPool, over any number of
// spatial axes.
//
// All are one loop nest: for each output element, a reduction over the input elements of
// its window into a local accumulator, then one store through the fused epilogue. They
// differ only in the reduction (max, sum, sum of |x|^p), its start value, and how the
// finished value is derived (as is, divided by the element count, or its p-th root).
//
// Padding is never read: MaxPool starts from -infinity (an integer type's minimum) and
// skips padded taps, so padding never wins; AveragePool skips them too and accounts for
// them only in its divisor; for LpPool a padded tap adds |0|^p = 0, nothing. A global
// pool is the same pool with one window covering each spatial axis whole.
//
// The 2-D poolings without an Indices output may also run channels-last ([N, H, W, C]),
// when the channels_last pass gave them that layout between channels-last convolutions
// (kChannelsLastAttr): the same loops, the channel axis last.
//
// MaxPool's Indices output is the flat index of each maximum in the input (ONNX's
// definition: padding not counted, batch and channel included), row-major over the
// spatial axes, or column-major with storage_order = 1. A tie keeps the first tap in
// window order, like ONNX Runtime.
#include <limits>

#include "aot/base/element_bytes.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/kernels/pool_kernels.h"
#include "aot/graph/op_registry.h"
#include "lowering/compute/reduction.h"
#include "lowering/compute/window.h"

namespace aotc {
namespace {

using ir::Expr;

struct PoolReduction {
  Expr init;
  std::function<Expr(const Expr& acc, const Expr& x)> combine;
  // The output element from the finished accumulator and the window's output position.
  std::function<Expr(const Expr& acc, const std::vector<Expr>& out_pos)> finish;
};

// The pooled input `x` of every pooling operator: [N, C, D1, ...] of one of `types`.
void require_pool_input(const Graph& g, const Node& node, const std::vector<DataType>& types) {
  const Tensor& x = require_input(g, node, 0);
  bool allowed = false;
  std::string names;
  for (DataType t : types) {
    allowed = allowed || x.dtype == t;
    names += (names.empty() ? "" : ", ") + t.str();
  }
  if (!allowed) node_error(node, "input '" + x.name + "' is " + x.dtype.str() + "; supported: " + names);
  if (x.shape.size() < 3)
    node_error(node, "input '" + x.name + "' has shape " + shape_str(x.shape) +
                         "; expected [N, C, D1, ...] with at least one spatial axis");
}

const std::vector<DataType> kFloatTypes = {DataType::Float32(), DataType::Float64()};

DataType input_type(const Graph& g, const Node& node) { return g.tensor(node.inputs[0]).dtype; }

bool is_channels_last(const Node& node) { return node.attr_int(kChannelsLastAttr, 0) != 0; }

// The spatial extents of x: [N, C, D1, ...], or [N, D1, ..., C] channels-last.
std::vector<int64_t> spatial_extents(const Node& node, const std::vector<int64_t>& x_shape) {
  return is_channels_last(node) ? std::vector<int64_t>(x_shape.begin() + 1, x_shape.end() - 1)
                                : std::vector<int64_t>(x_shape.begin() + 2, x_shape.end());
}

// The output's shape in the node's layout.
std::vector<int64_t> pool_output_shape(const Node& node, const std::vector<int64_t>& x_shape,
                                       const std::vector<WindowAxis>& axes) {
  if (!is_channels_last(node)) return windowed_output_shape(x_shape, x_shape[1], axes);
  std::vector<int64_t> shape = {x_shape[0]};
  for (const WindowAxis& axis : axes) shape.push_back(axis.output);
  shape.push_back(x_shape.back());
  return shape;
}

LoweredOp lower_pool(const Graph& g, const Node& node, KernelBuilder& kb, const std::vector<WindowAxis>& axes,
                     const PoolReduction& reduction) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  const std::vector<int64_t>& x_shape = g.tensor(node.inputs[0]).shape;
  const bool last = is_channels_last(node);

  std::vector<std::string> names = {"n"};
  if (!last) names.push_back("c");
  for (const std::string& s : spatial_names('o', axes.size())) names.push_back(s);
  if (last) names.push_back("c");
  std::vector<int64_t> out_shape = pool_output_shape(node, x_shape, axes);
  ir::Stmt body = ir::loop_nest(out_shape, names, [&](const std::vector<Expr>& out_index) {
    std::vector<Expr> out_pos(out_index.begin() + (last ? 1 : 2), out_index.end() - (last ? 1 : 0));
    Expr c = last ? out_index.back() : out_index[1];
    return with_accumulator("acc", reduction.init, [&](const Accumulator& acc) {
      ir::Stmt window = for_each_tap(axes, out_pos, [&](const std::vector<Expr>&, const std::vector<Expr>& input_pos) {
        std::vector<Expr> x_index = {out_index[0]};
        if (!last) x_index.push_back(c);
        x_index.insert(x_index.end(), input_pos.begin(), input_pos.end());
        if (last) x_index.push_back(c);
        return acc.set(reduction.combine(acc.value(), ir::load(x, x_index)));
      });
      Expr result = reduction.finish(acc.value(), out_pos);
      return ir::seq({window, ir::store(y, out_index, kb.epilogue(result, out_index))});
    });
  });
  return kb.finish(body);
}

// Window geometry of MaxPool, AveragePool and LpPool (kernel_shape, strides, pads,
// auto_pad, ceil_mode, dilations) for input 0.
std::vector<WindowAxis> pool_window(const Graph& g, const Node& node) {
  std::vector<int64_t> input_extents = spatial_extents(node, g.tensor(node.inputs[0]).shape);
  std::vector<int64_t> kernel = pooling_kernel_shape(node, input_extents.size());
  return resolve_window(node, input_extents, kernel, WindowKind::kPooling);
}

// One window covering each spatial axis whole.
std::vector<WindowAxis> global_window(const Graph& g, const Node& node) {
  std::vector<WindowAxis> axes;
  for (int64_t extent : spatial_extents(node, g.tensor(node.inputs[0]).shape)) {
    WindowAxis axis;
    axis.input = axis.kernel = extent;
    axis.output = 1;
    axes.push_back(axis);
  }
  return axes;
}

// The window of MaxPool, AveragePool and LpPool, or of their Global forms.
bool is_global(const Node& node) { return node.op.rfind("Global", 0) == 0; }
std::vector<WindowAxis> window_of(const Graph& g, const Node& node) {
  return is_global(node) ? global_window(g, node) : pool_window(g, node);
}

void set_pool_output(Graph& g, const Node& node, const std::vector<WindowAxis>& axes) {
  const Tensor& x = g.tensor(node.inputs[0]);
  set_output(g, node, 0, x.dtype, pool_output_shape(node, x.shape, axes));
}

// ---------------------------------------------------------------- MaxPool, GlobalMaxPool

// The smallest value of the type, where a maximum starts.
Expr lowest(DataType t) {
  if (t.is_float()) return ir::make_float(-std::numeric_limits<double>::infinity(), t);
  return ir::make_int(t.is_uint() ? 0 : -(int64_t{1} << (t.bits - 1)), t);
}

PoolReduction maximum(DataType t) {
  PoolReduction max;
  max.init = lowest(t);
  max.combine = [](const Expr& acc, const Expr& x) { return ir::max(acc, x); };
  max.finish = [](const Expr& acc, const std::vector<Expr>&) { return acc; };
  return max;
}

// The Indices output, when present: computed only if something reads it (a model may
// declare it and leave it unused; it then keeps its type and shape, unwritten).
bool indices_wanted(const Graph& g, const Node& node) {
  if (node.outputs.size() < 2 || node.outputs[1] == kNoTensor) return false;
  TensorId indices = node.outputs[1];
  return g.is_graph_output(indices) || !g.consumers(indices).empty();
}

int64_t storage_order(const Node& node) {
  int64_t order = node.attr_int("storage_order", 0);
  if (order != 0 && order != 1) node_error(node, "storage_order must be 0 or 1");
  return order;
}

void infer_max_pool(Graph& g, Node& node) {
  // Opset 12 added int8 and uint8.
  require_pool_input(g, node, {DataType::Float32(), DataType::Float64(), DataType::Int(8), DataType::UInt(8)});
  std::vector<WindowAxis> axes = pool_window(g, node);
  storage_order(node);
  set_pool_output(g, node, axes);
  if (node.outputs.size() >= 2 && node.outputs[1] != kNoTensor)
    set_output(g, node, 1, DataType::Int(64), g.tensor(node.outputs[0]).shape);
}

// The flat input index of spatial position `pos` of plane `plane` (= n * C + c).
Expr flat_input_index(const std::vector<WindowAxis>& axes, const Expr& plane, const std::vector<Expr>& pos,
                      bool column_major) {
  int64_t plane_size = 1;
  for (const WindowAxis& axis : axes) plane_size *= axis.input;
  Expr offset = 0;
  if (column_major) {
    for (size_t i = axes.size(); i-- > 0;) offset = offset * axes[i].input + pos[i];
  } else {
    for (size_t i = 0; i < axes.size(); ++i) offset = offset * axes[i].input + pos[i];
  }
  return ir::cast(DataType::Int(64), plane) * ir::make_int(plane_size, DataType::Int(64)) +
         ir::cast(DataType::Int(64), offset);
}

// MaxPool that also writes Indices: a value and an index accumulator, the index taken
// from the first tap and then from every strictly larger one.
LoweredOp lower_max_pool_with_indices(const Graph& g, const Node& node, KernelBuilder& kb,
                                      const std::vector<WindowAxis>& axes) {
  bool column_major = storage_order(node) == 1;
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  ir::Buffer indices = kb.output(1, "Indices");
  const std::vector<int64_t>& x_shape = g.tensor(node.inputs[0]).shape;
  DataType t = x->dtype;

  std::vector<std::string> names = {"n", "c"};
  for (const std::string& s : spatial_names('o', axes.size())) names.push_back(s);
  ir::Stmt body = ir::loop_nest(windowed_output_shape(x_shape, x_shape[1], axes), names, [&](const std::vector<Expr>& out) {
    std::vector<Expr> out_pos(out.begin() + 2, out.end());
    Expr plane = out[0] * x_shape[1] + out[1];
    return with_accumulator("acc", lowest(t), [&](const Accumulator& acc) {
      return with_accumulator("argmax", ir::make_int(-1, DataType::Int(64)), [&](const Accumulator& argmax) {
        ir::Stmt window = for_each_tap(axes, out_pos, [&](const std::vector<Expr>&, const std::vector<Expr>& at) {
          std::vector<Expr> x_index = {out[0], out[1]};
          x_index.insert(x_index.end(), at.begin(), at.end());
          Expr value = ir::load(x, x_index);
          Expr better = ir::binary(ir::BinaryOp::kOr, value > acc.value(), argmax.value() < 0);
          return ir::if_then_else(better, ir::seq({acc.set(value), argmax.set(flat_input_index(axes, plane, at, column_major))}));
        });
        return ir::seq({window, ir::store(y, out, kb.epilogue(acc.value(), out)), ir::store(indices, out, argmax.value())});
      });
    });
  });
  return kb.finish(body);
}

void infer_global_max_pool(Graph& g, Node& node) {
  require_pool_input(g, node, kFloatTypes);
  set_pool_output(g, node, global_window(g, node));
}

// MaxPool and GlobalMaxPool (which has no Indices output).
// A 2-D pooling channels-last and undilated (between channels-last convolutions, as the
// channels_last pass leaves it) is a PoolProblem for the kernel strategy
// (lowering/kernels/pool_kernels.h), whose kernels reduce the taps inside the input: a
// maximum, or a sum divided by the number of those taps (AveragePool without
// count_include_pad). Other poolings run the loops above.
bool is_pool_problem(const Node& node, const std::vector<WindowAxis>& axes) {
  return is_channels_last(node) && axes.size() == 2 && axes[0].dilation == 1 && axes[1].dilation == 1;
}

LoweredOp lower_pool_problem(const Graph& g, const Node& node, KernelBuilder& kb, const std::vector<WindowAxis>& axes,
                             bool average) {
  const std::vector<int64_t>& x = g.tensor(node.inputs[0]).shape;
  const DataType t = input_type(g, node);
  WindowReduction reduction;
  reduction.init = average ? ir::make_zero(t) : lowest(t);
  reduction.update = [average](Expr acc, Expr v) { return average ? acc + v : ir::max(acc, v); };
  reduction.finish = [average, t](Expr acc, Expr count) { return average ? acc / ir::cast(t, count) : acc; };
  reduction.uses_count = average;
  PoolProblem problem{x[0], x[3], axes, t, average, reduction, node.inputs[0], node.outputs[0]};
  problem.epilogue = [&kb](Expr value, const std::vector<Expr>& out_index) { return kb.epilogue(value, out_index); };
  return build_pool_kernel(kb, problem);
}

LoweredOp lower_max_pool(const Graph& g, const Node& node, KernelBuilder& kb) {
  std::vector<WindowAxis> axes = window_of(g, node);
  if (!is_global(node) && indices_wanted(g, node)) return lower_max_pool_with_indices(g, node, kb, axes);
  if (is_pool_problem(node, axes)) return lower_pool_problem(g, node, kb, axes, false);
  return lower_pool(g, node, kb, axes, maximum(input_type(g, node)));
}

// ---------------------------------------------------------------- AveragePool, GlobalAveragePool

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

// The window and count_include_pad of AveragePool; GlobalAveragePool's whole window has
// no padding.
std::vector<WindowAxis> average_pool_window(const Graph& g, const Node& node, bool* count_include_pad) {
  *count_include_pad = false;
  if (is_global(node)) return global_window(g, node);
  int64_t include = node.attr_int("count_include_pad", 0);
  if (include != 0 && include != 1) node_error(node, "count_include_pad must be 0 or 1");
  *count_include_pad = include == 1;
  return pool_window(g, node);
}

void infer_average_pool(Graph& g, Node& node) {
  require_pool_input(g, node, kFloatTypes);
  bool count_include_pad = false;
  set_pool_output(g, node, average_pool_window(g, node, &count_include_pad));
}

PoolReduction average(DataType t, const std::vector<WindowAxis>& axes, bool count_include_pad) {
  PoolReduction sum;
  sum.init = ir::make_zero(t);
  sum.combine = [](const Expr& acc, const Expr& x) { return acc + x; };
  sum.finish = [t, axes, count_include_pad](const Expr& acc, const std::vector<Expr>& out_pos) {
    Expr count = 1;
    for (size_t i = 0; i < axes.size(); ++i) count = count * counted_taps(axes[i], out_pos[i], count_include_pad);
    return acc / ir::cast(t, count);
  };
  return sum;
}

LoweredOp lower_average_pool(const Graph& g, const Node& node, KernelBuilder& kb) {
  bool count_include_pad = false;
  std::vector<WindowAxis> axes = average_pool_window(g, node, &count_include_pad);
  if (!count_include_pad && is_pool_problem(node, axes)) return lower_pool_problem(g, node, kb, axes, true);
  return lower_pool(g, node, kb, axes, average(input_type(g, node), axes, count_include_pad));
}

// ---------------------------------------------------------------- LpPool, GlobalLpPool

// The p attribute: a positive integer (a float before opset 2, read the same way).
int64_t lp_order(const Node& node) {
  int64_t p = node.has_attr("p") && std::holds_alternative<double>(node.attrs.at("p"))
                  ? float_as_int(node.attr_float("p", 2.0))
                  : node.attr_int("p", 2);
  if (p < 1) node_error(node, "p must be a positive integer, got " + std::to_string(p));
  return p;
}

// (sum |x|^p)^(1/p), float32: with p = 1 a sum of absolute values, with p = 2 the square
// root of a sum of squares, else powf.
PoolReduction lp_norm(int64_t p) {
  DataType f32 = DataType::Float32();
  PoolReduction norm;
  norm.init = ir::make_zero(f32);
  norm.combine = [p, f32](const Expr& acc, const Expr& x) {
    if (p == 1) return acc + ir::call("fabsf", {x}, f32);
    if (p == 2) return acc + x * x;
    return acc + ir::call("powf", {ir::call("fabsf", {x}, f32), ir::make_float(static_cast<double>(p), f32)}, f32);
  };
  norm.finish = [p, f32](const Expr& acc, const std::vector<Expr>&) {
    if (p == 1) return acc;
    if (p == 2) return ir::call("sqrtf", {acc}, f32);
    return ir::call("powf", {acc, ir::make_float(1.0 / static_cast<double>(p), f32)}, f32);
  };
  return norm;
}

void infer_lp_pool(Graph& g, Node& node) {
  require_pool_input(g, node, {DataType::Float32()});
  lp_order(node);
  set_pool_output(g, node, window_of(g, node));
}

LoweredOp lower_lp_pool(const Graph& g, const Node& node, KernelBuilder& kb) {
  return lower_pool(g, node, kb, window_of(g, node), lp_norm(lp_order(node)));
}

AOTC_REGISTER_OP("MaxPool", kernel_op(infer_max_pool, lower_max_pool).with({Role::kAnchor}));
AOTC_REGISTER_OP("GlobalMaxPool", kernel_op(infer_global_max_pool, lower_max_pool).with({Role::kAnchor}));
AOTC_REGISTER_OPS(kernel_op(infer_average_pool, lower_average_pool).with({Role::kAnchor}), "AveragePool",
                  "GlobalAveragePool");
AOTC_REGISTER_OPS(kernel_op(infer_lp_pool, lower_lp_pool).with({Role::kAnchor}), "LpPool", "GlobalLpPool");

}  // namespace
}  // namespace aotc
