/* aotc_dot_f32.h: float32 dot products in register blocks, the inner loops of float
 * convolutions, depthwise convolutions and fully connected layers on cores with a
 * single-precision FPU (the `fpu` target feature: Cortex-M4F, M7, M55 with Helium).
 *
 * Every sum is formed exactly as TensorFlow Lite's reference kernels form it: each output
 * has its own accumulator, which starts at zero and adds its products one after the other
 * in the kernel's order (taps, then input channels); the caller adds the bias afterwards.
 * A block only computes several outputs at once (four pixels x four output channels, or
 * four channels of one pixel), so that each loaded input serves four products and each
 * loaded weight four. The results are the plain C loops' bit for bit: on Arm each product
 * is a VMUL and its sum a VADD, each rounded (not the fused VFMA, which rounds once). That
 * is also what VMLA computes, but a Cortex-M4 spends 3 cycles on a VMLA and 1 + 1 on the
 * pair: the blocks issue their multiplies in groups of four to eight into free registers
 * and add each product at least four instructions later, so that no VADD waits for the
 * VMUL before it (an FPU result read by the next instruction costs a cycle more). The C fallback forms each product and sum in statements of their own
 * (AOTC_F32_MAC), which the host's compilers (no FMA in x86-64's baseline) and clang's
 * -ffp-contract=on keep apart; gcc's default -ffp-contract=fast may still fuse them on a
 * core with VFMA when AOTC_DOT_NO_ASM is defined, as it may in the generic kernels.
 *
 * Weights are packed at compile time in the order the loops read them: four output
 * channels (or units) side by side, [element][4], so that one multi-register load (VLDM of
 * contiguous memory) brings the four weights of an element, or of four elements.
 *
 * On a core with Helium's floating point (MVE.F: Cortex-M55, M85; AOTC_DOT_F32_MVE) the
 * loops are arm_mve.h intrinsics with one output per lane of four: a weight load of four
 * channels is already a vector, and each lane adds its products in the same order with the
 * same two roundings (VMUL, then VADD: Helium has no unfused float multiply-accumulate, and
 * its VFMA would round once), so the outputs are the scalar code's bit for bit
 * (tests/firmware/mve_kernels checks so on the emulated core). There, fully connected
 * layers take sixteen units per call (aotc_dot_f32_1x16), so that each input element,
 * a scalar operand, serves four vector products.
 *
 * Elsewhere, where the compiler takes GNU inline assembly for Thumb-2 with a single-precision
 * FPU and optimizes (AOTC_DOT_F32_ASM), the loops are written out as instructions: C compilers
 * neither keep a block's sums and products in registers in this order nor load four
 * consecutive floats with one VLDM, and clang does not advance its pointers with the
 * loads. Elsewhere (the host, where aotc's interpreter and `aotc run` evaluate them, or a
 * build that defines AOTC_DOT_NO_ASM) plain C loops compute the same sums.
 * Plain C99 that also compiles as C++ (the compiler's interpreter includes it).
 */
#ifndef AOTC_DOT_F32_H_
#define AOTC_DOT_F32_H_

#include <stdint.h>

/* Helium with floating point (MVE.F: Cortex-M55, M85) takes the vector loops below, one
 * output per lane; AOTC_DOT_F32_NO_MVE keeps the scalar ones (to compare them). */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2) && !defined(AOTC_DOT_F32_NO_MVE)
#include <arm_mve.h>
#define AOTC_DOT_F32_MVE 1
#elif defined(__thumb2__) && defined(__ARM_FP) && (__ARM_FP & 4) && defined(__OPTIMIZE__) && \
    (defined(__GNUC__) || defined(__clang__)) && !defined(AOTC_DOT_NO_ASM)
#define AOTC_DOT_F32_ASM 1
#endif

#if defined(AOTC_DOT_F32_MVE)
/* One multiply-accumulate of four lanes: the product rounded, then the sum, as the scalar
 * blocks and the C loops do (Helium's only float multiply-accumulate is the fused VFMA, which rounds
 * once and would change the outputs' last bits). */
#define AOTC_F32X4_MAC(s, a, b) ((s) = vaddq_f32((s), vmulq_n_f32((a), (b))))
/* Makes the compiler forget that pointer p is another plus a constant (no instruction), so
 * that it walks p with post-incremented loads instead of adding the distance, beyond
 * VLDRW's immediate offsets, for every load. */
#if defined(__GNUC__) || defined(__clang__)
#define AOTC_F32_OPAQUE(p) __asm__("" : "+r"(p))
#else
#define AOTC_F32_OPAQUE(p) ((void)0)
#endif
#endif

/* Floats of packed weights for `n` elements of four channels. */
#define AOTC_DOT_F32_X4_FLOATS(n) (4 * (n))

/* One multiply-accumulate of the C loops: the product rounded, then the sum (VMUL, then
 * VADD). Two statements, so that no compiler fuses them under -ffp-contract=on. */
#define AOTC_F32_MAC(s, a, b) \
  do {                        \
    const float p_ = (a) * (b); \
    (s) += p_;                \
  } while (0)

/* ---- Four pixels x four output channels: the register block of float convolutions.
 *
 * acc[4 * p + j] += x_p . w_j over n elements, for the pixels x0..x3 (each n contiguous
 * floats) and the four channels packed as w[4 * k + j]. Per element: four input loads,
 * one load of four weights, sixteen VMUL and sixteen VADD (45 Cortex-M4 cycles, where
 * sixteen VMLA took 61). The sums live in s16-s31 for the whole loop: 16 of the FPU's 32
 * registers, four inputs and four weights in s0-s7, the products in s8-s15. */
#if defined(AOTC_DOT_F32_ASM)
#define AOTC_DOT_F32_4X4_STEP                                                              \
  "vldmia %[w]!, {s4-s7}\n\t"                                                              \
  "vldmia %[x0]!, {s0}\n\t"                                                                \
  "vldmia %[x1]!, {s1}\n\t"                                                                \
  "vldmia %[x2]!, {s2}\n\t"                                                                \
  "vldmia %[x3]!, {s3}\n\t"                                                                \
  "vmul.f32 s8, s0, s4\n\tvmul.f32 s9, s0, s5\n\tvmul.f32 s10, s0, s6\n\tvmul.f32 s11, s0, s7\n\t" \
  "vmul.f32 s12, s1, s4\n\tvmul.f32 s13, s1, s5\n\tvmul.f32 s14, s1, s6\n\tvmul.f32 s15, s1, s7\n\t" \
  "vadd.f32 s16, s16, s8\n\tvadd.f32 s17, s17, s9\n\tvadd.f32 s18, s18, s10\n\tvadd.f32 s19, s19, s11\n\t" \
  "vmul.f32 s8, s2, s4\n\tvmul.f32 s9, s2, s5\n\tvmul.f32 s10, s2, s6\n\tvmul.f32 s11, s2, s7\n\t" \
  "vadd.f32 s20, s20, s12\n\tvadd.f32 s21, s21, s13\n\tvadd.f32 s22, s22, s14\n\tvadd.f32 s23, s23, s15\n\t" \
  "vmul.f32 s12, s3, s4\n\tvmul.f32 s13, s3, s5\n\tvmul.f32 s14, s3, s6\n\tvmul.f32 s15, s3, s7\n\t" \
  "vadd.f32 s24, s24, s8\n\tvadd.f32 s25, s25, s9\n\tvadd.f32 s26, s26, s10\n\tvadd.f32 s27, s27, s11\n\t" \
  "vadd.f32 s28, s28, s12\n\tvadd.f32 s29, s29, s13\n\tvadd.f32 s30, s30, s14\n\tvadd.f32 s31, s31, s15\n\t"
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
      : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13",
        "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29",
        "s30", "s31");
#elif defined(AOTC_DOT_F32_MVE)
  /* A vector per pixel holds its four channels' sums; per element one load of the four
   * weights serves the four pixels, each pixel's input a scalar register: 13 instructions
   * and the loop's for 16 multiply-accumulates. (Written two elements per iteration, gcc
   * and clang stepped the pointers with instructions of their own and gcc spilled.) */
  float32x4_t a0 = vld1q_f32(acc), a1 = vld1q_f32(acc + 4), a2 = vld1q_f32(acc + 8), a3 = vld1q_f32(acc + 12);
  int32_t k;
  for (k = 0; k < n; ++k, w += 4) {
    const float32x4_t wk = vld1q_f32(w);
    AOTC_F32X4_MAC(a0, wk, x0[k]);
    AOTC_F32X4_MAC(a1, wk, x1[k]);
    AOTC_F32X4_MAC(a2, wk, x2[k]);
    AOTC_F32X4_MAC(a3, wk, x3[k]);
  }
  vst1q_f32(acc, a0);
  vst1q_f32(acc + 4, a1);
  vst1q_f32(acc + 8, a2);
  vst1q_f32(acc + 12, a3);
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
 * sixteen VMUL and sixteen VADD, the products in s20-s27. */
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
      "vmul.f32 s20, s0, s4\n\tvmul.f32 s21, s0, s5\n\tvmul.f32 s22, s0, s6\n\tvmul.f32 s23, s0, s7\n\t"
      "vmul.f32 s24, s1, s8\n\tvmul.f32 s25, s1, s9\n\tvmul.f32 s26, s1, s10\n\tvmul.f32 s27, s1, s11\n\t"
      "vadd.f32 s28, s28, s20\n\tvadd.f32 s29, s29, s21\n\tvadd.f32 s30, s30, s22\n\tvadd.f32 s31, s31, s23\n\t"
      "vmul.f32 s20, s2, s12\n\tvmul.f32 s21, s2, s13\n\tvmul.f32 s22, s2, s14\n\tvmul.f32 s23, s2, s15\n\t"
      "vadd.f32 s28, s28, s24\n\tvadd.f32 s29, s29, s25\n\tvadd.f32 s30, s30, s26\n\tvadd.f32 s31, s31, s27\n\t"
      "vmul.f32 s24, s3, s16\n\tvmul.f32 s25, s3, s17\n\tvmul.f32 s26, s3, s18\n\tvmul.f32 s27, s3, s19\n\t"
      "vadd.f32 s28, s28, s20\n\tvadd.f32 s29, s29, s21\n\tvadd.f32 s30, s30, s22\n\tvadd.f32 s31, s31, s23\n\t"
      "vadd.f32 s28, s28, s24\n\tvadd.f32 s29, s29, s25\n\tvadd.f32 s30, s30, s26\n\tvadd.f32 s31, s31, s27\n\t"
      "subs %[quads], %[quads], #1\n\t"
      "bne 1b\n\t"
      "2:\n\t"
      "cmp %[rest], #0\n\t"
      "beq 4f\n\t"
      "3:\n\t"
      "vldmia %[x]!, {s0}\n\t"
      "vldmia %[w]!, {s4-s7}\n\t"
      "vmul.f32 s20, s0, s4\n\tvmul.f32 s21, s0, s5\n\tvmul.f32 s22, s0, s6\n\tvmul.f32 s23, s0, s7\n\t"
      "vadd.f32 s28, s28, s20\n\tvadd.f32 s29, s29, s21\n\tvadd.f32 s30, s30, s22\n\tvadd.f32 s31, s31, s23\n\t"
      "subs %[rest], %[rest], #1\n\t"
      "bne 3b\n\t"
      "4:\n\t"
      "vstmia %[acc], {s28-s31}"
      : [x] "+r"(x), [w] "+r"(w), [quads] "+r"(quads), [rest] "+r"(rest)
      : [acc] "r"(acc)
      : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14",
        "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30",
        "s31");
#elif defined(AOTC_DOT_F32_MVE)
  /* The four units' sums in one vector: per element a load of its four weights, the
   * input from a scalar register, a multiply and an add; four elements per iteration
   * (clang then loads two inputs at once). */
  float32x4_t a;
  int32_t k;
  if (n <= 0) return;
  a = vld1q_f32(acc);
  for (k = n >> 2; k > 0; --k, x += 4, w += 16) {
    AOTC_F32X4_MAC(a, vld1q_f32(w), x[0]);
    AOTC_F32X4_MAC(a, vld1q_f32(w + 4), x[1]);
    AOTC_F32X4_MAC(a, vld1q_f32(w + 8), x[2]);
    AOTC_F32X4_MAC(a, vld1q_f32(w + 12), x[3]);
  }
  for (k = n & 3; k > 0; --k, w += 4) AOTC_F32X4_MAC(a, vld1q_f32(w), *x++);
  vst1q_f32(acc, a);
#else
  int32_t k, j;
  for (k = 0; k < n; ++k, w += 4)
    for (j = 0; j < 4; ++j) AOTC_F32_MAC(acc[j], x[k], w[j]);
#endif
}

/* ---- One input row x sixteen output units: fully connected layers on Helium.
 *
 * acc[4 * b + j] += x . w_(b, j) over n elements for four blocks b of four units, block b's
 * weights packed as for aotc_dot_f32_1x4 from w + b * block_stride. With the units in the
 * lanes, each element's input is a scalar that every block multiplies; sixteen units per
 * call load it once for four vector multiply-accumulates (13 instructions for 16 products,
 * where four units per call take 4 for 4). Elsewhere the same sums, block by block. */
static inline void aotc_dot_f32_1x16(const float* x, const float* w, int32_t block_stride, int32_t n, float* acc) {
#if defined(AOTC_DOT_F32_MVE)
  const float *w0 = w, *w1 = w + block_stride, *w2 = w + 2 * block_stride, *w3 = w + 3 * block_stride;
  float32x4_t a0 = vld1q_f32(acc), a1 = vld1q_f32(acc + 4), a2 = vld1q_f32(acc + 8), a3 = vld1q_f32(acc + 12);
  int32_t k;
  AOTC_F32_OPAQUE(w1);
  AOTC_F32_OPAQUE(w2);
  AOTC_F32_OPAQUE(w3);
  for (k = 0; k < n; ++k, w0 += 4, w1 += 4, w2 += 4, w3 += 4) {
    const float xk = x[k];
    AOTC_F32X4_MAC(a0, vld1q_f32(w0), xk);
    AOTC_F32X4_MAC(a1, vld1q_f32(w1), xk);
    AOTC_F32X4_MAC(a2, vld1q_f32(w2), xk);
    AOTC_F32X4_MAC(a3, vld1q_f32(w3), xk);
  }
  vst1q_f32(acc, a0);
  vst1q_f32(acc + 4, a1);
  vst1q_f32(acc + 8, a2);
  vst1q_f32(acc + 12, a3);
#else
  int32_t b;
  for (b = 0; b < 4; ++b) aotc_dot_f32_1x4(x, w + b * block_stride, n, acc + 4 * b);
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
 * inputs, one of four weights, four VMUL, four VADD and the step to the next tap (rows of
 * three taps are written out). */
#if defined(AOTC_DOT_F32_ASM)
#define AOTC_DW_F32_TAP                                                                    \
  "vldmia %[x], {s0-s3}\n\t"                                                               \
  "vldmia %[w]!, {s4-s7}\n\t"                                                              \
  "add %[x], %[x], %[tap_bytes]\n\t"                                                       \
  "vmul.f32 s8, s0, s4\n\tvmul.f32 s9, s1, s5\n\tvmul.f32 s10, s2, s6\n\tvmul.f32 s11, s3, s7\n\t" \
  "vadd.f32 s28, s28, s8\n\tvadd.f32 s29, s29, s9\n\tvadd.f32 s30, s30, s10\n\tvadd.f32 s31, s31, s11\n\t"
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
        : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s28", "s29", "s30",
          "s31");
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
      : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s28", "s29", "s30",
        "s31");
#elif defined(AOTC_DOT_F32_MVE)
  /* The four channels are contiguous in the input too: a vector load of inputs, one of
   * weights, a multiply and an add per tap. Rows of three taps are written out, so that
   * the inputs' offsets are the loads' immediates where the caller's `channels` is a
   * constant. */
  float32x4_t a = vld1q_f32(acc);
  int32_t r, t;
  if (taps == 3) {
    for (r = 0; r < rows; ++r, x += row_step, w += 12 + w_skip) {
      a = vaddq_f32(a, vmulq_f32(vld1q_f32(x), vld1q_f32(w)));
      a = vaddq_f32(a, vmulq_f32(vld1q_f32(x + channels), vld1q_f32(w + 4)));
      a = vaddq_f32(a, vmulq_f32(vld1q_f32(x + 2 * channels), vld1q_f32(w + 8)));
    }
  } else {
    for (r = 0; r < rows; ++r, x += row_step, w += w_skip)
      for (t = 0; t < taps; ++t, w += 4) a = vaddq_f32(a, vmulq_f32(vld1q_f32(x + t * channels), vld1q_f32(w)));
  }
  vst1q_f32(acc, a);
#else
  int32_t r, t, j;
  for (r = 0; r < rows; ++r, x += row_step, w += w_skip)
    for (t = 0; t < taps; ++t, w += 4)
      for (j = 0; j < 4; ++j) AOTC_F32_MAC(acc[j], x[t * channels + j], w[j]);
#endif
}

#endif /* AOTC_DOT_F32_H_ */
