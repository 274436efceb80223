/* startup_mps2.c: reset and exception handling for the firmware example on QEMU's Arm MPS2
 * boards (mps2-an386: Cortex-M4F, mps2-an500: Cortex-M7; also builds for the Cortex-M0+) and
 * on the MPS3 AN547 (mps3-an547: Cortex-M55, whose CPACR bits also enable Helium).
 *
 * On reset a Cortex-M core loads the stack pointer from word 0 of the vector table and
 * jumps to the handler in word 1; everything else is up to us: enable the FPU (the first
 * floating-point instruction faults otherwise), copy .data's initial values from code
 * memory, zero .bss, connect newlib's stdio to the semihosting console, run main and report
 * its result to the debugger (QEMU exits with status 0 for 0, 1 otherwise).
 *
 * C constructors are not run (no __libc_init_array): the firmware is plain C.
 * The memory symbols come from mps2.ld (or mps3_an547.ld).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern uint32_t __data_load[];
extern uint32_t __data_start[];
extern uint32_t __data_end[];
extern uint32_t __bss_start[];
extern uint32_t __bss_end[];
extern uint32_t __stack_top[];

int main(void);
/* newlib's librdimon: opens the semihosting console as stdin/stdout/stderr. */
extern void initialise_monitor_handles(void);
/* Counts SysTick wraps (main.c). */
void SysTick_Handler(void);

void Reset_Handler(void);
void Default_Handler(void);
void HardFault_Handler(void);

#define SCB_CPACR (*(volatile uint32_t*)0xE000ED88u)

void Reset_Handler(void) {
#if defined(__ARM_FP)
  /* Full access to coprocessors 10 and 11, the FPU, before any FP instruction runs. */
  SCB_CPACR |= 0xFu << 20;
  __asm volatile("dsb\n\tisb" ::: "memory");
#endif
  {
    const uint32_t* from = __data_load;
    uint32_t* to = __data_start;
    while (to < __data_end) *to++ = *from++;
  }
  {
    uint32_t* to = __bss_start;
    while (to < __bss_end) *to++ = 0;
  }
  initialise_monitor_handles();
  exit(main());
}

/* newlib's __libc_init_array / __libc_fini_array call these (normally from crti.o, which
 * -nostartfiles leaves out); there is nothing to do. */
void _init(void);
void _fini(void);
void _init(void) {}
void _fini(void) {}

/* An unexpected exception: say so and stop with a failure status. */
void Default_Handler(void) {
  fputs("firmware: unexpected exception\n", stdout);
  exit(3);
}

void HardFault_Handler(void) {
  fputs("firmware: hard fault\n", stdout);
  exit(3);
}

/* Word 0 is the initial stack pointer, the others the handlers' addresses. */
typedef union {
  void (*handler)(void);
  uint32_t* stack;
} vector_entry;

__attribute__((section(".vectors"), used)) const vector_entry vector_table[16] = {
    {.stack = __stack_top},          /* initial SP */
    {.handler = Reset_Handler},      /* reset */
    {.handler = Default_Handler},    /* NMI */
    {.handler = HardFault_Handler},  /* hard fault */
    {.handler = Default_Handler},    /* memory management fault (Armv7-M) */
    {.handler = Default_Handler},    /* bus fault (Armv7-M) */
    {.handler = Default_Handler},    /* usage fault (Armv7-M) */
    {.handler = 0},                  /* reserved */
    {.handler = 0},
    {.handler = 0},
    {.handler = 0},
    {.handler = Default_Handler},    /* SVCall */
    {.handler = Default_Handler},    /* debug monitor (Armv7-M) */
    {.handler = 0},                  /* reserved */
    {.handler = Default_Handler},    /* PendSV */
    {.handler = SysTick_Handler},    /* SysTick */
};
