/* kernels_dsp.c: the DSP-extension build of aotc_dot_strided.h's kernels (see kernels.inc). */
#define KERNEL(name) dsp_##name
#include "kernels.inc"

#if !(defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP)
#error "kernels_dsp.c needs a target with the DSP extension (-mcpu=cortex-m4)"
#endif
