// Comparisons and logic: Equal, Less, Greater, LessOrEqual, GreaterOrEqual (numpy
// broadcasting, bool results), Not, And, Or, Xor on bool tensors, Where, IsInf and IsNaN;
// BitwiseAnd, BitwiseOr, BitwiseXor and BitwiseNot (opset 18) on integers, computed on
// the two's complement bits by the runtime's aotc_bit_* functions (C's operators would
// promote int8 and uint8 to int, whose ~ of an unsigned value is not the value's width).
//
// A bool element is a byte holding 0 or 1 (uint8_t in C); every operator here produces
// exactly 0 or 1 (C's comparisons and logical operators do), so == and != are the boolean
// equality and exclusive or. Comparisons follow IEEE: anything against NaN is false except
// !=, which ONNX does not have.
#include "lowering/compute/elementwise.h"

#include <cmath>
#include <string>

#include "lowering/ir/runtime_calls.h"

namespace aotc {
namespace {

using ir::Expr;
using Operands = const std::vector<Expr>&;

OpDef comparison(unsigned allowed, Expr (*compare)(Expr, Expr)) {
  return elementwise(binary_infer(allowed, DataType::Bool()), [compare](const Node&, Operands in) { return compare(in[0], in[1]); });
}

OpDef logic(Expr (*op)(Expr, Expr)) {
  return elementwise(binary_infer(kBoolType), [op](const Node&, Operands in) { return op(in[0], in[1]); });
}

OpDef bitwise(const std::string& op) {
  InferFn infer = op == "not" ? broadcast_infer(kIntegerTypes) : binary_infer(kIntegerTypes);
  return elementwise(infer, [op](const Node&, Operands in) { return ir::cast(in[0].dtype(), ir::bitwise(op, in)); });
}

// Where(condition, X, Y): X's type; the three broadcast together.
void infer_where(Graph& g, Node& node) {
  const Tensor& condition = require_type(g, node, 0, kBoolType);
  const Tensor& x = require_type(g, node, 1, kAllTypes);
  const Tensor& y = require_input(g, node, 2);
  if (y.dtype != x.dtype) node_error(node, "X is " + x.dtype.str() + " but Y is " + y.dtype.str());
  set_output(g, node, 0, x.dtype, broadcast_shapes(node, broadcast_shapes(node, condition.shape, x.shape), y.shape));
}

// IsInf: which infinities count, by detect_negative and detect_positive (both by default).
Expr is_infinity(const Node& n, Operands in) {
  Expr x = in[0];
  bool negative = n.attr_int("detect_negative", 1) != 0, positive = n.attr_int("detect_positive", 1) != 0;
  if (negative && positive) return is_inf(x);
  if (positive) return x == ir::make_float(INFINITY, x.dtype());
  if (negative) return x == ir::make_float(-INFINITY, x.dtype());
  return ir::make_int(0, DataType::Bool());
}

AOTC_REGISTER_OP("Equal", comparison(kAllTypes, [](Expr a, Expr b) { return a == b; }));
AOTC_REGISTER_OP("Less", comparison(kNumericTypes, [](Expr a, Expr b) { return a < b; }));
AOTC_REGISTER_OP("Greater", comparison(kNumericTypes, [](Expr a, Expr b) { return a > b; }));
AOTC_REGISTER_OP("LessOrEqual", comparison(kNumericTypes, [](Expr a, Expr b) { return a <= b; }));
AOTC_REGISTER_OP("GreaterOrEqual", comparison(kNumericTypes, [](Expr a, Expr b) { return a >= b; }));
AOTC_REGISTER_OP("Not", elementwise(broadcast_infer(kBoolType), [](const Node&, Operands in) { return ir::logical_not(in[0]); }));
AOTC_REGISTER_OP("And", logic([](Expr a, Expr b) { return ir::logical_and(a, b); }));
AOTC_REGISTER_OP("Or", logic([](Expr a, Expr b) { return ir::binary(ir::BinaryOp::kOr, a, b); }));
AOTC_REGISTER_OP("Xor", logic([](Expr a, Expr b) { return a != b; }));
AOTC_REGISTER_OP("BitwiseAnd", bitwise("and"));
AOTC_REGISTER_OP("BitwiseOr", bitwise("or"));
AOTC_REGISTER_OP("BitwiseXor", bitwise("xor"));
AOTC_REGISTER_OP("BitwiseNot", bitwise("not"));
AOTC_REGISTER_OP("Where", elementwise(infer_where, [](const Node&, Operands in) { return ir::select(in[0], in[1], in[2]); }));
AOTC_REGISTER_OP("IsInf", elementwise(broadcast_infer(kFloatTypes, DataType::Bool()), is_infinity));
AOTC_REGISTER_OP("IsNaN", elementwise(broadcast_infer(kFloatTypes, DataType::Bool()), [](const Node&, Operands in) {
  return is_nan(in[0]);
}));

}  // namespace
}  // namespace aotc
