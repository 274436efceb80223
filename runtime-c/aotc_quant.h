/* aotc_quant.h: the fixed-point arithmetic of TensorFlow Lite's integer kernels.
 *
 * int8 kernels accumulate in int32 and scale the sum by a real factor (for example
 * input_scale * filter_scale / output_scale) that the compiler turns into a 32-bit
 * multiplier and a power-of-two shift. These functions apply it exactly as TFLite's
 * reference kernels do (rounding half away from zero in the high multiply, then a
 * rounding right shift), so that results match TensorFlow Lite Micro bit for bit.
 * Only integer arithmetic; everything is static inline so unused functions cost nothing.
 */
#ifndef AOTC_QUANT_H_
#define AOTC_QUANT_H_

#include <stdint.h>

/* Kernels call these once per output element: they must be inlined whatever the size of
 * the kernel around them (gcc -O2 stops inlining static inline functions in large kernels,
 * which costs a call per element). */
#if defined(__GNUC__) || defined(__clang__)
#define AOTC_FIXEDPOINT static inline __attribute__((always_inline))
#else
#define AOTC_FIXEDPOINT static inline
#endif

/* The high word of the 64-bit multiply-accumulate (high:low) + x * m, for a multiplier
 * 0 <= m < 2^31, in 32-bit arithmetic: four 16 x 16 products and the carries between the
 * halves. They make the unsigned product of x's bits, less m * 2^32 for a negative x
 * (whose bits are x + 2^32): the same bits as the 64-bit expression, for every x. */
AOTC_FIXEDPOINT uint32_t aotc_smlal_high_halves(int32_t x, int32_t m, uint32_t high, uint32_t low) {
  const uint32_t ux = (uint32_t)x, um = (uint32_t)m;
  const uint32_t x_lo = ux & 0xFFFFu, x_hi = ux >> 16, m_lo = um & 0xFFFFu, m_hi = um >> 16;
  const uint32_t mid_part = x_lo * m_hi, mid = mid_part + x_hi * m_lo; /* weight 2^16 */
  const uint32_t mid_carry = (uint32_t)(mid < mid_part) << 16;
  const uint32_t product_low = x_lo * m_lo, low_part = product_low + (mid << 16), sum_low = low_part + low;
  const uint32_t carries = (uint32_t)(low_part < product_low) + (uint32_t)(sum_low < low_part);
  return high + x_hi * m_hi + (mid >> 16) + mid_carry + carries - (x < 0 ? um : 0u);
}

/* The high word of (high:low) + x * m (SMLAL on Armv7-M), for 0 <= m < 2^31 (what the
 * compiler computes from scales). Armv6-M (Cortex-M0, M0+, M1) has no 32 x 32 -> 64
 * multiply: there C's 64-bit product is a call into the compiler's library for a full
 * 64 x 64 multiply, and gcc spills the 64-bit sums around it, so the halves above are
 * used instead (bench/firmware/README.md, "Cores without DSP"). */
AOTC_FIXEDPOINT uint32_t aotc_smlal_high(int32_t x, int32_t m, uint32_t high, uint32_t low) {
#if defined(__ARM_ARCH_6M__)
  return aotc_smlal_high_halves(x, m, high, low);
#else
  return (uint32_t)(((((uint64_t)high << 32) | low) + (uint64_t)((int64_t)x * (int64_t)m)) >> 32);
#endif
}

/* The high 32 bits of 2*a*b, rounded; saturates the one overflowing case (MIN * MIN). */
AOTC_FIXEDPOINT int32_t aotc_sat_rounding_doubling_high_mul(int32_t a, int32_t b) {
  int64_t ab;
  int32_t nudge;
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  ab = (int64_t)a * (int64_t)b;
  nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* x / 2^exponent, rounded to nearest with ties away from zero (0 <= exponent <= 31). */
AOTC_FIXEDPOINT int32_t aotc_rounding_divide_by_pot(int32_t x, int32_t exponent) {
  const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* x * multiplier * 2^shift / 2^31 with TFLite's rounding; shift may be negative. */
AOTC_FIXEDPOINT int32_t aotc_mul_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t left_shift = shift > 0 ? shift : 0;
  const int32_t right_shift = shift > 0 ? 0 : -shift;
  /* The left shift wraps like TFLite's int32 multiply; done unsigned to stay defined. */
  const int32_t shifted = (int32_t)((uint32_t)x << left_shift);
  return aotc_rounding_divide_by_pot(aotc_sat_rounding_doubling_high_mul(shifted, multiplier), right_shift);
}

/* aotc_mul_by_quantized_multiplier for a multiplier other than INT32_MIN (every multiplier
 * that the compiler computes from scales lies in [0, 2^31)), in fewer instructions: the
 * one saturating case of the high multiply (INT32_MIN * INT32_MIN) cannot occur, and its
 * rounding, (a * b + nudge) / 2^31 with nudge = 2^30 or 1 - 2^30 by the sign and the
 * quotient truncated, equals (a * b + 2^30) >> 31 with the quotient floored, for either
 * sign: one multiply-accumulate (SMLAL) and two shifts on Armv7-M. The same result for
 * every x. */
AOTC_FIXEDPOINT int32_t aotc_requantize(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t left_shift = shift > 0 ? shift : 0;
  const int32_t right_shift = shift > 0 ? 0 : -shift;
  const int32_t shifted = (int32_t)((uint32_t)x << left_shift);
  /* |shifted * multiplier| < 2^62: bits 31..62 of the sum are the result, sign included;
   * read as unsigned bits to stay defined C. */
  const uint64_t sum = (uint64_t)((int64_t)shifted * (int64_t)multiplier + ((int64_t)1 << 30));
  const int32_t high = (int32_t)(uint32_t)(sum >> 31);
  return aotc_rounding_divide_by_pot(high, right_shift);
}

/* aotc_requantize for a multiplier in (2^30, 2^31) and a right shift of at least 2 (a
 * shift of -2 or less: what nearly every layer has; the compiler checks both per layer).
 * The two roundings fold into one multiply-accumulate and one shift, with the same result
 * for every x: with h = (x * multiplier + 2^30) >> 31 and e = right_shift,
 *   RoundingDivideByPOT(h, e) = (h + 2^(e-1) - [h < 0]) >> e
 *                             = (x * multiplier + 2^30 - [h < 0] * 2^31 + 2^(30+e)) >> (31+e),
 * [h < 0] is [x < 0] for such a multiplier, and the last shift splits into taking the high
 * word and an int32 shift, where adding 2^(e-2) cannot overflow (|high| < 2^30). */
AOTC_FIXEDPOINT int32_t aotc_requantize_right(int32_t x, int32_t multiplier, int32_t right_shift) {
  const int32_t nudge = x < 0 ? -(1 << 30) : (1 << 30);
  const uint64_t sum = (uint64_t)((int64_t)x * (int64_t)multiplier + nudge);
  const int32_t high = (int32_t)(uint32_t)(sum >> 32);
  return (high + (1 << (right_shift - 2))) >> (right_shift - 1);
}

/* aotc_requantize_right plus the output zero point, saturated to int8: what an int8
 * kernel stores, in five instructions and a saturation on Armv7E-M. The compiler passes
 * offset = 2^(e-2) + zero_point * 2^(e-1) and shift = e - 1 for the right shift e (the
 * zero point, a multiple of 2^(e-1), passes through the floor of the last shift
 * unchanged), and checks that |offset| < 2^30, so that adding it to the high word (whose
 * magnitude is at most 2^30) cannot overflow. The sign-dependent nudge (+2^30 or -2^30)
 * and the offset are the initial 64-bit value of the one multiply-accumulate (SMLAL): its
 * low word is 2^30 with bit 31 of x, its high word the offset minus one for a negative x.
 * The same result as aotc_requantize_right(x, multiplier, e) + zero_point, clamped to
 * [-128, 127], for every x. */
AOTC_FIXEDPOINT int32_t aotc_requantize_s8(int32_t x, int32_t multiplier, int32_t offset, int32_t shift) {
  const uint32_t low = ((uint32_t)x & 0x80000000u) | 0x40000000u;
  const uint32_t high = (uint32_t)offset - (uint32_t)(x < 0);
  const int32_t value = (int32_t)aotc_smlal_high(x, multiplier, high, low) >> shift;
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT && (defined(__GNUC__) || defined(__clang__))
  return __builtin_arm_ssat(value, 8);
#else
  return value < -128 ? -128 : value > 127 ? 127 : value;
#endif
}

/* The same for an int64 x (|x| < 2^47), as TFLite's 16x8 kernels (int16 activations,
 * int64 sums) apply it: the multiplier rounded to 16 bits, then one rounding shift of the
 * 64-bit product. */
AOTC_FIXEDPOINT int32_t aotc_mul_by_quantized_multiplier_i64(int64_t x, int32_t multiplier, int32_t shift) {
  const int32_t reduced_multiplier = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
  const int32_t total_shift = 15 - shift;
  const int64_t round = (int64_t)1 << (total_shift - 1);
  /* An arithmetic right shift of a negative value, as TFLite relies on; done on the
   * unsigned bits with the sign filled in to stay defined C. */
  const uint64_t sum = (uint64_t)(x * (int64_t)reduced_multiplier + round);
  const uint64_t shifted = sum >> total_shift;
  const uint64_t sign_fill = (sum >> 63) ? ~(~(uint64_t)0 >> total_shift) : 0;
  return (int32_t)(int64_t)(shifted | sign_fill);
}

/* ---- TFLite's int8 HARD_SWISH (reference_ops::HardSwish), on 16-bit fixed-point values. */

/* int16 a * b / 2^15 rounded to nearest, saturating MIN * MIN (gemmlowp's int16
 * SaturatingRoundingDoublingHighMul). */
static inline int16_t aotc_sat_rounding_doubling_high_mul_s16(int16_t a, int16_t b) {
  const int32_t ab = (int32_t)a * (int32_t)b;
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  return (int16_t)((ab + (ab >= 0 ? (1 << 14) : (1 - (1 << 14)))) / (1 << 15));
}

/* The same rounded toward zero (SaturatingDoublingHighMul, Arm's SQDMULH). */
static inline int16_t aotc_sat_doubling_high_mul_s16(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  return (int16_t)(((int32_t)a * (int32_t)b) / (1 << 15));
}

/* value * 2^amount saturated to int16. */
static inline int16_t aotc_saturating_left_shift_s16(int16_t value, int32_t amount) {
  const int64_t result = (int64_t)value * ((int64_t)1 << amount);
  return (int16_t)(result > INT16_MAX ? INT16_MAX : result < INT16_MIN ? INT16_MIN : result);
}

/* aotc_rounding_divide_by_pot for an int16 x as TFLite's int16 kernels compute it (gemmlowp's
 * RoundingDivideByPOT on int16_t, 0 <= exponent <= 31): up to 15 the same; beyond, its mask
 * (2^exponent - 1 cast to int16_t) is -1, and the result keeps only x's sign: 1 for x >= 0,
 * -1 below. */
static inline int16_t aotc_rounding_divide_by_pot_s16(int16_t x, int32_t exponent) {
  if (exponent <= 15) return (int16_t)aotc_rounding_divide_by_pot(x, exponent);
  return (int16_t)(x >= 0 ? 1 : -1);
}

/* hard_swish(x) = x * relu6(x + 3) / 6 for x = input - input zero point (int8 range), on
 * the output's scale before its zero point is added: the input at 2^7 times its scale,
 * rescaled once by output_multiplier (Q15, 2^output_exponent <= 1) and once to the scale
 * where 3 is 2^15 (reluish_multiplier, 2^reluish_exponent), that one mapped from [-1, 1]
 * to [0, 1] and multiplied in; the same steps and roundings as TFLite. */
static inline int32_t aotc_hard_swish_s8(int32_t input, int32_t output_multiplier, int32_t output_exponent,
                                         int32_t reluish_multiplier, int32_t reluish_exponent) {
  const int16_t on_hires_input_scale = (int16_t)(input * (1 << 7));
  const int16_t on_preshift_output_scale = aotc_sat_rounding_doubling_high_mul_s16(on_hires_input_scale, (int16_t)output_multiplier);
  int16_t reluish = on_hires_input_scale;
  int16_t preshift_output;
  if (reluish_exponent > 0) reluish = aotc_saturating_left_shift_s16(reluish, reluish_exponent - 1);
  reluish = aotc_sat_rounding_doubling_high_mul_s16(reluish, (int16_t)reluish_multiplier);
  if (reluish_exponent > 0) reluish = aotc_saturating_left_shift_s16(reluish, 1);
  if (reluish_exponent < 0) reluish = aotc_rounding_divide_by_pot_s16(reluish, -reluish_exponent);
  reluish = (int16_t)((reluish + (1 << 15)) >> 1);
  preshift_output = aotc_sat_doubling_high_mul_s16(reluish, on_preshift_output_scale);
  return aotc_rounding_divide_by_pot_s16(preshift_output, -output_exponent);
}

#endif /* AOTC_QUANT_H_ */
