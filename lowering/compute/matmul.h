// numpy matmul's shape rules, shared by MatMul (matmul.cc) and MatMulInteger
// (onnx_integer.cc): a 1-D A is a row vector and a 1-D B a column vector, whose unit
// dimension is then dropped from the output; the other leading dimensions broadcast.
// Also the type integer products are summed in (MatMul, Einsum).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "aot/graph/graph.h"
#include "lowering/ir/ir.h"

namespace aotc {

struct MatMulShape {
  std::vector<int64_t> batch;  // broadcast batch dimensions of the output
  int64_t m = 1, k = 0, n = 1;
  bool a_is_vector = false, b_is_vector = false;
  std::vector<int64_t> output;
};

// The product's shape for operands of shapes `a` and `b`; node_error if they do not fit.
MatMulShape matmul_shape(const Node& node, const std::vector<int64_t>& a, const std::vector<int64_t>& b);

// The index of an operand's element for output batch index `batch` and matrix position
// (`row`, `col`): its batch dimensions broadcast (size 1 reads index 0), and a vector
// operand keeps only its `vector_position` coordinate.
std::vector<ir::Expr> matmul_operand_index(const ir::Buffer& operand, bool is_vector, const std::vector<ir::Expr>& batch,
                                           const ir::Expr& row, const ir::Expr& col, const ir::Expr& vector_position);

// A loop nest over the product's elements (one, for a scalar product: vector . vector);
// `body` gets the output index (buffer_index-style: {0} for a scalar), the batch index,
// and the row m and column n of the matrix product (0 for a vector operand).
ir::Stmt for_each_product_element(
    const MatMulShape& s,
    const std::function<ir::Stmt(const std::vector<ir::Expr>& out_index, const std::vector<ir::Expr>& batch,
                                 const ir::Expr& m, const ir::Expr& n)>& body);

// The type integer products of type t are summed in: uint64, whose arithmetic wraps in C
// (a signed overflow is undefined), so that narrowing the sum to t gives numpy's wrapped
// result. Floating-point types sum in their own type.
DataType product_sum_type(DataType t);

}  // namespace aotc
