/* npu_stream_builder.h: writes reference-NPU command streams (runtime-c/npu/aotc_npu_ref.h)
 * from plain descriptions of layers, for the driver's tests (test_npu_ref.c) and the
 * fuzzer's seeds (tests/fuzz/npu_stream_seeds.c). Written from the header's field list,
 * not from the driver. Plain C99 that is also valid C++. */
#ifndef AOTC_TESTS_RUNTIME_NPU_STREAM_BUILDER_H_
#define AOTC_TESTS_RUNTIME_NPU_STREAM_BUILDER_H_

#include <stddef.h>
#include <stdint.h>

#include "aotc_npu_ref.h"

#define NPU_STREAM_CAPACITY 2048u /* bytes: room for some 25 commands */

typedef struct npu_stream {
  uint8_t bytes[NPU_STREAM_CAPACITY];
  size_t size;
} npu_stream;

typedef struct npu_operand {
  uint32_t region;
  uint32_t offset;
} npu_operand;

/* CONV2D, DEPTHWISE_CONV2D, FULLY_CONNECTED (batches n, in_features c, units oc; the
 * spatial fields unused), their _EVEN twins, AVG_POOL and MAX_POOL (oc, dilations, params
 * and offsets unused). */
typedef struct npu_layer {
  uint32_t opcode;
  npu_operand input, output, params;
  uint32_t n, h, w, c, oh, ow, oc;
  uint32_t kh, kw, sh, sw, dh, dw, pad_top, pad_left;
  int32_t input_offset, output_offset, act_min, act_max;
} npu_layer;

/* ADD and MUL (MUL uses neither left_shift nor the input multipliers and shifts). */
typedef struct npu_elementwise {
  uint32_t opcode;
  npu_operand input1, input2, output;
  uint32_t count;
  int32_t input1_offset, input2_offset, left_shift;
  int32_t input1_multiplier, input1_shift, input2_multiplier, input2_shift;
  int32_t output_multiplier, output_shift, output_offset, act_min, act_max;
} npu_elementwise;

/* The opcode classes whose layouts and channel records the builder writes alike. */
static inline int npu_is_depthwise(uint32_t opcode) {
  return opcode == AOTC_NPU_REF_OP_DEPTHWISE_CONV2D || opcode == AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN;
}
static inline int npu_is_fully_connected(uint32_t opcode) {
  return opcode == AOTC_NPU_REF_OP_FULLY_CONNECTED || opcode == AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN;
}
static inline int npu_is_conv2d(uint32_t opcode) {
  return opcode == AOTC_NPU_REF_OP_CONV2D || opcode == AOTC_NPU_REF_OP_CONV2D_EVEN;
}
/* The opcodes with channel records. */
static inline int npu_has_records(uint32_t opcode) {
  return npu_is_conv2d(opcode) || npu_is_depthwise(opcode) || npu_is_fully_connected(opcode);
}

static inline void npu_put32(uint8_t* at, uint32_t value) {
  at[0] = (uint8_t)value;
  at[1] = (uint8_t)(value >> 8);
  at[2] = (uint8_t)(value >> 16);
  at[3] = (uint8_t)(value >> 24);
}

static inline uint32_t npu_get32(const uint8_t* at) {
  return (uint32_t)at[0] | ((uint32_t)at[1] << 8) | ((uint32_t)at[2] << 16) | ((uint32_t)at[3] << 24);
}

/* A stream of no commands for a table of `region_count` regions, of this header's version. */
static inline void npu_stream_begin(npu_stream* s, uint32_t region_count) {
  s->size = 4u * AOTC_NPU_REF_HEADER_WORDS;
  npu_put32(s->bytes + 0, AOTC_NPU_REF_MAGIC);
  npu_put32(s->bytes + 4, AOTC_NPU_REF_VERSION);
  npu_put32(s->bytes + 8, (uint32_t)s->size);
  npu_put32(s->bytes + 12, 0);
  npu_put32(s->bytes + 16, region_count);
  npu_put32(s->bytes + 20, 0);
}

/* Appends a command of `count` words (the first one is written here) and keeps the
 * header's size and command count up to date. Returns the command's byte offset. */
static inline size_t npu_stream_add(npu_stream* s, uint32_t opcode, const uint32_t* words, uint32_t count) {
  size_t at = s->size;
  uint32_t i;
  if (at + 4u * count > NPU_STREAM_CAPACITY) return 0; /* never in these tests: the header check fails */
  npu_put32(s->bytes + at, opcode | (count << 16));
  for (i = 1; i < count; ++i) npu_put32(s->bytes + at + 4u * i, words[i]);
  s->size = at + 4u * count;
  npu_put32(s->bytes + 8, (uint32_t)s->size);
  npu_put32(s->bytes + 12, npu_get32(s->bytes + 12) + 1u);
  return at;
}

/* Words 1 to 8, the input, its shape and the output, are the same in the convolutions'
 * and the pools' layouts. */
typedef char npu_check_shared_words[(int)AOTC_NPU_REF_F_POOL_INPUT_REGION == (int)AOTC_NPU_REF_F_CONV_INPUT_REGION &&
                                            (int)AOTC_NPU_REF_F_POOL_INPUT_C == (int)AOTC_NPU_REF_F_CONV_INPUT_C &&
                                            (int)AOTC_NPU_REF_F_POOL_OUTPUT_OFFSET ==
                                                (int)AOTC_NPU_REF_F_CONV_OUTPUT_OFFSET
                                        ? 1
                                        : -1];
static inline void npu_put_input_output(uint32_t* w, const npu_layer* l) {
  w[AOTC_NPU_REF_F_CONV_INPUT_REGION] = l->input.region;
  w[AOTC_NPU_REF_F_CONV_INPUT_OFFSET] = l->input.offset;
  w[AOTC_NPU_REF_F_CONV_INPUT_N] = l->n;
  w[AOTC_NPU_REF_F_CONV_INPUT_H] = l->h;
  w[AOTC_NPU_REF_F_CONV_INPUT_W] = l->w;
  w[AOTC_NPU_REF_F_CONV_INPUT_C] = l->c;
  w[AOTC_NPU_REF_F_CONV_OUTPUT_REGION] = l->output.region;
  w[AOTC_NPU_REF_F_CONV_OUTPUT_OFFSET] = l->output.offset;
}

static inline size_t npu_add_layer(npu_stream* s, const npu_layer* l) {
  uint32_t w[AOTC_NPU_REF_CONV_WORDS] = {0};
  if (npu_is_conv2d(l->opcode) || npu_is_depthwise(l->opcode)) {
    npu_put_input_output(w, l);
    w[AOTC_NPU_REF_F_CONV_OUTPUT_N] = l->n;
    w[AOTC_NPU_REF_F_CONV_OUTPUT_H] = l->oh;
    w[AOTC_NPU_REF_F_CONV_OUTPUT_W] = l->ow;
    w[AOTC_NPU_REF_F_CONV_OUTPUT_C] = l->oc;
    w[AOTC_NPU_REF_F_CONV_PARAMS_REGION] = l->params.region;
    w[AOTC_NPU_REF_F_CONV_PARAMS_OFFSET] = l->params.offset;
    w[AOTC_NPU_REF_F_CONV_KERNEL_H] = l->kh;
    w[AOTC_NPU_REF_F_CONV_KERNEL_W] = l->kw;
    w[AOTC_NPU_REF_F_CONV_STRIDE_H] = l->sh;
    w[AOTC_NPU_REF_F_CONV_STRIDE_W] = l->sw;
    w[AOTC_NPU_REF_F_CONV_DILATION_H] = l->dh;
    w[AOTC_NPU_REF_F_CONV_DILATION_W] = l->dw;
    w[AOTC_NPU_REF_F_CONV_PAD_TOP] = l->pad_top;
    w[AOTC_NPU_REF_F_CONV_PAD_LEFT] = l->pad_left;
    w[AOTC_NPU_REF_F_CONV_INPUT_OFFSET_VALUE] = (uint32_t)l->input_offset;
    w[AOTC_NPU_REF_F_CONV_OUTPUT_OFFSET_VALUE] = (uint32_t)l->output_offset;
    w[AOTC_NPU_REF_F_CONV_ACT_MIN] = (uint32_t)l->act_min;
    w[AOTC_NPU_REF_F_CONV_ACT_MAX] = (uint32_t)l->act_max;
    return npu_stream_add(s, l->opcode, w, AOTC_NPU_REF_CONV_WORDS);
  }
  if (npu_is_fully_connected(l->opcode)) {
    w[AOTC_NPU_REF_F_FC_INPUT_REGION] = l->input.region;
    w[AOTC_NPU_REF_F_FC_INPUT_OFFSET] = l->input.offset;
    w[AOTC_NPU_REF_F_FC_BATCHES] = l->n;
    w[AOTC_NPU_REF_F_FC_IN_FEATURES] = l->c;
    w[AOTC_NPU_REF_F_FC_OUTPUT_REGION] = l->output.region;
    w[AOTC_NPU_REF_F_FC_OUTPUT_OFFSET] = l->output.offset;
    w[AOTC_NPU_REF_F_FC_UNITS] = l->oc;
    w[AOTC_NPU_REF_F_FC_PARAMS_REGION] = l->params.region;
    w[AOTC_NPU_REF_F_FC_PARAMS_OFFSET] = l->params.offset;
    w[AOTC_NPU_REF_F_FC_INPUT_OFFSET_VALUE] = (uint32_t)l->input_offset;
    w[AOTC_NPU_REF_F_FC_OUTPUT_OFFSET_VALUE] = (uint32_t)l->output_offset;
    w[AOTC_NPU_REF_F_FC_ACT_MIN] = (uint32_t)l->act_min;
    w[AOTC_NPU_REF_F_FC_ACT_MAX] = (uint32_t)l->act_max;
    return npu_stream_add(s, l->opcode, w, AOTC_NPU_REF_FC_WORDS);
  }
  npu_put_input_output(w, l);
  w[AOTC_NPU_REF_F_POOL_OUTPUT_H] = l->oh;
  w[AOTC_NPU_REF_F_POOL_OUTPUT_W] = l->ow;
  w[AOTC_NPU_REF_F_POOL_KERNEL_H] = l->kh;
  w[AOTC_NPU_REF_F_POOL_KERNEL_W] = l->kw;
  w[AOTC_NPU_REF_F_POOL_STRIDE_H] = l->sh;
  w[AOTC_NPU_REF_F_POOL_STRIDE_W] = l->sw;
  w[AOTC_NPU_REF_F_POOL_PAD_TOP] = l->pad_top;
  w[AOTC_NPU_REF_F_POOL_PAD_LEFT] = l->pad_left;
  w[AOTC_NPU_REF_F_POOL_ACT_MIN] = (uint32_t)l->act_min;
  w[AOTC_NPU_REF_F_POOL_ACT_MAX] = (uint32_t)l->act_max;
  return npu_stream_add(s, l->opcode, w, AOTC_NPU_REF_POOL_WORDS);
}

static inline size_t npu_add_elementwise(npu_stream* s, const npu_elementwise* e) {
  uint32_t w[AOTC_NPU_REF_ADD_WORDS] = {0};
  /* The first seven fields are at the same indices in both. */
  w[AOTC_NPU_REF_F_ADD_INPUT1_REGION] = e->input1.region;
  w[AOTC_NPU_REF_F_ADD_INPUT1_OFFSET] = e->input1.offset;
  w[AOTC_NPU_REF_F_ADD_INPUT2_REGION] = e->input2.region;
  w[AOTC_NPU_REF_F_ADD_INPUT2_OFFSET] = e->input2.offset;
  w[AOTC_NPU_REF_F_ADD_OUTPUT_REGION] = e->output.region;
  w[AOTC_NPU_REF_F_ADD_OUTPUT_OFFSET] = e->output.offset;
  w[AOTC_NPU_REF_F_ADD_COUNT] = e->count;
  if (e->opcode == AOTC_NPU_REF_OP_MUL) {
    w[AOTC_NPU_REF_F_MUL_INPUT1_OFFSET_VALUE] = (uint32_t)e->input1_offset;
    w[AOTC_NPU_REF_F_MUL_INPUT2_OFFSET_VALUE] = (uint32_t)e->input2_offset;
    w[AOTC_NPU_REF_F_MUL_OUTPUT_MULTIPLIER] = (uint32_t)e->output_multiplier;
    w[AOTC_NPU_REF_F_MUL_OUTPUT_SHIFT] = (uint32_t)e->output_shift;
    w[AOTC_NPU_REF_F_MUL_OUTPUT_OFFSET_VALUE] = (uint32_t)e->output_offset;
    w[AOTC_NPU_REF_F_MUL_ACT_MIN] = (uint32_t)e->act_min;
    w[AOTC_NPU_REF_F_MUL_ACT_MAX] = (uint32_t)e->act_max;
    return npu_stream_add(s, e->opcode, w, AOTC_NPU_REF_MUL_WORDS);
  }
  w[AOTC_NPU_REF_F_ADD_INPUT1_OFFSET_VALUE] = (uint32_t)e->input1_offset;
  w[AOTC_NPU_REF_F_ADD_INPUT2_OFFSET_VALUE] = (uint32_t)e->input2_offset;
  w[AOTC_NPU_REF_F_ADD_LEFT_SHIFT] = (uint32_t)e->left_shift;
  w[AOTC_NPU_REF_F_ADD_INPUT1_MULTIPLIER] = (uint32_t)e->input1_multiplier;
  w[AOTC_NPU_REF_F_ADD_INPUT1_SHIFT] = (uint32_t)e->input1_shift;
  w[AOTC_NPU_REF_F_ADD_INPUT2_MULTIPLIER] = (uint32_t)e->input2_multiplier;
  w[AOTC_NPU_REF_F_ADD_INPUT2_SHIFT] = (uint32_t)e->input2_shift;
  w[AOTC_NPU_REF_F_ADD_OUTPUT_MULTIPLIER] = (uint32_t)e->output_multiplier;
  w[AOTC_NPU_REF_F_ADD_OUTPUT_SHIFT] = (uint32_t)e->output_shift;
  w[AOTC_NPU_REF_F_ADD_OUTPUT_OFFSET_VALUE] = (uint32_t)e->output_offset;
  w[AOTC_NPU_REF_F_ADD_ACT_MIN] = (uint32_t)e->act_min;
  w[AOTC_NPU_REF_F_ADD_ACT_MAX] = (uint32_t)e->act_max;
  return npu_stream_add(s, e->opcode, w, AOTC_NPU_REF_ADD_WORDS);
}

/* ---- Channel records: int32 bias, multiplier, shift, then `taps` int8 weights padded
 * with zeros to a multiple of 4 bytes. */

static inline uint32_t npu_record_bytes(uint32_t taps) {
  return AOTC_NPU_REF_CHANNEL_RECORD_HEADER_BYTES + ((taps + 3u) & ~3u);
}

/* The taps of a layer's channel record: KH*KW*C, KH*KW or in_features. */
static inline uint32_t npu_layer_taps(const npu_layer* l) {
  if (npu_is_depthwise(l->opcode)) return l->kh * l->kw;
  if (npu_is_fully_connected(l->opcode)) return l->c;
  return l->kh * l->kw * l->c;
}

/* Writes one record at `at`; returns its size. */
static inline uint32_t npu_write_record(uint8_t* at, int32_t bias, int32_t multiplier, int32_t shift,
                                        const int8_t* weights, uint32_t taps) {
  uint32_t i, size = npu_record_bytes(taps);
  npu_put32(at, (uint32_t)bias);
  npu_put32(at + 4, (uint32_t)multiplier);
  npu_put32(at + 8, (uint32_t)shift);
  for (i = 0; i < size - AOTC_NPU_REF_CHANNEL_RECORD_HEADER_BYTES; ++i) {
    at[AOTC_NPU_REF_CHANNEL_RECORD_HEADER_BYTES + i] = i < taps ? (uint8_t)weights[i] : 0u;
  }
  return size;
}

#endif /* AOTC_TESTS_RUNTIME_NPU_STREAM_BUILDER_H_ */
