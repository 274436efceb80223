/* Writes the seeds of fuzz_npu_stream into the directory given: valid jobs in the
 * harness's input form (fuzz_npu_stream.c), one for each opcode (the _EVEN ones of
 * format 1.1 included), ADD in place, and a
 * stream of several commands through a scratch region. Run at build time, so that no
 * binary seed is committed. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "npu_stream_builder.h"

typedef struct seed {
  uint8_t bytes[8192];
  size_t size;
} seed;

static uint32_t lcg_state = 1;

static uint8_t next_byte(void) {
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return (uint8_t)(lcg_state >> 24);
}

static void put(seed* s, uint32_t value, int bytes) {
  int i;
  for (i = 0; i < bytes; ++i) s->bytes[s->size++] = (uint8_t)(value >> (8 * i));
}

/* The region table: count, then per region its size and flags (bit 0: read-only). */
static void begin_seed(seed* s, uint32_t count, const uint32_t* sizes, const uint32_t* flags) {
  uint32_t i;
  s->size = 0;
  put(s, count, 1);
  for (i = 0; i < count; ++i) {
    put(s, sizes[i], 2);
    put(s, flags[i], 1);
  }
}

static void add_stream(seed* s, const npu_stream* stream) {
  put(s, (uint32_t)stream->size, 2);
  memcpy(s->bytes + s->size, stream->bytes, stream->size);
  s->size += stream->size;
}

/* Regions' contents: `given` bytes, then random ones up to `size`. */
static void add_contents(seed* s, const uint8_t* bytes, uint32_t given, uint32_t size) {
  uint32_t i;
  for (i = 0; i < size; ++i) s->bytes[s->size++] = i < given ? bytes[i] : next_byte();
}

/* A job: the region table, the stream, the first `given` bytes of the regions' contents
 * (`contents`, then random ones up to `size`); the rest are zeros. Written to dir/name. */
static int write_seed(const char* dir, const char* name, uint32_t count, const uint32_t* sizes, const uint32_t* flags,
                      const npu_stream* stream, const uint8_t* contents, uint32_t given, uint32_t size) {
  static seed seed_buffer;
  seed* s = &seed_buffer;
  char path[1024];
  FILE* f;
  begin_seed(s, count, sizes, flags);
  add_stream(s, stream);
  add_contents(s, contents, given, size);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "wb");
  if (f == NULL || fwrite(s->bytes, 1, s->size, f) != s->size || fclose(f) != 0) {
    fprintf(stderr, "npu_stream_seeds: cannot write %s\n", path);
    return 1;
  }
  return 0;
}

/* The layer's channel records at `at`: random weights, factor 2^-9 (TFLite's multiplier
 * 2^30 and shift -8; the _EVEN opcodes' multiplier 1 and shift 9). */
static uint32_t write_records(const npu_layer* l, uint8_t* at) {
  const int even = l->opcode >= AOTC_NPU_REF_OP_CONV2D_EVEN;
  uint32_t taps = npu_layer_taps(l), oc, t, bytes = 0;
  int8_t weights[1024];
  for (oc = 0; oc < l->oc; ++oc) {
    for (t = 0; t < taps; ++t) weights[t] = (int8_t)next_byte();
    bytes += npu_write_record(at + bytes, (int32_t)next_byte() - 128, even ? 1 : 1 << 30, even ? 9 : -8, weights, taps);
  }
  return bytes;
}

static npu_layer layer(uint32_t opcode, uint32_t c, uint32_t oc, uint32_t k, uint32_t stride, uint32_t pad) {
  npu_layer l;
  memset(&l, 0, sizeof l);
  l.opcode = opcode;
  l.n = 1, l.h = 6, l.w = 6, l.c = c, l.oc = oc;
  l.kh = l.kw = k, l.sh = l.sw = stride, l.dh = l.dw = 1, l.pad_top = l.pad_left = pad;
  l.oh = l.ow = (6 + 2 * pad - k) / stride + 1;
  l.input_offset = 5, l.output_offset = -3, l.act_min = -100, l.act_max = 120;
  l.params.region = 0, l.input.region = 1, l.output.region = 2;
  return l;
}

/* One layer over three regions: records (read-only), input (read-only), output. */
static int layer_seed(const char* dir, const char* name, npu_layer l) {
  uint8_t records[2048];
  const uint32_t params = npu_has_records(l.opcode) ? write_records(&l, records) : 16u;
  const uint32_t sizes[3] = {params, l.n * l.h * l.w * l.c, l.n * l.oh * l.ow * l.oc}, flags[3] = {1, 1, 0};
  npu_stream stream;
  npu_stream_begin(&stream, 3);
  npu_add_layer(&stream, &l);
  return write_seed(dir, name, 3, sizes, flags, &stream, records, params, params + sizes[1]);
}

static npu_elementwise elementwise(uint32_t opcode, uint32_t out_region) {
  npu_elementwise e;
  memset(&e, 0, sizeof e);
  e.opcode = opcode, e.count = 24;
  e.input1.region = 0, e.input2.region = 1, e.output.region = out_region;
  e.input1_offset = 3, e.input2_offset = -7, e.left_shift = 20;
  e.input1_multiplier = e.input2_multiplier = 1 << 30, e.input1_shift = e.input2_shift = -1;
  e.output_multiplier = 1 << 30, e.output_shift = opcode == AOTC_NPU_REF_OP_ADD ? -19 : -7;
  e.output_offset = 2, e.act_min = -128, e.act_max = 127;
  return e;
}

static int elementwise_seed(const char* dir, const char* name, npu_elementwise e) {
  const uint32_t sizes[3] = {24, 24, 24}, flags[3] = {0, 0, 0};
  npu_stream stream;
  npu_stream_begin(&stream, 3);
  npu_add_elementwise(&stream, &e);
  return write_seed(dir, name, 3, sizes, flags, &stream, NULL, 0, 48);
}

/* conv 3x3 [1,6,6,2] -> scratch@0 [1,6,6,4]; max pool 2x2 /2 -> scratch@144 [1,3,3,4];
 * fully connected 36 -> 5 at scratch@192; ADD of it and the input's first 5 bytes, in
 * place; MUL by itself -> output. Regions: records (read-only), input, scratch, output. */
static int multi_seed(const char* dir) {
  uint8_t records[2048];
  npu_layer conv = layer(AOTC_NPU_REF_OP_CONV2D, 2, 4, 3, 1, 1);
  npu_layer pool = layer(AOTC_NPU_REF_OP_MAX_POOL, 4, 4, 2, 2, 0);
  npu_layer fc = layer(AOTC_NPU_REF_OP_FULLY_CONNECTED, 36, 5, 1, 1, 0);
  npu_elementwise add = elementwise(AOTC_NPU_REF_OP_ADD, 2), mul = elementwise(AOTC_NPU_REF_OP_MUL, 3);
  uint32_t params, sizes[4] = {0, 72, 256, 5}, flags[4] = {1, 0, 0, 0};
  npu_stream stream;
  conv.output.offset = 0;
  pool.input.region = 2, pool.output.offset = 144;
  fc.h = fc.w = fc.oh = fc.ow = 1, fc.input.region = 2, fc.input.offset = 144, fc.output.offset = 192;
  fc.params.offset = params = write_records(&conv, records);
  params += write_records(&fc, records + params);
  add.count = mul.count = 5;
  add.input1.region = 2, add.input1.offset = 192, add.output = add.input1;
  mul.input1 = mul.input2 = add.output;
  sizes[0] = params;
  npu_stream_begin(&stream, 4);
  npu_add_layer(&stream, &conv);
  npu_add_layer(&stream, &pool);
  npu_add_layer(&stream, &fc);
  npu_add_elementwise(&stream, &add);
  npu_add_elementwise(&stream, &mul);
  return write_seed(dir, "multi_command", 4, sizes, flags, &stream, records, params, params + sizes[1]);
}

int main(int argc, char** argv) {
  npu_elementwise in_place = elementwise(AOTC_NPU_REF_OP_ADD, 0);
  npu_layer fc = layer(AOTC_NPU_REF_OP_FULLY_CONNECTED, 12, 7, 1, 1, 0);
  int failed = 0;
  if (argc != 2) {
    fprintf(stderr, "usage: npu_stream_seeds <directory>\n");
    return 2;
  }
  fc.h = fc.w = fc.oh = fc.ow = 1, fc.n = 3;
  failed |= layer_seed(argv[1], "conv2d", layer(AOTC_NPU_REF_OP_CONV2D, 3, 4, 3, 1, 1));
  failed |= layer_seed(argv[1], "depthwise_conv2d", layer(AOTC_NPU_REF_OP_DEPTHWISE_CONV2D, 2, 6, 3, 2, 1));
  failed |= layer_seed(argv[1], "fully_connected", fc);
  failed |= layer_seed(argv[1], "conv2d_even", layer(AOTC_NPU_REF_OP_CONV2D_EVEN, 3, 4, 3, 1, 1));
  failed |= layer_seed(argv[1], "depthwise_conv2d_even", layer(AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN, 2, 6, 3, 2, 1));
  fc.opcode = AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN;
  failed |= layer_seed(argv[1], "fully_connected_even", fc);
  failed |= layer_seed(argv[1], "avg_pool", layer(AOTC_NPU_REF_OP_AVG_POOL, 3, 3, 3, 1, 1));
  failed |= layer_seed(argv[1], "max_pool", layer(AOTC_NPU_REF_OP_MAX_POOL, 3, 3, 2, 2, 0));
  failed |= elementwise_seed(argv[1], "add", elementwise(AOTC_NPU_REF_OP_ADD, 2));
  failed |= elementwise_seed(argv[1], "mul", elementwise(AOTC_NPU_REF_OP_MUL, 2));
  failed |= elementwise_seed(argv[1], "add_in_place", in_place);
  failed |= multi_seed(argv[1]);
  return failed;
}
