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

#endif /* AOTC_DOT_H_ */
