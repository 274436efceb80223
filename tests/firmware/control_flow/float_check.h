/* float_check.h: what cascade.c and streaming_gru.c share: torch's reference values, read
 * from the bytes compiled into the image, and the comparison of float outputs with them.
 *
 * The tolerance is the host tests' (tests/e2e/test_control_flow.cc): |got - want| <=
 * 1e-5 + 1e-3 |want| for each value. Bit equality with torch is not expected: newlib's
 * expf and tanhf may differ from glibc's in the last bits, the sums run in another order
 * than torch's, and the compilers may fuse multiply-adds (vfma). A NaN never passes: the outputs are filled with NaNs before
 * each run, so an output the run does not write fails. */
#ifndef AOTC_TESTS_FIRMWARE_CONTROL_FLOW_FLOAT_CHECK_H_
#define AOTC_TESTS_FIRMWARE_CONTROL_FLOW_FLOAT_CHECK_H_

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FLOAT_CHECK_RTOL 1e-3f
#define FLOAT_CHECK_ATOL 1e-5f

/* Copies a reference file's bytes (compiled in) into `values`; 0 if the sizes differ. */
static int load_floats(float* values, size_t count, const unsigned char* bytes, unsigned size) {
  if (size != count * sizeof(float)) {
    printf("reference data: %u bytes, expected %u\n", size, (unsigned)(count * sizeof(float)));
    return 0;
  }
  memcpy(values, bytes, size);
  return 1;
}

/* Fills `values` with NaNs (all bits set). */
static void poison_floats(float* values, size_t count) { memset(values, 0xFF, count * sizeof(float)); }

/* Prints `values` as " (a, b, ...)". */
static void print_floats(const float* values, size_t count) {
  size_t i;
  printf(" (");
  for (i = 0; i < count; ++i) printf("%s%.7g", i ? ", " : "", (double)values[i]);
  printf(")");
}

/* 1 if every value of `got` is within the tolerance of `want`; else prints the first one
 * that is not, after `what`, and returns 0. */
static int floats_close(const char* what, const float* got, const float* want, size_t count) {
  size_t i;
  for (i = 0; i < count; ++i) {
    float tolerance = FLOAT_CHECK_ATOL + FLOAT_CHECK_RTOL * fabsf(want[i]);
    if (!(fabsf(got[i] - want[i]) <= tolerance)) {
      printf("%s[%u] = %.9g, torch %.9g: MISMATCH\n", what, (unsigned)i, (double)got[i], (double)want[i]);
      return 0;
    }
  }
  return 1;
}

#endif /* AOTC_TESTS_FIRMWARE_CONTROL_FLOW_FLOAT_CHECK_H_ */
