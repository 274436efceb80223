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

std::optional<HighWordRequantization> high_word_requantization(ExactMultiplier m) {
  if (m.multiplier == 0 || m.shift > 61) return std::nullopt;
  int64_t multiplier = m.multiplier, shift = m.shift;
  if (shift < 32) multiplier <<= 32 - shift, shift = 32;
  // Below 2^30 exactly when the factor is below 1/4; then |acc * multiplier| < 2^61.
  if (multiplier >= (int64_t{1} << 30)) return std::nullopt;
  uint64_t rounding = (uint64_t{1} << (shift - 1)) - 1;
  return HighWordRequantization{static_cast<int32_t>(multiplier), static_cast<int32_t>(rounding >> 32),
                                static_cast<int32_t>(static_cast<uint32_t>(rounding)), static_cast<int32_t>(shift - 32)};
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

}  // namespace aotc
