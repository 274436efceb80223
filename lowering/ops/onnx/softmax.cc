// The softmax family, over a group of axes for each index of the remaining ones:
//   Softmax     Y = exp(X - max) / sum(exp(X - max))
//   LogSoftmax  Y = (X - max) - log(sum(exp(X - max)))
//   Hardmax     Y = 1 at the group's first largest element, 0 elsewhere
//
// Which axes form a group changed in opset 13:
//   opset < 13  the input is coerced to 2-D at `axis` (default 1): each group is the
//               whole trailing block X[i0, ..., i(axis-1), :, ..., :];
//   opset >= 13 each group runs along the single axis `axis` (default -1).
// All three are lowered the same way: a loop nest over the kept axes, and inside it a few
// passes over the group, with the running values in local scalars. Subtracting the max
// keeps exp from overflowing. Softmax stores the exponentials in Y and divides them in
// place, which is also the reference's order of operations; LogSoftmax computes
// (x - max) - log(sum) as ONNX's reference does. Hardmax's "first" is in row-major order
// of the group, and a NaN counts as the largest value (numpy's argmax: the first NaN wins).
//
// Types: float32 and float64 (the C math functions of each).
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

// is_normalized[d] says whether axis d is one of the axes a single group spans.
std::vector<bool> normalized_axes(const Graph& g, const Node& node, int64_t rank) {
  std::vector<bool> is_normalized(static_cast<size_t>(rank), false);
  if (g.opset < 13) {
    int64_t axis = normalize_axis(node, node.attr_int("axis", 1), rank);
    std::fill(is_normalized.begin() + axis, is_normalized.end(), true);
  } else {
    is_normalized[static_cast<size_t>(normalize_axis(node, node.attr_int("axis", -1), rank))] = true;
  }
  return is_normalized;
}

void infer_softmax(Graph& g, Node& node) {
  require_float(g, node, 0);
  const Tensor& x = g.tensor(node.inputs[0]);
  if (x.shape.empty()) node_error(node, node.op + " needs an input of rank >= 1");
  normalized_axes(g, node, static_cast<int64_t>(x.shape.size()));  // validates axis
  set_output(g, node, 0, x.dtype, x.shape);
}

// The position of full index `index` in its group, counted in row-major order of the
// group's axes.
Expr position_in_group(const AxisSplit& split, const std::vector<Expr>& index) {
  Expr position = 0;
  for (size_t d = 0; d < index.size(); ++d)
    if (split.is_reduced(d)) position = position * ir::make_int(split.shape()[d]) + index[d];
  return position;
}

// Softmax and LogSoftmax of one group: the maximum, then the sum of exp(x - max), then Y.
ir::Stmt exponential_group(KernelBuilder& kb, const AxisSplit& split, const std::vector<Expr>& kept,
                           const ir::Buffer& x, const ir::Buffer& y, bool logarithm) {
  DataType t = x->dtype;
  return with_accumulator("row_max", ir::load(x, split.first(kept)), [&](const Accumulator& row_max) {
    ir::Stmt find_max = split.for_each_element(kept, [&](const std::vector<Expr>& index) {
      return row_max.set(ir::max(row_max.value(), ir::load(x, index)));
    });
    ir::Stmt rest = with_accumulator("row_sum", ir::make_zero(t), [&](const Accumulator& row_sum) {
      if (logarithm) {
        ir::Stmt sum = split.for_each_element(kept, [&](const std::vector<Expr>& index) {
          return row_sum.set(row_sum.value() + float_call("exp", {ir::load(x, index) - row_max.value()}));
        });
        ir::Var log_sum = ir::make_var("log_sum", t);
        ir::Stmt write = split.for_each_element(kept, [&](const std::vector<Expr>& index) {
          Expr value = (ir::load(x, index) - row_max.value()) - ir::var_expr(log_sum);
          return ir::store(y, index, kb.epilogue(value, index));
        });
        return ir::seq({sum, ir::let(log_sum, float_call("log", {row_sum.value()}), write)});
      }
      ir::Stmt exponentiate_and_sum = split.for_each_element(kept, [&](const std::vector<Expr>& index) {
        return ir::seq({ir::store(y, index, float_call("exp", {ir::load(x, index) - row_max.value()})),
                        row_sum.set(row_sum.value() + ir::load(y, index))});
      });
      ir::Stmt normalize = split.for_each_element(kept, [&](const std::vector<Expr>& index) {
        return ir::store(y, index, kb.epilogue(ir::load(y, index) / row_sum.value(), index));
      });
      return ir::seq({exponentiate_and_sum, normalize});
    });
    return ir::seq({find_max, rest});
  });
}

// Hardmax of one group: the position of the first largest element, then Y.
ir::Stmt hardmax_group(KernelBuilder& kb, const AxisSplit& split, const std::vector<Expr>& kept, const ir::Buffer& x,
                       const ir::Buffer& y) {
  DataType t = x->dtype;
  return with_accumulator("best", ir::load(x, split.first(kept)), [&](const Accumulator& best) {
    return with_accumulator("best_position", ir::make_int(0), [&](const Accumulator& best_position) {
      ir::Stmt find = split.for_each_element(kept, [&](const std::vector<Expr>& index) {
        Expr value = ir::load(x, index);
        // Strictly above keeps the first of equal values; a NaN beats every number.
        Expr above = logical_or(value > best.value(), ir::logical_and(is_nan(value), ir::logical_not(is_nan(best.value()))));
        return ir::if_then_else(above, ir::seq({best.set(value), best_position.set(position_in_group(split, index))}));
      });
      ir::Stmt write = split.for_each_element(kept, [&](const std::vector<Expr>& index) {
        Expr one_hot = ir::select(position_in_group(split, index) == best_position.value(), ir::make_float(1.0, t),
                                  ir::make_zero(t));
        return ir::store(y, index, kb.epilogue(one_hot, index));
      });
      return ir::seq({find, write});
    });
  });
}

LoweredOp lower_softmax(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  if (y->num_elements() == 0) return kb.finish(ir::seq({}));
  AxisSplit split(x->shape, normalized_axes(g, node, static_cast<int64_t>(x->shape.size())));
  ir::Stmt body = split.for_each_group([&](const std::vector<Expr>& kept) {
    if (node.op == "Hardmax") return hardmax_group(kb, split, kept, x, y);
    return exponential_group(kb, split, kept, x, y, node.op == "LogSoftmax");
  });
  return kb.finish(body);
}

AOTC_REGISTER_OPS(kernel_op(infer_softmax, lower_softmax), "Softmax", "LogSoftmax", "Hardmax");

}  // namespace
}  // namespace aotc
