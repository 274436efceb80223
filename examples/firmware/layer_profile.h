/* layer_profile.h: instructions per kernel of the model (layer_profile.c), in firmware
 * built with AOTC_FW_PROFILE_LAYERS=ON. */
#ifndef FW_LAYER_PROFILE_H_
#define FW_LAYER_PROFILE_H_

#include <stdint.h>

/* Forgets what earlier runs counted. SysTick must be running during the run. */
void fw_profile_reset(void);
/* Prints one line per instrumented function: "layer <address>: calls C, instructions N". */
void fw_profile_print(uint32_t instructions_per_tick);

#endif /* FW_LAYER_PROFILE_H_ */
