/* aotc_ethosu.h: how generated code runs a Vela command stream on Arm's Ethos-U NPU.
 *
 * A model compiled by Arm's Vela holds, for each part the NPU runs, a command stream and a
 * table of base addresses (the weights Vela packed, its scratch memory, the tensors the
 * part reads and writes). The kernel aotc generates for such a part calls
 * aotc_ethosu_invoke() with them; aotc_ethosu.c hands them to the Ethos-U core driver
 * (Arm's ethos-u-core-driver, `ethosu_driver.h`) as TensorFlow Lite Micro's ethos-u kernel
 * does: ethosu_reserve_driver(), ethosu_invoke_v3(), ethosu_release_driver(). Build
 * aotc_ethosu.c with the driver's include directory and link the driver; the application
 * initializes it once (ethosu_init) before the first run, as with TFLite Micro.
 *
 * Every base address is 16-byte aligned (the driver's requirement): the generated code
 * plans the scratch and tensors that way and checks the application's input and output
 * pointers. None is on the CPU stack.
 */
#ifndef AOTC_ETHOSU_H_
#define AOTC_ETHOSU_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most base addresses one stream may take (TFLite Micro's ethos-u kernel's limit). */
#define AOTC_ETHOSU_MAX_BASE_ADDRESSES 8

/* Runs `stream` (stream_size bytes) with `count` base addresses and their sizes in bytes.
 * Returns 0, or -1 when no driver could be reserved, the count is out of range, or the
 * driver failed the job (ethosu_invoke_v3 returned nonzero). */
int32_t aotc_ethosu_invoke(const uint8_t* stream, uint32_t stream_size, const uint64_t* base_addresses,
                           const size_t* base_address_sizes, int32_t count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AOTC_ETHOSU_H_ */
