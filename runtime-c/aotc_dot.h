/* aotc_dot.h: dot products of int8 vectors in register blocks, the inner loops of int8
 * fully connected layers (one input x four weight rows) and convolutions (two inputs x two
 * weight rows).
 *
 * aotc calls these micro-kernels on microcontroller targets (every target but the host).
 * With the compiler targeting the DSP extension (__ARM_FEATURE_DSP: Armv7E-M and later,
 * Cortex-M4, M7, M33, M55), a 32-bit load brings four int8 values, two SXTB16 widen them
 * to two pairs of int16, and SMLAD adds two products per instruction; each loaded and
 * widened word serves two or four products of the block. Elsewhere (Cortex-M0+, RISC-V,
 * and the host, where aotc's interpreter and `aotc run` evaluate them) plain loops compute
 * the same sums, written for a core with few registers.
 * Both are exact: the sums are formed in 32-bit two's complement, as the generic kernels
 * do, so which one runs never changes a result.
 *
 * The weights are packed at compile time in the order the loops read them. The operand
 * pairs are unpacked in the same ("unordered") order on both sides, (0, 2) and (1, 3) of
 * each group of four, so no instruction is spent putting them back in order. Planned
 * tensors and packed weights are word-aligned; an application's input buffer may not be,
 * so each block checks its inputs' alignment once: clang assumes strict alignment on
 * bare-metal targets and would otherwise assemble each word from four byte loads.
 * Plain C99 that also compiles as C++ (the compiler's interpreter includes it).
 */
#ifndef AOTC_DOT_H_
#define AOTC_DOT_H_

#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#endif

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

/* Loops written out as instructions (aotc_dot_s8_2x2_aligned, aotc_dot_s8_1x4) where the
 * compiler takes GNU inline assembly and optimizes: they need up to 13 of the core's
 * registers, which every build has unless it reserves more than the frame pointer (r7):
 * a build with -ffixed-r9 or -frwpi defines AOTC_DOT_NO_ASM, and gets the C loops. */
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && defined(__OPTIMIZE__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(AOTC_DOT_NO_ASM) && !defined(__ARM_RWPI)
#define AOTC_DOT_ASM 1
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

/* The word at p, which is word-aligned: one LDR (clang makes four byte loads of a word it
 * cannot prove aligned). */
AOTC_DOT_INLINE uint32_t aotc_dot_word(const int8_t* p) {
  uint32_t w;
#if defined(__GNUC__) || defined(__clang__)
  memcpy(&w, __builtin_assume_aligned(p, 4), 4);
#else
  memcpy(&w, p, 4);
#endif
  return w;
}

/* The eight SMLAD of a group of four elements: the input halves x0e, x0o (pixel 0) and
 * x1e, x1o (pixel 1) against the packed weight words at wp (row 0, then row 1). Each
 * weight word is unpacked just before its four products, which keeps the live values
 * (four sums, four unpacked inputs, one weight) within the core's registers. */
#define AOTC_DOT_2X2_PRODUCTS(x0e, x0o, x1e, x1o, wp)                                     \
  do {                                                                                    \
    const uint32_t w0_ = (uint32_t)(wp)[0], w1_ = (uint32_t)(wp)[1];                      \
    int32_t we_ = __sxtb16((int32_t)w0_), wo_ = AOTC_SXTB16_ROR8(w0_);                    \
    s00 = __smlad((x0o), wo_, __smlad((x0e), we_, s00));                                  \
    s10 = __smlad((x1o), wo_, __smlad((x1e), we_, s10));                                  \
    we_ = __sxtb16((int32_t)w1_);                                                         \
    wo_ = AOTC_SXTB16_ROR8(w1_);                                                          \
    s01 = __smlad((x0o), wo_, __smlad((x0e), we_, s01));                                  \
    s11 = __smlad((x1o), wo_, __smlad((x1e), we_, s11));                                  \
  } while (0)

/* One group of four: input words x0w, x1w, unpacked, against the packed weights at wp. */
#define AOTC_DOT_2X2_GROUP(x0w, x1w, wp)                                                  \
  do {                                                                                    \
    const int32_t x0e_ = __sxtb16((int32_t)(x0w)), x0o_ = AOTC_SXTB16_ROR8(x0w);          \
    const int32_t x1e_ = __sxtb16((int32_t)(x1w)), x1o_ = AOTC_SXTB16_ROR8(x1w);          \
    AOTC_DOT_2X2_PRODUCTS(x0e_, x0o_, x1e_, x1o_, wp);                                    \
  } while (0)
#endif

#if !(defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP)
/* Without the DSP extension (Cortex-M0+, RISC-V, the host): the four products of x[0..3]
 * with one packed weight word. The plain loops add one such expression per sum and group,
 * and take one pixel at a time: with two sums live, a core with eight low registers
 * (Armv6-M) keeps the loop out of the stack, where the loop over single products of the
 * whole block spilled (bench/firmware/README.md, "Cores without DSP"). */
AOTC_DOT_INLINE int32_t aotc_dot_s8_group(const int8_t* x, int32_t w) {
  return x[0] * AOTC_DOT_BYTE(w, 0) + x[1] * AOTC_DOT_BYTE(w, 1) + x[2] * AOTC_DOT_BYTE(w, 2) + x[3] * AOTC_DOT_BYTE(w, 3);
}
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
#if defined(__clang__)
    /* Two groups per iteration: see aotc_dot_s16_2x2. */
    const uint32_t* const a_pairs_end = a + 2 * (groups / 2);
    AOTC_DOT_NO_UNROLL
    for (; a < a_pairs_end; a += 2, b += 2, w += 4) {
      AOTC_DOT_2X2_GROUP(a[0], b[0], w);
      AOTC_DOT_2X2_GROUP(a[1], b[1], w + 2);
    }
#endif
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
  {
    /* Without the DSP extension: one pixel at a time against both rows (see
     * aotc_dot_s8_group), then the other; x0 and x1 end past their whole groups. */
    int32_t p;
    for (p = 0; p < 2; ++p) {
      const int8_t* x = p == 0 ? x0 : x1;
      const int8_t* const x_end = x + 4 * groups;
      const int32_t* wp = w;
      uint32_t r0 = (uint32_t)acc[2 * p], r1 = (uint32_t)acc[2 * p + 1];
      for (; x < x_end; x += 4, wp += 2) {
        r0 += (uint32_t)aotc_dot_s8_group(x, wp[0]);
        r1 += (uint32_t)aotc_dot_s8_group(x, wp[1]);
      }
      acc[2 * p] = (int32_t)r0;
      acc[2 * p + 1] = (int32_t)r1;
    }
    x0 = x0_end;
    x1 += 4 * groups;
    w += 2 * groups;
  }
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

/* aotc_dot_s8_2x2 for word-aligned rows of whole words (n a multiple of 4, x0 and x1 at
 * word-aligned addresses), the second row x1_offset bytes after the first: a convolution's
 * two neighbouring windows. One pointer serves both rows and no check or tail is needed.
 *
 * Its loop needs 13 registers: four sums, the input and weight pointers, the end, and six
 * unpacked values (two per input word, two per weight word). That is every register the
 * core has to spare, and how C compilers allocate it varies: gcc 12 makes 22 instructions
 * of a group, clang 14 spills sums and pointers (about 26). Where the offset is a
 * compile-time constant (as aotc passes it) and the compiler optimizes, the loop is written
 * out as instructions instead: two groups per iteration, the second row read at an
 * immediate offset from the first, 21 instructions per group with either compiler. The
 * same sums as the C loop below. */
#if defined(AOTC_DOT_ASM)
#define AOTC_DOT_2X2_ASM_GROUP(x_at, x1_at, w_at, w1_at)                  \
  "ldr %[a], " x_at "\n\t"                                                \
  "ldr %[b], " x1_at "\n\t"                                               \
  "ldr %[t], " w_at "\n\t"                                                \
  "sxtb16 %[ao], %[a], ror #8\n\t"                                        \
  "sxtb16 %[a], %[a]\n\t"                                                 \
  "sxtb16 %[bo], %[b], ror #8\n\t"                                        \
  "sxtb16 %[b], %[b]\n\t"                                                 \
  "sxtb16 %[wo], %[t], ror #8\n\t"                                        \
  "sxtb16 %[t], %[t]\n\t"                                                 \
  "smlad %[s00], %[a], %[t], %[s00]\n\t"                                  \
  "smlad %[s00], %[ao], %[wo], %[s00]\n\t"                                \
  "smlad %[s10], %[b], %[t], %[s10]\n\t"                                  \
  "smlad %[s10], %[bo], %[wo], %[s10]\n\t"                                \
  "ldr %[t], " w1_at "\n\t"                                               \
  "sxtb16 %[wo], %[t], ror #8\n\t"                                        \
  "sxtb16 %[t], %[t]\n\t"                                                 \
  "smlad %[s01], %[a], %[t], %[s01]\n\t"                                  \
  "smlad %[s01], %[ao], %[wo], %[s01]\n\t"                                \
  "smlad %[s11], %[b], %[t], %[s11]\n\t"                                  \
  "smlad %[s11], %[bo], %[wo], %[s11]\n\t"
#define AOTC_DOT_2X2_ASM 1
#endif

AOTC_DOT_INLINE void aotc_dot_s8_2x2_aligned(const int8_t* x0, int32_t x1_offset, const int32_t* w, int32_t n, int32_t* acc) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  const int8_t* const end = x0 + n;
  int32_t s00 = acc[0], s01 = acc[1], s10 = acc[2], s11 = acc[3];
#if defined(AOTC_DOT_2X2_ASM)
  if (__builtin_constant_p(x1_offset) && x1_offset >= 8 && x1_offset <= 4095 && n >= 8 && n % 8 == 0) {
    int32_t a, ao, b, bo, t, wo;
    /* Per iteration x0 advances by 8 and w by 16 first; the loads then reach back. */
    __asm__(
        "1:\n\t" AOTC_DOT_2X2_ASM_GROUP("[%[x]], #8", "[%[x], %[o0]]", "[%[w]], #16", "[%[w], #-12]")
            AOTC_DOT_2X2_ASM_GROUP("[%[x], #-4]", "[%[x], %[o1]]", "[%[w], #-8]", "[%[w], #-4]")
        "cmp %[x], %[end]\n\t"
        "bne 1b"
        : [s00] "+r"(s00), [s01] "+r"(s01), [s10] "+r"(s10), [s11] "+r"(s11), [x] "+r"(x0), [w] "+r"(w),
          [a] "=&r"(a), [ao] "=&r"(ao), [b] "=&r"(b), [bo] "=&r"(bo), [t] "=&r"(t), [wo] "=&r"(wo)
        : [end] "r"(end), [o0] "i"(x1_offset - 8), [o1] "i"(x1_offset - 4)
        : "cc", "memory");
  }
#endif
  AOTC_DOT_NO_UNROLL
  for (; x0 < end; x0 += 4, w += 2) AOTC_DOT_2X2_GROUP(aotc_dot_word(x0), aotc_dot_word(x0 + x1_offset), w);
  acc[0] = s00;
  acc[1] = s01;
  acc[2] = s10;
  acc[3] = s11;
#else
  aotc_dot_s8_2x2(x0, x0 + x1_offset, w, n, acc);
#endif
}

/* ---- Two staged pixels, widened once, times two rows of weights: the register block of
 * int8 1x1 convolutions that stage their input (the output taking the input's memory).
 *
 * aotc_stage_s8x2 copies two pixels of n int8 values into `staged` widened to int16, in
 * the order the packed weights unpack in: per group of four values, for pixel 0 then
 * pixel 1, the word of values 0 and 2 and the word of values 1 and 3 (low halfword
 * first); a last partial group is padded with zeros. aotc_dot_s16_2x2 then adds the same
 * four sums as aotc_dot_s8_2x2 over `groups` groups of the staged words and the packed
 * weight rows: the inputs need no unpacking in the loop (four words, one LDM or two LDRD,
 * per group), which leaves the weights' loads and SXTB16 and the eight SMLAD. */
#define AOTC_STAGED_S8X2_WORDS(n) (4 * (((n) + 3) / 4))

AOTC_DOT_INLINE void aotc_stage_s8x2(const int8_t* x0, const int8_t* x1, int32_t n, int32_t* staged) {
  int32_t g = 0, k;
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  /* Whole groups of word-aligned pixels: a word each, unpacked by SXTB16. */
  if ((((uintptr_t)x0 | (uintptr_t)x1) & 3u) == 0) {
    for (; g + 4 <= n; g += 4, staged += 4) {
      const uint32_t a = aotc_dot_word(x0 + g), b = aotc_dot_word(x1 + g);
      staged[0] = __sxtb16((int32_t)a);
      staged[1] = AOTC_SXTB16_ROR8(a);
      staged[2] = __sxtb16((int32_t)b);
      staged[3] = AOTC_SXTB16_ROR8(b);
    }
  }
#endif
  for (; g < n; g += 4, staged += 4) {
    int8_t v[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    int32_t p;
    for (k = 0; k < 4 && g + k < n; ++k) {
      v[0][k] = x0[g + k];
      v[1][k] = x1[g + k];
    }
    for (p = 0; p < 2; ++p) {
      staged[2 * p] = (int32_t)((uint32_t)(uint16_t)v[p][0] | ((uint32_t)(uint16_t)v[p][2] << 16));
      staged[2 * p + 1] = (int32_t)((uint32_t)(uint16_t)v[p][1] | ((uint32_t)(uint16_t)v[p][3] << 16));
    }
  }
}

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
/* One group: the staged words at xs against the packed weight words at wp (two rows). */
#define AOTC_DOT_S16_2X2_GROUP(xs, wp)                                                     \
  do {                                                                                    \
    const int32_t x0e_ = (xs)[0], x0o_ = (xs)[1], x1e_ = (xs)[2], x1o_ = (xs)[3];         \
    AOTC_DOT_2X2_PRODUCTS(x0e_, x0o_, x1e_, x1o_, wp);                                    \
  } while (0)
#endif

#if !(defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP)
/* Without the DSP extension: the four products of one staged pixel's group (word e holds
 * its values 0 and 2, word o its values 1 and 3) with one packed weight word, as
 * aotc_dot_s8_group. */
AOTC_DOT_INLINE int32_t aotc_dot_s16_group(int32_t e, int32_t o, int32_t w) {
  const int32_t e_lo = (int16_t)(uint16_t)((uint32_t)e & 0xFFFFu), e_hi = (int16_t)(uint16_t)((uint32_t)e >> 16);
  const int32_t o_lo = (int16_t)(uint16_t)((uint32_t)o & 0xFFFFu), o_hi = (int16_t)(uint16_t)((uint32_t)o >> 16);
  return e_lo * AOTC_DOT_BYTE(w, 0) + o_lo * AOTC_DOT_BYTE(w, 1) + e_hi * AOTC_DOT_BYTE(w, 2) + o_hi * AOTC_DOT_BYTE(w, 3);
}
#endif

AOTC_DOT_INLINE void aotc_dot_s16_2x2(const int32_t* staged, const int32_t* w, int32_t groups, int32_t* acc) {
  const int32_t* const end = staged + 4 * groups;
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  int32_t s00 = acc[0], s01 = acc[1], s10 = acc[2], s11 = acc[3];
#if defined(__clang__)
  /* clang 14 allocates the one-group loop with two sums on the stack; with two groups per
   * iteration it keeps everything in registers (and halves the loop's own instructions). */
  const int32_t* const pairs_end = staged + 8 * (groups / 2);
  AOTC_DOT_NO_UNROLL
  for (; staged < pairs_end; staged += 8, w += 4) {
    AOTC_DOT_S16_2X2_GROUP(staged, w);
    AOTC_DOT_S16_2X2_GROUP(staged + 4, w + 2);
  }
#endif
  AOTC_DOT_NO_UNROLL
  for (; staged < end; staged += 4, w += 2) AOTC_DOT_S16_2X2_GROUP(staged, w);
  acc[0] = s00;
  acc[1] = s01;
  acc[2] = s10;
  acc[3] = s11;
#else
  int32_t p;
  for (p = 0; p < 2; ++p) { /* one pixel at a time, as aotc_dot_s8_2x2 */
    const int32_t* x = staged + 2 * p;
    const int32_t* wp = w;
    uint32_t r0 = (uint32_t)acc[2 * p], r1 = (uint32_t)acc[2 * p + 1];
    for (; x < end; x += 4, wp += 2) {
      r0 += (uint32_t)aotc_dot_s16_group(x[0], x[1], wp[0]);
      r1 += (uint32_t)aotc_dot_s16_group(x[0], x[1], wp[1]);
    }
    acc[2 * p] = (int32_t)r0;
    acc[2 * p + 1] = (int32_t)r1;
  }
#endif
}

/* ---- One input vector times four weight rows: the register block of int8 fully connected
 * layers (one input row, as in a batch of one, shared by four output units).
 *
 * acc[j] += x . w_row_j for j in 0..3 over n elements, modulo 2^32. The rows are packed at
 * compile time: for each group of four elements, one word of each row in turn (element k
 * in bits 8k..8k+7); a last partial group is padded with zeros. Each input word is loaded
 * and unpacked once for four rows: per sixteen multiply-accumulates one input load, four
 * weight loads, ten SXTB16 and eight SMLAD. */
#define AOTC_DOT_1X4_WORDS(n) (4 * (((n) + 3) / 4))

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#define AOTC_DOT_1X4_ROW(s, xe, xo, word)                                                 \
  do {                                                                                    \
    const uint32_t w_ = (uint32_t)(word);                                                 \
    (s) = __smlad((xo), AOTC_SXTB16_ROR8(w_), __smlad((xe), __sxtb16((int32_t)w_), (s))); \
  } while (0)
#define AOTC_DOT_1X4_GROUP(xw, wp)                                                        \
  do {                                                                                    \
    const int32_t xe_ = __sxtb16((int32_t)(xw)), xo_ = AOTC_SXTB16_ROR8(xw);              \
    AOTC_DOT_1X4_ROW(s0, xe_, xo_, (wp)[0]);                                              \
    AOTC_DOT_1X4_ROW(s1, xe_, xo_, (wp)[1]);                                              \
    AOTC_DOT_1X4_ROW(s2, xe_, xo_, (wp)[2]);                                              \
    AOTC_DOT_1X4_ROW(s3, xe_, xo_, (wp)[3]);                                              \
  } while (0)
#endif

#if defined(AOTC_DOT_ASM)
/* The loop over pairs of groups of word-aligned x (x to x_end, a multiple of 8 bytes
 * apart, at least one pair) written out as instructions, as aotc_dot_s8_2x2_aligned's is:
 * 12 registers (four sums, x, w, the end, two unpacked input halves, two weight words
 * and their odd halves); 22 instructions per group with gcc and clang alike, where clang's
 * own allocation of the C loop spills. Updates s0..s3, x and w. */
#define AOTC_DOT_1X4_ASM_ROWS(s_a, s_b, w_at)                             \
  "ldrd %[t], %[u], " w_at "\n\t"                                        \
  "sxtb16 %[to], %[t], ror #8\n\t"                                       \
  "sxtb16 %[t], %[t]\n\t"                                                \
  "smlad " s_a ", %[e], %[t], " s_a "\n\t"                               \
  "smlad " s_a ", %[o], %[to], " s_a "\n\t"                              \
  "sxtb16 %[to], %[u], ror #8\n\t"                                       \
  "sxtb16 %[u], %[u]\n\t"                                                \
  "smlad " s_b ", %[e], %[u], " s_b "\n\t"                               \
  "smlad " s_b ", %[o], %[to], " s_b "\n\t"
#define AOTC_DOT_1X4_ASM_GROUP(x_at, w01_at, w23_at) \
  "ldr %[o], " x_at "\n\t"                          \
  "sxtb16 %[e], %[o]\n\t"                           \
  "sxtb16 %[o], %[o], ror #8\n\t"                   \
  AOTC_DOT_1X4_ASM_ROWS("%[s0]", "%[s1]", w01_at) AOTC_DOT_1X4_ASM_ROWS("%[s2]", "%[s3]", w23_at)
#define AOTC_DOT_1X4_ASM_PAIRS(x_ptr, w_ptr, x_end)                                                           \
  do {                                                                                                        \
    int32_t e_, o_, t_, u_, to_;                                                                              \
    __asm__("1:\n\t" AOTC_DOT_1X4_ASM_GROUP("[%[x]], #8", "[%[w]], #32", "[%[w], #-24]")                    \
                AOTC_DOT_1X4_ASM_GROUP("[%[x], #-4]", "[%[w], #-16]", "[%[w], #-8]") "cmp %[x], %[end]\n\t" \
            "bne 1b"                                                                                          \
            : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x_ptr), [w] "+r"(w_ptr),  \
              [e] "=&r"(e_), [o] "=&r"(o_), [t] "=&r"(t_), [u] "=&r"(u_), [to] "=&r"(to_)                     \
            : [end] "r"(x_end)                                                                                \
            : "cc", "memory");                                                                                \
  } while (0)
#endif

AOTC_DOT_INLINE void aotc_dot_s8_1x4(const int8_t* x, const int32_t* w, int32_t n, int32_t* acc);

/* aotc_dot_s8_1x4 for a word-aligned x and n a multiple of 4: a layer's input in a planned
 * (word-aligned) tensor. No alignment check and no tail. */
AOTC_DOT_INLINE void aotc_dot_s8_1x4_aligned(const int8_t* x, const int32_t* w, int32_t n, int32_t* acc) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  const int8_t* const end = x + n;
  int32_t s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
#if defined(AOTC_DOT_1X4_ASM_PAIRS)
  if (n >= 8) {
    const int8_t* const pairs_end = x + 8 * (n / 8);
    AOTC_DOT_1X4_ASM_PAIRS(x, w, pairs_end);
  }
#endif
  AOTC_DOT_NO_UNROLL
  for (; x < end; x += 4, w += 4) AOTC_DOT_1X4_GROUP(aotc_dot_word(x), w);
  acc[0] = s0;
  acc[1] = s1;
  acc[2] = s2;
  acc[3] = s3;
#else
  aotc_dot_s8_1x4(x, w, n, acc);
#endif
}

AOTC_DOT_INLINE void aotc_dot_s8_1x4(const int8_t* x, const int32_t* w, int32_t n, int32_t* acc) {
  const int32_t groups = n / 4;
  const int8_t* const x_end = x + 4 * groups;
  int32_t k, j;
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  if (((uintptr_t)x & 3u) == 0) {
    /* A word-aligned input: the aligned form for the whole groups. */
    aotc_dot_s8_1x4_aligned(x, w, 4 * groups, acc);
    w += 4 * groups;
    x = x_end;
  } else {
    int32_t s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
    AOTC_DOT_NO_UNROLL
    for (; x < x_end; x += 4, w += 4) {
      uint32_t a;
      memcpy(&a, x, 4);
      AOTC_DOT_1X4_GROUP(a, w);
    }
    acc[0] = s0;
    acc[1] = s1;
    acc[2] = s2;
    acc[3] = s3;
  }
#else
  /* Without the DSP extension: one expression of four products per row and group
   * (aotc_dot_s8_group). */
  uint32_t s0 = (uint32_t)acc[0], s1 = (uint32_t)acc[1], s2 = (uint32_t)acc[2], s3 = (uint32_t)acc[3];
  for (; x < x_end; x += 4, w += 4) {
    s0 += (uint32_t)aotc_dot_s8_group(x, w[0]);
    s1 += (uint32_t)aotc_dot_s8_group(x, w[1]);
    s2 += (uint32_t)aotc_dot_s8_group(x, w[2]);
    s3 += (uint32_t)aotc_dot_s8_group(x, w[3]);
  }
  acc[0] = (int32_t)s0;
  acc[1] = (int32_t)s1;
  acc[2] = (int32_t)s2;
  acc[3] = (int32_t)s3;
#endif
  /* The partial group (w now points at its four words), element by element. */
  for (k = 0; k < n - 4 * groups; ++k)
    for (j = 0; j < 4; ++j) acc[j] = (int32_t)((uint32_t)acc[j] + (uint32_t)(x[k] * AOTC_DOT_BYTE(w[j], k)));
}

/* ---- Depthwise convolutions with kernels three wide: one kernel row of three taps for
 * several outputs of one channel along x.
 *
 * acc[j] += row[s*j] * w0 + row[s*j + 1] * w1 + row[s*j + 2] * w2 for j < outputs (s the
 * stride, 1 or 2; outputs 1, 2 or 4 with stride 1, 1 or 2 with stride 2), modulo 2^32.
 * The taps come packed at compile time: w02 holds w0 in its low and w2 in its high
 * halfword, w1 is w1. The row is one channel of the input, gathered into a plane with
 * the padding filled in (so no tap is ever skipped), word-aligned; the DSP version reads
 * whole words from it, 8 bytes for four outputs of stride 1 or two of stride 2, 4 bytes
 * otherwise, which the plane provides. A word's SXTB16 halves hold input columns 0 and 2
 * (and 1 and 3): columns 0 and 2 of an output's window meet (w0, w2) in one SMLAD, column
 * 1 meets w1 in one SMLAxy, so an output's row costs two multiply instructions and the
 * loads and unpacking serve every output of the call. */

AOTC_DOT_INLINE void aotc_dw3_s8(const int8_t* row, int32_t stride, int32_t outputs, int32_t w02, int32_t w1,
                                 int32_t* acc) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  /* Columns 0..3 as (0, 2) and (1, 3); 4..7 as (4, 6) and (5, 7). */
  const uint32_t a = aotc_dot_word(row);
  const int32_t e0 = __sxtb16((int32_t)a), o0 = AOTC_SXTB16_ROR8(a);
  if (outputs == 1) {
    acc[0] = __smlabb(o0, w1, __smlad(e0, w02, acc[0]));
  } else if (stride == 1) {
    acc[0] = __smlabb(o0, w1, __smlad(e0, w02, acc[0])); /* 0*w0 + 2*w2, 1*w1 */
    acc[1] = __smlatb(e0, w1, __smlad(o0, w02, acc[1])); /* 1*w0 + 3*w2, 2*w1 */
    if (outputs == 4) {
      const uint32_t b = aotc_dot_word(row + 4);
      const int32_t e1 = __sxtb16((int32_t)b), o1 = AOTC_SXTB16_ROR8(b);
      acc[2] = __smlabt(e1, w02, __smlatb(o0, w1, __smlatb(e0, w02, acc[2]))); /* 2*w0, 3*w1, 4*w2 */
      acc[3] = __smlabt(o1, w02, __smlabb(e1, w1, __smlatb(o0, w02, acc[3]))); /* 3*w0, 4*w1, 5*w2 */
    }
  } else {
    const uint32_t b = aotc_dot_word(row + 4);
    const int32_t e1 = __sxtb16((int32_t)b);
    acc[0] = __smlabb(o0, w1, __smlad(e0, w02, acc[0]));                       /* 0*w0 + 2*w2, 1*w1 */
    acc[1] = __smlabt(e1, w02, __smlatb(o0, w1, __smlatb(e0, w02, acc[1]))); /* 2*w0, 3*w1, 4*w2 */
  }
#else
  const int32_t w0 = (int16_t)(uint16_t)((uint32_t)w02 & 0xFFFFu), w2 = (int16_t)(uint16_t)((uint32_t)w02 >> 16);
  const int32_t w1_ = (int16_t)(uint16_t)((uint32_t)w1 & 0xFFFFu);
  int32_t j;
  for (j = 0; j < outputs; ++j) {
    const int8_t* x = row + stride * j;
    acc[j] = (int32_t)((uint32_t)acc[j] + (uint32_t)(x[0] * w0) + (uint32_t)(x[1] * w1_) + (uint32_t)(x[2] * w2));
  }
#endif
}

#endif /* AOTC_DOT_H_ */
