/* layer_profile.c: executed instructions per function of the model, for bench/firmware's
 * table of the slowest layers.
 *
 * Built only with AOTC_FW_PROFILE_LAYERS=ON. The model's library is then compiled with
 * -finstrument-functions (gcc, the runtime's aotc_* helpers excluded: they are inlined
 * into inner loops) or -finstrument-functions-after-inlining (clang), and every kernel
 * stays a function of its own (AOTC_KERNEL noinline): each kernel then calls the hooks
 * below on entry and exit, which read SysTick (one tick per 40 instructions under
 * `-icount shift=0`, see main.c) and add the ticks between them to the kernel's row.
 * fw_profile_print lists the rows as
 *
 *   layer <address in hex>: calls C, instructions N
 *
 * and bench/firmware names the functions from the image's symbols. A count includes the
 * kernel's callees (the workspace allocator) and a few instructions of the hooks; the
 * instrumented image is not the measured one (its kernels keep their frames), so its
 * total differs a little from the uninstrumented run's.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "layer_profile.h"

#define SYST_CVR (*(volatile uint32_t*)0xE000E018u)
#define SYST_MASK 0xFFFFFFu /* SysTick counts down through 24 bits */
#define PROFILE_FUNCTIONS 256
#define PROFILE_DEPTH 16

#define NO_HOOK __attribute__((no_instrument_function))

struct profile_row {
  uintptr_t function;
  uint32_t calls;
  uint64_t ticks;
};

static struct profile_row rows[PROFILE_FUNCTIONS];
static uint32_t row_count;
static uint32_t entered_at[PROFILE_DEPTH];
static uint32_t depth;

void __cyg_profile_func_enter(void* function, void* call_site) NO_HOOK;
void __cyg_profile_func_exit(void* function, void* call_site) NO_HOOK;

void __cyg_profile_func_enter(void* function, void* call_site) {
  (void)function;
  (void)call_site;
  if (depth < PROFILE_DEPTH) entered_at[depth] = SYST_CVR;
  depth++;
}

void __cyg_profile_func_exit(void* function, void* call_site) {
  const uint32_t now = SYST_CVR; /* first: the hook's own work is not counted */
  const uintptr_t address = (uintptr_t)function & ~(uintptr_t)1u; /* the Thumb bit */
  uint32_t i;
  (void)call_site;
  if (depth == 0) return;
  depth--;
  if (depth >= PROFILE_DEPTH) return;
  for (i = 0; i < row_count && rows[i].function != address; ++i) {
  }
  if (i == row_count) {
    if (row_count == PROFILE_FUNCTIONS) return;
    rows[row_count++].function = address;
  }
  rows[i].calls++;
  /* Counting down: elapsed = start - now, modulo the counter's 24 bits (a kernel takes
   * far fewer than 2^24 ticks). */
  rows[i].ticks += (entered_at[depth] - now) & SYST_MASK;
}

void fw_profile_reset(void) {
  row_count = 0;
  depth = 0;
}

void fw_profile_print(uint32_t core_clock_hz) {
  uint32_t i;
  for (i = 0; i < row_count; ++i) {
    const uint64_t instructions = rows[i].ticks * 1000000000u / core_clock_hz;
    printf("layer %08" PRIx32 ": calls %" PRIu32 ", instructions %" PRIu32 "\n", (uint32_t)rows[i].function,
           rows[i].calls, (uint32_t)instructions);
  }
}
