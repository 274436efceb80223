// Selections along one axis: ArgMax, ArgMin (the position of the largest / smallest
// element) and TopK (the k largest or smallest elements and their positions).
//
// ArgMax / ArgMin: `axis` (default 0), `keepdims` (default 1), `select_last_index`
// (default 0: the first position among equal values). The result is int64. A NaN counts
// as beyond every number, as in numpy (np.argmax and np.argmin both return the first NaN).
//
// TopK: `k` is input 1 (opset 10+, a compile-time constant) or the attribute (opset 1);
// `axis` (default -1), `largest` (default 1), `sorted` (default 1: values in order; with
// sorted=0 any order is allowed and this one is given). Outputs Values and int64 Indices.
// Order is by value, then by position: equal values come lower index first, as the spec
// says. NaN sorts above every number, as in ONNX's reference (numpy's lexsort): first for
// largest=1, last for largest=0. The kernel needs no scratch memory: output j is the best
// element that comes after output j-1 in this order (an O(k * n) selection, which for the
// small k of classifiers costs less than a sort and needs no workspace).
#include "lowering/compute/axis_split.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

int64_t selection_axis(const Graph& g, const Node& node, int64_t fallback) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) node_error(node, "input '" + x.name + "' is a scalar; an axis to select along is needed");
  return normalize_axis(node, node.attr_int("axis", fallback), rank);
}

std::vector<bool> only(size_t axis, size_t rank) {
  std::vector<bool> is_reduced(rank, false);
  is_reduced[axis] = true;
  return is_reduced;
}

// a above b in the order where NaN is above every number (floats), or plainly (integers).
Expr above(const Expr& a, const Expr& b) {
  if (!a.dtype().is_float()) return a > b;
  return logical_or(a > b, ir::logical_and(is_nan(a), ir::logical_not(is_nan(b))));
}

Expr same_value(const Expr& a, const Expr& b) {
  if (!a.dtype().is_float()) return a == b;
  return logical_or(a == b, ir::logical_and(is_nan(a), is_nan(b)));
}

// ---------------------------------------------------------------- ArgMax, ArgMin

void infer_arg(Graph& g, Node& node) {
  require_type(g, node, 0, kNumericTypes);
  const Tensor& x = g.tensor(node.inputs[0]);
  size_t axis = static_cast<size_t>(selection_axis(g, node, 0));
  std::vector<int64_t> shape = x.shape;
  if (node.attr_int("keepdims", 1) != 0) {
    shape[axis] = 1;
  } else {
    shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(axis));
  }
  set_output(g, node, 0, DataType::Int(64), shape);
}

LoweredOp lower_arg(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  const std::vector<int64_t>& shape = g.tensor(node.inputs[0]).shape;
  size_t axis = static_cast<size_t>(selection_axis(g, node, 0));
  AxisSplit split(shape, only(axis, shape.size()));
  bool keep = node.attr_int("keepdims", 1) != 0;
  bool last = node.attr_int("select_last_index", 0) != 0;
  bool is_max = node.op == "ArgMax";

  ir::Stmt body = split.for_each_group([&](const std::vector<Expr>& kept) {
    std::vector<Expr> first = split.first(kept);
    return with_accumulator("best_value", ir::load(x, first), [&](const Accumulator& best) {
      return with_accumulator("best_index", ir::make_int(0, DataType::Int(64)), [&](const Accumulator& best_index) {
        ir::Stmt scan = split.for_each_element(kept, [&](const std::vector<Expr>& index) {
          Expr v = ir::load(x, index);
          Expr wins = is_max ? v > best.value() : v < best.value();
          if (v.dtype().is_float())  // the first NaN wins over every number, for both
            wins = logical_or(wins, ir::logical_and(is_nan(v), ir::logical_not(is_nan(best.value()))));
          if (last) wins = logical_or(wins, same_value(v, best.value()));
          return ir::if_then_else(wins, ir::seq({best.set(v), best_index.set(index[axis])}));
        });
        std::vector<Expr> out_index = buffer_index(keep ? first : kept);
        return ir::seq({scan, ir::store(y, out_index, best_index.value())});
      });
    });
  });
  return kb.finish(body);
}

AOTC_REGISTER_OPS(kernel_op(infer_arg, lower_arg), "ArgMax", "ArgMin");

// ---------------------------------------------------------------- TopK

int64_t top_k_count(const Graph& g, const Node& node, int64_t axis_size) {
  int64_t k = 0;
  if (node.input(1) != kNoTensor) {
    std::vector<int64_t> values = constant_ints(g, node, 1, "K");
    if (values.size() != 1) node_error(node, "K must hold one value, got " + std::to_string(values.size()));
    k = values[0];
  } else if (node.has_attr("k")) {
    k = node.attr_int("k", 0);
  } else {
    node_error(node, "k is missing (input 1, or the attribute k before opset 10)");
  }
  if (k < 1 || k > axis_size)
    node_error(node, "k = " + std::to_string(k) + " must be between 1 and the axis size " + std::to_string(axis_size) +
                         (k == 0 ? " (empty outputs are not supported)" : ""));
  return k;
}

void infer_top_k(Graph& g, Node& node) {
  require_type(g, node, 0, kNumericTypes);
  const Tensor& x = g.tensor(node.inputs[0]);
  size_t axis = static_cast<size_t>(selection_axis(g, node, -1));
  std::vector<int64_t> shape = x.shape;
  shape[axis] = top_k_count(g, node, shape[axis]);
  set_output(g, node, 0, x.dtype, shape);
  set_output(g, node, 1, DataType::Int(64), shape);
}

LoweredOp lower_top_k(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  const std::vector<int64_t>& shape = g.tensor(node.inputs[0]).shape;
  size_t axis = static_cast<size_t>(selection_axis(g, node, -1));
  int64_t k = top_k_count(g, node, shape[axis]);
  bool largest = node.attr_int("largest", 1) != 0;
  bool values_used = output_is_used(g, node, 0), indices_used = output_is_used(g, node, 1);
  ir::Buffer values = values_used ? kb.output(0, "Values") : nullptr;
  ir::Buffer indices = indices_used ? kb.output(1, "Indices") : nullptr;
  AxisSplit split(shape, only(axis, shape.size()));
  // Whether v comes before w in the output order (by value only).
  auto precedes = [&](const Expr& v, const Expr& w) { return largest ? above(v, w) : above(w, v); };

  ir::Stmt body = split.for_each_group([&](const std::vector<Expr>& kept) {
    std::vector<Expr> first = split.first(kept);
    // The previous output's value and position: output j is the best element after it.
    return with_accumulator("previous_value", ir::load(x, first), [&](const Accumulator& previous) {
      return with_accumulator("previous_index", ir::make_int(0), [&](const Accumulator& previous_index) {
        ir::Var j = ir::make_var("j");
        Expr is_first_output = ir::var_expr(j) == 0;
        ir::Stmt select_one = with_accumulator("best_value", ir::load(x, first), [&](const Accumulator& best) {
          return with_accumulator("best_index", ir::make_int(0), [&](const Accumulator& best_index) {
            return with_accumulator("found", ir::make_int(0), [&](const Accumulator& found) {
              ir::Stmt scan = split.for_each_element(kept, [&](const std::vector<Expr>& index) {
                Expr v = ir::load(x, index);
                Expr i = index[axis];
                Expr after_previous = logical_or(
                    precedes(previous.value(), v),
                    ir::logical_and(same_value(v, previous.value()), i > previous_index.value()));
                Expr eligible = logical_or(is_first_output, after_previous);
                // Positions run upwards: among equal values the first one found stays.
                Expr better = logical_or(found.value() == 0, precedes(v, best.value()));
                return ir::if_then_else(ir::logical_and(eligible, better),
                                        ir::seq({best.set(v), best_index.set(i), found.set(1)}));
              });
              std::vector<Expr> out_index = kept;
              out_index.insert(out_index.begin() + static_cast<std::ptrdiff_t>(axis), ir::var_expr(j));
              std::vector<ir::Stmt> write = {scan};
              if (values_used) write.push_back(ir::store(values, out_index, best.value()));
              if (indices_used) write.push_back(ir::store(indices, out_index, best_index.value()));
              write.push_back(previous.set(best.value()));
              write.push_back(previous_index.set(best_index.value()));
              return ir::seq(write);
            });
          });
        });
        return ir::for_loop(j, 0, ir::make_int(k), select_one);
      });
    });
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("TopK", kernel_op(infer_top_k, lower_top_k));

}  // namespace
}  // namespace aotc
