// Activation functions: Relu, Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, Selu, Celu,
// LeakyRelu, PRelu (slope broadcast to the input), ThresholdedRelu, Shrink, Softplus,
// Softsign, Mish, Gelu (ONNX opset 20's, with its "approximate" attribute; PyTorch's
// exports of older opsets spell it with Erf) and Swish (opset 24: x sigmoid(alpha x)).
//
// Floating point (float32, float64) unless ONNX allows more: Relu also takes signed
// integers, PRelu integers, Shrink every numeric type. Attributes are ONNX's float32
// values; a float64 kernel computes with them exactly. Where a formula has a numerically
// better equivalent it is used: exp(x) - 1 as expm1(x), log(1 + exp(x)) as
// max(x, 0) + log1p(exp(-|x|)), which never overflows.
#include "lowering/compute/elementwise.h"

#include <cmath>

namespace aotc {
namespace {

using ir::Expr;
using Operands = const std::vector<Expr>&;

Expr zero_of(const Expr& x) { return ir::make_zero(x.dtype()); }

// min(max(v, 0), 1): a NaN v stays NaN (max(v, 0) reads v first).
Expr clamp01(Expr v) { return ir::min(ir::max(v, Expr(0.0)), Expr(1.0)); }

Expr sigmoid(Expr x) { return Expr(1.0) / (Expr(1.0) + math("exp", {-x})); }

// log(1 + exp(x)) = max(x, 0) + log(1 + exp(-|x|)).
Expr softplus(Expr x) {
  Expr log_term = math("log1p", {math("exp", {-math("fabs", {x})})});
  return ir::max(x, zero_of(x)) + log_term;
}

Expr attr(const Node& n, const char* name, double fallback) { return Expr(n.attr_float(name, fallback)); }

Expr elu(const Node& n, Operands in) {
  Expr x = in[0];
  return ir::select(x < zero_of(x), attr(n, "alpha", 1.0) * math("expm1", {x}), x);
}

Expr selu(const Node& n, Operands in) {
  Expr x = in[0];
  Expr alpha = attr(n, "alpha", 1.67326319217681884765625), gamma = attr(n, "gamma", 1.05070102214813232421875);
  return gamma * ir::select(x > zero_of(x), x, alpha * math("expm1", {x}));
}

// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)): one of the two terms is zero.
Expr celu(const Node& n, Operands in) {
  Expr x = in[0], alpha = attr(n, "alpha", 1.0);
  return ir::select(x > zero_of(x), x, alpha * math("expm1", {x / alpha}));
}

Expr leaky_relu(const Node& n, Operands in) {
  Expr x = in[0];
  return ir::select(x < zero_of(x), attr(n, "alpha", 0.01) * x, x);
}

Expr prelu(const Node&, Operands in) {
  Expr x = in[0];
  return ir::select(x < zero_of(x), wrapping_mul(in[1], x), x);
}

// Y broadcasts the slope to X's shape (unidirectionally: Y has X's shape).
void infer_prelu(Graph& g, Node& node) {
  const Tensor& x = require_type(g, node, 0, kNumericTypes);
  const Tensor& slope = require_input(g, node, 1);
  if (slope.dtype != x.dtype) node_error(node, "slope is " + slope.dtype.str() + ", the input " + x.dtype.str());
  if (broadcast_shapes(node, x.shape, slope.shape) != x.shape)
    node_error(node, "slope of shape " + shape_str(slope.shape) + " does not broadcast to the input's " + shape_str(x.shape));
  set_output(g, node, 0, x.dtype, x.shape);
}

Expr thresholded_relu(const Node& n, Operands in) {
  Expr x = in[0];
  return ir::select(x > attr(n, "alpha", 1.0), x, zero_of(x));
}

// x + bias below -lambd, x - bias above lambd, else 0. An integer input is computed in
// float64, as ONNX's reference does, and converted back (truncated, saturated).
Expr shrink(const Node& n, Operands in) {
  Expr x = in[0];
  DataType t = x.dtype();
  Expr v = t.is_float() ? x : convert(DataType::Float64(), x);
  // Immediates of v's type: -lambd as an expression would stay float32.
  double lambd = n.attr_float("lambd", 0.5);
  Expr bias = attr(n, "bias", 0.0);
  Expr y = ir::select(v < constant(-lambd, v.dtype()), v + bias, ir::select(v > constant(lambd, v.dtype()), v - bias, zero_of(v)));
  return convert(t, y);
}

// approximate="none": x * (1 + erf(x / sqrt(2))) / 2;
// approximate="tanh": x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2.
Expr gelu(const Node& n, Operands in) {
  Expr x = in[0];
  DataType t = x.dtype();
  Expr inner = n.attr_string("approximate", "none") == "tanh"
                   ? math("tanh", {constant(std::sqrt(2.0 / 3.14159265358979323846), t) * (x + Expr(0.044715) * x * x * x)})
                   : math("erf", {x * constant(1.0 / std::sqrt(2.0), t)});
  return Expr(0.5) * x * (Expr(1.0) + inner);
}

void infer_gelu(Graph& g, Node& node) {
  std::string approximate = node.attr_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    node_error(node, "approximate must be \"none\" or \"tanh\", not \"" + approximate + "\"");
  broadcast_infer(kFloatTypes)(g, node);
}

InferFn floats() { return broadcast_infer(kFloatTypes); }

AOTC_REGISTER_OP("Relu", elementwise(broadcast_infer(kFloatTypes | kSignedTypes), [](const Node&, Operands in) {
  return ir::max(in[0], zero_of(in[0]));  // a NaN stays NaN
}));
AOTC_REGISTER_OP("Sigmoid", elementwise(floats(), [](const Node&, Operands in) { return sigmoid(in[0]); }));
AOTC_REGISTER_OP("Tanh", elementwise(floats(), [](const Node&, Operands in) { return math("tanh", {in[0]}); }));
AOTC_REGISTER_OP("HardSigmoid", elementwise(floats(), [](const Node& n, Operands in) {
  return clamp01(attr(n, "alpha", 0.2) * in[0] + attr(n, "beta", 0.5));
}));
AOTC_REGISTER_OP("HardSwish", elementwise(floats(), [](const Node&, Operands in) {
  return in[0] * clamp01(in[0] * Expr(1.0 / 6.0) + Expr(0.5));
}));
AOTC_REGISTER_OP("Elu", elementwise(floats(), elu));
AOTC_REGISTER_OP("Selu", elementwise(floats(), selu));
AOTC_REGISTER_OP("Celu", elementwise(floats(), celu));
AOTC_REGISTER_OP("LeakyRelu", elementwise(floats(), leaky_relu));
AOTC_REGISTER_OP("PRelu", elementwise(infer_prelu, prelu));
AOTC_REGISTER_OP("ThresholdedRelu", elementwise(floats(), thresholded_relu));
AOTC_REGISTER_OP("Shrink", elementwise(broadcast_infer(kNumericTypes), shrink));
AOTC_REGISTER_OP("Softplus", elementwise(floats(), [](const Node&, Operands in) { return softplus(in[0]); }));
AOTC_REGISTER_OP("Softsign", elementwise(floats(), [](const Node&, Operands in) {
  return in[0] / (Expr(1.0) + math("fabs", {in[0]}));
}));
AOTC_REGISTER_OP("Mish", elementwise(floats(), [](const Node&, Operands in) { return in[0] * math("tanh", {softplus(in[0])}); }));
AOTC_REGISTER_OP("Gelu", elementwise(infer_gelu, gelu));
AOTC_REGISTER_OP("Swish", elementwise(floats(), [](const Node& n, Operands in) {
  return in[0] * sigmoid(attr(n, "alpha", 1.0) * in[0]);
}));

}  // namespace
}  // namespace aotc
