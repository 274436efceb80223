/* aotc_dot.h: dot products of int8 vectors, the inner loop of int8 fully connected layers.
 *
 * aotc calls these micro-kernels on targets whose description lists the `dsp` feature
 * (Armv7E-M and later: Cortex-M4, M7, M33, M55). There, with the compiler targeting the
 * DSP extension (__ARM_FEATURE_DSP), four products take one 32-bit load of each operand,
 * four SXTB16 and two SMLAD: two 16-bit multiply-accumulates per instruction. Elsewhere
 * (the host, where aotc's interpreter and `aotc run` evaluate them) a plain loop computes
 * the same sum. Both are exact: the sum is formed in 32-bit two's complement, as the
 * generic kernels do, so which one runs never changes a result.
 *
 * The operand pairs are unpacked in the same ("unordered") order on both sides, (0, 2) and
 * (1, 3) of each group of four, so no instruction is spent putting them back in order.
 * Plain C99 that also compiles as C++ (the compiler's interpreter includes it).
 */
#ifndef AOTC_DOT_H_
#define AOTC_DOT_H_

#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#endif

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
/* Four products of the words at a and b (four int8 each) added to sum. memcpy is the
 * aliasing-safe 32-bit load: one LDR where the compiler knows the address is aligned. */
#define AOTC_DOT_S8X4(sum, a, b)                                                                 \
  do {                                                                                           \
    uint32_t a4_, b4_;                                                                           \
    memcpy(&a4_, (a), 4);                                                                        \
    memcpy(&b4_, (b), 4);                                                                        \
    (sum) = (uint32_t)__smlad(__sxtb16((int32_t)a4_), __sxtb16((int32_t)b4_), (int32_t)(sum));  \
    (sum) = (uint32_t)__smlad(__sxtb16((int32_t)((a4_ >> 8) | (a4_ << 24))),                    \
                              __sxtb16((int32_t)((b4_ >> 8) | (b4_ << 24))), (int32_t)(sum));    \
  } while (0)
#endif

/* acc + sum of a[i] * b[i] for i in [0, n), modulo 2^32. */
static inline int32_t aotc_dot_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t acc) {
  uint32_t sum = (uint32_t)acc;
  int32_t i = 0;
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#if defined(__GNUC__) || defined(__clang__)
  /* Weights rows and planned tensors are word-aligned; an application's input buffer may
   * not be. Telling the compiler so matters: clang assumes strict alignment on bare-metal
   * targets and would otherwise assemble each word from four byte loads. */
  if ((((uintptr_t)a | (uintptr_t)b) & 3u) == 0) {
    const int8_t* aa = (const int8_t*)__builtin_assume_aligned(a, 4);
    const int8_t* bb = (const int8_t*)__builtin_assume_aligned(b, 4);
    for (; i + 4 <= n; i += 4) AOTC_DOT_S8X4(sum, aa + i, bb + i);
  }
#endif
  for (; i + 4 <= n; i += 4) AOTC_DOT_S8X4(sum, a + i, b + i);
#endif
  for (; i < n; ++i) sum += (uint32_t)((int32_t)a[i] * (int32_t)b[i]);
  return (int32_t)sum;
}

/* ---- Two rows of weights times two input vectors: the register block of int8 convolutions.
 *
 * acc[0] += x0 . w_row0, acc[1] += x0 . w_row1, acc[2] += x1 . w_row0, acc[3] += x1 . w_row1
 * over n elements, modulo 2^32. The two weight rows are packed at compile time into words in
 * the order this loop reads them: for each group of four elements, one word of row 0 then
 * one word of row 1 (four int8 each, element k in bits 8k..8k+7); a last partial group is
 * padded with zeros. So one pass over x0 and x1 and one over the packed rows feed four
 * sums: each input word and each weight word is loaded and unpacked once for two products
 * (eight SMLAD per sixteen multiply-accumulates, about 1.25 instructions each). A
 * convolution starts the sums from the bias with the input's zero point folded in, so the
 * loop has no offset to subtract. */
#if defined(__GNUC__) || defined(__clang__)
#define AOTC_DOT_INLINE static inline __attribute__((always_inline))
#else
#define AOTC_DOT_INLINE static inline
#endif

/* clang unrolls the block's loop four times and then spills the sums to the stack. */
#if defined(__clang__)
#define AOTC_DOT_NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define AOTC_DOT_NO_UNROLL
#endif

/* Words of packed weights for two rows of n elements. */
#define AOTC_DOT_2X2_WORDS(n) (2 * (((n) + 3) / 4))

/* Element j (0..3) of a packed word, sign-extended. */
#define AOTC_DOT_BYTE(word, j) ((int32_t)(int8_t)(uint8_t)((uint32_t)(word) >> (8 * (j))))

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
/* SXTB16 of a word rotated right by 8 bits: its elements 1 and 3. One instruction (SXTB16
 * takes the rotation); gcc does not fold the rotation into the intrinsic, so it is written
 * as the instruction for gcc (as CMSIS-Core's __SXTB16_RORn does). */
#if defined(__clang__) || !defined(__GNUC__)
#define AOTC_SXTB16_ROR8(w) __sxtb16((int32_t)(((uint32_t)(w) >> 8) | ((uint32_t)(w) << 24)))
#else
static inline __attribute__((always_inline)) int32_t aotc_sxtb16_ror8(uint32_t w) {
  int32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(w));
  return r;
}
#define AOTC_SXTB16_ROR8(w) aotc_sxtb16_ror8(w)
#endif

/* One group of four: input words x0w, x1w against the packed weight words at wp. Each
 * weight word is unpacked just before its four products, which keeps the live values
 * (four sums, four unpacked inputs, one weight) within the core's registers. */
#define AOTC_DOT_2X2_GROUP(x0w, x1w, wp)                                                  \
  do {                                                                                    \
    const int32_t x0e_ = __sxtb16((int32_t)(x0w)), x0o_ = AOTC_SXTB16_ROR8(x0w);          \
    const int32_t x1e_ = __sxtb16((int32_t)(x1w)), x1o_ = AOTC_SXTB16_ROR8(x1w);          \
    const uint32_t w0_ = (uint32_t)(wp)[0], w1_ = (uint32_t)(wp)[1];                      \
    int32_t we_ = __sxtb16((int32_t)w0_), wo_ = AOTC_SXTB16_ROR8(w0_);                    \
    s00 = __smlad(x0o_, wo_, __smlad(x0e_, we_, s00));                                    \
    s10 = __smlad(x1o_, wo_, __smlad(x1e_, we_, s10));                                    \
    we_ = __sxtb16((int32_t)w1_);                                                         \
    wo_ = AOTC_SXTB16_ROR8(w1_);                                                          \
    s01 = __smlad(x0o_, wo_, __smlad(x0e_, we_, s01));                                    \
    s11 = __smlad(x1o_, wo_, __smlad(x1e_, we_, s11));                                    \
  } while (0)
#endif

AOTC_DOT_INLINE void aotc_dot_s8_2x2(const int8_t* x0, const int8_t* x1, const int32_t* w, int32_t n, int32_t* acc) {
  const int32_t groups = n / 4;
  const int8_t* const x0_end = x0 + 4 * groups;
  int32_t k;
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  int32_t s00 = acc[0], s01 = acc[1], s10 = acc[2], s11 = acc[3];
#if defined(__GNUC__) || defined(__clang__)
  if ((((uintptr_t)x0 | (uintptr_t)x1) & 3u) == 0) {
    const uint32_t* a = (const uint32_t*)__builtin_assume_aligned(x0, 4);
    const uint32_t* b = (const uint32_t*)__builtin_assume_aligned(x1, 4);
    const uint32_t* const a_end = (const uint32_t*)__builtin_assume_aligned(x0_end, 4);
    AOTC_DOT_NO_UNROLL
    for (; a < a_end; ++a, ++b, w += 2) AOTC_DOT_2X2_GROUP(*a, *b, w);
    x0 = (const int8_t*)a;
    x1 = (const int8_t*)b;
  }
#endif
  AOTC_DOT_NO_UNROLL
  for (; x0 < x0_end; x0 += 4, x1 += 4, w += 2) {
    uint32_t a, b;
    memcpy(&a, x0, 4);
    memcpy(&b, x1, 4);
    AOTC_DOT_2X2_GROUP(a, b, w);
  }
  acc[0] = s00;
  acc[1] = s01;
  acc[2] = s10;
  acc[3] = s11;
#else
  uint32_t s00 = (uint32_t)acc[0], s01 = (uint32_t)acc[1], s10 = (uint32_t)acc[2], s11 = (uint32_t)acc[3];
  for (; x0 < x0_end; x0 += 4, x1 += 4, w += 2) {
    for (k = 0; k < 4; ++k) {
      const int32_t a = x0[k], b = x1[k], w0 = AOTC_DOT_BYTE(w[0], k), w1 = AOTC_DOT_BYTE(w[1], k);
      s00 += (uint32_t)(a * w0);
      s01 += (uint32_t)(a * w1);
      s10 += (uint32_t)(b * w0);
      s11 += (uint32_t)(b * w1);
    }
  }
  acc[0] = (int32_t)s00;
  acc[1] = (int32_t)s01;
  acc[2] = (int32_t)s10;
  acc[3] = (int32_t)s11;
#endif
  /* The partial group (w now points at its two words), element by element. */
  for (k = 0; k < n - 4 * groups; ++k) {
    const int32_t a = x0[k], b = x1[k], w0 = AOTC_DOT_BYTE(w[0], k), w1 = AOTC_DOT_BYTE(w[1], k);
    acc[0] = (int32_t)((uint32_t)acc[0] + (uint32_t)(a * w0));
    acc[1] = (int32_t)((uint32_t)acc[1] + (uint32_t)(a * w1));
    acc[2] = (int32_t)((uint32_t)acc[2] + (uint32_t)(b * w0));
    acc[3] = (int32_t)((uint32_t)acc[3] + (uint32_t)(b * w1));
  }
}

#endif /* AOTC_DOT_H_ */
