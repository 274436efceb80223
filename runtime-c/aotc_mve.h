/* aotc_mve.h: int8 kernels for cores with Helium, the M-profile vector extension (MVE:
 * Cortex-M55, M85), written with arm_mve.h intrinsics.
 *
 * aotc calls these on targets whose description lists the `mve` feature. Each call does a
 * whole output pixel (convolutions, fully connected rows) or a whole output row (depthwise
 * convolutions), requantization included, so that the requantization runs four channels
 * per instruction as well:
 *   - convolution and fully connected: VMLADAVA sums sixteen int8 products into a scalar
 *     per instruction; each loaded input vector serves a block of four output channels,
 *     whose weights the compiler packed in the order the loop reads them;
 *   - depthwise convolution: four channels per vector in 32-bit lanes (VMUL, VADD);
 *   - requantization of four channels: TFLite's MultiplyByQuantizedMultiplier, exactly:
 *     VQRDMULH is its SaturatingRoundingDoublingHighMul (the high half of 2*a*b + 2^31,
 *     which is gemmlowp's nudge for either sign), and VRSHL rounds half up where
 *     RoundingDivideByPOT rounds half away from zero, so a negative value is lowered by
 *     one first (only when a right shift follows: the sign bit of value AND -shift).
 * The input's zero point is folded into the bias at compile time (bias - zp * sum of the
 * channel's weights), and windows that reach into the padding read rows filled with the
 * zero point (aotc_mve_band_row_s8), so the loops never subtract an offset nor check a
 * bound. Elsewhere (the host, where aotc's interpreter and `aotc run` evaluate the
 * calls) plain loops compute the same bytes, which tests/firmware/mve_kernels checks on
 * the emulated core, kernel against loops, for many shapes.
 *
 * Per-channel tables (bias, multiplier, shifts) hold a multiple of four entries and the
 * packed weights whole blocks of four channels, so vector loads of them never read past
 * their end; the last block's extra channels are computed but not stored. Input runs are
 * read with tail predication, never past their end. Plain C99 that also compiles as C++.
 */
#ifndef AOTC_MVE_H_
#define AOTC_MVE_H_

#include <stdint.h>

#include "aotc_quant.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define AOTC_MVE 1
#else
#define AOTC_MVE 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define AOTC_MVE_INLINE static inline __attribute__((always_inline))
#else
#define AOTC_MVE_INLINE static inline
#endif

/* Output channels per block of the convolution kernel, and the bytes of one input chunk. */
#define AOTC_MVE_CHANNELS 4
#define AOTC_MVE_CHUNK 16

/* Makes the compiler forget what it knows of pointer p (no instruction), so that loads
 * through a pointer that walks by more than VLDRB's immediate offsets (127 bytes) use it
 * with post-increment instead of an address register for each offset. */
#if defined(__GNUC__) || defined(__clang__)
#define AOTC_MVE_OPAQUE(p) __asm__("" : "+r"(p))
#else
#define AOTC_MVE_OPAQUE(p) ((void)0)
#endif

/* Input chunks aotc_mve_conv_s8 keeps in vector registers across blocks of channels: four
 * with clang; gcc 12 spills them beyond two (measured on the Cortex-M55 kernels). */
#if defined(__clang__)
#define AOTC_MVE_HELD_CHUNKS 4
#define AOTC_MVE_GCC_HELD4 0
#else
#define AOTC_MVE_HELD_CHUNKS 2
/* gcc keeps four chunks when the block's products are one asm statement (a pointwise pixel
 * of 49 to 64 channels then reads its input once, as with clang, where gcc's C reloaded it
 * for every block of channels: kws on the Cortex-M55 1,331,156 -> 1,133,718 instructions):
 * four weight loads and four VMLADAVA per chunk, the weights walked with post-increment,
 * loads one ahead; VMLADAVA's sums are in even registers ("Te"). */
#define AOTC_MVE_GCC_HELD4 1
#define AOTC_MVE_HELD_CHUNK(x)                                                                                   \
  "vldrb.8 q6, [%[w]], #16\n\tvldrb.8 q7, [%[w]], #16\n\tvmladava.s8 %[a0], %q[" x "], q6\n\t"                  \
  "vldrb.8 q6, [%[w]], #16\n\tvmladava.s8 %[a1], %q[" x "], q7\n\tvldrb.8 q7, [%[w]], #16\n\t"                  \
  "vmladava.s8 %[a2], %q[" x "], q6\n\tvmladava.s8 %[a3], %q[" x "], q7\n\t"
#endif

/* Bytes of packed convolution weights: per block of four output channels, `rows` runs of
 * `row_length` values, each run padded to whole chunks of sixteen, four chunks (one per
 * channel of the block) per chunk position. */
#define AOTC_MVE_PACKED_BYTES(out_channels, rows, row_length) \
  ((((out_channels) + 3) / 4) * (rows) * (((row_length) + 15) / 16) * 64)

/* ---- Requantization of four channels ------------------------------------------------ */

#if AOTC_MVE
/* TFLite's MultiplyByQuantizedMultiplier on four lanes. With has_left: left shifts (>= 0)
 * in left, right shifts as VRSHL amounts (<= 0) in right. Without: left is unused and
 * every right shift is at least 1 (the compiler passes a table of left shifts otherwise;
 * aotc_mve_conv_s8's left_shift). */
AOTC_MVE_INLINE int32x4_t aotc_mve_rescale(int32x4_t acc, int32x4_t multiplier, int32_t has_left, int32x4_t left,
                                           int32x4_t right) {
  int32x4_t high;
  if (has_left) acc = vshlq_s32(acc, left); /* wraps like TFLite's int32 multiply */
  high = vqrdmulhq_s32(acc, multiplier);
  /* -1 for a negative value that is shifted right: rounds ties away from zero. Only where
   * the shift may be 0 does the sign need masking by the shift (high > INT32_MIN: the
   * multiplier is below 2^31). */
  if (has_left)
    high = vaddq_s32(high, vshrq_n_s32(vandq_s32(high, right), 31));
  else
    high = vaddq_s32(high, vshrq_n_s32(high, 31));
  return vrshlq_s32(high, right);
}

/* The same plus the output zero point, clamped to [act_min, act_max]. */
AOTC_MVE_INLINE int32x4_t aotc_mve_requantize(int32x4_t acc, int32x4_t multiplier, int32_t has_left, int32x4_t left,
                                              int32x4_t right, int32_t output_zero_point, int32_t act_min,
                                              int32_t act_max) {
  const int32x4_t v = vaddq_n_s32(aotc_mve_rescale(acc, multiplier, has_left, left, right), output_zero_point);
  return vminq_s32(vmaxq_s32(v, vdupq_n_s32(act_min)), vdupq_n_s32(act_max));
}
#endif

/* The same on one value, for the portable loops: channel c's parameters (entry c of the
 * tables, or entry 0 when they are not per channel). */
AOTC_MVE_INLINE int32_t aotc_mve_requantize_one(int32_t acc, const int32_t* multiplier, const int32_t* left,
                                                const int32_t* right, int32_t per_channel, int32_t c,
                                                int32_t output_zero_point, int32_t act_min, int32_t act_max) {
  const int32_t i = per_channel ? c : 0;
  const int32_t shift = (left ? left[i] : 0) + right[i];
  int32_t v = aotc_mul_by_quantized_multiplier(acc, multiplier[i], shift) + output_zero_point;
  if (v < act_min) v = act_min;
  if (v > act_max) v = act_max;
  return v;
}

/* ---- Copies: staging, padded rows, gathered windows ---------------------------------- */

/* dst[0..n) = src[0..n). */
AOTC_MVE_INLINE void aotc_mve_copy_s8(int8_t* dst, const int8_t* src, int32_t n) {
#if AOTC_MVE
#if defined(__clang__)
  /* clang makes this a tail-predicated loop (DLSTP/LETP). */
  for (; n > 0; n -= 16, src += 16, dst += 16) {
    const mve_pred16_t p = vctp8q((uint32_t)n);
    vstrbq_p_s8(dst, vldrbq_z_s8(src, p), p);
  }
#else
  /* gcc 12 predicates every iteration of that loop (eleven instructions per vector): whole
   * vectors, then the rest predicated. */
  for (; n >= 16; n -= 16, src += 16, dst += 16) vstrbq_s8(dst, vldrbq_s8(src));
  if (n > 0) {
    const mve_pred16_t p = vctp8q((uint32_t)n);
    vstrbq_p_s8(dst, vldrbq_z_s8(src, p), p);
  }
#endif
#else
  int32_t i;
  for (i = 0; i < n; ++i) dst[i] = src[i];
#endif
}

/* dst[0..n) = value. */
AOTC_MVE_INLINE void aotc_mve_fill_s8(int8_t* dst, int32_t value, int32_t n) {
#if AOTC_MVE
  const int8x16_t v = vdupq_n_s8((int8_t)value);
#if defined(__clang__)
  for (; n > 0; n -= 16, dst += 16) vstrbq_p_s8(dst, v, vctp8q((uint32_t)n));
#else
  for (; n >= 16; n -= 16, dst += 16) vstrbq_s8(dst, v);
  if (n > 0) vstrbq_p_s8(dst, v, vctp8q((uint32_t)n));
#endif
#else
  int32_t i;
  for (i = 0; i < n; ++i) dst[i] = (int8_t)value;
#endif
}

/* One row of a band of padded input rows: pad_left pixels of `channels` zero points, the
 * `width` pixels of the input row src (or, when valid is 0, a row in the padding: zero
 * points all along), then pad_right pixels of zero points. */
AOTC_MVE_INLINE void aotc_mve_band_row_s8(int8_t* dst, const int8_t* src, int32_t valid, int32_t width, int32_t pad_left,
                                          int32_t pad_right, int32_t channels, int32_t zero_point) {
  if (!valid) {
    aotc_mve_fill_s8(dst, zero_point, (pad_left + width + pad_right) * channels);
    return;
  }
  aotc_mve_fill_s8(dst, zero_point, pad_left * channels);
  aotc_mve_copy_s8(dst + pad_left * channels, src, width * channels);
  aotc_mve_fill_s8(dst + (pad_left + width) * channels, zero_point, pad_right * channels);
}

/* The window of rows x run bytes at src (rows row_stride apart) into dst, contiguous. */
AOTC_MVE_INLINE void aotc_mve_gather_s8(int8_t* dst, const int8_t* src, int32_t row_stride, int32_t rows, int32_t run) {
  int32_t r;
  for (r = 0; r < rows; ++r) aotc_mve_copy_s8(dst + r * run, src + r * row_stride, run);
}

/* ---- Convolution and fully connected: one output pixel, every output channel ---------- */

/* y[oc] for oc in [0, out_channels): requantize(bias[oc] + sum over the window of x * w),
 * the window being `rows` runs of row_length int8 values, row_stride bytes apart, from x
 * (a pointwise convolution or a fully connected row: one run). bias has the input's zero
 * point folded in. Packed weights: see AOTC_MVE_PACKED_BYTES; per block of four channels,
 * run by run, chunk by chunk, sixteen values of each of the four channels (zeros past the
 * run's end and for channels past out_channels). bias: a multiple of four entries; the
 * multiplier and shift tables the same when per_channel, else four copies of the one value
 * every channel shares (a layer quantized per tensor). left_shift may be null when every
 * left shift is 0 and every right shift at least 1. */
AOTC_MVE_INLINE void aotc_mve_conv_s8(const int8_t* x, int32_t row_stride, int32_t rows, int32_t row_length,
                                      const int8_t* packed_weights, int32_t out_channels, const int32_t* bias,
                                      const int32_t* multiplier, const int32_t* left_shift, const int32_t* right_shift,
                                      int32_t per_channel, int32_t output_zero_point, int32_t act_min, int32_t act_max,
                                      int8_t* y) {
  const int8_t* w = packed_weights;
  int32_t oc;
#if AOTC_MVE
  /* Whole chunks of sixteen per run, then a partial one (read predicated) when the run's
   * length is not a multiple of sixteen. The four sums start from the bias. */
  const int32_t full = row_length / 16, tail = row_length % 16, chunks = (row_length + 15) / 16;
  const mve_pred16_t tail_lanes = vctp8q((uint32_t)tail);
#define AOTC_MVE_CHUNK4(v)                   \
  do {                                       \
    a0 = vmladavaq_s8(a0, (v), vldrbq_s8(w)); \
    a1 = vmladavaq_s8(a1, (v), vldrbq_s8(w + 16)); \
    a2 = vmladavaq_s8(a2, (v), vldrbq_s8(w + 32)); \
    a3 = vmladavaq_s8(a3, (v), vldrbq_s8(w + 48)); \
    w += 64;                                 \
  } while (0)
#define AOTC_MVE_STORE_BLOCK()                                                                                        \
  do {                                                                                                                \
    int32x4_t acc = vsetq_lane_s32(a3, vsetq_lane_s32(a2, vsetq_lane_s32(a1, vdupq_n_s32(a0), 1), 2), 3);            \
    const int32_t t_ = per_channel ? oc : 0;                                                                          \
    acc = aotc_mve_requantize(acc, vldrwq_s32(multiplier + t_), left_shift != 0,                                     \
                              left_shift ? vldrwq_s32(left_shift + t_) : vdupq_n_s32(0), vldrwq_s32(right_shift + t_), \
                              output_zero_point, act_min, act_max);                                                   \
    if (out_channels % 4 == 0)                                                                                        \
      vstrbq_s32(y + oc, acc);                                                                                        \
    else                                                                                                              \
      vstrbq_p_s32(y + oc, acc, vctp32q((uint32_t)(out_channels - oc)));                                             \
  } while (0)
  if (rows == 1 && (chunks <= AOTC_MVE_HELD_CHUNKS || (AOTC_MVE_GCC_HELD4 && chunks == 4))) {
    /* A short input (a pointwise convolution's pixel, a small fully connected row): read
     * once into registers for every block of channels. */
    const int8x16_t x0 = chunks == 1 && tail ? vldrbq_z_s8(x, tail_lanes) : vldrbq_s8(x);
    const int8x16_t x1 = chunks < 2 ? x0 : chunks == 2 && tail ? vldrbq_z_s8(x + 16, tail_lanes) : vldrbq_s8(x + 16);
    const int8x16_t x2 = chunks < 3 ? x0 : chunks == 3 && tail ? vldrbq_z_s8(x + 32, tail_lanes) : vldrbq_s8(x + 32);
    const int8x16_t x3 = chunks < 4 ? x0 : tail ? vldrbq_z_s8(x + 48, tail_lanes) : vldrbq_s8(x + 48);
    for (oc = 0; oc < out_channels; oc += 4) {
      int32_t a0 = bias[oc], a1 = bias[oc + 1], a2 = bias[oc + 2], a3 = bias[oc + 3];
#if AOTC_MVE_GCC_HELD4
      if (chunks == 4) {
        __asm__(AOTC_MVE_HELD_CHUNK("x0") AOTC_MVE_HELD_CHUNK("x1") AOTC_MVE_HELD_CHUNK("x2") AOTC_MVE_HELD_CHUNK("x3")
                : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [w] "+r"(w)
                : [x0] "w"(x0), [x1] "w"(x1), [x2] "w"(x2), [x3] "w"(x3)
                : "q6", "q7", "memory");
        AOTC_MVE_STORE_BLOCK();
        continue;
      }
#endif
      AOTC_MVE_CHUNK4(x0);
      if (chunks > 1) AOTC_MVE_CHUNK4(x1);
      if (chunks > 2) AOTC_MVE_CHUNK4(x2);
      if (chunks > 3) AOTC_MVE_CHUNK4(x3);
      AOTC_MVE_STORE_BLOCK();
    }
    return;
  }
  for (oc = 0; oc < out_channels; oc += 4) {
    int32_t a0 = bias[oc], a1 = bias[oc + 1], a2 = bias[oc + 2], a3 = bias[oc + 3], r, k;
    const int8_t* xr = x;
    for (r = rows; r > 0; --r, xr += row_stride) {
      const int8_t* xp = xr;
      for (k = full; k > 0; --k, xp += 16) AOTC_MVE_CHUNK4(vldrbq_s8(xp));
      if (tail) AOTC_MVE_CHUNK4(vldrbq_z_s8(xp, tail_lanes));
    }
    AOTC_MVE_STORE_BLOCK();
  }
#undef AOTC_MVE_CHUNK4
#undef AOTC_MVE_STORE_BLOCK
#else
  const int32_t chunks = (row_length + 15) / 16;
  for (oc = 0; oc < out_channels; oc += 4) {
    uint32_t sums[4] = {0, 0, 0, 0};
    int32_t r, k, j, i;
    for (r = 0; r < rows; ++r)
      for (k = 0; k < chunks; ++k, w += 64)
        for (j = 0; j < 4; ++j)
          for (i = 0; i < 16 && 16 * k + i < row_length; ++i)
            sums[j] += (uint32_t)(x[r * row_stride + 16 * k + i] * w[16 * j + i]);
    for (j = 0; j < 4 && oc + j < out_channels; ++j) {
      const int32_t acc = (int32_t)(sums[j] + (uint32_t)bias[oc + j]);
      y[oc + j] = (int8_t)aotc_mve_requantize_one(acc, multiplier, left_shift, right_shift, per_channel, oc + j,
                                                  output_zero_point, act_min, act_max);
    }
  }
#endif
}

/* ---- Average pooling ---------------------------------------------------------------------- */

/* sums[c] = the sum over r < rows, k < cols of x[r * row_stride + k * channels + c], for c in
 * [0, channels): the int32 sums of an average pool's window (NHWC), four channels per
 * vector. */
AOTC_MVE_INLINE void aotc_mve_window_sum_s8(const int8_t* x, int32_t row_stride, int32_t rows, int32_t cols,
                                            int32_t channels, int32_t* sums) {
  int32_t c;
#if AOTC_MVE
  for (c = 0; c < channels; c += 4) {
    const mve_pred16_t p = vctp32q((uint32_t)(channels - c));
    int32x4_t acc = vdupq_n_s32(0);
    const int8_t* xr = x + c;
    int32_t r, k;
    for (r = 0; r < rows; ++r, xr += row_stride) {
      const int8_t* xp = xr;
      for (k = 0; k < cols; ++k, xp += channels) acc = vaddq_s32(acc, vldrbq_z_s32(xp, p));
    }
    vstrwq_p_s32(sums + c, acc, p);
  }
#else
  for (c = 0; c < channels; ++c) {
    int32_t sum = 0, r, k;
    for (r = 0; r < rows; ++r)
      for (k = 0; k < cols; ++k) sum += x[r * row_stride + k * channels + c];
    sums[c] = sum;
  }
#endif
}

/* ---- A residual ADD fused behind a convolution -------------------------------------------- */

/* y[i] for i < n: TFLite's int8 ADD of a[i] and b[i], as its reference kernel computes it:
 * each (x + offset) << 20 rescaled by its multiplier and shift (<= 0), the sum rescaled by
 * the output's, plus the output zero point, clamped to [act_min, act_max]. Offsets are the
 * inputs' zero points negated. y may be a or b: each element is read before it is written. */
AOTC_MVE_INLINE void aotc_mve_add_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t a_offset, int32_t a_multiplier,
                                     int32_t a_shift, int32_t b_offset, int32_t b_multiplier, int32_t b_shift,
                                     int32_t output_multiplier, int32_t output_shift, int32_t output_zero_point,
                                     int32_t act_min, int32_t act_max, int8_t* y) {
  int32_t i;
#if AOTC_MVE
  const int32x4_t am = vdupq_n_s32(a_multiplier), as = vdupq_n_s32(a_shift), bm = vdupq_n_s32(b_multiplier);
  const int32x4_t bs = vdupq_n_s32(b_shift), om = vdupq_n_s32(output_multiplier), os = vdupq_n_s32(output_shift);
  const int32x4_t a_base = vdupq_n_s32(a_offset * (1 << 20)), b_base = vdupq_n_s32(b_offset * (1 << 20));
  const int32x4_t none = vdupq_n_s32(0);
  /* (x + offset) << 20 as one multiply-accumulate; an input whose shift is 0 (the one with
   * the larger scale, rescaled by 1/2) needs no rounding shift. Whole vectors, then the
   * rest predicated. */
#define AOTC_MVE_INPUT(x, base, multiplier_scalar, multiplier, shift_scalar, shift)                              \
  (shift_scalar == 0 ? vqrdmulhq_n_s32(vmlaq_n_s32((base), (x), 1 << 20), (multiplier_scalar))                 \
                     : aotc_mve_rescale(vmlaq_n_s32((base), (x), 1 << 20), (multiplier), 0, none, (shift)))
#define AOTC_MVE_ADD4(load_a, load_b, store)                                                                      \
  do {                                                                                                            \
    const int32x4_t sum = vaddq_s32(AOTC_MVE_INPUT(load_a, a_base, a_multiplier, am, a_shift, as),                \
                                    AOTC_MVE_INPUT(load_b, b_base, b_multiplier, bm, b_shift, bs));               \
    store(aotc_mve_requantize(sum, om, output_shift == 0, none, os, output_zero_point, act_min, act_max));        \
  } while (0)
#define AOTC_MVE_STORE_WHOLE(v) vstrbq_s32(y + i, (v))
#define AOTC_MVE_STORE_PART(v) vstrbq_p_s32(y + i, (v), p)
  for (i = 0; i + 4 <= n; i += 4) AOTC_MVE_ADD4(vldrbq_s32(a + i), vldrbq_s32(b + i), AOTC_MVE_STORE_WHOLE);
  if (i < n) {
    const mve_pred16_t p = vctp32q((uint32_t)(n - i));
    AOTC_MVE_ADD4(vldrbq_z_s32(a + i, p), vldrbq_z_s32(b + i, p), AOTC_MVE_STORE_PART);
  }
#undef AOTC_MVE_INPUT
#undef AOTC_MVE_ADD4
#undef AOTC_MVE_STORE_WHOLE
#undef AOTC_MVE_STORE_PART
#else
  for (i = 0; i < n; ++i) {
    const int32_t sum = aotc_mul_by_quantized_multiplier((a[i] + a_offset) * (1 << 20), a_multiplier, a_shift) +
                        aotc_mul_by_quantized_multiplier((b[i] + b_offset) * (1 << 20), b_multiplier, b_shift);
    int32_t v = aotc_mul_by_quantized_multiplier(sum, output_multiplier, output_shift) + output_zero_point;
    y[i] = (int8_t)(v < act_min ? act_min : v > act_max ? act_max : v);
  }
#endif
}

/* ---- Depthwise convolution: one output row, every channel ----------------------------- */

/* Offset of the weight of channel c at tap t (of `taps`) in the packed depthwise filter,
 * and its size: blocks of four channels, each tap's four weights together. */
#define AOTC_MVE_DEPTHWISE_WEIGHT(c, t, taps) (((c) / 4 * (taps) + (t)) * 4 + (c) % 4)
#define AOTC_MVE_DEPTHWISE_BYTES(channels, taps) (((channels) + 3) / 4 * (taps) * 4)

/* y[ox * channels + c] for ox in [0, out_width), c in [0, channels): requantize(bias[c] +
 * sum over ky < kernel_h, kx < kernel_w of band[ky * row_stride + (ox * stride_x + kx) *
 * channels + c] * w[(ky * kernel_w + kx) * channels + c]). band: kernel_h padded input rows
 * (aotc_mve_band_row_s8), so that every window lies inside it; w: the filter packed by
 * blocks of four channels, tap by tap (AOTC_MVE_DEPTHWISE_WEIGHT), zeros past the channel
 * count, so that a block's weights lie within VLDRB's immediate offsets; bias with the
 * input's zero point folded in; the tables as aotc_mve_conv_s8's. */
AOTC_MVE_INLINE void aotc_mve_depthwise_s8(const int8_t* band, int32_t row_stride, int32_t channels, int32_t kernel_h,
                                           int32_t kernel_w, int32_t stride_x, int32_t out_width, const int8_t* w,
                                           const int32_t* bias, const int32_t* multiplier, const int32_t* left_shift,
                                           const int32_t* right_shift, int32_t per_channel, int32_t output_zero_point,
                                           int32_t act_min, int32_t act_max, int8_t* y) {
  const int32_t step = stride_x * channels;
  int32_t c;
#if AOTC_MVE
  int32_t ox = 0;
  /* Four channels per vector in 32-bit lanes: a channel count that is not a multiple of
   * four reads and writes its last block predicated, never past the band, the filter or
   * the output. The channel blocks are the inner loop, so that nothing in it is
   * loop-invariant for the compiler to keep (and spill) across it; pointers walk by the
   * channel count, as VLDRB's immediate offsets reach 127 bytes only. */
#define AOTC_MVE_LOAD4(ptr) (channels % 4 == 0 ? vldrbq_s32(ptr) : vldrbq_z_s32((ptr), p))
#define AOTC_MVE_STORE4(ptr, acc)                                                                             \
  do {                                                                                                        \
    const int32x4_t q_ = aotc_mve_requantize((acc), m, left_shift != 0, ls, rs, output_zero_point, act_min, act_max); \
    if (channels % 4 == 0)                                                                                    \
      vstrbq_s32((ptr), q_);                                                                                  \
    else                                                                                                      \
      vstrbq_p_s32((ptr), q_, p);                                                                             \
  } while (0)
  if (kernel_h == 3 && kernel_w == 3 && (stride_x == 1 || stride_x == 2)) {
    /* Two outputs at a time: each weight vector loaded once for both, and the column the
     * two windows share (two with a stride of 1) once. Two sums, three weights, the column
     * and a product fit the eight vector registers. */
    for (; ox + 2 <= out_width; ox += 2) {
      for (c = 0; c < channels; c += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(channels - c));
        int32x4_t acc0 = vldrwq_s32(bias + c), acc1 = acc0;
        const int8_t* xr = band + ox * step + c;
        const int8_t* wr = w + c * 9;
        int32_t ky;
#define AOTC_MVE_COLUMN()  \
  x = AOTC_MVE_LOAD4(xp);  \
  xp += channels;          \
  AOTC_MVE_OPAQUE(xp)
#define AOTC_MVE_TAP(acc, wk) acc = vaddq_s32(acc, vmulq_s32(x, wk))
        for (ky = 0; ky < 3; ++ky, xr += row_stride) {
          const int8_t* xp = xr;
          int32x4_t x, w0, w1, w2;
          w0 = vldrbq_s32(wr);
          w1 = vldrbq_s32(wr + 4);
          w2 = vldrbq_s32(wr + 8);
          wr += 12;
          if (stride_x == 1) {
            AOTC_MVE_COLUMN();
            AOTC_MVE_TAP(acc0, w0);
            AOTC_MVE_COLUMN();
            AOTC_MVE_TAP(acc0, w1), AOTC_MVE_TAP(acc1, w0);
            AOTC_MVE_COLUMN();
            AOTC_MVE_TAP(acc0, w2), AOTC_MVE_TAP(acc1, w1);
            AOTC_MVE_COLUMN();
            AOTC_MVE_TAP(acc1, w2);
          } else {
            AOTC_MVE_COLUMN();
            AOTC_MVE_TAP(acc0, w0);
            AOTC_MVE_COLUMN();
            AOTC_MVE_TAP(acc0, w1);
            AOTC_MVE_COLUMN();
            AOTC_MVE_TAP(acc0, w2), AOTC_MVE_TAP(acc1, w0);
            AOTC_MVE_COLUMN();
            AOTC_MVE_TAP(acc1, w1);
            AOTC_MVE_COLUMN();
            AOTC_MVE_TAP(acc1, w2);
          }
        }
#undef AOTC_MVE_COLUMN
#undef AOTC_MVE_TAP
        {
          const int32_t t = per_channel ? c : 0;
          const int32x4_t m = vldrwq_s32(multiplier + t), rs = vldrwq_s32(right_shift + t);
          const int32x4_t ls = left_shift ? vldrwq_s32(left_shift + t) : vdupq_n_s32(0);
          int8_t* out = y + ox * channels + c;
          AOTC_MVE_STORE4(out, acc0);
          AOTC_MVE_STORE4(out + channels, acc1);
        }
      }
    }
  }
  /* Any other window, and the last output of an odd row: one output at a time (rows of
   * three taps written out). */
  for (; ox < out_width; ++ox) {
    for (c = 0; c < channels; c += 4) {
      const mve_pred16_t p = vctp32q((uint32_t)(channels - c));
      int32x4_t acc = vldrwq_s32(bias + c);
      const int8_t* wr = w + c * kernel_h * kernel_w;
      const int8_t* xr = band + ox * step + c;
      int32_t ky, kx;
      for (ky = 0; ky < kernel_h; ++ky, xr += row_stride) {
        const int8_t* xp = xr;
        if (kernel_w == 3) {
          acc = vaddq_s32(acc, vmulq_s32(AOTC_MVE_LOAD4(xp), vldrbq_s32(wr)));
          xp += channels;
          AOTC_MVE_OPAQUE(xp);
          acc = vaddq_s32(acc, vmulq_s32(AOTC_MVE_LOAD4(xp), vldrbq_s32(wr + 4)));
          xp += channels;
          AOTC_MVE_OPAQUE(xp);
          acc = vaddq_s32(acc, vmulq_s32(AOTC_MVE_LOAD4(xp), vldrbq_s32(wr + 8)));
          wr += 12;
          continue;
        }
        for (kx = 0; kx < kernel_w; ++kx, xp += channels, wr += 4)
          acc = vaddq_s32(acc, vmulq_s32(AOTC_MVE_LOAD4(xp), vldrbq_s32(wr)));
      }
      {
        const int32_t t = per_channel ? c : 0;
        const int32x4_t m = vldrwq_s32(multiplier + t), rs = vldrwq_s32(right_shift + t);
        const int32x4_t ls = left_shift ? vldrwq_s32(left_shift + t) : vdupq_n_s32(0);
        AOTC_MVE_STORE4(y + ox * channels + c, acc);
      }
    }
  }
#undef AOTC_MVE_LOAD4
#undef AOTC_MVE_STORE4
#else
  for (c = 0; c < channels; ++c) {
    int32_t ox;
    for (ox = 0; ox < out_width; ++ox) {
      uint32_t sum = (uint32_t)bias[c];
      int32_t ky, kx;
      for (ky = 0; ky < kernel_h; ++ky)
        for (kx = 0; kx < kernel_w; ++kx)
          sum += (uint32_t)(band[ky * row_stride + ox * step + kx * channels + c] *
                            w[AOTC_MVE_DEPTHWISE_WEIGHT(c, ky * kernel_w + kx, kernel_h * kernel_w)]);
      y[ox * channels + c] = (int8_t)aotc_mve_requantize_one((int32_t)sum, multiplier, left_shift, right_shift,
                                                             per_channel, c, output_zero_point, act_min, act_max);
    }
  }
#endif
}

#endif /* AOTC_MVE_H_ */
