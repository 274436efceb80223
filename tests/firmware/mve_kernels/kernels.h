/* kernels.h: the cases main.c draws and the two builds of each kernel (kernels.inc). */
#ifndef MVE_KERNELS_H_
#define MVE_KERNELS_H_

#include <stdint.h>

/* The requantization arguments the convolution kernels share. */
struct requant_case {
  const int32_t *bias, *multiplier, *left_shift, *right_shift;
  int32_t per_channel, output_zero_point, act_min, act_max;
};

struct conv_case {
  const int8_t* x;
  int32_t row_stride, rows, row_length;
  const int8_t* packed;
  int32_t out_channels;
  struct requant_case q;
};

struct depthwise_case {
  const int8_t* band;
  int32_t row_stride, channels, kernel_h, kernel_w, stride_x, out_width;
  const int8_t* w;
  struct requant_case q;
};

/* The float32 register blocks (runtime-c/aotc_dot_f32.h): four pixels `pixel_stride`
 * floats apart x four channels, one row x four units, one row x sixteen units (four blocks
 * `pixel_stride` floats apart), a depthwise window of four channels. */
struct dot_f32_case {
  const float *x, *w;
  int32_t pixel_stride, n;
};

struct dw_f32_case {
  const float *x, *w;
  int32_t channels, row_step, w_skip, rows, taps;
};

struct add_case {
  const int8_t *a, *b;
  int32_t n, a_offset, a_multiplier, a_shift, b_offset, b_multiplier, b_shift;
  int32_t output_multiplier, output_shift, output_zero_point, act_min, act_max;
};

#define DECLARE_KERNELS(prefix)                                                                                   \
  void prefix##_conv(const struct conv_case* c, int8_t* y);                                                       \
  void prefix##_depthwise(const struct depthwise_case* c, int8_t* y);                                             \
  void prefix##_add(const struct add_case* c, int8_t* y);                                                         \
  void prefix##_dot_f32_4x4(const struct dot_f32_case* c, float* acc);                                            \
  void prefix##_dot_f32_1x4(const struct dot_f32_case* c, float* acc);                                            \
  void prefix##_dot_f32_1x16(const struct dot_f32_case* c, float* acc);                                           \
  void prefix##_dw_f32_4ch(const struct dw_f32_case* c, float* acc);                                              \
  void prefix##_band_row(int8_t* dst, const int8_t* src, int32_t valid, int32_t width, int32_t pad_left,          \
                         int32_t pad_right, int32_t channels, int32_t zero_point);                                \
  void prefix##_gather(int8_t* dst, const int8_t* src, int32_t row_stride, int32_t rows, int32_t run);           \
  int32_t prefix##_requantize4(const int32_t* acc, const int32_t* multiplier, const int32_t* left,                \
                               const int32_t* right, int32_t* out);
DECLARE_KERNELS(mve)
DECLARE_KERNELS(portable)

#endif /* MVE_KERNELS_H_ */
