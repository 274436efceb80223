/* Tests of the reference NPU's driver (runtime-c/npu/aotc_npu_ref.c): every opcode on small
 * random int8 tensors, compared element by element with an oracle written here from
 * TensorFlow Lite's reference kernels (reference_integer_ops::ConvPerChannel,
 * DepthwiseConvPerChannel, FullyConnected, AveragePool, MaxPool, integer_ops Add and Mul),
 * in TFLite's own tensor layouts; the tests pack the filters into the stream's channel
 * records as a compiler would. Then streams of several commands through a scratch
 * region, and ADD and MUL in place. The _EVEN opcodes (ONNX's rounding, format 1.1) on
 * fixed cases whose outputs make_npu_even_cases.py computed from the header's definition
 * (npu_even_cases.h), and on exact ties worked out by hand. Validation, counters and the
 * driver interface: test_npu_ref_faults.c. Prints "N passed, N failed" (check.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_even_cases.h"
#include "npu_test_support.h"

CHECK_DEFINE_COUNTERS;
void* npu_test_allocations[NPU_TEST_MAX_ALLOCATIONS];
int npu_test_allocation_count = 0;
uint32_t npu_test_rng_state = 0x9E3779B9u;

/* ---- The oracle ----------------------------------------------------------------------- */

/* gemmlowp's SaturatingRoundingDoublingHighMul. */
static int32_t ref_high_mul(int32_t a, int32_t b) {
  int64_t ab = (int64_t)a * b;
  int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* gemmlowp's RoundingDivideByPOT: x / 2^e to nearest, ties away from zero. */
static int32_t ref_rounding_shift(int32_t x, int e) {
  int64_t magnitude = x < 0 ? -(int64_t)x : x;
  int64_t q = (magnitude + (e > 0 ? (int64_t)1 << (e - 1) : 0)) >> e;
  return (int32_t)(x < 0 ? -q : q);
}

/* int32 two's complement of v's low 32 bits: TFLite's int32 arithmetic, wrapped. */
static int32_t wrap32(int64_t v) {
  uint32_t u = (uint32_t)(uint64_t)v;
  return u <= 0x7FFFFFFFu ? (int32_t)u : (int32_t)(u - 0x80000000u) + INT32_MIN;
}

/* TFLite's MultiplyByQuantizedMultiplier (its x * (1 << left_shift) wrapped). */
static int32_t ref_requantize(int32_t x, int32_t multiplier, int32_t shift) {
  int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return ref_rounding_shift(ref_high_mul(wrap32((int64_t)x * ((int64_t)1 << left)), multiplier), right);
}

static int8_t ref_clamp(int64_t v, int32_t act_min, int32_t act_max) {
  return (int8_t)(v < act_min ? act_min : v > act_max ? act_max : v);
}

/* A layer's per-channel quantization, in TFLite's arrays. */
typedef struct channel_params {
  const int32_t* bias;
  const int32_t* multiplier;
  const int32_t* shift;
} channel_params;

static int8_t ref_conv_output(const npu_layer* l, const channel_params* p, uint32_t oc, int64_t acc) {
  acc += p->bias[oc];
  return ref_clamp((int64_t)ref_requantize(wrap32(acc), p->multiplier[oc], p->shift[oc]) + l->output_offset,
                   l->act_min, l->act_max);
}

static int inside(int32_t y, int32_t x, const npu_layer* l) {
  return y >= 0 && y < (int32_t)l->h && x >= 0 && x < (int32_t)l->w;
}

static size_t nhwc(const npu_layer* l, uint32_t b, int32_t y, int32_t x, uint32_t c) {
  return (((size_t)b * l->h + (size_t)y) * l->w + (size_t)x) * l->c + c;
}

/* The input position of filter tap (fy, fx) at output (oy, ox); 0 where it is padding. */
static int tap(const npu_layer* l, uint32_t oy, uint32_t ox, uint32_t fy, uint32_t fx, int32_t* in_y, int32_t* in_x) {
  *in_y = (int32_t)(oy * l->sh) - (int32_t)l->pad_top + (int32_t)(l->dh * fy);
  *in_x = (int32_t)(ox * l->sw) - (int32_t)l->pad_left + (int32_t)(l->dw * fx);
  return inside(*in_y, *in_x, l);
}

/* ConvPerChannel; filter [OC][KH][KW][C]. */
static void ref_conv(const npu_layer* l, const int8_t* input, const int8_t* filter, const channel_params* p,
                     int8_t* output) {
  uint32_t b, oy, ox, oc, fy, fx, ic;
  for (b = 0; b < l->n; ++b)
    for (oy = 0; oy < l->oh; ++oy)
      for (ox = 0; ox < l->ow; ++ox)
        for (oc = 0; oc < l->oc; ++oc) {
          int64_t acc = 0;
          for (fy = 0; fy < l->kh; ++fy)
            for (fx = 0; fx < l->kw; ++fx) {
              int32_t in_y, in_x;
              if (!tap(l, oy, ox, fy, fx, &in_y, &in_x)) continue;
              for (ic = 0; ic < l->c; ++ic) {
                int32_t filter_val = filter[((oc * l->kh + fy) * l->kw + fx) * l->c + ic];
                acc += filter_val * (input[nhwc(l, b, in_y, in_x, ic)] + l->input_offset);
              }
            }
          output[((b * l->oh + oy) * l->ow + ox) * l->oc + oc] = ref_conv_output(l, p, oc, acc);
        }
}

/* DepthwiseConvPerChannel; filter [1][KH][KW][OC], output channel ic * M + m. */
static void ref_depthwise(const npu_layer* l, const int8_t* input, const int8_t* filter, const channel_params* p,
                          int8_t* output) {
  const uint32_t depth_multiplier = l->oc / l->c;
  uint32_t b, oy, ox, ic, m, fy, fx;
  for (b = 0; b < l->n; ++b)
    for (oy = 0; oy < l->oh; ++oy)
      for (ox = 0; ox < l->ow; ++ox)
        for (ic = 0; ic < l->c; ++ic)
          for (m = 0; m < depth_multiplier; ++m) {
            const uint32_t oc = m + ic * depth_multiplier;
            int64_t acc = 0;
            for (fy = 0; fy < l->kh; ++fy)
              for (fx = 0; fx < l->kw; ++fx) {
                int32_t in_y, in_x;
                if (!tap(l, oy, ox, fy, fx, &in_y, &in_x)) continue;
                acc += filter[(fy * l->kw + fx) * l->oc + oc] * (input[nhwc(l, b, in_y, in_x, ic)] + l->input_offset);
              }
            output[((b * l->oh + oy) * l->ow + ox) * l->oc + oc] = ref_conv_output(l, p, oc, acc);
          }
}

/* FullyConnected (per channel); filter [units][in_features]. */
static void ref_fully_connected(const npu_layer* l, const int8_t* input, const int8_t* filter,
                                const channel_params* p, int8_t* output) {
  uint32_t b, u, d;
  for (b = 0; b < l->n; ++b)
    for (u = 0; u < l->oc; ++u) {
      int64_t acc = 0;
      for (d = 0; d < l->c; ++d) acc += filter[u * l->c + d] * (input[b * l->c + d] + l->input_offset);
      output[u + l->oc * b] = ref_conv_output(l, p, u, acc);
    }
}

/* AveragePool and MaxPool (int8): the window clipped to the input. */
static void ref_pool(const npu_layer* l, const int8_t* input, int8_t* output) {
  uint32_t b, oy, ox, c;
  int32_t fy, fx;
  for (b = 0; b < l->n; ++b)
    for (oy = 0; oy < l->oh; ++oy)
      for (ox = 0; ox < l->ow; ++ox)
        for (c = 0; c < l->c; ++c) {
          const int32_t in_x_origin = (int32_t)(ox * l->sw) - (int32_t)l->pad_left;
          const int32_t in_y_origin = (int32_t)(oy * l->sh) - (int32_t)l->pad_top;
          const int32_t fx_start = in_x_origin < 0 ? -in_x_origin : 0;
          const int32_t fx_end = (int32_t)l->kw < (int32_t)l->w - in_x_origin ? (int32_t)l->kw : (int32_t)l->w - in_x_origin;
          const int32_t fy_start = in_y_origin < 0 ? -in_y_origin : 0;
          const int32_t fy_end = (int32_t)l->kh < (int32_t)l->h - in_y_origin ? (int32_t)l->kh : (int32_t)l->h - in_y_origin;
          int32_t acc = 0, max = -128, count = 0, average;
          for (fy = fy_start; fy < fy_end; ++fy)
            for (fx = fx_start; fx < fx_end; ++fx) {
              int32_t v = input[nhwc(l, b, in_y_origin + fy, in_x_origin + fx, c)];
              acc += v;
              max = v > max ? v : max;
              ++count;
            }
          average = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
          output[((b * l->oh + oy) * l->ow + ox) * l->c + c] =
              ref_clamp(l->opcode == AOTC_NPU_REF_OP_MAX_POOL ? max : average, l->act_min, l->act_max);
        }
}

/* integer_ops AddElementwise and MulElementwise. */
static void ref_elementwise(const npu_elementwise* e, const int8_t* in1, const int8_t* in2, int8_t* output) {
  uint32_t i;
  for (i = 0; i < e->count; ++i) {
    const int32_t input1_val = e->input1_offset + in1[i];
    const int32_t input2_val = e->input2_offset + in2[i];
    int32_t raw;
    if (e->opcode == AOTC_NPU_REF_OP_MUL) {
      raw = ref_requantize(input1_val * input2_val, e->output_multiplier, e->output_shift);
    } else {
      const int32_t shifted1 = input1_val * (1 << e->left_shift);
      const int32_t shifted2 = input2_val * (1 << e->left_shift);
      const int32_t scaled1 = ref_requantize(shifted1, e->input1_multiplier, e->input1_shift);
      const int32_t scaled2 = ref_requantize(shifted2, e->input2_multiplier, e->input2_shift);
      raw = ref_requantize(wrap32((int64_t)scaled1 + scaled2), e->output_multiplier, e->output_shift);
    }
    output[i] = ref_clamp((int64_t)raw + e->output_offset, e->act_min, e->act_max);
  }
}

/* ---- Building layers -------------------------------------------------------------------- */

/* A layer whose output size follows from padding pad_top/pad_left before and
 * pad_bottom/pad_right after the input; oc is the output channels (depthwise: C * M;
 * pooling: C). */
static npu_layer make_layer(uint32_t opcode, uint32_t n, uint32_t h, uint32_t w, uint32_t c, uint32_t oc, uint32_t kh,
                            uint32_t kw, uint32_t sh, uint32_t sw, uint32_t dh, uint32_t dw, const uint32_t* pads) {
  npu_layer l;
  memset(&l, 0, sizeof l);
  l.opcode = opcode;
  l.n = n, l.h = h, l.w = w, l.c = c, l.oc = oc;
  l.kh = kh, l.kw = kw, l.sh = sh, l.sw = sw, l.dh = dh, l.dw = dw;
  l.pad_top = pads[0], l.pad_left = pads[1];
  l.oh = (h + pads[0] + pads[2] - ((kh - 1) * dh + 1)) / sh + 1;
  l.ow = (w + pads[1] + pads[3] - ((kw - 1) * dw + 1)) / sw + 1;
  l.act_min = -128, l.act_max = 127;
  return l;
}

static npu_layer make_fully_connected(uint32_t batches, uint32_t in_features, uint32_t units) {
  uint32_t no_pads[4] = {0, 0, 0, 0};
  return make_layer(AOTC_NPU_REF_OP_FULLY_CONNECTED, batches, 1, 1, in_features, units, 1, 1, 1, 1, 1, 1, no_pads);
}

static void random_activation(int32_t* act_min, int32_t* act_max) {
  if (npu_rng() % 2 == 0) {
    *act_min = -128, *act_max = 127;
  } else {
    *act_min = npu_rng_range(-128, 0);
    *act_max = npu_rng_range(*act_min, 127);
  }
}

/* Requantization that maps a sum of `taps` products onto roughly the int8 range. */
static void random_requantization(uint32_t taps, int32_t* multiplier, int32_t* shift) {
  int32_t bits = 14;
  while (taps > 1) taps /= 4, ++bits;
  *multiplier = npu_rng_range(1 << 30, INT32_MAX);
  *shift = 7 - bits + npu_rng_range(-1, 1);
}

/* The extremes of the ranges the validator accepts, one set a channel in turn: the
 * largest shifts both ways, multipliers 0 and INT32_MAX, biases that wrap the sum. */
static const int32_t kExtremeChannels[][3] = {
    {INT32_MAX, INT32_MAX, 31}, {INT32_MIN, 0, -31},       {INT32_MAX - 5, 1 << 30, 0}, {0, INT32_MAX, -31},
    {-5000, 1, 31},             {123, INT32_MAX, 30},      {INT32_MIN + 7, INT32_MAX, 1}, {77, 1 << 30, -1}};

#define MAX_CHANNELS 64
#define EXTREMES (sizeof(kExtremeChannels) / sizeof(kExtremeChannels[0]))

static void compare(const int8_t* expected, const int8_t* actual, size_t n, const char* what) {
  size_t i, bad = 0, first = 0;
  for (i = 0; i < n; ++i) {
    if (expected[i] != actual[i] && bad++ == 0) first = i;
  }
  if (bad != 0) {
    printf("%s: %lu of %lu bytes differ, the first at %lu (expected %d, got %d)\n", what, (unsigned long)bad,
           (unsigned long)n, (unsigned long)first, expected[first], actual[first]);
  }
  CHECK_EQ_INT(0, bad);
}

/* A layer's filter (TFLite's layout) and per-channel quantization. */
typedef struct layer_data {
  int8_t filter[4096];
  int32_t bias[MAX_CHANNELS], multiplier[MAX_CHANNELS], shift[MAX_CHANNELS];
} layer_data;

/* Random offsets, clamp, filter and per-channel parameters (or the extremes). */
static void random_layer(npu_layer* l, layer_data* d, int extremes) {
  const uint32_t taps = npu_layer_taps(l);
  uint32_t oc;
  if (l->oc > MAX_CHANNELS || (size_t)taps * l->oc > sizeof d->filter) abort();
  l->input_offset = npu_rng_range(-AOTC_NPU_REF_MAX_OFFSET, AOTC_NPU_REF_MAX_OFFSET);
  l->output_offset = npu_rng_range(-AOTC_NPU_REF_MAX_OFFSET, AOTC_NPU_REF_MAX_OFFSET);
  random_activation(&l->act_min, &l->act_max);
  npu_fill_random(d->filter, (size_t)taps * l->oc);
  for (oc = 0; oc < l->oc; ++oc) {
    d->bias[oc] = npu_rng_range(-20000, 20000);
    random_requantization(taps, &d->multiplier[oc], &d->shift[oc]);
    if (extremes) {
      d->bias[oc] = kExtremeChannels[oc % EXTREMES][0];
      d->multiplier[oc] = kExtremeChannels[oc % EXTREMES][1];
      d->shift[oc] = kExtremeChannels[oc % EXTREMES][2];
    }
  }
}

/* Packs the layer's channel records at `at`, as a compiler would; returns their bytes. */
static uint32_t pack_layer(const npu_layer* l, const layer_data* d, uint8_t* at) {
  const uint32_t taps = npu_layer_taps(l);
  const int depthwise = l->opcode == AOTC_NPU_REF_OP_DEPTHWISE_CONV2D;
  uint32_t oc, t, bytes = 0;
  for (oc = 0; oc < l->oc; ++oc) {
    int8_t weights[4096];
    for (t = 0; t < taps; ++t) weights[t] = depthwise ? d->filter[t * l->oc + oc] : d->filter[oc * taps + t];
    bytes += npu_write_record(at + bytes, d->bias[oc], d->multiplier[oc], d->shift[oc], weights, taps);
  }
  return bytes;
}

static void ref_layer(const npu_layer* l, const layer_data* d, const int8_t* input, int8_t* output) {
  channel_params p;
  p.bias = d->bias, p.multiplier = d->multiplier, p.shift = d->shift;
  if (l->opcode == AOTC_NPU_REF_OP_CONV2D) ref_conv(l, input, d->filter, &p, output);
  if (l->opcode == AOTC_NPU_REF_OP_DEPTHWISE_CONV2D) ref_depthwise(l, input, d->filter, &p, output);
  if (l->opcode == AOTC_NPU_REF_OP_FULLY_CONNECTED) ref_fully_connected(l, input, d->filter, &p, output);
  if (l->opcode == AOTC_NPU_REF_OP_AVG_POOL || l->opcode == AOTC_NPU_REF_OP_MAX_POOL) ref_pool(l, input, output);
}

static uint32_t input_bytes(const npu_layer* l) {
  return l->n * l->h * l->w * l->c;
}

static uint32_t output_bytes(const npu_layer* l) {
  return l->n * l->oh * l->ow * l->oc;
}

/* Runs one layer on random data: input, parameters and output each in a region of its
 * own, exactly sized, at byte offset `offset` (0, or odd to show that operands need no
 * alignment inside their region). */
static void run_layer(npu_layer l, int extremes, uint32_t offset, const char* what) {
  static layer_data d;
  const int has_params = l.opcode <= AOTC_NPU_REF_OP_FULLY_CONNECTED;
  const uint32_t in_bytes = input_bytes(&l), out_bytes = output_bytes(&l);
  const uint32_t params_bytes = has_params ? l.oc * npu_record_bytes(npu_layer_taps(&l)) : 1u;
  int8_t* input = (int8_t*)npu_test_alloc(offset + in_bytes);
  int8_t* output = (int8_t*)npu_test_alloc(offset + out_bytes);
  int8_t* expected = (int8_t*)npu_test_alloc(out_bytes);
  uint8_t* params = npu_test_alloc(offset + params_bytes);
  aotc_npu_region regions[3];
  npu_stream s;
  npu_fill_random(input + offset, in_bytes);
  random_layer(&l, &d, extremes);
  if (has_params) pack_layer(&l, &d, params + offset);
  l.input.region = 1, l.input.offset = offset;
  l.output.region = 2, l.output.offset = offset;
  l.params.region = 0, l.params.offset = offset;
  regions[0] = npu_region(params, offset + params_bytes, AOTC_NPU_REGION_READ_ONLY);
  regions[1] = npu_region(input, offset + in_bytes, AOTC_NPU_REGION_READ_ONLY);
  regions[2] = npu_region(output, offset + out_bytes, 0);
  npu_stream_begin(&s, 3);
  npu_add_layer(&s, &l);
  ref_layer(&l, &d, input + offset, expected);
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_execute(s.bytes, s.size, regions, 3));
  compare(expected, output + offset, out_bytes, what);
  npu_test_free_all();
}

/* ---- Per opcode ------------------------------------------------------------------------- */

/* n, h, w, c, oc (depthwise: the multiplier), kh, kw, sh, sw, dh, dw, then the paddings
 * top, left, bottom, right. */
static const uint32_t kConvCases[][15] = {
    {1, 5, 5, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},  /* "same" */
    {2, 7, 6, 2, 3, 3, 2, 2, 2, 1, 1, 0, 0, 0, 0},  /* batches, stride 2, "valid" */
    {1, 8, 8, 4, 5, 3, 3, 1, 2, 2, 2, 2, 1, 2, 3},  /* dilation, asymmetric padding */
    {1, 1, 1, 7, 6, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},  /* 1x1, 7 taps padded to 8 */
    {1, 4, 4, 1, 2, 5, 5, 1, 1, 1, 1, 4, 4, 4, 4},  /* windows wholly in the padding */
    {1, 6, 5, 5, 3, 2, 3, 3, 1, 1, 2, 1, 0, 2, 2},  /* mixed strides and dilations */
    {3, 3, 4, 2, 9, 2, 2, 1, 1, 1, 1, 0, 1, 1, 0},  /* more channels out than in */
};
static const uint32_t kDepthwiseCases[][15] = {
    {1, 5, 5, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
    {1, 6, 6, 2, 3, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0},
    {2, 7, 5, 4, 2, 2, 2, 1, 1, 2, 3, 0, 2, 1, 2},
    {1, 3, 3, 1, 4, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},
    {1, 9, 4, 3, 2, 3, 1, 2, 1, 3, 1, 3, 0, 3, 0},
};
/* n, h, w, c, kh, kw, sh, sw, then the paddings (each below the kernel). */
static const uint32_t kPoolCases[][12] = {
    {1, 6, 6, 3, 2, 2, 2, 2, 0, 0, 0, 0}, {2, 5, 7, 2, 3, 3, 1, 1, 1, 1, 1, 1}, {1, 7, 7, 4, 3, 2, 2, 3, 2, 1, 2, 1},
    {1, 4, 4, 1, 4, 4, 1, 1, 0, 0, 0, 0}, {1, 9, 9, 2, 5, 5, 3, 3, 4, 4, 4, 4}, {3, 2, 3, 5, 2, 3, 1, 2, 1, 2, 0, 1},
};

static void test_conv_like(uint32_t opcode, const uint32_t cases[][15], size_t count) {
  size_t i;
  int extremes;
  for (extremes = 0; extremes <= 1; ++extremes) {
    for (i = 0; i < count; ++i) {
      const uint32_t* k = cases[i];
      uint32_t oc = opcode == AOTC_NPU_REF_OP_DEPTHWISE_CONV2D ? k[3] * k[4] : k[4];
      char what[64];
      snprintf(what, sizeof what, "opcode %u case %u%s", (unsigned)opcode, (unsigned)i, extremes ? " (extremes)" : "");
      run_layer(make_layer(opcode, k[0], k[1], k[2], k[3], oc, k[5], k[6], k[7], k[8], k[9], k[10],
                           k + 11),
                extremes, (uint32_t)(i % 2) * 3u, what);
    }
  }
}

static void test_conv2d(void) {
  test_conv_like(AOTC_NPU_REF_OP_CONV2D, kConvCases, sizeof(kConvCases) / sizeof(kConvCases[0]));
}

static void test_depthwise_conv2d(void) {
  test_conv_like(AOTC_NPU_REF_OP_DEPTHWISE_CONV2D, kDepthwiseCases, sizeof(kDepthwiseCases) / sizeof(kDepthwiseCases[0]));
}

static void test_fully_connected(void) {
  static const uint32_t cases[][3] = {{1, 7, 3}, {3, 16, 5}, {2, 1, 1}, {1, 33, 10}, {4, 64, 8}};
  size_t i;
  int extremes;
  for (extremes = 0; extremes <= 1; ++extremes) {
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
      char what[64];
      snprintf(what, sizeof what, "fully connected case %u%s", (unsigned)i, extremes ? " (extremes)" : "");
      run_layer(make_fully_connected(cases[i][0], cases[i][1], cases[i][2]), extremes, (uint32_t)(i % 2), what);
    }
  }
}

static void test_pool(uint32_t opcode) {
  size_t i;
  for (i = 0; i < sizeof(kPoolCases) / sizeof(kPoolCases[0]); ++i) {
    const uint32_t* k = kPoolCases[i];
    char what[64];
    snprintf(what, sizeof what, "pool opcode %u case %u", (unsigned)opcode, (unsigned)i);
    run_layer(make_layer(opcode, k[0], k[1], k[2], k[3], k[3], k[4], k[5], k[6], k[7], 1, 1, k + 8), 0,
              (uint32_t)(i % 2) * 5u, what);
  }
}

static void test_avg_pool(void) {
  test_pool(AOTC_NPU_REF_OP_AVG_POOL);
}

static void test_max_pool(void) {
  test_pool(AOTC_NPU_REF_OP_MAX_POOL);
}

/* Realistic TFLite parameters (ADD: left shift 20, input scales below one, the output
 * rescaled by about 2^-20), or the extremes of every range. */
static npu_elementwise make_elementwise(uint32_t opcode, uint32_t count, int extremes) {
  npu_elementwise e;
  memset(&e, 0, sizeof e);
  e.opcode = opcode;
  e.count = count;
  e.input1_offset = npu_rng_range(-AOTC_NPU_REF_MAX_OFFSET, AOTC_NPU_REF_MAX_OFFSET);
  e.input2_offset = npu_rng_range(-AOTC_NPU_REF_MAX_OFFSET, AOTC_NPU_REF_MAX_OFFSET);
  e.output_offset = npu_rng_range(-AOTC_NPU_REF_MAX_OFFSET, AOTC_NPU_REF_MAX_OFFSET);
  random_activation(&e.act_min, &e.act_max);
  e.input1_multiplier = npu_rng_range(1 << 30, INT32_MAX);
  e.input2_multiplier = npu_rng_range(1 << 30, INT32_MAX);
  e.output_multiplier = npu_rng_range(1 << 30, INT32_MAX);
  if (opcode == AOTC_NPU_REF_OP_ADD) {
    e.left_shift = 20;
    e.input1_shift = npu_rng_range(-3, 0);
    e.input2_shift = npu_rng_range(-3, 0);
    e.output_shift = npu_rng_range(-21, -17);
  } else {
    e.output_shift = npu_rng_range(-11, -7);
  }
  if (extremes) {
    e.input1_offset = AOTC_NPU_REF_MAX_OFFSET, e.input2_offset = -AOTC_NPU_REF_MAX_OFFSET;
    e.left_shift = AOTC_NPU_REF_MAX_LEFT_SHIFT;
    e.input1_shift = AOTC_NPU_REF_MAX_SHIFT, e.input2_shift = -AOTC_NPU_REF_MAX_SHIFT; /* wraps, then 0 */
    e.input2_multiplier = INT32_MAX;
    e.output_shift = npu_rng() % 2 ? AOTC_NPU_REF_MAX_SHIFT : -AOTC_NPU_REF_MAX_SHIFT;
    e.output_multiplier = npu_rng() % 2 ? INT32_MAX : 0;
  }
  return e;
}

/* ADD or MUL over three regions (in place: the output is input 1, or input 2). */
static void run_elementwise(npu_elementwise e, int in_place, const char* what) {
  int8_t* in1 = (int8_t*)npu_test_alloc(e.count);
  int8_t* in2 = (int8_t*)npu_test_alloc(e.count);
  int8_t* out = (int8_t*)npu_test_alloc(e.count);
  int8_t* expected = (int8_t*)npu_test_alloc(e.count);
  aotc_npu_region regions[3];
  npu_stream s;
  npu_fill_random(in1, e.count);
  npu_fill_random(in2, e.count);
  regions[0] = npu_region(in1, e.count, 0);
  regions[1] = npu_region(in2, e.count, 0);
  regions[2] = npu_region(out, e.count, 0);
  e.input1.region = 0, e.input2.region = 1, e.output.region = in_place == 1 ? 0 : in_place == 2 ? 1 : 2;
  ref_elementwise(&e, in1, in2, expected);
  npu_stream_begin(&s, 3);
  npu_add_elementwise(&s, &e);
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_execute(s.bytes, s.size, regions, 3));
  compare(expected, (const int8_t*)regions[e.output.region].base, e.count, what);
  npu_test_free_all();
}

static void test_elementwise(uint32_t opcode) {
  static const uint32_t counts[] = {1, 7, 64, 300, 1000};
  size_t i;
  int extremes, in_place;
  for (extremes = 0; extremes <= 1; ++extremes) {
    for (i = 0; i < sizeof(counts) / sizeof(counts[0]); ++i) {
      char what[64];
      snprintf(what, sizeof what, "opcode %u count %u%s", (unsigned)opcode, (unsigned)counts[i], extremes ? " (extremes)" : "");
      run_elementwise(make_elementwise(opcode, counts[i], extremes), 0, what);
    }
  }
  /* Writing exactly over either input is allowed: element i is read before it is written. */
  for (in_place = 1; in_place <= 2; ++in_place) {
    char what[64];
    snprintf(what, sizeof what, "opcode %u in place over input %d", (unsigned)opcode, in_place);
    run_elementwise(make_elementwise(opcode, 257, 0), in_place, what);
  }
}

static void test_add(void) {
  test_elementwise(AOTC_NPU_REF_OP_ADD);
}

static void test_mul(void) {
  test_elementwise(AOTC_NPU_REF_OP_MUL);
}

/* Every opcode in one stream, each command reading what the one before wrote into a
 * scratch region (and the pools overwriting what is no longer needed there):
 *   input [1,8,8,3] -conv 3x3-> scratch@0 [1,8,8,4] -depthwise 3x3 /2, M=2-> scratch@256
 *   [1,4,4,8] -avg 2x2 /2-> scratch@0 [1,2,2,8] -max 2x2-> scratch@384 [1,1,1,8] -fc->
 *   scratch@448 [1,6] -add a constant, in place-> scratch@448 -mul by itself-> output.
 * The oracle runs the same chain on separate buffers. */
static void test_multi_command(void) {
  static layer_data d[4];
  const uint32_t same[4] = {1, 1, 1, 1}, half[4] = {1, 1, 0, 0}, none[4] = {0, 0, 0, 0};
  npu_layer l[5];
  npu_elementwise add = make_elementwise(AOTC_NPU_REF_OP_ADD, 6, 0), mul = make_elementwise(AOTC_NPU_REF_OP_MUL, 6, 0);
  uint8_t* params = npu_test_alloc(2048);
  int8_t* input = (int8_t*)npu_test_alloc(192);
  int8_t* scratch = (int8_t*)npu_test_alloc(512);
  int8_t* output = (int8_t*)npu_test_alloc(6);
  int8_t e1[256], e2[128], e3[32], e4[8], e5[6], e6[6], e7[6];
  const int8_t* constant;
  aotc_npu_region regions[4];
  uint32_t at = 0, i;
  npu_stream s;
  l[0] = make_layer(AOTC_NPU_REF_OP_CONV2D, 1, 8, 8, 3, 4, 3, 3, 1, 1, 1, 1, same);
  l[1] = make_layer(AOTC_NPU_REF_OP_DEPTHWISE_CONV2D, 1, 8, 8, 4, 8, 3, 3, 2, 2, 1, 1, half);
  l[2] = make_layer(AOTC_NPU_REF_OP_AVG_POOL, 1, 4, 4, 8, 8, 2, 2, 2, 2, 1, 1, none);
  l[3] = make_layer(AOTC_NPU_REF_OP_MAX_POOL, 1, 2, 2, 8, 8, 2, 2, 1, 1, 1, 1, none);
  l[4] = make_fully_connected(1, 8, 6);
  npu_fill_random(input, 192);
  npu_stream_begin(&s, 4);
  for (i = 0; i < 5; ++i) {
    static const uint32_t in_at[5] = {0, 0, 256, 0, 384}, out_at[5] = {0, 256, 0, 384, 448};
    layer_data* data = &d[i == 4 ? 3 : i < 2 ? i : 2];
    random_layer(&l[i], data, 0);
    l[i].input.region = i == 0 ? 1 : 2, l[i].input.offset = in_at[i];
    l[i].output.region = 2, l[i].output.offset = out_at[i];
    l[i].params.region = 0, l[i].params.offset = at;
    if (l[i].opcode <= AOTC_NPU_REF_OP_FULLY_CONNECTED) at += pack_layer(&l[i], data, params + at);
    npu_add_layer(&s, &l[i]);
  }
  constant = (const int8_t*)params + at;
  npu_fill_random((int8_t*)params + at, 6);
  add.input1.region = 2, add.input1.offset = 448, add.input2.region = 0, add.input2.offset = at;
  add.output = add.input1;
  mul.input1 = add.output, mul.input2 = add.output, mul.output.region = 3;
  npu_add_elementwise(&s, &add);
  npu_add_elementwise(&s, &mul);
  regions[0] = npu_region(params, at + 6, AOTC_NPU_REGION_READ_ONLY);
  regions[1] = npu_region(input, 192, AOTC_NPU_REGION_READ_ONLY);
  regions[2] = npu_region(scratch, 512, 0);
  regions[3] = npu_region(output, 6, 0);
  ref_layer(&l[0], &d[0], input, e1);
  ref_layer(&l[1], &d[1], e1, e2);
  ref_layer(&l[2], &d[2], e2, e3);
  ref_layer(&l[3], &d[2], e3, e4);
  ref_layer(&l[4], &d[3], e4, e5);
  ref_elementwise(&add, e5, constant, e6);
  ref_elementwise(&mul, e6, e6, e7);
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_execute(s.bytes, s.size, regions, 4));
  compare(e7, output, 6, "multi-command output");
  compare(e6, scratch + 448, 6, "multi-command ADD in place");
  compare(e4, scratch + 384, 8, "multi-command max pool");
  compare(e3, scratch, 32, "multi-command avg pool over the conv's output");
  compare(e2, scratch + 256, 128, "multi-command depthwise");
  npu_test_free_all();
}

/* ---- The _EVEN opcodes ------------------------------------------------------------------ */

/* One layer of an _EVEN opcode: its records packed from `weights` (record order), input,
 * records and output in regions of their own; checks the output against `expected`. */
static void run_even_layer(npu_layer l, const int8_t* input, const int8_t* weights, const int32_t* bias,
                           const int32_t* multiplier, const int32_t* shift, const int8_t* expected,
                           const char* what) {
  const uint32_t taps = npu_layer_taps(&l), in_bytes = input_bytes(&l), out_bytes = output_bytes(&l);
  uint8_t* params = npu_test_alloc(l.oc * npu_record_bytes(taps));
  int8_t* in = (int8_t*)npu_test_alloc(in_bytes);
  int8_t* out = (int8_t*)npu_test_alloc(out_bytes);
  aotc_npu_region regions[3];
  npu_stream s;
  uint32_t oc, at = 0;
  for (oc = 0; oc < l.oc; ++oc) {
    at += npu_write_record(params + at, bias[oc], multiplier[oc], shift[oc], weights + oc * taps, taps);
  }
  memcpy(in, input, in_bytes);
  memset(out, 0x55, out_bytes);
  l.params.region = 0, l.input.region = 1, l.output.region = 2;
  regions[0] = npu_region(params, at, AOTC_NPU_REGION_READ_ONLY);
  regions[1] = npu_region(in, in_bytes, AOTC_NPU_REGION_READ_ONLY);
  regions[2] = npu_region(out, out_bytes, 0);
  npu_stream_begin(&s, 3);
  npu_add_layer(&s, &l);
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_execute(s.bytes, s.size, regions, 3));
  compare(expected, out, out_bytes, what);
  npu_test_free_all();
}

static void test_even_cases(void) {
  size_t i;
  for (i = 0; i < sizeof(kNpuEvenCases) / sizeof(kNpuEvenCases[0]); ++i) {
    const npu_even_case* c = &kNpuEvenCases[i];
    run_even_layer(c->layer, c->input, c->weights, c->bias, c->multiplier, c->shift, c->expected, c->name);
  }
}

/* Exact ties, by hand. FULLY_CONNECTED_EVEN, 6 batches of one feature x = 1, 3, 5, -1, -3,
 * -5 (input_offset 0, output_offset 0, clamp [-128, 127]), bias 0, four units:
 *   unit 0: w = 1, factor 1/2 (m 1, s 1): x/2 = .5, 1.5, 2.5, -.5, -1.5, -2.5 -> 0, 2, 2, 0, -2, -2
 *   unit 1: w = 2, factor 1/4 (m 1, s 2): 2x/4, the same ties -> 0, 2, 2, 0, -2, -2
 *   unit 2: w = 100, factor 1 (m 1, s 0): 100, 300, 500, ... clamped -> 100, 127, 127, -100, -128, -128
 *   unit 3: w = 1, bias 2^30, factor (2^31 - 1)/2^62: (2^30 + x)(2^31 - 1) = 2^61 + x 2^31 - 2^30 - x,
 *     above 2^61 (the half) for x > 0, below it for x < 0 -> 1, 1, 1, 0, 0, 0
 * Rounding half away from zero would give 1, 2, 3, -1, -2, -3 in units 0 and 1.
 * The same ties through CONV2D_EVEN (a 1x1 conv over a [1,1,6,1] input) and
 * DEPTHWISE_CONV2D_EVEN (depth multiplier 4 over one input channel) give the same outputs,
 * batches there being positions. */
static void test_even_ties(void) {
  static const int8_t x[6] = {1, 3, 5, -1, -3, -5};
  static const int8_t fc_weights[4] = {1, 2, 100, 1};
  static const int32_t bias[4] = {0, 0, 0, 1 << 30}, multiplier[4] = {1, 1, 1, INT32_MAX}, shift[4] = {1, 2, 0, 62};
  static const int8_t expected[24] = {0,  0,  100, 1, 2,  2,  127, 1, 2,  2,  127,  1,
                                      0,  0, -100, 0, -2, -2, -128, 0, -2, -2, -128, 0};
  const uint32_t no_pads[4] = {0, 0, 0, 0};
  npu_layer fc = make_fully_connected(6, 1, 4), conv, depthwise;
  fc.opcode = AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN;
  run_even_layer(fc, x, fc_weights, bias, multiplier, shift, expected, "fully connected _EVEN ties");
  conv = make_layer(AOTC_NPU_REF_OP_CONV2D_EVEN, 1, 1, 6, 1, 4, 1, 1, 1, 1, 1, 1, no_pads);
  run_even_layer(conv, x, fc_weights, bias, multiplier, shift, expected, "conv2d _EVEN ties");
  depthwise = make_layer(AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN, 1, 1, 6, 1, 4, 1, 1, 1, 1, 1, 1, no_pads);
  run_even_layer(depthwise, x, fc_weights, bias, multiplier, shift, expected, "depthwise _EVEN ties");
}

int main(void) {
  test_conv2d();
  test_depthwise_conv2d();
  test_fully_connected();
  test_avg_pool();
  test_max_pool();
  test_add();
  test_mul();
  test_multi_command();
  test_even_cases();
  test_even_ties();
  npu_fault_tests();
  return check_report();
}
