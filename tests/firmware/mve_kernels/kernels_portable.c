/* kernels_portable.c: the plain-C build of the runtime's kernels (see kernels.inc),
 * compiled with __ARM_FEATURE_MVE undefined, the loops aotc's interpreter runs. */
#define KERNEL(name) portable_##name
#include "kernels.inc"

#if AOTC_MVE || defined(AOTC_DOT_F32_MVE)
#error "kernels_portable.c must be compiled with -U__ARM_FEATURE_MVE"
#endif

/* TFLite's MultiplyByQuantizedMultiplier on four values; returns 1. */
int32_t portable_requantize4(const int32_t* acc, const int32_t* multiplier, const int32_t* left, const int32_t* right,
                             int32_t* out) {
  int32_t i;
  for (i = 0; i < 4; ++i) out[i] = aotc_mul_by_quantized_multiplier(acc[i], multiplier[i], (left ? left[i] : 0) + right[i]);
  return 1;
}
