/* main.c: the runtime's Helium kernels (runtime-c/aotc_mve.h) against its plain loops, on
 * the emulated Cortex-M55, and the float32 blocks' Helium code (runtime-c/aotc_dot_f32.h)
 * against their scalar FPU code, bit for bit (both round each product, then each sum).
 *
 * aotc's unit tests check the plain loops (what the compiler's interpreter runs) against
 * TFLite's arithmetic; this checks that the vector code that runs on the core computes the
 * same bytes, for many random shapes: runs that end inside a vector, rows with a stride,
 * channel counts that are not multiples of four, left and right shifts, zero points and
 * activation ranges, residual additions, and, for the requantization alone, values whose roundings are exact
 * ties. It also checks that nothing is written past an output. Prints one line per kernel
 * and "result: PASS" if all agree (exit status 0).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aotc_mve.h"
#include "kernels.h"
#include "kernel_test_random.h"

void SysTick_Handler(void); /* startup_mps2.c's vector table wants one */
void SysTick_Handler(void) {}

static void random_bytes(int8_t* p, int32_t n) {
  int32_t i;
  for (i = 0; i < n; ++i) p[i] = (int8_t)next();
}

/* ---- Buffers ---------------------------------------------------------------------------- */

#define MAX_BYTES 4096
#define MAX_CHANNELS 32
#define GUARD 32
#define SENTINEL 0x5A

static int8_t input[MAX_BYTES] __attribute__((aligned(16)));
static int8_t weights[MAX_BYTES] __attribute__((aligned(16)));
static int8_t got[MAX_BYTES + GUARD] __attribute__((aligned(16)));
static int8_t want[MAX_BYTES + GUARD] __attribute__((aligned(16)));
static int32_t bias[MAX_CHANNELS], multiplier[MAX_CHANNELS], left_shift[MAX_CHANNELS], right_shift[MAX_CHANNELS];

static uint32_t failures = 0;

/* Compares got and want over n bytes plus the guard (both start filled with SENTINEL). */
static int same(const char* what, uint32_t k, int32_t n) {
  int32_t i;
  for (i = 0; i < n + GUARD; ++i) {
    if (got[i] != want[i]) {
      printf("%s case %" PRIu32 ": byte %" PRId32 " of %" PRId32 " differs (got %d, want %d)\n", what, k, i, n, got[i],
             want[i]);
      failures++;
      return 0;
    }
  }
  return 1;
}

static void clear_outputs(void) {
  memset(got, SENTINEL, sizeof got);
  memset(want, SENTINEL, sizeof want);
}

/* Runs both builds of `kernel` on case c (number k) and compares their n output bytes. */
#define BOTH_AGREE(kernel, c, k, n) \
  (clear_outputs(), mve_##kernel(&(c), got), portable_##kernel(&(c), want), same(#kernel, (k), (n)))

/* Random requantization arguments for case k of a kernel with `channels` output channels:
 * tables padded to four, multipliers in [2^30, 2^31), shifts from -12 to 4 (every third
 * case), else -1 or less (what a kernel without a left-shift table may assume); every
 * fifth case not per channel (the first entry four times); a zero point, and an
 * activation range every other case. The input and weight buffers refilled. */
static void random_requant(struct requant_case* q, int32_t channels, uint32_t k) {
  const int with_left = k % 3 == 0;
  int32_t c;
  q->per_channel = k % 5 != 0;
  for (c = 0; c < (channels + 3) / 4 * 4; ++c) {
    const int first = q->per_channel || c == 0;
    const int32_t shift = between(-12, with_left ? 4 : -1);
    bias[c] = between(-40000, 40000);
    multiplier[c] = first ? (int32_t)(0x40000000u + (next() & 0x3FFFFFFFu)) : multiplier[0];
    left_shift[c] = first ? (shift > 0 ? shift : 0) : left_shift[0];
    right_shift[c] = first ? (shift < 0 ? shift : 0) : right_shift[0];
  }
  q->bias = bias;
  q->multiplier = multiplier;
  q->left_shift = with_left ? left_shift : 0;
  q->right_shift = right_shift;
  q->output_zero_point = between(-128, 127);
  q->act_min = k % 2 ? -128 : between(-128, 0);
  q->act_max = k % 2 ? 127 : between(0, 127);
  random_bytes(input, MAX_BYTES);
  random_bytes(weights, MAX_BYTES);
}

/* ---- Kernels ------------------------------------------------------------------------------ */

static void test_requantize(void) {
  uint32_t k, passed = 0;
  for (k = 0; k < 4000; ++k) {
    int32_t acc[4], m[4], l[4], r[4], a[4], b[4], j;
    for (j = 0; j < 4; ++j) {
      const int32_t shift = between(-31, k % 3 == 0 ? 6 : -1);
      const int32_t e = shift < 0 ? -shift : 0;
      m[j] = k % 5 == 0 ? 0x40000000 : k % 7 == 0 ? 0x7FFFFFFF : (int32_t)(0x40000000u + (next() & 0x3FFFFFFFu));
      l[j] = shift > 0 ? shift : 0;
      r[j] = shift < 0 ? shift : 0;
      acc[j] = (int32_t)next();
      /* With a multiplier of 2^30 the high multiply halves: 2 * (q * 2^e + 2^(e-1)) is an
       * exact tie of the rounding shift, of either sign. */
      if (m[j] == 0x40000000 && e > 0 && e < 20 && k % 2 == 0) acc[j] = 2 * (between(-1000, 1000) * (1 << e) + (1 << (e - 1)));
    }
    mve_requantize4(acc, m, k % 3 == 0 ? l : 0, r, a);
    portable_requantize4(acc, m, k % 3 == 0 ? l : 0, r, b);
    if (memcmp(a, b, sizeof a) == 0) {
      passed++;
    } else if (failures++ < 10) {
      printf("requantize case %" PRIu32 ": %" PRId32 " * %" PRId32 " << %" PRId32 " >> %" PRId32 ": got %" PRId32
             ", want %" PRId32 "\n",
             k, acc[0], m[0], l[0], -r[0], a[0], b[0]);
    }
  }
  printf("requantize: %" PRIu32 " of 4000 cases agree\n", passed);
}

static void test_conv(void) {
  uint32_t k, passed = 0;
  for (k = 0; k < 600; ++k) {
    struct conv_case c;
    c.rows = between(1, 4);
    c.row_length = k % 4 == 0 ? 16 * between(1, 6) : between(1, 100);
    c.row_stride = c.rows == 1 ? 0 : c.row_length + between(0, 24);
    c.out_channels = between(1, MAX_CHANNELS - 3);
    if (c.rows * (c.row_stride > c.row_length ? c.row_stride : c.row_length) > MAX_BYTES ||
        AOTC_MVE_PACKED_BYTES(c.out_channels, c.rows, c.row_length) > MAX_BYTES)
      c.rows = 1, c.row_stride = 0;
    random_requant(&c.q, c.out_channels, k);
    c.x = input;
    c.packed = weights;
    passed += (uint32_t)BOTH_AGREE(conv, c, k, c.out_channels);
  }
  printf("conv: %" PRIu32 " of 600 cases agree\n", passed);
}

static void test_depthwise(void) {
  uint32_t k, passed = 0;
  for (k = 0; k < 600; ++k) {
    struct depthwise_case c;
    c.channels = k % 3 == 0 ? 4 * between(1, 6) : between(1, 24);
    c.kernel_h = between(1, 4);
    c.kernel_w = between(1, 4);
    c.stride_x = between(1, 3);
    c.out_width = between(1, 7);
    c.row_stride = ((c.out_width - 1) * c.stride_x + c.kernel_w) * c.channels + between(0, 8);
    random_requant(&c.q, c.channels, k);
    /* The band and the filter last in their buffers: the kernel must not read past them. */
    c.band = input + MAX_BYTES - c.kernel_h * c.row_stride;
    c.w = weights + MAX_BYTES - AOTC_MVE_DEPTHWISE_BYTES(c.channels, c.kernel_h * c.kernel_w);
    passed += (uint32_t)BOTH_AGREE(depthwise, c, k, c.out_width * c.channels);
  }
  printf("depthwise: %" PRIu32 " of 600 cases agree\n", passed);
}

/* A residual ADD's parameters as TFLite computes them: multipliers in [2^30, 2^31), shifts
 * <= 0 (the inputs' rescalings to a common scale are below one). */
static void test_add(void) {
  uint32_t k, passed = 0;
  for (k = 0; k < 400; ++k) {
    struct add_case c;
    c.n = between(1, 200);
    random_bytes(input, MAX_BYTES);
    random_bytes(weights, MAX_BYTES);
    c.a = input;
    c.b = weights;
    c.a_offset = between(-127, 128);
    c.b_offset = between(-127, 128);
    c.a_multiplier = (int32_t)(0x40000000u + (next() & 0x3FFFFFFFu));
    c.b_multiplier = (int32_t)(0x40000000u + (next() & 0x3FFFFFFFu));
    c.output_multiplier = (int32_t)(0x40000000u + (next() & 0x3FFFFFFFu));
    c.a_shift = -between(0, 3);
    c.b_shift = -between(0, 3);
    c.output_shift = -between(15, 22);
    c.output_zero_point = between(-128, 127);
    c.act_min = k % 2 ? -128 : between(-128, 0);
    c.act_max = k % 2 ? 127 : between(0, 127);
    passed += (uint32_t)BOTH_AGREE(add, c, k, c.n);
  }
  printf("add: %" PRIu32 " of 400 cases agree\n", passed);
}

static void test_copies(void) {
  uint32_t k, passed = 0;
  for (k = 0; k < 600; ++k) {
    const int32_t width = between(1, 20), pad_left = between(0, 3), pad_right = between(0, 3), channels = between(1, 40);
    const int32_t valid = k % 4 != 0, zero_point = between(-128, 127);
    const int32_t rows = between(1, 5), run = between(1, 60), row_stride = run + between(0, 30);
    random_bytes(input, MAX_BYTES);
    clear_outputs();
    mve_band_row(got, input, valid, width, pad_left, pad_right, channels, zero_point);
    portable_band_row(want, input, valid, width, pad_left, pad_right, channels, zero_point);
    if (!same("band row", k, (pad_left + width + pad_right) * channels)) continue;
    clear_outputs();
    mve_gather(got, input, row_stride, rows, run);
    portable_gather(want, input, row_stride, rows, run);
    passed += (uint32_t)same("gather", k, rows * run);
  }
  printf("band rows and gathers: %" PRIu32 " of 600 cases agree\n", passed);
}

/* ---- Float32 blocks ---------------------------------------------------------------------- */

static float float_input[MAX_BYTES] __attribute__((aligned(16)));
static float float_weights[MAX_BYTES] __attribute__((aligned(16)));

/* Floats of every sign and many magnitudes with full mantissas, so that every product and
 * sum rounds; starting sums other than zero, as a window's second row starts. */
static void random_floats(float* p, int32_t n) {
  int32_t i;
  for (i = 0; i < n; ++i) p[i] = (float)(int32_t)next() * (1.0f / 2147483648.0f) * (float)between(1, 1000);
}

/* The sums of both builds, compared bit for bit: all 16, of which the four-unit and the
 * depthwise blocks write the first four (the rest must be left as they were). */
static int same_sums(const char* what, uint32_t k, const float* got_sums, const float* want_sums) {
  if (memcmp(got_sums, want_sums, 16 * sizeof(float)) == 0) return 1;
  printf("%s case %" PRIu32 ": sums differ\n", what, k);
  failures++;
  return 0;
}

static void test_float_blocks(void) {
  uint32_t k, passed = 0;
  for (k = 0; k < 600; ++k) {
    float got_sums[16] __attribute__((aligned(16))), want_sums[16] __attribute__((aligned(16)));
    struct dot_f32_case d;
    struct dw_f32_case w;
    random_floats(float_input, MAX_BYTES);
    random_floats(float_weights, MAX_BYTES);
    random_floats(got_sums, 16);
    memcpy(want_sums, got_sums, sizeof got_sums);
    /* Element counts of 0 to 3 as well as long ones, odd and even. */
    d.n = k % 5 == 0 ? between(0, 3) : between(1, 200);
    d.pixel_stride = d.n + between(0, 8);
    d.x = float_input + between(0, 3);
    d.w = float_weights + 4 * between(0, 8);
    if (k % 6 == 5) {
      d.pixel_stride = 4 * d.n + 4 * between(0, 4); /* the four blocks' weights */
      mve_dot_f32_1x16(&d, got_sums);
      portable_dot_f32_1x16(&d, want_sums);
      passed += (uint32_t)same_sums("dot_f32_1x16", k, got_sums, want_sums);
    } else if (k % 3 == 0) {
      mve_dot_f32_1x4(&d, got_sums);
      portable_dot_f32_1x4(&d, want_sums);
      passed += (uint32_t)same_sums("dot_f32_1x4", k, got_sums, want_sums);
    } else if (k % 3 == 1) {
      mve_dot_f32_4x4(&d, got_sums);
      portable_dot_f32_4x4(&d, want_sums);
      passed += (uint32_t)same_sums("dot_f32_4x4", k, got_sums, want_sums);
    } else {
      w.channels = 4 * between(1, 8);
      w.rows = between(1, 5);
      w.taps = k % 4 == 0 ? between(1, 5) : 3;
      w.row_step = w.channels * (w.taps + between(0, 6));
      w.w_skip = 4 * between(0, 2);
      w.x = float_input + between(0, 3);
      w.w = float_weights;
      mve_dw_f32_4ch(&w, got_sums);
      portable_dw_f32_4ch(&w, want_sums);
      passed += (uint32_t)same_sums("dw_f32_4ch", k, got_sums, want_sums);
    }
  }
  printf("float32 blocks: %" PRIu32 " of 600 cases agree\n", passed);
}

int main(void) {
  test_requantize();
  test_conv();
  test_depthwise();
  test_add();
  test_copies();
  test_float_blocks();
  printf("result: %s\n", failures == 0 ? "PASS" : "FAIL");
  fflush(stdout);
  return failures == 0 ? 0 : 1;
}
