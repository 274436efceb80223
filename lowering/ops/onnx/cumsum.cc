// CumSum: running sums along one axis,
//   y[..., i, ...] = sum of x[..., j, ...] for j <= i      (default)
//                                          for j <  i      (exclusive=1)
//                                          for j >= i / j > i  (reverse=1, with exclusive)
// The axis is input 1, a compile-time constant (int32 or int64 scalar or one-element
// tensor); negative axes count from the end.
//
// One pass per line along the axis with a local running sum, in the direction of the
// sum, so float results round as a sequential numpy.cumsum does. Integer sums wrap around
// like numpy's: they run in an unsigned type of the same width (at least 32 bits), whose
// overflow C defines, and are converted back.
#include <algorithm>

#include "lowering/compute/axis_split.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

size_t cumsum_axis(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  std::vector<int64_t> axis = constant_ints(g, node, 1, "axis");
  if (axis.size() != 1) node_error(node, "axis must hold one value, got " + std::to_string(axis.size()));
  if (x.shape.empty()) node_error(node, "input '" + x.name + "' is a scalar; CumSum needs rank >= 1");
  return static_cast<size_t>(normalize_axis(node, axis[0], static_cast<int64_t>(x.shape.size())));
}

void infer_cumsum(Graph& g, Node& node) {
  const Tensor& x = require_type(g, node, 0, kNumericTypes);
  cumsum_axis(g, node);
  set_output(g, node, 0, x.dtype, x.shape);
}

LoweredOp lower_cumsum(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  const std::vector<int64_t>& shape = g.tensor(node.inputs[0]).shape;
  size_t axis = cumsum_axis(g, node);
  bool exclusive = node.attr_int("exclusive", 0) != 0;
  bool reverse = node.attr_int("reverse", 0) != 0;
  DataType t = x->dtype;
  DataType sum_type = t.is_float() ? t : DataType::UInt(std::max(32, t.bits));
  std::vector<bool> along(shape.size(), false);
  along[axis] = true;
  AxisSplit split(shape, along);
  int64_t length = shape[axis];

  ir::Stmt body = split.for_each_group([&](const std::vector<Expr>& kept) {
    return with_accumulator("running_sum", ir::make_zero(sum_type), [&](const Accumulator& sum) {
      ir::Var step = ir::make_var("k");
      // Position along the axis, in the order the sum runs.
      Expr position = reverse ? ir::make_int(length - 1) - ir::var_expr(step) : ir::var_expr(step);
      std::vector<Expr> index = split.join(kept, {position});
      ir::Stmt add = sum.set(sum.value() + ir::cast(sum_type, ir::load(x, index)));
      ir::Stmt write = ir::store(y, index, ir::cast(t, sum.value()));
      return ir::for_loop(step, 0, ir::make_int(length), exclusive ? ir::seq({write, add}) : ir::seq({add, write}));
    });
  });
  return kb.finish(body);
}

// No in-place role: with exclusive=1, y[i] is written before x[i] is read.
AOTC_REGISTER_OP("CumSum", kernel_op(infer_cumsum, lower_cumsum));

}  // namespace
}  // namespace aotc
