/* kernel_test_random.h: the random cases of the runtime-kernel test images
 * (tests/firmware/mve_kernels, tests/firmware/dot_strided): one xorshift32 generator with a
 * fixed seed, so that every run tests the same cases. Included once per image (main.c). */
#ifndef AOTC_KERNEL_TEST_RANDOM_H_
#define AOTC_KERNEL_TEST_RANDOM_H_

#include <stdint.h>

static uint32_t state = 2463534242u;

static uint32_t next(void) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

/* Uniform in [lo, hi]. */
static int32_t between(int32_t lo, int32_t hi) { return lo + (int32_t)(next() % (uint32_t)(hi - lo + 1)); }

#endif /* AOTC_KERNEL_TEST_RANDOM_H_ */
