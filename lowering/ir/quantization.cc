#include "lowering/ir/quantization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "aot/base/errors.h"

namespace aotc {

QuantizedMultiplier quantize_multiplier(double real) {
  QuantizedMultiplier q;
  // A quantization scale of 0 makes a ratio of scales infinite; the fixed-point form
  // holds factors below 2^31.
  if (!(std::fabs(real) < 2147483648.0)) {
    std::ostringstream why;
    why << "requantization factor " << real << " is not a finite number below 2^31 (is a quantization scale 0?)";
    throw CompileError(why.str());
  }
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

}  // namespace aotc
