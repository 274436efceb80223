/* main.c: the strided integer dot products of runtime-c/aotc_dot_strided.h with the DSP
 * extension (SXTB16/UXTB16, SSUB16, SMLAD on contiguous operands) against their plain
 * loops, on the emulated Cortex-M4F.
 *
 * aotc's unit tests check the plain loops (what the compiler's interpreter runs) against
 * the generic kernels they replace; this checks that the code that runs on the core gives
 * the same sums, for random cases: lengths that are and are not multiples of four,
 * operands at every byte offset from a word boundary, strides of 1 and more (the DSP path
 * only takes contiguous operands), zero points across their range and beyond what the
 * DSP path takes (|zero point| > 255 falls back to the loops), and starting sums near the
 * int32 limits (the sums wrap). Prints one line per kernel and "result: PASS" if all agree
 * (exit status 0).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels.h"
#include "kernel_test_random.h"

void SysTick_Handler(void); /* startup_mps2.c's vector table wants one */
void SysTick_Handler(void) {}

/* ---- Cases ---------------------------------------------------------------------------- */

#define MAX_N 80
#define MAX_STRIDE 3
#define BYTES (MAX_N * MAX_STRIDE + 4)
#define CASES 2000

static uint8_t a_bytes[BYTES] __attribute__((aligned(4)));
static uint8_t b_bytes[BYTES] __attribute__((aligned(4)));

/* One random case's arguments. */
struct dot_case {
  int32_t a_offset, b_offset, a_stride, b_stride, a_zero_point, b_zero_point, n, acc;
};

static struct dot_case random_case(int32_t zero_lo, int32_t zero_hi) {
  struct dot_case c;
  int32_t i;
  for (i = 0; i < BYTES; ++i) {
    a_bytes[i] = (uint8_t)next();
    b_bytes[i] = (uint8_t)next();
  }
  c.a_offset = between(0, 3);
  c.b_offset = between(0, 3);
  /* Mostly contiguous (the DSP path), sometimes strided (the loops). */
  c.a_stride = between(0, 3) == 0 ? between(2, MAX_STRIDE) : 1;
  c.b_stride = between(0, 3) == 0 ? between(2, MAX_STRIDE) : 1;
  /* Mostly within what the DSP path takes, sometimes beyond (the loops again). */
  c.a_zero_point = between(0, 9) == 0 ? between(-1000, 1000) : between(zero_lo, zero_hi);
  c.b_zero_point = between(0, 9) == 0 ? between(-1000, 1000) : between(zero_lo, zero_hi);
  c.n = between(0, MAX_N);
  c.acc = between(0, 3) == 0 ? (int32_t)next() : between(-1000, 1000);
  return c;
}

static uint32_t failures = 0;

static void report(const char* kernel, int32_t k, const struct dot_case* c, int32_t got, int32_t want) {
  if (got == want) return;
  printf("%s case %" PRId32 ": n %" PRId32 ", strides %" PRId32 " %" PRId32 ", zero points %" PRId32 " %" PRId32
         ": got %" PRId32 ", want %" PRId32 "\n",
         kernel, k, c->n, c->a_stride, c->b_stride, c->a_zero_point, c->b_zero_point, got, want);
  failures++;
}

int main(void) {
  int32_t k;
  uint32_t before;
  before = failures;
  for (k = 0; k < CASES; ++k) {
    struct dot_case c = random_case(-128, 127);
    const int8_t* a = (const int8_t*)(a_bytes + c.a_offset);
    const int8_t* b = (const int8_t*)(b_bytes + c.b_offset);
    report("s8_s8", k, &c, dsp_s8_s8(a, c.a_stride, c.a_zero_point, b, c.b_stride, c.b_zero_point, c.n, c.acc),
           portable_s8_s8(a, c.a_stride, c.a_zero_point, b, c.b_stride, c.b_zero_point, c.n, c.acc));
  }
  printf("aotc_dot_s8_s8: %" PRId32 " cases, %" PRIu32 " differ\n", (int32_t)CASES, failures - before);
  before = failures;
  for (k = 0; k < CASES; ++k) {
    struct dot_case c = random_case(0, 255);
    const uint8_t* a = a_bytes + c.a_offset;
    const uint8_t* b = b_bytes + c.b_offset;
    report("u8_u8", k, &c, dsp_u8_u8(a, c.a_stride, c.a_zero_point, b, c.b_stride, c.b_zero_point, c.n, c.acc),
           portable_u8_u8(a, c.a_stride, c.a_zero_point, b, c.b_stride, c.b_zero_point, c.n, c.acc));
  }
  printf("aotc_dot_u8_u8: %" PRId32 " cases, %" PRIu32 " differ\n", (int32_t)CASES, failures - before);
  before = failures;
  for (k = 0; k < CASES; ++k) {
    struct dot_case c = random_case(-128, 255);
    const uint8_t* a = a_bytes + c.a_offset;
    const int8_t* b = (const int8_t*)(b_bytes + c.b_offset);
    report("u8_s8", k, &c, dsp_u8_s8(a, c.a_stride, c.a_zero_point, b, c.b_stride, c.b_zero_point, c.n, c.acc),
           portable_u8_s8(a, c.a_stride, c.a_zero_point, b, c.b_stride, c.b_zero_point, c.n, c.acc));
  }
  printf("aotc_dot_u8_s8: %" PRId32 " cases, %" PRIu32 " differ\n", (int32_t)CASES, failures - before);
  printf("result: %s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
