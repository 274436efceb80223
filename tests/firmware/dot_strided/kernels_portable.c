/* kernels_portable.c: the plain-C build of aotc_dot_strided.h's kernels (see kernels.inc),
 * compiled with __ARM_FEATURE_DSP undefined, the loops aotc's interpreter runs. */
#define KERNEL(name) portable_##name
#include "kernels.inc"

#if defined(__ARM_FEATURE_DSP)
#error "kernels_portable.c must be compiled with -U__ARM_FEATURE_DSP"
#endif
