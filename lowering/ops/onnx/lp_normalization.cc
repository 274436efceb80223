// The normalizations that divide each element by a norm of its neighbourhood:
//
//   LpNormalization  along `axis` (default -1), p = 1 or 2 (default 2):
//                    Y = X / ||X||_p, the norm of each line along the axis (sum of |x|, or
//                    the square root of the sum of squares); a line of zeros gives 0 / 0
//                    as the definition does
//   LRN              local response normalization across channels (axis 1):
//                    Y = X / (bias + alpha / size * square_sum) ^ beta, where square_sum
//                    at channel c sums X^2 over the channels
//                    [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] that exist
//                    (defaults alpha 1e-4, beta 0.75, bias 1; size is required)
//
// Both are one loop nest with a local accumulator: per line for LpNormalization (one pass
// for the norm, one to divide), per element for LRN (`size` neighbours, those outside
// [0, C) skipped). Types: float32 and float64.
#include <algorithm>
#include <string>
#include <vector>

#include "lowering/compute/axis_split.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;
using Index = std::vector<Expr>;

// ---------------------------------------------------------------- LpNormalization

int64_t lp_order(const Node& node) {
  int64_t p = node.attr_int("p", 2);
  if (p != 1 && p != 2) node_error(node, "p must be 1 or 2, got " + std::to_string(p));
  return p;
}

std::vector<bool> lp_axis(const Graph& g, const Node& node) {
  const Tensor& x = g.tensor(node.inputs[0]);
  if (x.shape.empty()) node_error(node, "input '" + x.name + "' is a scalar; LpNormalization needs rank >= 1");
  std::vector<bool> is_reduced(x.shape.size(), false);
  is_reduced[static_cast<size_t>(normalize_axis(node, node.attr_int("axis", -1), static_cast<int64_t>(x.shape.size())))] =
      true;
  return is_reduced;
}

void infer_lp_norm(Graph& g, Node& node) {
  require_float(g, node, 0);
  lp_axis(g, node);
  lp_order(node);
  const Tensor& x = g.tensor(node.inputs[0]);
  set_output(g, node, 0, x.dtype, x.shape);
}

LoweredOp lower_lp_norm(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  AxisSplit split(x->shape, lp_axis(g, node));
  bool l1 = lp_order(node) == 1;
  ir::Stmt body = split.for_each_group([&](const Index& kept) {
    return with_accumulator("norm", ir::make_zero(x->dtype), [&](const Accumulator& norm) {
      ir::Stmt sum = split.for_each_element(kept, [&](const Index& index) {
        Expr v = ir::load(x, index);
        return norm.set(norm.value() + (l1 ? float_call("fabs", {v}) : v * v));
      });
      ir::Stmt root = l1 ? ir::Stmt() : norm.set(float_call("sqrt", {norm.value()}));
      ir::Stmt divide = split.for_each_element(kept, [&](const Index& index) {
        return ir::store(y, index, kb.epilogue(ir::load(x, index) / norm.value(), index));
      });
      return ir::seq({sum, root, divide});
    });
  });
  return kb.finish(body);
}

// ---------------------------------------------------------------- LRN

int64_t lrn_size(const Node& node) {
  if (!node.has_attr("size")) node_error(node, "the attribute size is required");
  int64_t size = node.attr_int("size", 0);
  if (size <= 0) node_error(node, "size must be positive, got " + std::to_string(size));
  return size;
}

void infer_lrn(Graph& g, Node& node) {
  require_float(g, node, 0);
  const Tensor& x = g.tensor(node.inputs[0]);
  if (x.shape.size() < 2) node_error(node, "input X must have rank >= 2 (N x C x ...), got " + shape_str(x.shape));
  lrn_size(node);
  set_output(g, node, 0, x.dtype, x.shape);
}

LoweredOp lower_lrn(const Graph&, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  DataType t = x->dtype;
  int64_t size = lrn_size(node), channels = x->shape[1];
  int64_t before = (size - 1) / 2;  // floor((size - 1) / 2) neighbours below c, the rest above
  // Window positions that can fall inside [0, channels) for some c: the loop skips the rest,
  // which matters when size is far larger than the channel count (the divisor still uses size).
  int64_t first = std::max<int64_t>(0, before - (channels - 1));
  int64_t last = std::min<int64_t>(size, before + channels);  // exclusive
  Expr scale = ir::make_float(node.attr_float("alpha", 1e-4) / static_cast<double>(size), t);
  Expr bias = ir::make_float(node.attr_float("bias", 1.0), t);
  Expr beta = ir::make_float(node.attr_float("beta", 0.75), t);

  ir::Stmt body = ir::loop_nest(x->shape, {}, [&](const Index& index) {
    return with_accumulator("square_sum", ir::make_zero(t), [&](const Accumulator& sum) {
      ir::Var j = ir::make_var("j");
      Expr channel = index[1] - ir::make_int(before - first) + ir::var_expr(j);
      Index neighbour = index;
      neighbour[1] = channel;
      Expr v = ir::load(x, neighbour);
      Expr inside = ir::logical_and(channel >= ir::make_int(0), channel < ir::make_int(channels));
      ir::Stmt add = ir::for_loop(j, 0, ir::make_int(last - first), ir::if_then_else(inside, sum.set(sum.value() + v * v)));
      Expr divisor = float_call("pow", {bias + scale * sum.value(), beta});
      return ir::seq({add, ir::store(y, index, kb.epilogue(ir::load(x, index) / divisor, index))});
    });
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("LpNormalization", kernel_op(infer_lp_norm, lower_lp_norm).with({Role::kAnchor}));
AOTC_REGISTER_OP("LRN", kernel_op(infer_lrn, lower_lrn).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
