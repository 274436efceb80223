/* A stand-in for Arm's Ethos-U driver: records every call for the harness to check, writes
 * all of each scratch base address (every one but the first, Vela's weights, and the last
 * two, the model's input and output, in person_detect_vela's table) as a device would, and
 * fills the last one, the model's output, with STAND_IN_OUTPUT_BYTE. */
#include "stand_in_driver.h"

#include "ethosu_driver.h"

struct stand_in_record stand_in;

static int driver_object; /* what ethosu_reserve_driver hands out */

struct ethosu_driver* ethosu_reserve_driver(void) {
  ++stand_in.reserved;
  return (struct ethosu_driver*)(void*)&driver_object;
}

void ethosu_release_driver(struct ethosu_driver* drv) {
  if (drv == (struct ethosu_driver*)(void*)&driver_object) ++stand_in.released;
}

int ethosu_invoke_v3(struct ethosu_driver* drv, const void* custom_data_ptr, const int custom_data_size,
                     uint64_t* const base_addr, const size_t* base_addr_size, const int num_base_addr, void* user_arg) {
  volatile uint8_t here = 0;
  int i;
  (void)user_arg;
  ++stand_in.invoked;
  stand_in.reserved_while_invoking = drv == (struct ethosu_driver*)(void*)&driver_object && stand_in.reserved > stand_in.released;
  stand_in.stream = custom_data_ptr;
  stand_in.stream_size = custom_data_size;
  stand_in.count = num_base_addr;
  stand_in.invoke_stack = (uintptr_t)&here;
  if (num_base_addr < 0 || num_base_addr > STAND_IN_MAX_BASES) return -1;
  for (i = 0; i < num_base_addr; ++i) {
    stand_in.bases[i] = base_addr[i];
    stand_in.sizes[i] = base_addr_size[i];
  }
  for (i = 1; i + 2 < num_base_addr; ++i) {
    size_t k;
    uint8_t* p = (uint8_t*)(uintptr_t)base_addr[i];
    for (k = 0; k < base_addr_size[i]; ++k) p[k] = (uint8_t)(k * 7u);
  }
  if (num_base_addr > 0) {
    size_t k;
    uint8_t* out = (uint8_t*)(uintptr_t)base_addr[num_base_addr - 1];
    for (k = 0; k < base_addr_size[num_base_addr - 1]; ++k) out[k] = STAND_IN_OUTPUT_BYTE;
  }
  return here;
}
