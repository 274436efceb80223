// Det: the determinant of each square matrix in the last two axes of X [..., M, M];
// Y has X's leading axes (a scalar for one matrix).
//
// Gaussian elimination with partial pivoting (LU decomposition, as numpy's det through
// LAPACK's getrf): for each column the row with the largest magnitude becomes the pivot,
// each row swap flips the sign, and the determinant is the product of the pivots. A zero
// pivot (a singular matrix) makes the product 0 and skips that column's elimination, so
// nothing divides by zero. The elimination works on a copy of the matrix in a temporary
// of M x M elements. float32 and float64, computed in the input's type.
#include <string>
#include <vector>

#include "aot/graph/op_registry.h"
#include "lowering/compute/data_movement.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"

namespace aotc {
namespace {

using ir::Expr;

void infer_det(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.dtype != DataType::Float32() && x.dtype != DataType::Float64())
    node_error(node, "input '" + x.name + "' is " + x.dtype.str() + "; only float32 and float64 are supported");
  size_t rank = x.shape.size();
  if (rank < 2 || x.shape[rank - 1] != x.shape[rank - 2])
    node_error(node, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; Det needs square matrices [..., M, M]");
  set_output(g, node, 0, x.dtype, std::vector<int64_t>(x.shape.begin(), x.shape.end() - 2));
}

LoweredOp lower_det(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  const Tensor& x_tensor = g.tensor(node.inputs[0]);
  DataType t = x->dtype;
  size_t rank = x_tensor.shape.size();
  int64_t m = x_tensor.shape[rank - 1];
  std::vector<int64_t> outer(x_tensor.shape.begin(), x_tensor.shape.end() - 2);
  ir::Buffer a = ir::make_buffer("lu", t, {m, m});
  ir::Buffer pivot_row = ir::make_buffer("pivot_row", DataType::Int(32), {1}, "local");

  ir::Stmt per_matrix = for_each_element(outer, [&](const std::vector<Expr>& batch) {
    auto x_at = [&](const Expr& i, const Expr& j) {
      std::vector<Expr> index = batch;
      index.push_back(i);
      index.push_back(j);
      return ir::load(x, index);
    };
    ir::Stmt copy = ir::loop_nest({m, m}, {"i", "j"}, [&](const std::vector<Expr>& i) {
      return ir::store(a, i, x_at(i[0], i[1]));
    });
    ir::Stmt eliminate = with_accumulator("det", constant(1.0, t), [&](const Accumulator& det) {
      ir::Var k_var = ir::make_var("k");
      Expr k = ir::var_expr(k_var);
      Expr p = ir::load(pivot_row, {0});
      ir::Var i_var = ir::make_var("i"), j_var = ir::make_var("j");
      Expr i = ir::var_expr(i_var), j = ir::var_expr(j_var);
      Expr magnitude_i = math("fabs", {ir::load(a, {i, k})}), magnitude_p = math("fabs", {ir::load(a, {p, k})});
      ir::Stmt find_pivot = ir::seq({
          ir::store(pivot_row, {0}, k),
          ir::for_loop(i_var, 0, ir::make_int(m),
                       ir::if_then_else(ir::logical_and(i > k, magnitude_i > magnitude_p), ir::store(pivot_row, {0}, i))),
      });
      ir::Var held = ir::make_var("held", t);
      ir::Stmt swap = ir::if_then_else(
          p != k, ir::seq({
                      ir::for_loop(j_var, 0, ir::make_int(m),
                                   ir::let(held, ir::load(a, {k, j}),
                                           ir::seq({ir::store(a, {k, j}, ir::load(a, {p, j})),
                                                    ir::store(a, {p, j}, ir::var_expr(held))}))),
                      det.set(-det.value()),
                  }));
      Expr pivot = ir::load(a, {k, k});
      ir::Var factor = ir::make_var("factor", t);
      ir::Stmt reduce_rows = ir::if_then_else(
          pivot != ir::make_zero(t),
          ir::for_loop(i_var, 0, ir::make_int(m),
                       ir::if_then_else(i > k, ir::let(factor, ir::load(a, {i, k}) / pivot,
                                                       ir::for_loop(j_var, 0, ir::make_int(m),
                                                                    ir::if_then_else(j > k, ir::store(a, {i, j},
                                                                                                      ir::load(a, {i, j}) - ir::var_expr(factor) * ir::load(a, {k, j}))))))));
      ir::Stmt column = ir::seq({find_pivot, swap, det.set(det.value() * pivot), reduce_rows});
      return ir::seq({ir::for_loop(k_var, 0, ir::make_int(m), column), store_element(y, batch, det.value())});
    });
    return ir::seq({copy, eliminate});
  });
  return kb.finish(ir::allocate(a, ir::allocate(pivot_row, per_matrix)));
}

AOTC_REGISTER_OP("Det", kernel_op(infer_det, lower_det));

}  // namespace
}  // namespace aotc
