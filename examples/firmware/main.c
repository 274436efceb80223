/* main.c: runs one aotc-generated model on a Cortex-M core and checks its outputs.
 *
 * The model, its test inputs and the expected outputs are compiled in (fw_model.h and
 * fw_data.c are generated at build time from the model's metadata.json and raw .bin
 * files). For every test case main copies the inputs into RAM (for a model compiled with
 * --io-in-arena, into its activation memory: fw_model_bind), runs <name>_run once and
 * prints over semihosting:
 *
 *   case K: status S, instructions N, stack B bytes
 *   case K output J: <the output's bytes in hex>   ("case K output J float32: ..." for a
 *                                                   float32 output)
 *   case K: match | case K: MISMATCH at byte I of output J (got X, expected Y)
 *           (a float32 output: MISMATCH at element I, more than 1e-5 relative)
 *   result: PASS | FAIL
 *
 * and returns 0 only if every run succeeded and every output equals the expected bytes
 * (float32 outputs: within a relative error of 1e-5 of each expected value).
 *
 * instructions: SysTick at the core clock (FW_CORE_CLOCK_HZ: 25 MHz on QEMU's MPS2 boards,
 * 32 MHz on the MPS3 AN547) counted around the one <name>_run call, in nanoseconds: 40 per
 * tick on MPS2, 31.25 on the AN547. Only under `qemu-system-arm -icount shift=0` (one
 * instruction per virtual nanosecond) is this the executed-instruction count (to one
 * tick); otherwise it is wall-clock-dependent noise.
 * stack: the stack below main's frame is filled with a pattern before the call; the
 * deepest overwritten word after it gives the stack <name>_run used (exact for this run,
 * which takes no interrupt: SysTick only counts).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fw_model.h"
#if FW_PROFILE_LAYERS
#include "layer_profile.h"
#endif

/* ---- SysTick ------------------------------------------------------------------------ */

#define SYST_CSR (*(volatile uint32_t*)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018u)
#define SCB_ICSR (*(volatile uint32_t*)0xE000ED04u)
#define SYST_CSR_ENABLE 1u
#define SYST_CSR_TICKINT 2u
#define SYST_CSR_CLKSOURCE 4u /* the core clock */
#define SYST_CSR_COUNTFLAG (1u << 16)
#define SCB_ICSR_PENDSTSET (1u << 26)
#define SCB_ICSR_PENDSTCLR (1u << 25)
#define SYST_PERIOD (1u << 24) /* ticks between wraps with RVR = 0xFFFFFF */
/* The board's core clock (set by CMakeLists.txt from the QEMU machine): one instruction per
 * ns at -icount 0, so 1e9 / FW_CORE_CLOCK_HZ instructions per tick. */
#ifndef FW_CORE_CLOCK_HZ
#define FW_CORE_CLOCK_HZ 25000000u
#endif
#define NS_PER_SECOND 1000000000u

static volatile uint32_t systick_wraps;

void SysTick_Handler(void);
void SysTick_Handler(void) { systick_wraps++; }

/* Starts SysTick from its reload value; with_interrupt counts wraps in systick_wraps. */
static void systick_start(int with_interrupt) {
  SYST_CSR = 0;
  SYST_RVR = SYST_PERIOD - 1u;
  SYST_CVR = 0; /* any write clears the counter and COUNTFLAG */
  SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_CLKSOURCE | (with_interrupt ? SYST_CSR_TICKINT : 0u);
  /* The counter loads RVR on the first tick after enabling: wait for it, then forget the
   * wrap that the load may count as. */
  while (SYST_CVR == 0) {
  }
  (void)SYST_CSR; /* reading clears COUNTFLAG */
  SCB_ICSR = SCB_ICSR_PENDSTCLR;
  systick_wraps = 0;
}

/* Ticks since systick_start, counting wraps seen by the interrupt and a pending one. */
static uint64_t systick_ticks(void) {
  uint32_t wraps;
  uint32_t value;
  __asm volatile("cpsid i" ::: "memory");
  wraps = systick_wraps;
  value = SYST_CVR;
  /* Wrapped, but the handler has not run yet: the value read is from after the reload. */
  if ((SCB_ICSR & SCB_ICSR_PENDSTSET) != 0 && value > SYST_PERIOD / 2u) wraps++;
  __asm volatile("cpsie i" ::: "memory");
  return (uint64_t)wraps * SYST_PERIOD + (SYST_PERIOD - 1u - value);
}

/* The calibration that ../shared/tools/cycles checks itself against: the SysTick ticks of a
 * loop of exactly 2,000,000 instructions (subs; bne, 1,000,000 times), printed as `cal=`.
 * It starts right after a tick begins, so that the few instructions around the loop stay
 * inside its last tick and the count is exact. */
static __attribute__((noinline)) uint32_t calibration_ticks(void) {
  uint32_t n = 1000000u;
  uint32_t first, start, stop;
  systick_start(0);
  first = SYST_CVR;
  while ((start = SYST_CVR) == first) {
  }
#if defined(__GNUC__) && !defined(__clang__) && !defined(__thumb2__)
  __asm volatile("1: sub %0, #1\n\tbne 1b" : "+l"(n) : : "cc"); /* gcc's Thumb-1 asm: divided syntax */
#else
  __asm volatile("1: subs %0, %0, #1\n\tbne 1b" : "+l"(n) : : "cc");
#endif
  stop = SYST_CVR;
  SYST_CSR = 0;
  return start - stop; /* SysTick counts down; 50,000 ticks do not wrap its 24 bits */
}

/* ---- Stack painting ------------------------------------------------------------------ */

extern uint32_t __stack_limit[]; /* the linker script (mps2.ld, mps3_an547.ld) */
#define STACK_PATTERN 0x5AA5C33Cu

static uint32_t* current_sp(void) {
  uint32_t* sp;
  __asm volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

/* ---- Output -------------------------------------------------------------------------- */

#if FW_HAVE_EXPECTED
/* The first of `count` float32 values that differs from the expected one by more than
 * 1e-5 of the expected magnitude (the tolerance aotc's host tests use for float models:
 * sums may round differently from TFLite's), or `count` if none does. */
static uint32_t float32_mismatch(const uint8_t* got_bytes, const uint8_t* expected_bytes, uint32_t count) {
  uint32_t i;
  for (i = 0; i < count; ++i) {
    float got, expected, diff, bound;
    memcpy(&got, got_bytes + 4 * i, 4);
    memcpy(&expected, expected_bytes + 4 * i, 4);
    diff = got > expected ? got - expected : expected - got;
    bound = 1e-5f * (expected < 0 ? -expected : expected);
    if (!(diff <= bound)) return i;
  }
  return count;
}
#endif

/* printf has no portable 64-bit conversion on every newlib build: print it ourselves. */
static void print_u64(uint64_t value) {
  char digits[21];
  int n = 0;
  do {
    digits[n++] = (char)('0' + (int)(value % 10u));
    value /= 10u;
  } while (value != 0);
  while (n > 0) putchar(digits[--n]);
}

static void print_hex(const uint8_t* bytes, uint32_t size) {
  static const char hex[] = "0123456789abcdef";
  uint32_t i;
  for (i = 0; i < size; ++i) {
    putchar(hex[bytes[i] >> 4]);
    putchar(hex[bytes[i] & 15u]);
  }
}

/* ---- One inference ------------------------------------------------------------------- */

struct measurement {
  int32_t status;
  uint64_t ticks; /* SysTick ticks of the call */
  uint64_t instructions;
  uint32_t stack_bytes;
  int wrapped; /* SysTick wrapped: instructions is not valid */
};

/* Runs the model once on the bound buffers. noinline: `sp` must be this function's SP at
 * the call, with nothing of this function's own below it. */
static __attribute__((noinline)) void measure(struct fw_model* model, int with_interrupt,
                                              struct measurement* m) {
  uint32_t* const sp = current_sp();
  uint32_t* p;
  uint64_t start;
  uint64_t stop;
  for (p = __stack_limit; p < sp; ++p) *p = STACK_PATTERN;
  systick_start(with_interrupt);
#if FW_PROFILE_LAYERS
  fw_profile_reset();
#endif
  start = systick_ticks();
  m->status = FW_MODEL_RUN(model);
  stop = systick_ticks();
  m->wrapped = !with_interrupt && (SYST_CSR & SYST_CSR_COUNTFLAG) != 0;
  SYST_CSR = 0;
  m->ticks = stop - start;
  m->instructions = m->ticks * NS_PER_SECOND / FW_CORE_CLOCK_HZ;
  for (p = __stack_limit; p < sp && *p == STACK_PATTERN; ++p) {
  }
  m->stack_bytes = (uint32_t)((uintptr_t)sp - (uintptr_t)p);
}

int main(void) {
  uint32_t k;
  uint32_t j;
  uint32_t passed = 0;
  printf("aotc firmware: model %s, target %s, %" PRIu32 " case(s)\n", FW_MODEL_NAME,
         FW_MODEL_TARGET, (uint32_t)FW_CASE_COUNT);
  printf("cal=%" PRIu32 "\n", calibration_ticks());
  for (k = 0; k < FW_CASE_COUNT; ++k) {
    struct fw_model model;
    struct measurement m;
    int ok = 1;
    for (j = 0; j < FW_INPUT_COUNT; ++j) {
      memcpy(fw_input_buffers[j], fw_case_inputs[k] + fw_input_offsets[j], fw_input_bytes[j]);
    }
    for (j = 0; j < FW_OUTPUT_COUNT; ++j) memset(fw_output_buffers[j], 0, fw_output_bytes[j]);
    fw_model_bind(&model);

    /* Without interrupts the stack figure is exact; if SysTick wrapped, the instruction
     * count is taken again from a second run that counts wraps in the interrupt. */
    measure(&model, 0, &m);
    if (m.wrapped) {
      struct measurement counted;
      fw_model_bind(&model); /* a model with its inputs in its arena may have overwritten them */
      measure(&model, 1, &counted);
      m.ticks = counted.ticks;
      m.instructions = counted.instructions;
      if (counted.status != m.status) m.status = counted.status;
    }
    fw_model_collect(&model);
    printf("case %" PRIu32 ": status %" PRId32 ", instructions ", k, m.status);
    print_u64(m.instructions);
    printf(", stack %" PRIu32 " bytes\n", m.stack_bytes);
    if (k == 0) { /* the call ../shared/tools/cycles measures: the first */
      printf("ticks=");
      print_u64(m.ticks);
      putchar('\n');
    }
#if FW_PROFILE_LAYERS
    fw_profile_print(FW_CORE_CLOCK_HZ);
#endif
    if (m.status != 0) ok = 0;

    for (j = 0; j < FW_OUTPUT_COUNT; ++j) {
      printf("case %" PRIu32 " output %" PRIu32 "%s: ", k, j, fw_output_float32[j] ? " float32" : "");
      print_hex(fw_output_buffers[j], fw_output_bytes[j]);
      putchar('\n');
    }
#if FW_HAVE_EXPECTED
    for (j = 0; j < FW_OUTPUT_COUNT && ok; ++j) {
      const uint8_t* expected = fw_case_expected[k] + fw_output_offsets[j];
      uint32_t i;
      if (fw_output_float32[j]) {
        i = float32_mismatch(fw_output_buffers[j], expected, fw_output_bytes[j] / 4);
        if (i < fw_output_bytes[j] / 4) {
          printf("case %" PRIu32 ": MISMATCH at element %" PRIu32 " of output %" PRIu32
                 " (more than 1e-5 relative)\n",
                 k, i, j);
          ok = 0;
        }
        continue;
      }
      for (i = 0; i < fw_output_bytes[j]; ++i) {
        if (fw_output_buffers[j][i] != expected[i]) {
          printf("case %" PRIu32 ": MISMATCH at byte %" PRIu32 " of output %" PRIu32
                 " (got %02x, expected %02x)\n",
                 k, i, j, fw_output_buffers[j][i], expected[i]);
          ok = 0;
          break;
        }
      }
    }
    if (ok) printf("case %" PRIu32 ": match\n", k);
#else
    if (ok) printf("case %" PRIu32 ": ran (no expected output compiled in)\n", k);
#endif
    if (ok) passed++;
  }
  printf("result: %s (%" PRIu32 " of %" PRIu32 " cases)\n",
         passed == FW_CASE_COUNT ? "PASS" : "FAIL", passed, (uint32_t)FW_CASE_COUNT);
  fflush(stdout);
  return passed == FW_CASE_COUNT ? 0 : 1;
}
