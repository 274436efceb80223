// Unary functions of floating-point tensors, each one C99 <math.h> function (the float
// variant for float32): Exp, Log, Sqrt, Floor, Ceil, Round, Erf and the trigonometric and
// hyperbolic functions with their inverses.
//
// Round is ONNX's round half to even: nearbyint in the default rounding mode (C's round
// breaks ties away from zero). Out-of-domain arguments give what <math.h> gives (NaN, or
// an infinity for log(0)), as in numpy.
#include "lowering/compute/elementwise.h"

namespace aotc {
namespace {

OpDef unary_function(const char* c_name) {
  std::string name = c_name;
  return elementwise(broadcast_infer(kFloatTypes), [name](const Node&, const std::vector<ir::Expr>& in) { return math(name, {in[0]}); });
}

AOTC_REGISTER_OP("Exp", unary_function("exp"));
AOTC_REGISTER_OP("Log", unary_function("log"));
AOTC_REGISTER_OP("Sqrt", unary_function("sqrt"));
AOTC_REGISTER_OP("Floor", unary_function("floor"));
AOTC_REGISTER_OP("Ceil", unary_function("ceil"));
AOTC_REGISTER_OP("Round", unary_function("nearbyint"));
AOTC_REGISTER_OP("Erf", unary_function("erf"));
AOTC_REGISTER_OP("Sin", unary_function("sin"));
AOTC_REGISTER_OP("Cos", unary_function("cos"));
AOTC_REGISTER_OP("Tan", unary_function("tan"));
AOTC_REGISTER_OP("Asin", unary_function("asin"));
AOTC_REGISTER_OP("Acos", unary_function("acos"));
AOTC_REGISTER_OP("Atan", unary_function("atan"));
AOTC_REGISTER_OP("Sinh", unary_function("sinh"));
AOTC_REGISTER_OP("Cosh", unary_function("cosh"));
AOTC_REGISTER_OP("Asinh", unary_function("asinh"));
AOTC_REGISTER_OP("Acosh", unary_function("acosh"));
AOTC_REGISTER_OP("Atanh", unary_function("atanh"));

}  // namespace
}  // namespace aotc
