// Operators that keep or set the elements on one side of a diagonal: Trilu (the upper or
// lower triangle of each matrix in the last two axes) and EyeLike (ones on a diagonal).
//
// Diagonal k holds the elements (i, j) with j - i = k. Trilu's k is an optional input that
// must be a compile-time constant; EyeLike's an attribute. Both kernels compute each
// output element from its own position, and serve every data type.
#include <algorithm>

#include "aot/import/onnx_importer.h"
#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

// k limited to the range where it still matters (|k| <= rows + cols), which keeps the
// index arithmetic in int32.
int64_t clamp_diagonal(int64_t k, int64_t rows, int64_t cols) { return std::clamp(k, -(rows + cols), rows + cols); }

// ---------------------------------------------------------------- Trilu

int64_t trilu_k(const Graph& g, const Node& node) {
  return has_input(node, 1) ? constant_int_scalar(g, node, 1, "k") : 0;
}

void infer_trilu(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.shape.size() < 2) node_error(node, "the input must have rank >= 2, got " + shape_str(x.shape));
  trilu_k(g, node);
  set_output(g, node, 0, x.dtype, x.shape);
}

// upper: keep j - i >= k; lower: keep j - i <= k; zero elsewhere.
LoweredOp lower_trilu(const Graph& g, const Node& node, KernelBuilder& kb) {
  const Tensor& x_tensor = g.tensor(node.inputs[0]);
  size_t rank = x_tensor.shape.size();
  int64_t rows = x_tensor.shape[rank - 2], cols = x_tensor.shape[rank - 1];
  Expr k = ir::make_int(clamp_diagonal(trilu_k(g, node), rows, cols));
  bool upper = node.attr_int("upper", 1) != 0;
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  return kb.finish(ir::loop_nest(x_tensor.shape, {}, [&](const std::vector<Expr>& i) {
    Expr diagonal = i[rank - 1] - i[rank - 2];
    Expr keep = upper ? diagonal >= k : diagonal <= k;
    Expr value = ir::select(keep, ir::load(x, i), ir::make_zero(x->dtype));
    return ir::store(y, i, kb.epilogue(value, i));
  }));
}

// ---------------------------------------------------------------- EyeLike

void infer_eye_like(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.shape.size() != 2) node_error(node, "the input must be 2-D, got " + shape_str(x.shape));
  DataType dtype = x.dtype;
  if (node.has_attr("dtype")) {
    std::optional<DataType> named = onnx_element_dtype(node.attr_int("dtype", 1));
    if (!named) node_error(node, "dtype " + onnx_element_type_name(node.attr_int("dtype", 1)) + " is not supported");
    dtype = *named;
  }
  if (dtype.is_float16()) node_error(node, "a float16 output is not supported");
  set_output(g, node, 0, dtype, x.shape);
}

// Ones where j - i = k, zeros elsewhere; the input's values are not read.
LoweredOp lower_eye_like(const Graph& g, const Node& node, KernelBuilder& kb) {
  const Tensor& y_tensor = g.tensor(node.outputs[0]);
  int64_t rows = y_tensor.shape[0], cols = y_tensor.shape[1];
  Expr k = ir::make_int(clamp_diagonal(node.attr_int("k", 0), rows, cols));
  ir::Buffer y = kb.output(0, "Y");
  DataType t = y->dtype;
  Expr one = t.is_float() ? ir::make_float(1.0, t) : ir::make_int(1, t);
  return kb.finish(ir::loop_nest(y_tensor.shape, {"i", "j"}, [&](const std::vector<Expr>& i) {
    return ir::store(y, i, ir::select(i[1] - i[0] == k, one, ir::make_zero(t)));
  }));
}

AOTC_REGISTER_OP("Trilu", kernel_op(infer_trilu, lower_trilu).with({Role::kAnchor, Role::kInPlace}));
AOTC_REGISTER_OP("EyeLike", kernel_op(infer_eye_like, lower_eye_like));

}  // namespace
}  // namespace aotc
