// Elementwise arithmetic: Add, Sub, Mul, Div, Mod, Pow, Abs, Neg, Sign, Reciprocal, the
// variadic Min, Max, Sum and Mean (numpy broadcasting), Clip, BitShift, and the identities
// Dropout (inference) and Identity, on the kernel and helpers every elementwise family
// shares (lowering/compute/elementwise.h).
//
// Each operator is defined once, by its scalar form; the same definition serves the
// stand-alone kernel and fused epilogues behind convolutions and other elementwise
// operators. Every numeric type ONNX allows is computed with ONNX's (numpy's) results,
// including where C's are undefined: integers wrap, x / 0 and x mod 0 are 0, shifts by the
// width or more give 0, and float-to-integer conversions saturate.
#include "lowering/compute/elementwise.h"

#include <cstdint>

#include "lowering/ir/runtime_calls.h"

namespace aotc {

using ir::Expr;

// ---------------------------------------------------------------- operators

namespace {

// Pow: the base's type; a floating-point power in the wider of the two floating-point
// types (an integer operand converted), an integer one by repeated squaring in wrapping
// int64 (aotc_pow_i64), a float power of an integer base converted back with saturation.
Expr pow(const Node&, const std::vector<Expr>& in) {
  Expr base = in[0], exponent = in[1];
  DataType t = base.dtype(), te = exponent.dtype();
  DataType f64 = DataType::Float64();
  if (t.is_integer() && te.is_integer()) return convert(t, ir::pow_int64(base, exponent));
  if (t == DataType::Float32() && te != f64) return math("pow", {base, convert(t, exponent)});
  return convert(t, math("pow", {convert(f64, base), convert(f64, exponent)}));
}

void infer_pow(Graph& g, Node& node) {
  const Tensor& base = require_type(g, node, 0, kNumericTypes);
  const Tensor& exponent = require_type(g, node, 1, kNumericTypes);
  set_output(g, node, 0, base.dtype, broadcast_shapes(node, base.shape, exponent.shape));
}

// Mod: fmod=1 is C's fmod (the dividend's sign), fmod=0 Python's % (the divisor's sign),
// which ONNX defines for integers only.
Expr mod(const Node& node, const std::vector<Expr>& in) {
  if (in[0].dtype().is_float()) return math("fmod", {in[0], in[1]});
  return integer_remainder(in[0], in[1], node.attr_int("fmod", 0) == 0);
}

void infer_mod(Graph& g, Node& node) {
  binary_infer(kNumericTypes)(g, node);
  if (g.tensor(node.inputs[0]).dtype.is_float() && node.attr_int("fmod", 0) == 0)
    node_error(node, "fmod=0 (integer modulo) on floating-point inputs is not defined by ONNX; set fmod=1");
}

Expr abs(const Node&, const std::vector<Expr>& in) {
  Expr x = in[0];
  if (x.dtype().is_float()) return math("fabs", {x});
  if (x.dtype().is_uint()) return x;
  return ir::select(x < ir::make_zero(x.dtype()), wrapping_neg(x), x);  // INT_MIN stays INT_MIN, as in numpy
}

// Sign: -1, 0 or 1; NaN stays NaN (numpy).
Expr sign(const Node&, const std::vector<Expr>& in) {
  Expr x = in[0];
  DataType t = x.dtype();
  Expr zero = ir::make_zero(t);
  Expr non_positive = t.is_uint() ? zero : ir::select(x < zero, constant(-1, t), t.is_float() ? x : zero);
  return ir::select(x > zero, constant(1, t), non_positive);
}

// Min, Max, Sum, Mean of any number of inputs, left to right as ONNX's reference does.
Expr fold(const std::vector<Expr>& in, const std::function<Expr(Expr, Expr)>& op) {
  Expr acc = in.at(0);
  for (size_t i = 1; i < in.size(); ++i) acc = op(acc, in[i]);
  return acc;
}

void infer_variadic(Graph& g, Node& node, unsigned allowed) {
  if (node.inputs.empty()) node_error(node, "needs at least one input");
  for (size_t i = 0; i < node.inputs.size(); ++i)
    if (node.inputs[i] == kNoTensor) node_error(node, "input " + std::to_string(i) + " is missing");
  broadcast_infer(allowed)(g, node);
}

// Clip bounds: attributes before opset 11 (floating point only), optional inputs since.
Expr clip(const Node& node, const std::vector<Expr>& in) {
  Expr x = in[0];
  Expr lo = in.size() > 1 && in[1] ? in[1] : Expr();
  Expr hi = in.size() > 2 && in[2] ? in[2] : Expr();
  if (!lo && node.has_attr("min")) lo = ir::make_float(node.attr_float("min", 0), x.dtype());
  if (!hi && node.has_attr("max")) hi = ir::make_float(node.attr_float("max", 0), x.dtype());
  if (lo) x = ir::max(x, lo);  // a NaN x stays NaN (x < lo is false)
  if (hi) x = ir::min(x, hi);
  return x;
}

void infer_clip(Graph& g, Node& node) {
  const Tensor& x = require_type(g, node, 0, kNumericTypes);
  if ((node.has_attr("min") || node.has_attr("max")) && !x.dtype.is_float())
    node_error(node, "min and max attributes (before opset 11) apply to floating-point inputs only");
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (node.inputs[i] == kNoTensor) continue;
    const Tensor& bound = require_input(g, node, i);
    if (bound.num_elements() != 1) node_error(node, "min and max must be scalars");
    if (bound.dtype != x.dtype) node_error(node, "bound '" + bound.name + "' is " + bound.dtype.str() + ", the input " + x.dtype.str());
  }
  set_output(g, node, 0, x.dtype, x.shape);
}

// BitShift on unsigned integers; counts of the width or more shift everything out.
Expr bit_shift(const Node& node, const std::vector<Expr>& in) {
  DataType t = in[0].dtype();
  bool left = node.attr_string("direction", "") == "LEFT";
  return ir::cast(t, left ? ir::shift_left(in[0], in[1], t.bits) : ir::shift_right(in[0], in[1], t.bits));
}

void infer_bit_shift(Graph& g, Node& node) {
  std::string direction = node.attr_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    node_error(node, "direction must be \"LEFT\" or \"RIGHT\", not \"" + direction + "\"");
  binary_infer(kUnsignedTypes)(g, node);
}

void infer_identity(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (node.op == "Dropout") {
    if (node.input(2) != kNoTensor) {
      const Tensor& training = g.tensor(node.input(2));
      if (!training.is_constant() || training.element_as_int(0) != 0)
        node_error(node, "training_mode must be a constant false (inference only)");
    }
    // In inference the mask keeps everything: it is a constant, not a kernel output.
    if (node.outputs.size() > 1 && node.outputs[1] != kNoTensor) {
      Tensor& mask = g.tensor(node.outputs[1]);
      mask.dtype = DataType::Bool();
      mask.shape = x.shape;
      mask.shape_known = true;
      mask.data = std::vector<uint8_t>(static_cast<size_t>(x.num_elements()), 1);
      node.outputs[1] = kNoTensor;
    }
  }
  set_output(g, node, 0, x.dtype, x.shape);
}

using Operands = const std::vector<Expr>&;

AOTC_REGISTER_OP("Add", elementwise(binary_infer(kNumericTypes), [](const Node&, Operands in) { return wrapping_add(in[0], in[1]); }));
AOTC_REGISTER_OP("Sub", elementwise(binary_infer(kNumericTypes), [](const Node&, Operands in) { return wrapping_sub(in[0], in[1]); }));
AOTC_REGISTER_OP("Mul", elementwise(binary_infer(kNumericTypes), [](const Node&, Operands in) { return wrapping_mul(in[0], in[1]); }));
AOTC_REGISTER_OP("Div", elementwise(binary_infer(kNumericTypes), [](const Node&, Operands in) { return divide(in[0], in[1]); }));
AOTC_REGISTER_OP("Mod", elementwise(infer_mod, mod));
AOTC_REGISTER_OP("Pow", elementwise(infer_pow, pow));
AOTC_REGISTER_OP("Abs", elementwise(broadcast_infer(kNumericTypes), abs));
AOTC_REGISTER_OP("Neg", elementwise(broadcast_infer(kFloatTypes | kSignedTypes), [](const Node&, Operands in) { return wrapping_neg(in[0]); }));
AOTC_REGISTER_OP("Sign", elementwise(broadcast_infer(kNumericTypes), sign));
AOTC_REGISTER_OP("Reciprocal", elementwise(broadcast_infer(kFloatTypes), [](const Node&, Operands in) { return Expr(1.0) / in[0]; }));
AOTC_REGISTER_OP("Min", elementwise([](Graph& g, Node& n) { infer_variadic(g, n, kNumericTypes); },
                                    [](const Node&, Operands in) { return fold(in, nan_min); }));
AOTC_REGISTER_OP("Max", elementwise([](Graph& g, Node& n) { infer_variadic(g, n, kNumericTypes); },
                                    [](const Node&, Operands in) { return fold(in, nan_max); }));
AOTC_REGISTER_OP("Sum", elementwise([](Graph& g, Node& n) { infer_variadic(g, n, kFloatTypes); },
                                    [](const Node&, Operands in) { return fold(in, [](Expr a, Expr b) { return a + b; }); }));
AOTC_REGISTER_OP("Mean", elementwise([](Graph& g, Node& n) { infer_variadic(g, n, kFloatTypes); }, [](const Node&, Operands in) {
                   return fold(in, [](Expr a, Expr b) { return a + b; }) / Expr(static_cast<double>(in.size()));
                 }));
AOTC_REGISTER_OP("Clip", elementwise(infer_clip, clip));
AOTC_REGISTER_OP("BitShift", elementwise(infer_bit_shift, bit_shift));
AOTC_REGISTER_OP("Dropout", view_op(infer_identity));
AOTC_REGISTER_OP("Identity", view_op(infer_identity));

}  // namespace
}  // namespace aotc
