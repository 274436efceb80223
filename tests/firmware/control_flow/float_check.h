/* float_check.h: what cascade.c, streaming_gru.c and runtime_branch.c share: the reference
 * values (torch's, ONNX Runtime's), read from the bytes compiled into the image, and the
 * comparison of float outputs with them.
 *
 * The tolerance is the host tests' (tests/e2e/test_control_flow.cc): |got - want| <=
 * atol + rtol |want| for each value, by default rtol 1e-3, atol 1e-5 (torch's networks); a
 * program defines FLOAT_CHECK_RTOL and FLOAT_CHECK_ATOL before including this file for
 * another (runtime_branch.c: ONNX Runtime's models, 1e-4 and 1e-6). Bit equality with the
 * reference is not expected: newlib's expf and tanhf may differ from glibc's in the last
 * bits, the sums run in another order, and the compilers may fuse multiply-adds (vfma). A
 * NaN never passes: the outputs are filled with NaNs before each run, so an output the run
 * does not write fails. */
#ifndef AOTC_TESTS_FIRMWARE_CONTROL_FLOW_FLOAT_CHECK_H_
#define AOTC_TESTS_FIRMWARE_CONTROL_FLOW_FLOAT_CHECK_H_

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef FLOAT_CHECK_RTOL
#define FLOAT_CHECK_RTOL 1e-3f
#endif
#ifndef FLOAT_CHECK_ATOL
#define FLOAT_CHECK_ATOL 1e-5f
#endif

/* The functions are static inline: a program uses the ones it needs, without a warning for
 * the others. */

/* Copies a reference file's bytes (compiled in) into `values`; 0 if the sizes differ. */
static inline int load_floats(float* values, size_t count, const unsigned char* bytes, unsigned size) {
  if (size != count * sizeof(float)) {
    printf("reference data: %u bytes, expected %u\n", size, (unsigned)(count * sizeof(float)));
    return 0;
  }
  memcpy(values, bytes, size);
  return 1;
}

/* Fills `values` with NaNs (all bits set). */
static inline void poison_floats(float* values, size_t count) { memset(values, 0xFF, count * sizeof(float)); }

/* Prints `values` as " (a, b, ...)". */
static inline void print_floats(const float* values, size_t count) {
  size_t i;
  printf(" (");
  for (i = 0; i < count; ++i) printf("%s%.7g", i ? ", " : "", (double)values[i]);
  printf(")");
}

/* The largest |got - want| / (atol + rtol |want|) over the values, INFINITY if one of
 * `got` is a NaN (an output the run did not write), 0 for none; *worst is its index. */
static inline float largest_error_ratio(const float* got, const float* want, size_t count, size_t* worst) {
  float largest = 0.0f;
  size_t i;
  *worst = 0;
  for (i = 0; i < count; ++i) {
    float tolerance = FLOAT_CHECK_ATOL + FLOAT_CHECK_RTOL * fabsf(want[i]);
    float ratio = fabsf(got[i] - want[i]) / tolerance;
    if (ratio != ratio) ratio = INFINITY;
    if (ratio > largest) {
      largest = ratio;
      *worst = i;
    }
  }
  return largest;
}

/* 1 if every value of `got` is within the tolerance of `want`; else prints the one furthest
 * from it, after `what`, and returns 0. */
static inline int floats_close(const char* what, const float* got, const float* want, size_t count) {
  size_t i;
  if (largest_error_ratio(got, want, count, &i) <= 1.0f) return 1;
  printf("%s[%u] = %.9g, reference %.9g: MISMATCH\n", what, (unsigned)i, (double)got[i], (double)want[i]);
  return 0;
}

#endif /* AOTC_TESTS_FIRMWARE_CONTROL_FLOW_FLOAT_CHECK_H_ */
