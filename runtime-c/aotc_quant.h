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

#endif /* AOTC_QUANT_H_ */
