/* layer_profile.h: instructions per kernel of the model (layer_profile.c), in firmware
 * built with AOTC_FW_PROFILE_LAYERS=ON. */
#ifndef FW_LAYER_PROFILE_H_
#define FW_LAYER_PROFILE_H_

#include <stdint.h>

/* Forgets what earlier runs counted. SysTick must be running during the run. */
void fw_profile_reset(void);
/* Prints one line per instrumented function: "layer <address>: calls C, instructions N".
 * SysTick runs at the core clock, and QEMU's -icount 0 executes one instruction per ns:
 * 1e9 / core_clock_hz instructions per tick (40 on the MPS2 boards, 31.25 on mps3-an547). */
void fw_profile_print(uint32_t core_clock_hz);

#endif /* FW_LAYER_PROFILE_H_ */
