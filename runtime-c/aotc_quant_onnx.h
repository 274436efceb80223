/* aotc_quant_onnx.h: requantization with ONNX's rounding, in integer arithmetic.
 *
 * ONNX's quantized operators (QLinearConv, QLinearMatMul, and QuantizeLinear after a
 * DequantizeLinear -> Conv/MatMul/Add pattern) define the output as the real-valued
 * result divided by the output scale, rounded to the nearest integer with ties to even,
 * plus the zero point, saturated to the output type. aotc_quant.h's TFLite-style
 * multiplier rounds twice and breaks ties away from zero, so it disagrees with ONNX
 * whenever the real result is exactly halfway between two integers — which is common
 * when the scales are powers of two.
 *
 * Here the real factor is a compile-time pair (multiplier, shift) with
 * factor = multiplier / 2^shift exactly (the compiler takes float32 factors, whose 24-bit
 * significands fit), the product with the int32 accumulator is formed exactly in 64
 * bits, and a single rounding to nearest, ties to even, gives the result. Only integer
 * arithmetic; every function is static inline, so models that do not use them pay
 * nothing. The functions are plain C99 that also compiles as C++: the compiler's IR
 * interpreter calls these very functions (lowering/quant_onnx.cc).
 */
#ifndef AOTC_QUANT_ONNX_H_
#define AOTC_QUANT_ONNX_H_

#include <stdint.h>

#include "aotc_quant.h" /* AOTC_FIXEDPOINT: called once per output element, always inlined */

/* x / 2^shift rounded to nearest, ties to even, for 0 <= shift <= 62. The rounding is
 * symmetric, so it is done on the magnitude, in unsigned arithmetic (no signed shifts). */
AOTC_FIXEDPOINT int64_t aotc_round_shift_half_to_even(int64_t x, int32_t shift) {
  const uint64_t magnitude = x < 0 ? (uint64_t)(-(x + 1)) + 1u : (uint64_t)x;
  const uint64_t half = shift > 0 ? (uint64_t)1 << (shift - 1) : 0u;
  const uint64_t remainder = shift > 0 ? magnitude & (((uint64_t)1 << shift) - 1u) : 0u;
  uint64_t quotient = magnitude >> shift;
  if (shift > 0 && (remainder > half || (remainder == half && (quotient & 1u)))) ++quotient;
  return x < 0 ? -(int64_t)quotient : (int64_t)quotient;
}

/* x clamped to the int32 range. */
AOTC_FIXEDPOINT int32_t aotc_saturate_int32(int64_t x) {
  if (x > INT32_MAX) return INT32_MAX;
  if (x < INT32_MIN) return INT32_MIN;
  return (int32_t)x;
}

/* acc * multiplier / 2^shift, rounded to nearest with ties to even and saturated to
 * int32. multiplier >= 0; 0 <= shift <= 62. Exact: |acc * multiplier| < 2^62. */
AOTC_FIXEDPOINT int32_t aotc_onnx_requantize(int32_t acc, int32_t multiplier, int32_t shift) {
  return aotc_saturate_int32(aotc_round_shift_half_to_even((int64_t)acc * (int64_t)multiplier, shift));
}

/* aotc_onnx_requantize in a few instructions, for what nearly every layer has: a factor
 * below 1/4, whose multiplier and shift the compiler widens, where the shift is below 32,
 * to a shift of 32 (exact still; the multiplier stays below 2^30): a shift s of 32 to 61.
 * The compiler passes what depends on s alone: 2^(s-1) - 1 as its high word rounding_high
 * and low word rounding_low, and high_shift = s - 32. Rounding to
 * nearest with ties to even is floor((x + 2^(s-1) - 1 + odd) / 2^s), odd being the low bit
 * of floor(x / 2^s) (bit s of x): below the half the quotient stays, above it goes up, at
 * the half it goes up exactly when it was odd. |x| < 2^61, so the sum's high word holds
 * the quotient times 2^high_shift, sign included: one 64-bit multiply, two 64-bit adds, an
 * int32 shift. The same result as aotc_onnx_requantize(acc, multiplier, s) for every acc. */
AOTC_FIXEDPOINT int32_t aotc_onnx_requantize_high(int32_t acc, int32_t multiplier, int32_t rounding_high,
                                                 int32_t rounding_low, int32_t high_shift) {
  const uint64_t product = (uint64_t)((int64_t)acc * (int64_t)multiplier);
  const uint32_t odd = ((uint32_t)(product >> 32) >> high_shift) & 1u;
  const uint64_t rounding = ((uint64_t)(uint32_t)rounding_high << 32) | (uint32_t)rounding_low;
  const uint64_t sum = product + rounding + odd;
  return (int32_t)(uint32_t)(sum >> 32) >> high_shift;
}

/* aotc_onnx_requantize_high plus the output zero point, saturated to int8: what an int8
 * kernel stores (the quotient is below 2^30 in magnitude: the sum cannot overflow). */
AOTC_FIXEDPOINT int32_t aotc_onnx_requantize_s8(int32_t acc, int32_t multiplier, int32_t rounding_high,
                                               int32_t rounding_low, int32_t high_shift, int32_t zero_point) {
  const int32_t value = aotc_onnx_requantize_high(acc, multiplier, rounding_high, rounding_low, high_shift) + zero_point;
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT && (defined(__GNUC__) || defined(__clang__))
  return __builtin_arm_ssat(value, 8);
#else
  return value < -128 ? -128 : value > 127 ? 127 : value;
#endif
}

/* (a * a_multiplier + b * b_multiplier) / 2^shift, rounded to nearest with ties to even
 * and saturated to int32: the sum of two operands rescaled to a common output scale.
 * Multipliers >= 0; 0 <= shift <= 62. The 64-bit sum cannot overflow: each product is
 * below 2^62 in magnitude. */
AOTC_FIXEDPOINT int32_t aotc_onnx_requantize_sum(int32_t a, int32_t a_multiplier, int32_t b, int32_t b_multiplier,
                                                int32_t shift) {
  const int64_t sum = (int64_t)a * (int64_t)a_multiplier + (int64_t)b * (int64_t)b_multiplier;
  return aotc_saturate_int32(aotc_round_shift_half_to_even(sum, shift));
}

#endif /* AOTC_QUANT_ONNX_H_ */
