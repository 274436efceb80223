/* aotc_elementwise.h: the scalar functions of elementwise operators that C99 lacks.
 *
 *   - float16 (IEEE binary16) conversions: aotc keeps float16 tensors as 16-bit patterns
 *     (uint16_t) and computes in float32; Cast converts with these functions. Encoding
 *     rounds to nearest, ties to even, as numpy and ONNX Runtime do; too large a value
 *     becomes an infinity, NaN stays a (quiet) NaN.
 *   - Bit shifts defined for every count: ONNX's BitShift on unsigned integers gives 0
 *     when the count is at least the width, where C's shift is undefined.
 *   - Integer power, wrapping like every other integer operation of ONNX (numpy).
 *   - Integer remainder defined for every operand: ONNX's Mod with either sign convention,
 *     where C's % is undefined for a zero divisor and for INT64_MIN % -1.
 *
 * Only integer and bit arithmetic; every function is static inline, so models that do not
 * use them pay nothing. The functions are plain C99 that also compiles as C++: the
 * compiler's IR interpreter calls these very functions (lowering/ir/runtime_calls.cc), so
 * constant folding and the generated code agree bit for bit.
 */
#ifndef AOTC_ELEMENTWISE_H_
#define AOTC_ELEMENTWISE_H_

#include <stdint.h>
#include <string.h>

/* The value of a float16 bit pattern; exact (every float16 is a float32). */
static inline float aotc_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t exponent = (uint32_t)(h >> 10) & 0x1Fu;
  const uint32_t mantissa = (uint32_t)h & 0x3FFu;
  uint32_t bits;
  float f;
  if (exponent == 0x1Fu) {
    bits = sign | 0x7F800000u | (mantissa << 13); /* infinity, or NaN with its payload */
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13); /* rebias 15 -> 127 */
  } else {
    /* Zero or subnormal: mantissa * 2^-24, exact in float32. */
    f = (float)mantissa * 5.9604644775390625e-8f;
    return sign ? -f : f;
  }
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* The float16 nearest to d (ties to even); float32 values convert exactly to double first,
 * so one rounding serves both (a float32 -> float16 path through float32 alone would be
 * the same; from double it avoids rounding twice). */
static inline uint16_t aotc_f64_to_f16(double d) {
  uint64_t bits;
  uint64_t magnitude;
  uint16_t sign;
  memcpy(&bits, &d, sizeof bits);
  sign = (uint16_t)((bits >> 48) & 0x8000u);
  magnitude = bits & UINT64_C(0x7FFFFFFFFFFFFFFF);
  if (magnitude > UINT64_C(0x7FF0000000000000)) return (uint16_t)(sign | 0x7E00u); /* NaN */
  /* 65520 = 65504 (the largest float16) + half its spacing: from there up, infinity. */
  if (magnitude >= UINT64_C(0x40EFFE0000000000)) return (uint16_t)(sign | 0x7C00u);
  if (magnitude < UINT64_C(0x3F10000000000000)) {
    /* Below 2^-14: a subnormal float16, a multiple of 2^-24. Up to 2^-25 (a tie with 0,
     * whose last bit is even) the result is zero. */
    const uint32_t exponent = (uint32_t)(magnitude >> 52);
    uint64_t significand, remainder, half, quotient;
    uint32_t shift;
    if (magnitude <= UINT64_C(0x3E60000000000000)) return sign;
    /* magnitude = significand * 2^(exponent - 1075); in units of 2^-24 that is
     * significand / 2^(1051 - exponent), with 1051 - exponent in [43, 53]. */
    significand = (magnitude & UINT64_C(0x000FFFFFFFFFFFFF)) | UINT64_C(0x0010000000000000);
    shift = 1051u - exponent;
    quotient = significand >> shift;
    remainder = significand & ((UINT64_C(1) << shift) - 1u);
    half = UINT64_C(1) << (shift - 1u);
    if (remainder > half || (remainder == half && (quotient & 1u))) ++quotient;
    return (uint16_t)(sign | (uint16_t)quotient); /* 0x400 when it rounds up to 2^-14: right */
  } else {
    /* Normal: rebias the exponent (1023 -> 15) and keep 10 of the 52 mantissa bits. A
     * carry out of the mantissa correctly increments the exponent. */
    uint64_t quotient = (magnitude >> 42) - (UINT64_C(1008) << 10);
    const uint64_t remainder = magnitude & ((UINT64_C(1) << 42) - 1u);
    const uint64_t half = UINT64_C(1) << 41;
    if (remainder > half || (remainder == half && (quotient & 1u))) ++quotient;
    return (uint16_t)(sign | (uint16_t)quotient);
  }
}

/* x << n and x >> n for unsigned x of up to 32 bits (zero-extended), 0 when n >= 32. */
static inline uint32_t aotc_shift_left_u32(uint32_t x, uint32_t n) { return n >= 32u ? 0u : x << n; }
static inline uint32_t aotc_shift_right_u32(uint32_t x, uint32_t n) { return n >= 32u ? 0u : x >> n; }

/* The same for 64-bit x; 0 when n >= 64. */
static inline uint64_t aotc_shift_left_u64(uint64_t x, uint64_t n) { return n >= 64u ? 0u : x << n; }
static inline uint64_t aotc_shift_right_u64(uint64_t x, uint64_t n) { return n >= 64u ? 0u : x >> n; }

/* Bitwise and, or, xor and not (BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot) on the
 * two's complement bits of integers of up to 64 bits: signed values arrive sign-extended,
 * unsigned ones zero-extended, and the caller converts the result back to the operands'
 * width, which keeps exactly the bits of that width. */
static inline uint64_t aotc_bit_and_u64(uint64_t a, uint64_t b) { return a & b; }
static inline uint64_t aotc_bit_or_u64(uint64_t a, uint64_t b) { return a | b; }
static inline uint64_t aotc_bit_xor_u64(uint64_t a, uint64_t b) { return a ^ b; }
static inline uint64_t aotc_bit_not_u64(uint64_t a) { return ~a; }

/* base^exponent in wrapping 64-bit arithmetic (square and multiply on the two's
 * complement bits, so no signed overflow). A negative exponent gives the real result
 * truncated toward zero: 1 for base 1, +-1 for base -1, else 0 (also for base 0, where
 * the real result is infinite: there is no integer to give). */
static inline int64_t aotc_pow_i64(int64_t base, int64_t exponent) {
  uint64_t result = 1u;
  uint64_t factor = (uint64_t)base;
  uint64_t e;
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent & 1) ? -1 : 1;
    return 0;
  }
  e = (uint64_t)exponent;
  while (e != 0u) {
    if (e & 1u) result *= factor;
    factor *= factor;
    e >>= 1;
  }
  /* Back to signed: the value of the low 64 bits in two's complement, without relying on
   * an implementation-defined conversion. */
  return result <= (uint64_t)INT64_MAX ? (int64_t)result : -(int64_t)(~result) - 1;
}

/* a mod b for signed integers of up to 64 bits. C's % gives the dividend's sign (ONNX's
 * fmod=1); with sign_of_divisor set a nonzero remainder of the other sign moves by one
 * divisor, Python's % (fmod=0; the sum cannot overflow: the signs differ). A zero divisor
 * gives 0, as numpy does, and so does -1 (a % -1 is 0, but INT64_MIN % -1 overflows in C). */
static inline int64_t aotc_mod_i64(int64_t a, int64_t b, int32_t sign_of_divisor) {
  int64_t r;
  if (b == 0 || b == -1) return 0;
  r = a % b;
  if (sign_of_divisor && r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

#endif /* AOTC_ELEMENTWISE_H_ */
