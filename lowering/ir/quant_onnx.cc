#include "lowering/ir/quant_onnx.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "aot/base/errors.h"
#include "runtime-c/aotc_quant_onnx.h"

namespace aotc {

ExactMultiplier exact_multiplier(float factor) {
  if (!std::isfinite(factor) || factor < 0.0f || factor >= 2147483648.0f) {
    std::ostringstream why;
    why << "requantization factor " << factor << " is not in [0, 2^31)";
    throw CompileError(why.str());
  }
  if (factor == 0.0f) return {};
  int exponent = 0;
  double fraction = std::frexp(static_cast<double>(factor), &exponent);  // factor = fraction * 2^exponent
  // fraction has at most 24 significant bits, so this is an exact integer in [2^30, 2^31).
  int64_t multiplier = static_cast<int64_t>(std::ldexp(fraction, 31));
  int64_t shift = 31 - exponent;
  while (shift > 0 && (multiplier & 1) == 0) multiplier >>= 1, --shift;
  // multiplier < 2^24 now, so |acc * multiplier| < 2^55 and the product rounds to 0.
  if (shift > 62) return {};
  return {static_cast<int32_t>(multiplier), static_cast<int32_t>(shift)};
}

CommonShiftMultipliers common_shift_multipliers(float a_factor, float b_factor) {
  ExactMultiplier a = exact_multiplier(a_factor), b = exact_multiplier(b_factor);
  if (a.multiplier == 0) return {0, b.multiplier, b.shift};
  if (b.multiplier == 0) return {a.multiplier, 0, a.shift};
  // The factor with the smaller shift is the larger one: it limits how far up the common
  // shift can go before its multiplier leaves 31 bits.
  bool a_is_larger = a.shift <= b.shift;
  ExactMultiplier& larger = a_is_larger ? a : b;
  ExactMultiplier& smaller = a_is_larger ? b : a;
  int headroom = 0;
  while ((int64_t{larger.multiplier} << (headroom + 1)) < (int64_t{1} << 31)) ++headroom;
  int32_t shift = std::min(smaller.shift, larger.shift + headroom);
  larger.multiplier <<= shift - larger.shift;
  smaller.multiplier = static_cast<int32_t>(aotc_round_shift_half_to_even(smaller.multiplier, smaller.shift - shift));
  return {a.multiplier, b.multiplier, shift};
}

int32_t onnx_requantize(int32_t acc, int32_t multiplier, int32_t shift) {
  return aotc_onnx_requantize(acc, multiplier, shift);
}

int32_t onnx_requantize_sum(int32_t a, int32_t a_multiplier, int32_t b, int32_t b_multiplier, int32_t shift) {
  return aotc_onnx_requantize_sum(a, a_multiplier, b, b_multiplier, shift);
}

namespace ir {
Expr onnx_requantize(Expr acc, Expr multiplier, Expr shift) {
  return call("aotc_onnx_requantize", {std::move(acc), std::move(multiplier), std::move(shift)}, DataType::Int(32));
}
Expr onnx_requantize_sum(Expr a, Expr a_multiplier, Expr b, Expr b_multiplier, Expr shift) {
  return call("aotc_onnx_requantize_sum",
              {std::move(a), std::move(a_multiplier), std::move(b), std::move(b_multiplier), std::move(shift)},
              DataType::Int(32));
}
}  // namespace ir

bool evaluate_onnx_quant_call(const std::string& name, const std::vector<int32_t>& args, int32_t* result) {
  if (name == "aotc_onnx_requantize" && args.size() == 3) {
    *result = aotc_onnx_requantize(args[0], args[1], args[2]);
    return true;
  }
  if (name == "aotc_onnx_requantize_sum" && args.size() == 5) {
    *result = aotc_onnx_requantize_sum(args[0], args[1], args[2], args[3], args[4]);
    return true;
  }
  return false;
}

}  // namespace aotc
