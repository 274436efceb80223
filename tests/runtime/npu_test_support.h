/* npu_test_support.h: what the reference-NPU driver's tests share (test_npu_ref.c and
 * test_npu_ref_faults.c): exactly sized regions, a deterministic random source, and the
 * check that a rejected job wrote nothing. Plain C99 that is also valid C++. */
#ifndef AOTC_TESTS_RUNTIME_NPU_TEST_SUPPORT_H_
#define AOTC_TESTS_RUNTIME_NPU_TEST_SUPPORT_H_

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aotc_npu.h"
#include "aotc_npu_ref.h"
#include "check.h"
#include "npu_stream_builder.h"

#define NPU_TEST_MAX_ALLOCATIONS 64
#define NPU_TEST_CANARY 0x5A

/* Regions come from malloc, each exactly its size, so that AddressSanitizer reports any
 * access past a region's end. (glibc's malloc aligns to 16 on 64-bit hosts; where it
 * does not, npu_test_alloc aligns within a larger block.) Freed by npu_test_free_all. */
extern void* npu_test_allocations[NPU_TEST_MAX_ALLOCATIONS];
extern int npu_test_allocation_count;

static inline uint8_t* npu_test_alloc(size_t size) {
  uint8_t* p = (uint8_t*)malloc(size == 0 ? 1 : size);
  if (p == NULL || npu_test_allocation_count == NPU_TEST_MAX_ALLOCATIONS) abort();
  if ((uintptr_t)p % AOTC_NPU_REF_ALIGNMENT != 0) {
    free(p);
    p = (uint8_t*)malloc(size + AOTC_NPU_REF_ALIGNMENT);
    if (p == NULL) abort();
    npu_test_allocations[npu_test_allocation_count++] = p;
    return p + (AOTC_NPU_REF_ALIGNMENT - (uintptr_t)p % AOTC_NPU_REF_ALIGNMENT) % AOTC_NPU_REF_ALIGNMENT;
  }
  npu_test_allocations[npu_test_allocation_count++] = p;
  return p;
}

static inline void npu_test_free_all(void) {
  while (npu_test_allocation_count > 0) free(npu_test_allocations[--npu_test_allocation_count]);
}

static inline aotc_npu_region npu_region(void* base, uint32_t size, uint32_t flags) {
  aotc_npu_region r;
  r.base = base;
  r.size = size;
  r.flags = flags;
  return r;
}

/* xorshift32: the same values on every host. */
extern uint32_t npu_test_rng_state;
static inline uint32_t npu_rng(void) {
  uint32_t x = npu_test_rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  npu_test_rng_state = x;
  return x;
}
static inline int32_t npu_rng_range(int32_t lo, int32_t hi) {
  return (int32_t)((int64_t)lo + (int64_t)(npu_rng() % (uint32_t)((int64_t)hi - lo + 1)));
}
static inline void npu_fill_random(int8_t* p, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i) p[i] = (int8_t)npu_rng_range(-128, 127);
}

/* Every writable region filled with the canary; read-only ones keep their contents, and
 * so do regions with a null base (of a fault test). */
static inline void npu_fill_canaries(const aotc_npu_region* regions, uint32_t count) {
  uint32_t i;
  for (i = 0; i < count; ++i) {
    if (regions[i].base != NULL && !(regions[i].flags & AOTC_NPU_REGION_READ_ONLY)) {
      memset(regions[i].base, NPU_TEST_CANARY, regions[i].size);
    }
  }
}

/* How many bytes of the writable regions differ from the canary. */
static inline size_t npu_canaries_changed(const aotc_npu_region* regions, uint32_t count) {
  size_t changed = 0, j;
  uint32_t i;
  for (i = 0; i < count; ++i) {
    if (regions[i].base == NULL || (regions[i].flags & AOTC_NPU_REGION_READ_ONLY)) continue;
    for (j = 0; j < regions[i].size; ++j) changed += ((const uint8_t*)regions[i].base)[j] != NPU_TEST_CANARY;
  }
  return changed;
}

/* Runs the test's stream; expects `expected`, and from a rejected job no byte written. */
#define CHECK_JOB(expected, stream, stream_size, regions, count)                                      \
  do {                                                                                                \
    npu_fill_canaries((regions), (count));                                                            \
    CHECK_EQ_INT((expected), aotc_npu_ref_validate((stream), (stream_size), (regions), (count)));     \
    CHECK_EQ_INT((expected), aotc_npu_ref_execute((stream), (stream_size), (regions), (count)));      \
    if ((expected) != AOTC_NPU_REF_OK) CHECK_EQ_INT(0, npu_canaries_changed((regions), (count)));     \
  } while (0)

/* test_npu_ref_faults.c */
void npu_fault_tests(void);

#endif /* AOTC_TESTS_RUNTIME_NPU_TEST_SUPPORT_H_ */
