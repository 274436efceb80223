/* A stand-in for Arm's Ethos-U core driver header (ethos-u-core-driver's ethosu_driver.h),
 * with the three functions aotc_ethosu.c calls, declared as the driver declares them. The
 * test links stand_in_driver.c, which records and checks each call, instead of the driver. */
#ifndef ETHOSU_DRIVER_H
#define ETHOSU_DRIVER_H

#include <stddef.h>
#include <stdint.h>

struct ethosu_driver;

struct ethosu_driver* ethosu_reserve_driver(void);
void ethosu_release_driver(struct ethosu_driver* drv);
int ethosu_invoke_v3(struct ethosu_driver* drv, const void* custom_data_ptr, const int custom_data_size,
                     uint64_t* const base_addr, const size_t* base_addr_size, const int num_base_addr, void* user_arg);

#endif
