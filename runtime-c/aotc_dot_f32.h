/* aotc_dot_f32.h: float32 dot products in register blocks, the inner loops of float
 * convolutions, depthwise convolutions and fully connected layers on cores with a
 * single-precision FPU (the `fpu` target feature: Cortex-M4F, M7, M55).
 *
 * Every sum is formed exactly as TensorFlow Lite's reference kernels form it: each output
 * has its own accumulator, which starts at zero and adds its products one after the other
 * in the kernel's order (taps, then input channels); the caller adds the bias afterwards.
 * A block only computes several outputs at once (four pixels x four output channels, or
 * four channels of one pixel), so that each loaded input serves four products and each
 * loaded weight four. The results are the plain C loops' bit for bit: on Arm the product
 * is accumulated with VMLA, which rounds the product and then the sum (not the fused VFMA,
 * which rounds once). The C fallback forms each product and sum in statements of their own
 * (AOTC_F32_MAC), which the host's compilers (no FMA in x86-64's baseline) and clang's
 * -ffp-contract=on keep apart; gcc's default -ffp-contract=fast may still fuse them on a
 * core with VFMA when AOTC_DOT_NO_ASM is defined, as it may in the generic kernels.
 *
 * Weights are packed at compile time in the order the loops read them: four output
 * channels (or units) side by side, [element][4], so that one multi-register load (VLDM of
 * contiguous memory) brings the four weights of an element, or of four elements.
 *
 * Where the compiler takes GNU inline assembly for Thumb-2 with a single-precision FPU and
 * optimizes (AOTC_DOT_F32_ASM), the loops are written out as instructions: C compilers
 * neither form VMLA from C (it is not a contraction they may make) nor load four
 * consecutive floats with one VLDM, and clang does not advance its pointers with the
 * loads. Elsewhere (the host, where aotc's interpreter and `aotc run` evaluate them, or a
 * build that defines AOTC_DOT_NO_ASM) plain C loops compute the same sums.
 * Plain C99 that also compiles as C++ (the compiler's interpreter includes it).
 */
#ifndef AOTC_DOT_F32_H_
#define AOTC_DOT_F32_H_

#include <stdint.h>

#if defined(__thumb2__) && defined(__ARM_FP) && (__ARM_FP & 4) && defined(__OPTIMIZE__) && \
    (defined(__GNUC__) || defined(__clang__)) && !defined(AOTC_DOT_NO_ASM)
#define AOTC_DOT_F32_ASM 1
#endif

/* Floats of packed weights for `n` elements of four channels. */
#define AOTC_DOT_F32_X4_FLOATS(n) (4 * (n))

/* One multiply-accumulate of the C loops: the product rounded, then the sum (VMLA's
 * rounding). Two statements, so that no compiler fuses them under -ffp-contract=on. */
#define AOTC_F32_MAC(s, a, b) \
  do {                        \
    const float p_ = (a) * (b); \
    (s) += p_;                \
  } while (0)

/* ---- Four pixels x four output channels: the register block of float convolutions.
 *
 * acc[4 * p + j] += x_p . w_j over n elements, for the pixels x0..x3 (each n contiguous
 * floats) and the four channels packed as w[4 * k + j]. Per element: four input loads,
 * one load of four weights and sixteen VMLA (1.31 instructions per multiply-accumulate
 * with the loop's own, two elements per iteration). The sums live in s16-s31 for the
 * whole loop: 16 of the FPU's 32 registers, four inputs and four weights in s0-s7. */
#if defined(AOTC_DOT_F32_ASM)
#define AOTC_DOT_F32_4X4_STEP                                                              \
  "vldmia %[w]!, {s4-s7}\n\t"                                                              \
  "vldmia %[x0]!, {s0}\n\t"                                                                \
  "vldmia %[x1]!, {s1}\n\t"                                                                \
  "vldmia %[x2]!, {s2}\n\t"                                                                \
  "vldmia %[x3]!, {s3}\n\t"                                                                \
  "vmla.f32 s16, s0, s4\n\tvmla.f32 s17, s0, s5\n\tvmla.f32 s18, s0, s6\n\tvmla.f32 s19, s0, s7\n\t" \
  "vmla.f32 s20, s1, s4\n\tvmla.f32 s21, s1, s5\n\tvmla.f32 s22, s1, s6\n\tvmla.f32 s23, s1, s7\n\t" \
  "vmla.f32 s24, s2, s4\n\tvmla.f32 s25, s2, s5\n\tvmla.f32 s26, s2, s6\n\tvmla.f32 s27, s2, s7\n\t" \
  "vmla.f32 s28, s3, s4\n\tvmla.f32 s29, s3, s5\n\tvmla.f32 s30, s3, s6\n\tvmla.f32 s31, s3, s7\n\t"
#endif

static inline void aotc_dot_f32_4x4(const float* x0, const float* x1, const float* x2, const float* x3, const float* w,
                                    int32_t n, float* acc) {
#if defined(AOTC_DOT_F32_ASM)
  int32_t pairs = n >> 1;
  if (n <= 0) return;
  /* Two elements per iteration, then an odd last one. */
  __asm__ volatile(
      "vldmia %[acc], {s16-s31}\n\t"
      "cmp %[pairs], #0\n\t"
      "beq 2f\n\t"
      "1:\n\t" AOTC_DOT_F32_4X4_STEP AOTC_DOT_F32_4X4_STEP
      "subs %[pairs], %[pairs], #1\n\t"
      "bne 1b\n\t"
      "2:\n\t"
      "tst %[n], #1\n\t"
      "beq 3f\n\t" AOTC_DOT_F32_4X4_STEP
      "3:\n\t"
      "vstmia %[acc], {s16-s31}"
      : [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [x3] "+r"(x3), [w] "+r"(w), [pairs] "+r"(pairs)
      : [n] "r"(n), [acc] "r"(acc)
      : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s16", "s17", "s18", "s19", "s20", "s21",
        "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31");
#else
  const float* const x[4] = {x0, x1, x2, x3};
  int32_t k, p, j;
  for (k = 0; k < n; ++k, w += 4)
    for (p = 0; p < 4; ++p)
      for (j = 0; j < 4; ++j) AOTC_F32_MAC(acc[4 * p + j], x[p][k], w[j]);
#endif
}

/* ---- One input row x four output units: fully connected layers (a batch of one) and the
 * pixels a convolution's blocks of four leave over.
 *
 * acc[j] += x . w_j over n elements, w packed as for aotc_dot_f32_4x4 (w[4 * k + j]).
 * Four elements per iteration: one load of four inputs, one of their sixteen weights and
 * sixteen VMLA (1.25 instructions per multiply-accumulate). */
static inline void aotc_dot_f32_1x4(const float* x, const float* w, int32_t n, float* acc) {
#if defined(AOTC_DOT_F32_ASM)
  int32_t quads = n >> 2, rest = n & 3;
  if (n <= 0) return;
  __asm__ volatile(
      "vldmia %[acc], {s28-s31}\n\t"
      "cmp %[quads], #0\n\t"
      "beq 2f\n\t"
      "1:\n\t"
      "vldmia %[x]!, {s0-s3}\n\t"
      "vldmia %[w]!, {s4-s19}\n\t"
      "vmla.f32 s28, s0, s4\n\tvmla.f32 s29, s0, s5\n\tvmla.f32 s30, s0, s6\n\tvmla.f32 s31, s0, s7\n\t"
      "vmla.f32 s28, s1, s8\n\tvmla.f32 s29, s1, s9\n\tvmla.f32 s30, s1, s10\n\tvmla.f32 s31, s1, s11\n\t"
      "vmla.f32 s28, s2, s12\n\tvmla.f32 s29, s2, s13\n\tvmla.f32 s30, s2, s14\n\tvmla.f32 s31, s2, s15\n\t"
      "vmla.f32 s28, s3, s16\n\tvmla.f32 s29, s3, s17\n\tvmla.f32 s30, s3, s18\n\tvmla.f32 s31, s3, s19\n\t"
      "subs %[quads], %[quads], #1\n\t"
      "bne 1b\n\t"
      "2:\n\t"
      "cmp %[rest], #0\n\t"
      "beq 4f\n\t"
      "3:\n\t"
      "vldmia %[x]!, {s0}\n\t"
      "vldmia %[w]!, {s4-s7}\n\t"
      "vmla.f32 s28, s0, s4\n\tvmla.f32 s29, s0, s5\n\tvmla.f32 s30, s0, s6\n\tvmla.f32 s31, s0, s7\n\t"
      "subs %[rest], %[rest], #1\n\t"
      "bne 3b\n\t"
      "4:\n\t"
      "vstmia %[acc], {s28-s31}"
      : [x] "+r"(x), [w] "+r"(w), [quads] "+r"(quads), [rest] "+r"(rest)
      : [acc] "r"(acc)
      : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14",
        "s15", "s16", "s17", "s18", "s19", "s28", "s29", "s30", "s31");
#else
  int32_t k, j;
  for (k = 0; k < n; ++k, w += 4)
    for (j = 0; j < 4; ++j) AOTC_F32_MAC(acc[j], x[k], w[j]);
#endif
}

/* ---- A depthwise window for four channels: the block of float depthwise convolutions.
 *
 * acc[j] += sum over r < rows, t < taps of x[r * row_step + t * channels + j] *
 * w[4 * (r * taps + t) + j + r * w_skip]: `rows` kernel rows of `taps` taps each (the part of
 * the window inside the input: the caller clips the window as TFLite skips the taps in the
 * padding), the input's channels `channels` floats apart and its rows `row_step` apart, the
 * four channels' taps packed [tap][4] with `w_skip` floats of clipped taps after each row's.
 * In the order TFLite sums a depthwise window: rows, then taps. Per tap: one load of four
 * inputs, one of four weights, four VMLA and the step to the next tap (1.75 instructions per
 * multiply-accumulate for windows three taps wide, whose rows are written out). */
#if defined(AOTC_DOT_F32_ASM)
#define AOTC_DW_F32_TAP                                                                    \
  "vldmia %[x], {s0-s3}\n\t"                                                               \
  "vldmia %[w]!, {s4-s7}\n\t"                                                              \
  "add %[x], %[x], %[tap_bytes]\n\t"                                                       \
  "vmla.f32 s28, s0, s4\n\tvmla.f32 s29, s1, s5\n\tvmla.f32 s30, s2, s6\n\tvmla.f32 s31, s3, s7\n\t"
#endif

static inline void aotc_dw_f32_4ch(const float* x, int32_t channels, int32_t row_step, const float* w, int32_t w_skip,
                                   int32_t rows, int32_t taps, float* acc) {
#if defined(AOTC_DOT_F32_ASM)
  /* After a row, x moves from past its last tap to the next row's first. */
  const int32_t tap_bytes = 4 * channels, next_row_bytes = 4 * (row_step - taps * channels), w_skip_bytes = 4 * w_skip;
  int32_t t;
  if (rows <= 0 || taps <= 0) return;
  if (taps == 3) {
    __asm__ volatile(
        "vldmia %[acc], {s28-s31}\n\t"
        "1:\n\t" AOTC_DW_F32_TAP AOTC_DW_F32_TAP AOTC_DW_F32_TAP
        "add %[x], %[x], %[next_row]\n\t"
        "add %[w], %[w], %[w_skip]\n\t"
        "subs %[rows], %[rows], #1\n\t"
        "bne 1b\n\t"
        "vstmia %[acc], {s28-s31}"
        : [x] "+r"(x), [w] "+r"(w), [rows] "+r"(rows)
        : [tap_bytes] "r"(tap_bytes), [next_row] "r"(next_row_bytes), [w_skip] "r"(w_skip_bytes), [acc] "r"(acc)
        : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s28", "s29", "s30", "s31");
    return;
  }
  __asm__ volatile(
      "vldmia %[acc], {s28-s31}\n\t"
      "1:\n\t"
      "mov %[t], %[taps]\n\t"
      "2:\n\t" AOTC_DW_F32_TAP
      "subs %[t], %[t], #1\n\t"
      "bne 2b\n\t"
      "add %[x], %[x], %[next_row]\n\t"
      "add %[w], %[w], %[w_skip]\n\t"
      "subs %[rows], %[rows], #1\n\t"
      "bne 1b\n\t"
      "vstmia %[acc], {s28-s31}"
      : [x] "+r"(x), [w] "+r"(w), [rows] "+r"(rows), [t] "=&r"(t)
      : [taps] "r"(taps), [tap_bytes] "r"(tap_bytes), [next_row] "r"(next_row_bytes), [w_skip] "r"(w_skip_bytes),
        [acc] "r"(acc)
      : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s28", "s29", "s30", "s31");
#else
  int32_t r, t, j;
  for (r = 0; r < rows; ++r, x += row_step, w += w_skip)
    for (t = 0; t < taps; ++t, w += 4)
      for (j = 0; j < 4; ++j) AOTC_F32_MAC(acc[j], x[t * channels + j], w[j]);
#endif
}

#endif /* AOTC_DOT_F32_H_ */
