/* aotc_host_f32.h: float32 convolution kernels for hosts with wide SIMD registers (the
 * target's `simd` feature: SSE/AVX, NEON), written as plain C loop nests that clang and gcc
 * vectorize at -O2/-O3.
 *
 * The generic kernel computes one output element at a time: one chain of dependent
 * multiply-adds, bound by the adder's latency, reading weights with a stride. Here:
 *   - a convolution is a matrix product out[m][p] = sum_k w[m][k] * x[k][p] over output
 *     channels m, pixels p and k = (input channel, tap); a 1x1 convolution reads x from
 *     the input in place, any other copies a band of output rows' windows into a scratch
 *     buffer first (im2col, zeros in the padding) so that the product reads contiguous rows;
 *   - the product is computed in register blocks with many independent accumulators, in one
 *     of two orientations chosen by the pixel count: with many pixels, 4 channels x 16 or
 *     32 pixels (the pixels contiguous in x and in the NCHW output: whole-vector loads and
 *     stores; the last block of a band moves back to end at the band's end, recomputing a
 *     few pixels, so there is no ragged tail); with fewer than 32 pixels (the last layers,
 *     a fully connected layer), 16 channels x 6 or 12 pixels (the channels in the vectors);
 *     8 to 12 registers of independent sums, enough to hide the multiply-add's latency;
 *   - the weights are packed at compile time in the order the block reads them: per block
 *     of 4 (or 16) channels, for each k, the block's 4 (16) weights, the last block padded
 *     with zeros;
 *   - bias and activation (a clamp to [lo, hi]: ReLU, ReLU6, Clip, or none with infinite
 *     bounds) are applied to the accumulators before the only store.
 * The packed table: lo, hi and 14 zeros; the bias, padded to a multiple of 16; the weights.
 *
 * Depthwise convolutions (one input channel per output channel) with a 3x3 kernel copy each
 * channel into a zero-padded plane and compute each output as nine multiply-adds in a loop
 * over the plane that vectorizes (at stride 1 the whole plane as one row). Other kernels
 * are computed a row at a time: for each tap, a multiply-add of the tap's weight times a
 * shifted input row over the output columns whose window holds that tap, a loop with no
 * branches that vectorizes; taps in the padding are never visited.
 *
 * Results differ from the generic kernel's in rounding only (another summation order).
 * Plain C99 that also compiles as C++ (the compiler's interpreter includes it).
 */
#ifndef AOTC_HOST_F32_H_
#define AOTC_HOST_F32_H_

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define AOTC_F32_INLINE static inline __attribute__((always_inline))
#else
#define AOTC_F32_INLINE static inline
#endif

/* Pointers that do not alias (C99 restrict; the interpreter compiles this as C++). */
#if defined(__cplusplus)
#define AOTC_F32_RESTRICT __restrict
#else
#define AOTC_F32_RESTRICT restrict
#endif

/* Register blocks: channels x pixels. The channel counts are fixed (the compiler packs the
 * weights for them); the pixel counts follow the vector registers the C compiler targets:
 * with AVX-512's 32 registers of 16 floats, 4 x 32 (8 registers of sums) and 16 x 12 (12);
 * else (AVX2's 16 registers of 8 floats, SSE, NEON) 4 x 16 and 16 x 6. */
#define AOTC_F32_PX_CHANNELS 4
#define AOTC_F32_OC_CHANNELS 16
#if defined(__AVX512F__)
#define AOTC_F32_PX_PIXELS 32
#define AOTC_F32_OC_PIXELS 12
#else
#define AOTC_F32_PX_PIXELS 16
#define AOTC_F32_OC_PIXELS 6
#endif
/* Products over at least this many pixels put pixels in vectors (at least AOTC_F32_PX_PIXELS
 * on every build: the last block of a band moves back to end at the band's end). */
#define AOTC_F32_PX_MIN 32
/* Floats before the bias in a packed table (lo, hi, zeros): keeps what follows aligned. */
#define AOTC_F32_HEADER 16

/* Which block a product over `pixels` pixels uses; the compiler packs the weights for it. */
static inline int aotc_f32_pixels_in_vectors(int64_t pixels) { return pixels >= AOTC_F32_PX_MIN; }
/* The channel block the packing pads to. */
static inline int32_t aotc_f32_channel_block(int64_t pixels) {
  return aotc_f32_pixels_in_vectors(pixels) ? AOTC_F32_PX_CHANNELS : AOTC_F32_OC_CHANNELS;
}
/* Floats in a packed table for m channels and k terms. */
static inline int64_t aotc_f32_packed_size(int64_t m, int64_t k, int64_t pixels) {
  int64_t block = aotc_f32_channel_block(pixels);
  int64_t mp = (m + block - 1) / block * block;
  return AOTC_F32_HEADER + (m + 15) / 16 * 16 + mp * k;
}

AOTC_F32_INLINE float aotc_f32_clamp(float v, float lo, float hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

/* With gcc or clang the blocks below are written with the compilers' vector extension,
 * vectors as wide as the target's registers, so that each sum stays in a register and each
 * loaded vector serves every product that needs it. Written as plain loops over floats,
 * gcc 12 vectorizes the 16-channel block across pixels and keeps its sums in memory (13x
 * slower than clang's code for the same loop), and in the 4-channel block it folds the
 * load of each input vector into every multiply-add that uses it, loading it once per
 * channel (2.2x slower: the rows of an im2col band are not aligned, so these loads often
 * straddle two cache lines); AOTC_F32_IN_REGISTER, an empty assembler statement with the
 * vector as its operand, makes the compiler load it into a register once. No function takes
 * or returns a vector, so the ABI of vector arguments never matters. */
#if defined(__GNUC__) && (defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__) || defined(__ARM_NEON))
#if defined(__AVX512F__)
#define AOTC_F32_VECTOR 16
#elif defined(__AVX__)
#define AOTC_F32_VECTOR 8
#else
#define AOTC_F32_VECTOR 4
#endif
typedef float aotc_f32_vector __attribute__((vector_size(AOTC_F32_VECTOR * 4)));
#if defined(__AVX512F__)
#define AOTC_F32_IN_REGISTER(v) __asm__("" : "+v"(v))
#elif defined(__x86_64__) || defined(__i386__)
#define AOTC_F32_IN_REGISTER(v) __asm__("" : "+x"(v))
#elif defined(__aarch64__)
#define AOTC_F32_IN_REGISTER(v) __asm__("" : "+w"(v))
#else
#define AOTC_F32_IN_REGISTER(v) ((void)0)
#endif
#endif

/* 4 channels x AOTC_F32_PX_PIXELS pixels: out[i][j] = clamp(bias[i] + sum_k w[k][i] * x[k][j]) for the
 * first `channels` i. */
#if defined(AOTC_F32_VECTOR)
#define AOTC_F32_PX_VECTORS (AOTC_F32_PX_PIXELS / AOTC_F32_VECTOR)
AOTC_F32_INLINE void aotc_f32_block_px(const float* w, const float* x, int64_t ldx, int32_t k_count,
                                       const float* bias, float lo, float hi, float* out, int64_t ldo,
                                       int32_t channels) {
  aotc_f32_vector acc[AOTC_F32_PX_CHANNELS][AOTC_F32_PX_VECTORS], xv[AOTC_F32_PX_VECTORS];
  float sums[AOTC_F32_PX_PIXELS];
  int i, j;
  int32_t k;
  for (i = 0; i < AOTC_F32_PX_CHANNELS; ++i) {
    for (j = 0; j < AOTC_F32_VECTOR; ++j) sums[j] = bias[i];
    for (j = 0; j < AOTC_F32_PX_VECTORS; ++j) memcpy(&acc[i][j], sums, sizeof acc[i][j]);
  }
  for (k = 0; k < k_count; ++k) {
    const float* xk = x + (int64_t)k * ldx;
    const float* wk = w + (int64_t)k * AOTC_F32_PX_CHANNELS;
    for (j = 0; j < AOTC_F32_PX_VECTORS; ++j) {
      memcpy(&xv[j], xk + j * AOTC_F32_VECTOR, sizeof xv[j]);
      AOTC_F32_IN_REGISTER(xv[j]);
    }
    for (i = 0; i < AOTC_F32_PX_CHANNELS; ++i) {
      float wv = wk[i];
      for (j = 0; j < AOTC_F32_PX_VECTORS; ++j) acc[i][j] += xv[j] * wv;
    }
  }
  for (i = 0; i < AOTC_F32_PX_CHANNELS; ++i) {
    if (i >= channels) break;
    memcpy(sums, acc[i], sizeof sums);
    for (j = 0; j < AOTC_F32_PX_PIXELS; ++j) out[i * ldo + j] = aotc_f32_clamp(sums[j], lo, hi);
  }
}
#undef AOTC_F32_PX_VECTORS
#else
AOTC_F32_INLINE void aotc_f32_block_px(const float* w, const float* x, int64_t ldx, int32_t k_count,
                                       const float* bias, float lo, float hi, float* out, int64_t ldo,
                                       int32_t channels) {
  float acc[AOTC_F32_PX_CHANNELS][AOTC_F32_PX_PIXELS];
  int i, j;
  int32_t k;
  for (i = 0; i < AOTC_F32_PX_CHANNELS; ++i)
    for (j = 0; j < AOTC_F32_PX_PIXELS; ++j) acc[i][j] = bias[i];
  for (k = 0; k < k_count; ++k) {
    const float* xk = x + (int64_t)k * ldx;
    const float* wk = w + (int64_t)k * AOTC_F32_PX_CHANNELS;
    for (i = 0; i < AOTC_F32_PX_CHANNELS; ++i) {
      float wv = wk[i];
      for (j = 0; j < AOTC_F32_PX_PIXELS; ++j) acc[i][j] += wv * xk[j];
    }
  }
  for (i = 0; i < AOTC_F32_PX_CHANNELS; ++i) {
    if (i >= channels) break;
    for (j = 0; j < AOTC_F32_PX_PIXELS; ++j) out[i * ldo + j] = aotc_f32_clamp(acc[i][j], lo, hi);
  }
}

#endif

/* 16 channels x `pixels` (at most AOTC_F32_OC_PIXELS; a constant after inlining) pixels. */
#if defined(AOTC_F32_VECTOR)
#define AOTC_F32_LANES (AOTC_F32_OC_CHANNELS / AOTC_F32_VECTOR)
AOTC_F32_INLINE void aotc_f32_block_oc(const float* w, const float* x, int64_t ldx, int32_t k_count, int pixels,
                                       const float* bias, float lo, float hi, float* out, int64_t ldo,
                                       int32_t channels) {
  aotc_f32_vector acc[AOTC_F32_OC_PIXELS][AOTC_F32_LANES], wv[AOTC_F32_LANES];
  float sums[AOTC_F32_OC_CHANNELS];
  int i, j, v;
  int32_t k;
  for (v = 0; v < AOTC_F32_LANES; ++v) memcpy(&wv[v], bias + v * AOTC_F32_VECTOR, sizeof wv[v]);
  for (j = 0; j < AOTC_F32_OC_PIXELS; ++j)
    for (v = 0; v < AOTC_F32_LANES; ++v) acc[j][v] = wv[v];
  for (k = 0; k < k_count; ++k) {
    const float* xk = x + (int64_t)k * ldx;
    const float* wk = w + (int64_t)k * AOTC_F32_OC_CHANNELS;
    for (v = 0; v < AOTC_F32_LANES; ++v) memcpy(&wv[v], wk + v * AOTC_F32_VECTOR, sizeof wv[v]);
    for (j = 0; j < pixels; ++j) {
      float xv = xk[j];
      for (v = 0; v < AOTC_F32_LANES; ++v) acc[j][v] += wv[v] * xv;
    }
  }
  for (j = 0; j < pixels; ++j) {
    memcpy(sums, acc[j], sizeof sums);
    for (i = 0; i < channels; ++i) out[i * ldo + j] = aotc_f32_clamp(sums[i], lo, hi);
  }
}
#undef AOTC_F32_LANES
#else
AOTC_F32_INLINE void aotc_f32_block_oc(const float* w, const float* x, int64_t ldx, int32_t k_count, int pixels,
                                       const float* bias, float lo, float hi, float* out, int64_t ldo,
                                       int32_t channels) {
  float acc[AOTC_F32_OC_PIXELS][AOTC_F32_OC_CHANNELS];
  int i, j;
  int32_t k;
  for (j = 0; j < AOTC_F32_OC_PIXELS; ++j)
    for (i = 0; i < AOTC_F32_OC_CHANNELS; ++i) acc[j][i] = bias[i];
  for (k = 0; k < k_count; ++k) {
    const float* xk = x + (int64_t)k * ldx;
    const float* wk = w + (int64_t)k * AOTC_F32_OC_CHANNELS;
    for (j = 0; j < pixels; ++j) {
      float xv = xk[j];
      for (i = 0; i < AOTC_F32_OC_CHANNELS; ++i) acc[j][i] += wk[i] * xv;
    }
  }
  for (j = 0; j < pixels; ++j)
    for (i = 0; i < channels; ++i) out[i * ldo + j] = aotc_f32_clamp(acc[j][i], lo, hi);
}
#endif

/* out[m][p] (row stride ldo) = clamp(bias[m] + sum_k w[m][k] * x[k][p]) for m < m_count and
 * p < n, x with row stride ldx, from a packed table for `layout_pixels` pixels (the whole
 * product's count, which chose the block; n may be a band of it). With pixels in vectors,
 * n must be at least AOTC_F32_PX_MIN. */
static inline void aotc_gemm_f32(const float* packed, int32_t m_count, int32_t k_count, int64_t layout_pixels,
                                 const float* x, int64_t ldx, int64_t n, float* out, int64_t ldo) {
  float lo = packed[0], hi = packed[1];
  const float* bias = packed + AOTC_F32_HEADER;
  const float* w = bias + (m_count + 15) / 16 * 16;
  int32_t m;
  int64_t p;
  if (aotc_f32_pixels_in_vectors(layout_pixels)) {
    /* Pixels outer: a block's k x AOTC_F32_PX_PIXELS inputs stay in cache while every channel reads them. */
    for (p = 0; p < n; p += AOTC_F32_PX_PIXELS) {
      int64_t at = p + AOTC_F32_PX_PIXELS <= n ? p : n - AOTC_F32_PX_PIXELS; /* the last block ends at n */
      for (m = 0; m < m_count; m += AOTC_F32_PX_CHANNELS) {
        int32_t channels = m_count - m < AOTC_F32_PX_CHANNELS ? m_count - m : AOTC_F32_PX_CHANNELS;
        aotc_f32_block_px(w + (int64_t)m * k_count, x + at, ldx, k_count, bias + m, lo, hi,
                          out + (int64_t)m * ldo + at, ldo, channels);
      }
    }
    return;
  }
  for (p = 0; p < n; p += AOTC_F32_OC_PIXELS) {
    int64_t left = n - p;
    for (m = 0; m < m_count; m += AOTC_F32_OC_CHANNELS) {
      const float* wm = w + (int64_t)m * k_count;
      int32_t channels = m_count - m < AOTC_F32_OC_CHANNELS ? m_count - m : AOTC_F32_OC_CHANNELS;
      const float* xp = x + p;
      float* op = out + (int64_t)m * ldo + p;
      /* A constant pixel count per call, so each inlined copy keeps its sums in registers. */
#define AOTC_F32_OC_CASE(n) \
  case n: aotc_f32_block_oc(wm, xp, ldx, k_count, n, bias + m, lo, hi, op, ldo, channels); break;
      switch (left >= AOTC_F32_OC_PIXELS ? AOTC_F32_OC_PIXELS : (int)left) {
        AOTC_F32_OC_CASE(1)
        AOTC_F32_OC_CASE(2)
        AOTC_F32_OC_CASE(3)
        AOTC_F32_OC_CASE(4)
        AOTC_F32_OC_CASE(5)
        AOTC_F32_OC_CASE(6)
#if AOTC_F32_OC_PIXELS > 6
        AOTC_F32_OC_CASE(7)
        AOTC_F32_OC_CASE(8)
        AOTC_F32_OC_CASE(9)
        AOTC_F32_OC_CASE(10)
        AOTC_F32_OC_CASE(11)
        AOTC_F32_OC_CASE(12)
#endif
        default: break;
      }
#undef AOTC_F32_OC_CASE
    }
  }
}

/* Output rows per im2col band: about 64 KiB of scratch (k floats per pixel), at least
 * AOTC_F32_PX_MIN pixels when the product puts pixels in vectors, never more than the output's rows. The
 * compiler sizes the scratch buffer with it. */
static inline int32_t aotc_f32_band_rows(int32_t k, int32_t oh, int32_t ow) {
  int64_t rows = 16384 / ((int64_t)k * ow);
  if (rows < 1) rows = 1;
  if (aotc_f32_pixels_in_vectors((int64_t)oh * ow) && rows * ow < AOTC_F32_PX_MIN)
    rows = (AOTC_F32_PX_MIN + ow - 1) / ow;
  return (int32_t)(rows < oh ? rows : oh);
}

/* An NCHW convolution of one image, groups of 1, no dilation: input [c][h][w], output
 * [m][oh][ow], kernel kh x kw, strides sh, sw, padding before ph, pw (the padding after is
 * implied by oh and ow). A 1x1 unpadded stride-1 convolution reads the input as the
 * product's x; any other gathers bands of aotc_f32_band_rows output rows into `scratch`
 * (c * kh * kw floats per pixel of a band). */
static inline void aotc_conv_f32(const float* input, float* output, const float* packed, int32_t c, int32_t h,
                                 int32_t w, int32_t m, int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                                 int32_t sw, int32_t ph, int32_t pw, float* scratch) {
  int32_t k = c * kh * kw, rows, r0, ci, ky, kx, oy, ox;
  int64_t pixels = (int64_t)oh * ow;
  if (kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && oh == h && ow == w) {
    aotc_gemm_f32(packed, m, k, pixels, input, pixels, pixels, output, pixels);
    return;
  }
  rows = aotc_f32_band_rows(k, oh, ow);
  for (r0 = 0; r0 < oh; r0 += rows) {
    int32_t first = r0 + rows <= oh ? r0 : oh - rows; /* the last band ends at the last row */
    int64_t band = (int64_t)rows * ow;
    float* row = scratch;
    for (ci = 0; ci < c; ++ci)
      for (ky = 0; ky < kh; ++ky)
        for (kx = 0; kx < kw; ++kx, row += band)
          for (oy = 0; oy < rows; ++oy) {
            int32_t iy = (first + oy) * sh + ky - ph;
            float* dst = row + (int64_t)oy * ow;
            const float* src = input + ((int64_t)ci * h + iy) * w;
            /* Columns whose tap lies inside the input: ox in [lo, hi). */
            int32_t lo = pw - kx > 0 ? (pw - kx + sw - 1) / sw : 0;
            int32_t hi = w - 1 + pw - kx >= 0 ? (w - 1 + pw - kx) / sw + 1 : 0;
            if (hi > ow) hi = ow;
            if (iy < 0 || iy >= h || lo >= hi) {
              for (ox = 0; ox < ow; ++ox) dst[ox] = 0.0f;
              continue;
            }
            for (ox = 0; ox < lo; ++ox) dst[ox] = 0.0f;
            if (sw == 1) {
              for (ox = lo; ox < hi; ++ox) dst[ox] = src[ox + kx - pw];
            } else {
              for (ox = lo; ox < hi; ++ox) dst[ox] = src[ox * sw + kx - pw];
            }
            for (ox = hi; ox < ow; ++ox) dst[ox] = 0.0f;
          }
    aotc_gemm_f32(packed, m, k, pixels, scratch, band, band, output + (int64_t)first * ow, pixels);
  }
}

/* Floats of scratch aotc_depthwise_f32 needs: a 3x3 kernel copies each channel into a
 * zero-padded plane covering every window (and, at stride 1, a plane of sums with the
 * padded plane's row length); other kernels need none. */
static inline int64_t aotc_depthwise_f32_scratch(int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                                                 int32_t sw) {
  int64_t padded_rows = (int64_t)(oh - 1) * sh + kh, padded_cols = (int64_t)(ow - 1) * sw + kw;
  if (kh != 3 || kw != 3) return 0;
  /* At stride 1, blocks of 16 sums: up to 15 more sums, read up to 15 floats past the plane. */
  return padded_rows * padded_cols + (sh == 1 && sw == 1 ? (int64_t)oh * padded_cols + 32 : 0);
}

/* One channel of a 3x3 depthwise convolution over its zero-padded plane (rows of `cols`
 * floats), into `dst` (rows of ow floats). At stride 1 the sums are computed for the plane
 * as one long row (each output row followed by cols - ow sums that are not outputs, dropped
 * when the rows are copied out): one loop of nine multiply-adds per output that
 * vectorizes even when the rows are only a few pixels long. */
AOTC_F32_INLINE void aotc_depthwise3_f32_plane(const float* AOTC_F32_RESTRICT plane, int32_t cols,
                                               float* AOTC_F32_RESTRICT sums, float* AOTC_F32_RESTRICT dst, int32_t oh,
                                               int32_t ow, int32_t sh, int32_t sw, const float* wc, float b, float lo,
                                               float hi) {
  float w0 = wc[0], w1 = wc[1], w2 = wc[2], w3 = wc[3], w4 = wc[4], w5 = wc[5], w6 = wc[6], w7 = wc[7], w8 = wc[8];
  int32_t oy, ox;
  if (sh == 1 && sw == 1) {
    int32_t count = (oh - 1) * cols + ow;
    const float* r0 = plane;
    const float* r1 = plane + cols;
    const float* r2 = plane + 2 * cols;
    /* Blocks of 16 sums, straight-line code the compiler turns into vector instructions (a
     * plain loop over j is not vectorized by clang: it forwards each loaded value to the next
     * iterations' taps). The last block runs past `count` into the scratch's slack. */
    int32_t j, t;
    for (j = 0; j < count; j += 16) {
      float v[16];
      for (t = 0; t < 16; ++t)
        v[t] = b + w0 * r0[j + t] + w1 * r0[j + t + 1] + w2 * r0[j + t + 2] + w3 * r1[j + t] + w4 * r1[j + t + 1] +
               w5 * r1[j + t + 2] + w6 * r2[j + t] + w7 * r2[j + t + 1] + w8 * r2[j + t + 2];
      for (t = 0; t < 16; ++t) sums[j + t] = v[t];
    }
    for (oy = 0; oy < oh; ++oy)
      for (ox = 0; ox < ow; ++ox) dst[oy * ow + ox] = aotc_f32_clamp(sums[(int64_t)oy * cols + ox], lo, hi);
    return;
  }
  for (oy = 0; oy < oh; ++oy) {
    const float* r0 = plane + (int64_t)oy * sh * cols;
    const float* r1 = r0 + cols;
    const float* r2 = r1 + cols;
    float* d = dst + (int64_t)oy * ow;
    for (ox = 0; ox < ow; ++ox) {
      int32_t x = ox * sw;
      float v = b + w0 * r0[x] + w1 * r0[x + 1] + w2 * r0[x + 2] + w3 * r1[x] + w4 * r1[x + 1] + w5 * r1[x + 2] +
                w6 * r2[x] + w7 * r2[x + 1] + w8 * r2[x + 2];
      d[ox] = aotc_f32_clamp(v, lo, hi);
    }
  }
}

/* A depthwise NCHW convolution of one image (c input and output channels, one filter of kh
 * x kw per channel), from a packed table: lo, hi, 14 zeros, the bias padded to a multiple of
 * 16, the weights [c][kh][kw] as they are. Geometry as aotc_conv_f32's; `scratch` holds
 * aotc_depthwise_f32_scratch floats. */
static inline void aotc_depthwise_f32(const float* input, float* output, const float* packed, int32_t c, int32_t h,
                                      int32_t w, int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                                      int32_t sw, int32_t ph, int32_t pw, float* scratch) {
  float lo = packed[0], hi = packed[1];
  const float* bias = packed + AOTC_F32_HEADER;
  const float* weights = bias + (c + 15) / 16 * 16;
  int32_t ci, oy, ox, ky, kx;
  if (kh == 3 && kw == 3) {
    int32_t rows = (oh - 1) * sh + 3, cols = (ow - 1) * sw + 3, r, x;
    float* sums = scratch + (int64_t)rows * cols;
    for (ci = 0; ci < c; ++ci) {
      const float* src = input + (int64_t)ci * h * w;
      for (r = 0; r < rows; ++r) {
        float* row = scratch + (int64_t)r * cols;
        int32_t inside = r - ph >= 0 && r - ph < h ? w : 0; /* columns pw .. pw + w - 1, within cols */
        const float* in_row = inside ? src + (int64_t)(r - ph) * w : src;
        if (inside > cols - pw) inside = cols - pw;
        for (x = 0; x < pw; ++x) row[x] = 0.0f;
        for (x = 0; x < inside; ++x) row[pw + x] = in_row[x];
        for (x = pw + inside; x < cols; ++x) row[x] = 0.0f;
      }
      aotc_depthwise3_f32_plane(scratch, cols, sums, output + (int64_t)ci * oh * ow, oh, ow, sh, sw, weights + 9 * ci,
                                bias[ci], lo, hi);
    }
    return;
  }
  for (ci = 0; ci < c; ++ci) {
    const float* plane = input + (int64_t)ci * h * w;
    const float* wc = weights + (int64_t)ci * kh * kw;
    for (oy = 0; oy < oh; ++oy) {
      float* dst = output + ((int64_t)ci * oh + oy) * ow;
      float b = bias[ci];
      for (ox = 0; ox < ow; ++ox) dst[ox] = b;
      for (ky = 0; ky < kh; ++ky) {
        int32_t iy = oy * sh + ky - ph;
        const float* src;
        if (iy < 0 || iy >= h) continue;
        src = plane + (int64_t)iy * w;
        for (kx = 0; kx < kw; ++kx) {
          float wv = wc[ky * kw + kx];
          int32_t lo_x = pw - kx > 0 ? (pw - kx + sw - 1) / sw : 0;
          int32_t hi_x = w - 1 + pw - kx >= 0 ? (w - 1 + pw - kx) / sw + 1 : 0;
          if (hi_x > ow) hi_x = ow;
          if (sw == 1) {
            for (ox = lo_x; ox < hi_x; ++ox) dst[ox] += wv * src[ox + kx - pw];
          } else if (sw == 2) {
            for (ox = lo_x; ox < hi_x; ++ox) dst[ox] += wv * src[2 * ox + kx - pw];
          } else {
            for (ox = lo_x; ox < hi_x; ++ox) dst[ox] += wv * src[ox * sw + kx - pw];
          }
        }
      }
      for (ox = 0; ox < ow; ++ox) dst[ox] = aotc_f32_clamp(dst[ox], lo, hi);
    }
  }
}

#endif /* AOTC_HOST_F32_H_ */
