#include "lowering/ir/quantization.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace aotc {

QuantizedMultiplier quantize_multiplier(double real) {
  QuantizedMultiplier q;
  if (real == 0.0) return q;
  int exponent = 0;
  double fraction = std::frexp(real, &exponent);  // real = fraction * 2^exponent, fraction in [0.5, 1)
  int64_t fixed = static_cast<int64_t>(std::round(fraction * static_cast<double>(int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++exponent;
  }
  if (exponent < -31) {  // too small to represent: the product is zero anyway
    exponent = 0;
    fixed = 0;
  }
  q.multiplier = static_cast<int32_t>(fixed);
  q.shift = exponent;
  return q;
}

QuantizedRange quantized_activation_range(const std::string& activation, double scale, int64_t zero_point,
                                          int32_t type_min, int32_t type_max) {
  // In float, as TFLite's CalculateActivationRangeQuantized computes it: a double division
  // can land on the other side of a .5 tie.
  auto quantize = [&](double v) {
    return static_cast<int64_t>(zero_point + std::round(static_cast<float>(v) / static_cast<float>(scale)));
  };
  int64_t lo = type_min, hi = type_max;
  if (activation == "RELU") {
    lo = std::max<int64_t>(lo, quantize(0.0));
  } else if (activation == "RELU6") {
    lo = std::max<int64_t>(lo, quantize(0.0));
    hi = std::min<int64_t>(hi, quantize(6.0));
  } else if (activation == "RELU_N1_TO_1") {
    lo = std::max<int64_t>(lo, quantize(-1.0));
    hi = std::min<int64_t>(hi, quantize(1.0));
  }
  return {static_cast<int32_t>(lo), static_cast<int32_t>(hi)};
}

int32_t sat_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == std::numeric_limits<int32_t>::min() && b == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  int64_t ab = static_cast<int64_t>(a) * b;
  int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

int32_t rounding_divide_by_pot(int32_t x, int32_t exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t mul_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift) {
  int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left);
  return rounding_divide_by_pot(sat_rounding_doubling_high_mul(shifted, multiplier), right);
}

namespace ir {
Expr mul_by_quantized_multiplier(Expr x, Expr multiplier, Expr shift) {
  return call("aotc_mul_by_quantized_multiplier", {std::move(x), std::move(multiplier), std::move(shift)}, DataType::Int(32));
}
Expr rounding_divide_by_pot(Expr x, Expr exponent) {
  return call("aotc_rounding_divide_by_pot", {std::move(x), std::move(exponent)}, DataType::Int(32));
}
Expr sat_rounding_doubling_high_mul(Expr a, Expr b) {
  return call("aotc_sat_rounding_doubling_high_mul", {std::move(a), std::move(b)}, DataType::Int(32));
}
}  // namespace ir

}  // namespace aotc
