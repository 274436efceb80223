/* kernels.h: the two builds of each integer kernel of aotc_dot_strided.h (kernels.inc). */
#ifndef DOT_STRIDED_KERNELS_H_
#define DOT_STRIDED_KERNELS_H_

#include <stdint.h>

#define DECLARE_KERNELS(prefix)                                                                                  \
  int32_t prefix##_s8_s8(const int8_t* a, int32_t a_stride, int32_t a_zero_point, const int8_t* b,              \
                         int32_t b_stride, int32_t b_zero_point, int32_t n, int32_t acc);                       \
  int32_t prefix##_u8_u8(const uint8_t* a, int32_t a_stride, int32_t a_zero_point, const uint8_t* b,            \
                         int32_t b_stride, int32_t b_zero_point, int32_t n, int32_t acc);                       \
  int32_t prefix##_u8_s8(const uint8_t* a, int32_t a_stride, int32_t a_zero_point, const int8_t* b,             \
                         int32_t b_stride, int32_t b_zero_point, int32_t n, int32_t acc);
DECLARE_KERNELS(dsp)
DECLARE_KERNELS(portable)

#endif /* DOT_STRIDED_KERNELS_H_ */
