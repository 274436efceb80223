/* aotc_dot_strided.h: the dot products that the `tensorize` pass (lowering/passes/
 * tensorize.h) puts in place of the generic kernels' innermost reduction loops,
 *
 *   for (k = 0; k < n; ++k) acc = acc + a[k * a_stride] * b[k * b_stride];
 *
 * (Gemm, MatMul and the like), on cores where a loop written once by hand beats the
 * compiler's loop around the generic kernel's index arithmetic: four products per
 * iteration, pointers advanced by the strides.
 *
 * aotc_dot_f32 adds its products one after the other, in the loop's order, each as
 * `acc = acc + a * b`, exactly the generic kernel's statement: the sum is the loop's bit
 * for bit (float addition is not associative, so no other order would do). The integer
 * kernels accumulate (a - a_zero_point) * (b - b_zero_point) in 32-bit two's complement
 * (ONNX's MatMulInteger and ConvInteger, and plain int8 products with zero points of 0);
 * integer sums are exact modulo 2^32 in any order, so on cores with the DSP extension
 * (__ARM_FEATURE_DSP) the contiguous int8 case takes two products per SMLAD.
 * uint8 x int8 products come in one order only (uint8 first): the pass swaps the operands.
 * Plain C99 that also compiles as C++ (the compiler's interpreter includes it).
 */
#ifndef AOTC_DOT_STRIDED_H_
#define AOTC_DOT_STRIDED_H_

#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#endif

/* *acc = *acc + a[k * a_stride] * b[k * b_stride] for k = 0 .. n - 1, in order. */
static inline void aotc_dot_f32(const float* a, int32_t a_stride, const float* b, int32_t b_stride, int32_t n,
                                float* acc) {
  float s = *acc;
  int32_t k = 0;
  for (; k + 4 <= n; k += 4) {
    s = s + a[0] * b[0];
    s = s + a[a_stride] * b[b_stride];
    s = s + a[2 * a_stride] * b[2 * b_stride];
    s = s + a[3 * a_stride] * b[3 * b_stride];
    a += 4 * a_stride;
    b += 4 * b_stride;
  }
  for (; k < n; ++k) {
    s = s + a[0] * b[0];
    a += a_stride;
    b += b_stride;
  }
  *acc = s;
}

/* The loops of the integer kernels: T_A and T_B the element types. The products of two
 * int8 or uint8 values less their zero points fit in 17 bits; their sum wraps as an
 * unsigned 32-bit value, as the generic kernels' int32 arithmetic does in C. */
#define AOTC_DOT_INT_LOOP(T_A, T_B)                                                      \
  do {                                                                                   \
    uint32_t s_ = (uint32_t)*acc;                                                        \
    const T_A* a_ = a;                                                                   \
    const T_B* b_ = b;                                                                   \
    int32_t k_ = 0;                                                                      \
    for (; k_ + 4 <= n; k_ += 4) {                                                       \
      s_ += (uint32_t)(((int32_t)a_[0] - a_zero_point) * ((int32_t)b_[0] - b_zero_point)); \
      s_ += (uint32_t)(((int32_t)a_[a_stride] - a_zero_point) * ((int32_t)b_[b_stride] - b_zero_point)); \
      s_ += (uint32_t)(((int32_t)a_[2 * a_stride] - a_zero_point) * ((int32_t)b_[2 * b_stride] - b_zero_point)); \
      s_ += (uint32_t)(((int32_t)a_[3 * a_stride] - a_zero_point) * ((int32_t)b_[3 * b_stride] - b_zero_point)); \
      a_ += 4 * a_stride;                                                                \
      b_ += 4 * b_stride;                                                                \
    }                                                                                    \
    for (; k_ < n; ++k_, a_ += a_stride, b_ += b_stride)                                 \
      s_ += (uint32_t)(((int32_t)*a_ - a_zero_point) * ((int32_t)*b_ - b_zero_point));   \
    *acc = (int32_t)s_;                                                                  \
  } while (0)

/* Whether both operands less their zero points fit the int16 halves SMLAD multiplies
 * (zero points of int8 and uint8 tensors always do). */
#define AOTC_DOT_ZERO_POINTS_FIT(za, zb) ((za) >= -255 && (za) <= 255 && (zb) >= -255 && (zb) <= 255)

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
/* The DSP path of the integer kernels, for both operands contiguous: a word of each brings
 * four values; WIDEN (SXTB16 for int8, UXTB16 for uint8) widens elements 0 and 2, and of the
 * word rotated by 8 bits elements 1 and 3, to int16 pairs; SSUB16 takes the zero points off
 * (the differences fit in 9 bits); SMLAD adds both pairs' products. Leaves a, b and n at
 * the elements it did not take, for AOTC_DOT_INT_LOOP. */
#define AOTC_DOT_SXTB16(w) __sxtb16((int32_t)(w))
#define AOTC_DOT_UXTB16(w) ((int32_t)__uxtb16(w))
#define AOTC_DOT_DSP_LOOP(WIDEN)                                                                      \
  do {                                                                                                \
    if (a_stride == 1 && b_stride == 1 && n >= 4 && AOTC_DOT_ZERO_POINTS_FIT(a_zero_point, b_zero_point)) { \
      const int32_t za = (int32_t)(((uint32_t)a_zero_point & 0xFFFFu) | ((uint32_t)a_zero_point << 16)); \
      const int32_t zb = (int32_t)(((uint32_t)b_zero_point & 0xFFFFu) | ((uint32_t)b_zero_point << 16)); \
      int32_t s = *acc;                                                                               \
      int32_t groups = n / 4;                                                                         \
      for (; groups > 0; --groups, a += 4, b += 4, n -= 4) {                                          \
        uint32_t wa, wb;                                                                              \
        memcpy(&wa, a, 4);                                                                            \
        memcpy(&wb, b, 4);                                                                            \
        s = __smlad(__ssub16(WIDEN((wa >> 8) | (wa << 24)), za), __ssub16(WIDEN((wb >> 8) | (wb << 24)), zb), \
                    __smlad(__ssub16(WIDEN(wa), za), __ssub16(WIDEN(wb), zb), s));                    \
      }                                                                                               \
      *acc = s;                                                                                       \
    }                                                                                                 \
  } while (0)
#endif

/* *acc += (a[k * a_stride] - a_zero_point) * (b[k * b_stride] - b_zero_point), k < n. */
static inline void aotc_dot_s8_s8(const int8_t* a, int32_t a_stride, int32_t a_zero_point, const int8_t* b,
                                  int32_t b_stride, int32_t b_zero_point, int32_t n, int32_t* acc) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  AOTC_DOT_DSP_LOOP(AOTC_DOT_SXTB16);
#endif
  AOTC_DOT_INT_LOOP(int8_t, int8_t);
}

static inline void aotc_dot_u8_u8(const uint8_t* a, int32_t a_stride, int32_t a_zero_point, const uint8_t* b,
                                  int32_t b_stride, int32_t b_zero_point, int32_t n, int32_t* acc) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  AOTC_DOT_DSP_LOOP(AOTC_DOT_UXTB16);
#endif
  AOTC_DOT_INT_LOOP(uint8_t, uint8_t);
}

static inline void aotc_dot_u8_s8(const uint8_t* a, int32_t a_stride, int32_t a_zero_point, const int8_t* b,
                                  int32_t b_stride, int32_t b_zero_point, int32_t n, int32_t* acc) {
  AOTC_DOT_INT_LOOP(uint8_t, int8_t);
}

#undef AOTC_DOT_INT_LOOP
#undef AOTC_DOT_ZERO_POINTS_FIT
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#undef AOTC_DOT_DSP_LOOP
#undef AOTC_DOT_SXTB16
#undef AOTC_DOT_UXTB16
#endif

#endif /* AOTC_DOT_STRIDED_H_ */
