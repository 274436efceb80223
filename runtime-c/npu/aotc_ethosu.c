/* aotc_ethosu.c: aotc_ethosu_invoke over Arm's Ethos-U core driver (see aotc_ethosu.h). */
#include "aotc_ethosu.h"

#include <ethosu_driver.h>

int32_t aotc_ethosu_invoke(const uint8_t* stream, uint32_t stream_size, const uint64_t* base_addresses,
                           const size_t* base_address_sizes, int32_t count) {
  /* Copies: some versions of the driver take the table as non-const. */
  uint64_t addresses[AOTC_ETHOSU_MAX_BASE_ADDRESSES];
  size_t sizes[AOTC_ETHOSU_MAX_BASE_ADDRESSES];
  struct ethosu_driver* driver;
  int result;
  int32_t i;
  if (stream == NULL || count < 0 || count > AOTC_ETHOSU_MAX_BASE_ADDRESSES) return -1;
  for (i = 0; i < count; ++i) {
    addresses[i] = base_addresses[i];
    sizes[i] = base_address_sizes[i];
  }
  driver = ethosu_reserve_driver();
  if (driver == NULL) return -1;
  result = ethosu_invoke_v3(driver, stream, (int)stream_size, addresses, sizes, (int)count, NULL);
  ethosu_release_driver(driver);
  return result == 0 ? 0 : -1;
}
