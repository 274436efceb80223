/* kernels_mve.c: the Helium build of the runtime's kernels (see kernels.inc). */
#define KERNEL(name) mve_##name
#include "kernels.inc"

#if !AOTC_MVE || !defined(AOTC_DOT_F32_MVE)
#error "kernels_mve.c needs a Helium target with floating point (-mcpu=cortex-m55)"
#endif

/* aotc_mve_rescale on four values; returns 1. */
int32_t mve_requantize4(const int32_t* acc, const int32_t* multiplier, const int32_t* left, const int32_t* right,
                        int32_t* out) {
  vst1q_s32(out, aotc_mve_rescale(vld1q_s32(acc), vld1q_s32(multiplier), left != 0, left ? vld1q_s32(left) : vdupq_n_s32(0),
                                  vld1q_s32(right)));
  return 1;
}
