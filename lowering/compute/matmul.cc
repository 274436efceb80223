// numpy matmul's shape rules and the product's loop nest (matmul.h), shared by ONNX's
// MatMul and Gemm (lowering/ops/onnx/matmul.cc), MatMulInteger (onnx_integer.cc), Einsum
// and TFLite's BATCH_MATMUL (lowering/ops/tflite/tflite_batch_matmul.cc).
#include "lowering/compute/matmul.h"

#include "aot/graph/op_registry.h"

namespace aotc {

using ir::Expr;

MatMulShape matmul_shape(const Node& node, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.empty() || b.empty()) node_error(node, "matrix product operands must have at least one dimension");
  auto batch_dims = [](const std::vector<int64_t>& shape) {
    return shape.size() <= 2 ? std::vector<int64_t>{} : std::vector<int64_t>(shape.begin(), shape.end() - 2);
  };
  MatMulShape s;
  s.a_is_vector = a.size() == 1;
  s.b_is_vector = b.size() == 1;
  s.m = s.a_is_vector ? 1 : a[a.size() - 2];
  s.k = a.back();
  int64_t b_depth = s.b_is_vector ? b[0] : b[b.size() - 2];
  s.n = s.b_is_vector ? 1 : b.back();
  if (b_depth != s.k) node_error(node, "inner dimensions differ: " + shape_str(a) + " x " + shape_str(b));
  s.batch = broadcast_shapes(node, batch_dims(a), batch_dims(b));
  s.output = s.batch;
  if (!s.a_is_vector) s.output.push_back(s.m);
  if (!s.b_is_vector) s.output.push_back(s.n);
  return s;
}

std::vector<Expr> matmul_operand_index(const ir::Buffer& operand, bool is_vector, const std::vector<Expr>& batch,
                                       const Expr& row, const Expr& col, const Expr& vector_position) {
  if (is_vector) return {vector_position};
  std::vector<Expr> index;
  size_t operand_batch = operand->shape.size() - 2;
  for (size_t i = 0; i < operand_batch; ++i) {
    Expr out = batch[batch.size() - operand_batch + i];
    index.push_back(operand->shape[i] == 1 ? Expr(0) : out);
  }
  index.push_back(row);
  index.push_back(col);
  return index;
}

ir::Stmt for_each_product_element(
    const MatMulShape& s,
    const std::function<ir::Stmt(const std::vector<Expr>& out_index, const std::vector<Expr>& batch, const Expr& m,
                                 const Expr& n)>& body) {
  std::vector<std::string> names;
  for (size_t i = 0; i < s.batch.size(); ++i) names.push_back(s.batch.size() == 1 ? "batch" : "b" + std::to_string(i));
  if (!s.a_is_vector) names.push_back("m");
  if (!s.b_is_vector) names.push_back("n");
  // A scalar output (vector . vector) is stored as a one-element buffer.
  std::vector<int64_t> loop_shape = s.output.empty() ? std::vector<int64_t>{1} : s.output;
  return ir::loop_nest(loop_shape, names, [&](const std::vector<Expr>& out_index) {
    std::vector<Expr> batch(out_index.begin(), out_index.begin() + static_cast<std::ptrdiff_t>(s.batch.size()));
    size_t next = s.batch.size();
    Expr m = s.a_is_vector ? Expr(0) : out_index[next++];
    Expr n = s.b_is_vector ? Expr(0) : out_index[next++];
    return body(out_index, batch, m, n);
  });
}

DataType product_sum_type(DataType t) { return t.is_float() ? t : DataType::UInt(64); }

}  // namespace aotc
