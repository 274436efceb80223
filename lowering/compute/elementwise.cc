// The helpers every elementwise operator family shares (elementwise.h), for both front
// ends: type classes and broadcast shape functions, the one elementwise kernel (a loop
// over the output that stores each operator's scalar form, through the fused epilogue),
// and scalar arithmetic. Every numeric type ONNX allows is computed with ONNX's (numpy's)
// results, including where C's are undefined: integers wrap, x / 0 and x mod 0 are 0, and
// float-to-integer conversions saturate.
#include "lowering/compute/elementwise.h"

#include <cmath>
#include <cstdint>

#include "lowering/ir/runtime_calls.h"

namespace aotc {

using ir::Expr;

// ---------------------------------------------------------------- types and shapes

bool in_class(DataType t, unsigned allowed) {
  if (t.is_float16()) return false;  // bit patterns only (see dtype.h)
  if (t.is_float()) return allowed & kFloatTypes;
  if (t.is_int()) return allowed & kSignedTypes;
  if (t.is_uint()) return allowed & kUnsignedTypes;
  return allowed & kBoolType;
}

namespace {

std::string class_names(unsigned allowed) {
  std::vector<std::string> names;
  if (allowed & kFloatTypes) names.push_back("float32, float64");
  if (allowed & kSignedTypes) names.push_back("int8 to int64");
  if (allowed & kUnsignedTypes) names.push_back("uint8 to uint64");
  if (allowed & kBoolType) names.push_back("bool");
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

}  // namespace

const Tensor& require_type(const Graph& g, const Node& node, size_t index, unsigned allowed) {
  const Tensor& t = require_input(g, node, index);
  if (!in_class(t.dtype, allowed))
    node_error(node, "input '" + t.name + "' is " + t.dtype.str() + "; " + node.op + " takes " + class_names(allowed));
  return t;
}

namespace {

void infer_broadcast(Graph& g, Node& node, unsigned allowed, const DataType* output_type) {
  const Tensor& a = require_type(g, node, 0, allowed);
  std::vector<int64_t> shape = a.shape;
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (node.inputs[i] == kNoTensor) continue;
    const Tensor& b = require_input(g, node, i);
    if (b.dtype != a.dtype) node_error(node, "inputs have different types " + a.dtype.str() + " and " + b.dtype.str());
    shape = broadcast_shapes(node, shape, b.shape);
  }
  set_output(g, node, 0, output_type ? *output_type : a.dtype, shape);
}

}  // namespace

InferFn broadcast_infer(unsigned allowed) {
  return [allowed](Graph& g, Node& node) { infer_broadcast(g, node, allowed, nullptr); };
}

InferFn broadcast_infer(unsigned allowed, DataType output_type) {
  return [allowed, output_type](Graph& g, Node& node) { infer_broadcast(g, node, allowed, &output_type); };
}

static void require_two_inputs(const Graph& g, const Node& node) {
  if (node.inputs.size() != 2) node_error(node, "needs 2 inputs, not " + std::to_string(node.inputs.size()));
  require_input(g, node, 1);
}

InferFn binary_infer(unsigned allowed) {
  return [allowed](Graph& g, Node& node) {
    require_two_inputs(g, node);
    infer_broadcast(g, node, allowed, nullptr);
  };
}

InferFn binary_infer(unsigned allowed, DataType output_type) {
  return [allowed, output_type](Graph& g, Node& node) {
    require_two_inputs(g, node);
    infer_broadcast(g, node, allowed, &output_type);
  };
}

// ---------------------------------------------------------------- the kernel

namespace {

LoweredOp lower_elementwise(const Graph& g, const Node& node, KernelBuilder& kb) {
  const OpDef* def = find_op(node.op);
  const Node anchor = unfused_anchor(node);
  const Tensor& y = g.tensor(node.outputs[0]);
  std::vector<int64_t> shape = y.shape.empty() ? std::vector<int64_t>{1} : y.shape;
  ir::Stmt body = ir::loop_nest(shape, {}, [&](const std::vector<Expr>& idx) {
    std::vector<Expr> operands;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      std::string param = i < 26 ? std::string(1, static_cast<char>('A' + i)) : "A" + std::to_string(i);
      operands.push_back(node.inputs[i] == kNoTensor ? Expr() : kb.operand(node.inputs[i], param, idx));
    }
    Expr value = kb.epilogue(def->scalar(g, anchor, operands), idx);
    return ir::store(kb.output(0, "Y"), idx, value);  // declared last: inputs come first in C
  });
  return kb.finish(body);
}

}  // namespace

OpDef elementwise_op(InferFn infer, ScalarFn scalar) {
  OpDef def = kernel_op(std::move(infer), lower_elementwise);
  def.scalar = std::move(scalar);
  // Element i of the output reads element i of every same-shaped input.
  return def.with({Role::kAnchor, Role::kEpilogue, Role::kInPlace});
}

OpDef elementwise(InferFn infer, std::function<Expr(const Node&, const std::vector<Expr>&)> scalar) {
  // ONNX's elementwise operators need nothing from the graph to compute an element.
  return elementwise_op(std::move(infer),
                        [scalar](const Graph&, const Node& n, const std::vector<Expr>& in) { return scalar(n, in); });
}

// ---------------------------------------------------------------- scalar arithmetic

Expr constant(double v, DataType t) {
  return t.is_float() ? ir::make_float(v, t) : ir::make_int(static_cast<int64_t>(v), t);
}

Expr math(const std::string& name, std::vector<Expr> args) {
  DataType t = args.at(0).dtype();
  return ir::call(t == DataType::Float32() ? name + "f" : name, std::move(args), t);
}

namespace {

// The operands' type: an immediate adopts the other operand's (see ir::binary).
DataType operand_type(const Expr& a, const Expr& b) {
  bool a_is_immediate = a.as<ir::IntImmNode>() || a.as<ir::FloatImmNode>();
  return a_is_immediate ? b.dtype() : a.dtype();
}

// The type C computes integer type t's arithmetic in, made explicit (see wrapping_add).
DataType arithmetic_type(DataType t, ir::BinaryOp op) {
  if (!t.is_integer()) return t;
  if (t.bits <= 16) {
    // uint16 * uint16 overflows int: the only narrow product that needs unsigned.
    return op == ir::BinaryOp::kMul && t.is_uint() && t.bits == 16 ? DataType::UInt(32) : DataType::Int(32);
  }
  return t.is_int() ? DataType::UInt(t.bits) : t;
}

Expr wrapping(ir::BinaryOp op, Expr a, Expr b) {
  DataType t = operand_type(a, b);
  DataType wide = arithmetic_type(t, op);
  if (wide == t) return ir::binary(op, a, b);
  return ir::cast(t, ir::binary(op, ir::cast(wide, a), ir::cast(wide, b)));
}

}  // namespace

Expr wrapping_add(Expr a, Expr b) { return wrapping(ir::BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr wrapping_sub(Expr a, Expr b) { return wrapping(ir::BinaryOp::kSub, std::move(a), std::move(b)); }
Expr wrapping_mul(Expr a, Expr b) { return wrapping(ir::BinaryOp::kMul, std::move(a), std::move(b)); }
Expr wrapping_neg(Expr a) {
  DataType t = a.dtype();
  if (!t.is_integer()) return -a;
  return wrapping_sub(ir::make_zero(t), a);
}

Expr divide(Expr a, Expr b) {
  DataType t = operand_type(a, b);
  if (!t.is_integer()) return a / b;
  Expr zero = ir::make_zero(t);
  Expr quotient;
  if (t.bits <= 16) {
    quotient = ir::cast(t, ir::cast(DataType::Int(32), a) / ir::cast(DataType::Int(32), b));  // -128 / -1 wraps
  } else if (t.is_int()) {
    quotient = ir::select(b == ir::make_int(-1, t), wrapping_neg(a), a / b);
  } else {
    quotient = a / b;
  }
  return ir::select(b == zero, zero, quotient);
}

Expr integer_remainder(Expr a, Expr b, bool sign_of_divisor) {
  DataType t = operand_type(a, b);
  if (t.is_int()) return ir::cast(t, ir::mod_int64(a, b, sign_of_divisor));
  // Unsigned: both conventions agree; only a zero divisor needs care.
  Expr zero = ir::make_zero(t);
  return ir::select(b == zero, zero, a % b);
}

Expr is_nan(Expr x) { return ir::call("isnan", {std::move(x)}, DataType::Int(32)) != 0; }
Expr is_inf(Expr x) { return ir::call("isinf", {std::move(x)}, DataType::Int(32)) != 0; }

// The second operand when it is smaller (larger) or NaN, else the first: a NaN in either
// comes out.
Expr nan_min(Expr a, Expr b) {
  if (!operand_type(a, b).is_float()) return ir::min(a, b);
  return ir::select(ir::binary(ir::BinaryOp::kOr, b < a, is_nan(b)), b, a);
}

Expr nan_max(Expr a, Expr b) {
  if (!operand_type(a, b).is_float()) return ir::max(a, b);
  return ir::select(ir::binary(ir::BinaryOp::kOr, a < b, is_nan(b)), b, a);
}

Expr convert(DataType t, Expr x) {
  DataType from = x.dtype();
  if (from == t) return x;
  if (t.is_bool()) return x != ir::make_zero(from);
  if (t.is_float() || !from.is_float()) return ir::cast(t, x);  // rounds to nearest / keeps the low bits
  // Floating point to integer: truncation where the result fits; the bounds are 0 and
  // powers of two, exact in every floating-point type.
  double lo = t.is_uint() ? 0.0 : -std::ldexp(1.0, t.bits - 1);
  double hi = t.is_uint() ? std::ldexp(1.0, t.bits) : std::ldexp(1.0, t.bits - 1);
  int64_t largest = t.bits == 64 ? (t.is_uint() ? -1 /* all ones */ : INT64_MAX)
                                 : (int64_t{1} << (t.is_uint() ? t.bits : t.bits - 1)) - 1;
  int64_t smallest = t.is_uint() ? 0 : -largest - 1;
  Expr lo_f = ir::make_float(lo, from), hi_f = ir::make_float(hi, from);
  Expr out_of_range = ir::select(x >= hi_f, ir::make_int(largest, t), ir::select(x <= lo_f, ir::make_int(smallest, t), ir::make_zero(t)));
  return ir::select(ir::logical_and(x > lo_f, x < hi_f), ir::cast(t, x), out_of_range);  // NaN: neither, so 0
}

}  // namespace aotc
