/* Tests of the reference NPU driver's validation (runtime-c/npu/aotc_npu_ref.h, "Validation"),
 * counters and driver interface; part of the test_npu_ref program.
 *
 * A fault test builds a valid two-command stream, an ADD writing region 2 and then the
 * command under test writing region 3, puts one fault into the second command (or the
 * header, or the region table), and expects that fault's status from both validate and
 * execute, with every writable byte still the canary: the valid first command did not
 * run either. Then truncations at every length, every word of a stream of all seven
 * opcodes of format 1.0 (and of one with the _EVEN twins of 1.1) set to 0, 0xFFFFFFFF and
 * 0x80000000, and the counters. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_test_support.h"

enum { PARAMS_BYTES = 1024, INPUT_BYTES = 256, OUT_A_BYTES = 64, OUT_B_BYTES = 256, TABLE = 4 };

typedef struct fixture {
  aotc_npu_region regions[TABLE + 1]; /* the fifth only where a test adds it */
  uint32_t region_count;
  npu_elementwise first; /* region 1 @128 + region 1 @144 -> region 2 @0, 16 elements */
  npu_layer layer;       /* the command under test unless `second` is used: a conv by default */
  npu_elementwise second;
  int second_is_elementwise;
  npu_stream s;
  size_t command; /* byte offset of the command under test in s */
} fixture;

static npu_operand at(uint32_t region, uint32_t offset) {
  npu_operand o;
  o.region = region;
  o.offset = offset;
  return o;
}

static npu_elementwise valid_elementwise(uint32_t opcode, npu_operand in1, npu_operand in2, npu_operand out,
                                         uint32_t count) {
  npu_elementwise e;
  memset(&e, 0, sizeof e);
  e.opcode = opcode, e.input1 = in1, e.input2 = in2, e.output = out, e.count = count;
  e.left_shift = 20, e.input1_multiplier = e.input2_multiplier = 1 << 30, e.input1_shift = e.input2_shift = -1;
  e.output_multiplier = 1 << 30, e.output_shift = opcode == AOTC_NPU_REF_OP_ADD ? -19 : -7;
  e.act_min = -128, e.act_max = 127;
  return e;
}

/* A valid layer: [1,5,5,3] at region 1 @0 -> [1,5,5,4] at region 3 @0, 3x3 "same",
 * records at region 0 @0; other opcodes keep the shapes that fit them. */
static npu_layer valid_layer(uint32_t opcode) {
  npu_layer l;
  memset(&l, 0, sizeof l);
  l.opcode = opcode;
  l.input = at(1, 0), l.output = at(3, 0), l.params = at(0, 0);
  l.n = 1, l.h = 5, l.w = 5, l.c = 3, l.oh = 5, l.ow = 5, l.oc = 4;
  l.kh = 3, l.kw = 3, l.sh = 1, l.sw = 1, l.dh = 1, l.dw = 1, l.pad_top = 1, l.pad_left = 1;
  l.act_min = -128, l.act_max = 127;
  if (npu_is_depthwise(opcode)) l.oc = 6;
  if (npu_is_fully_connected(opcode)) l.n = 3, l.c = 25, l.oc = 4, l.h = l.w = l.oh = l.ow = 1;
  if (opcode == AOTC_NPU_REF_OP_AVG_POOL || opcode == AOTC_NPU_REF_OP_MAX_POOL) l.oc = l.c;
  return l;
}

static int is_even(uint32_t opcode) {
  return opcode == AOTC_NPU_REF_OP_CONV2D_EVEN || opcode == AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN ||
         opcode == AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN;
}

/* The _EVEN twin of CONV2D, DEPTHWISE_CONV2D and FULLY_CONNECTED; other opcodes unchanged. */
static uint32_t even_twin(uint32_t opcode) {
  if (opcode == AOTC_NPU_REF_OP_CONV2D) return AOTC_NPU_REF_OP_CONV2D_EVEN;
  if (opcode == AOTC_NPU_REF_OP_DEPTHWISE_CONV2D) return AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN;
  if (opcode == AOTC_NPU_REF_OP_FULLY_CONNECTED) return AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN;
  return opcode;
}

/* Channel records for the layer when they fit: bias 0, weights 1, factor 2^-9 (TFLite's
 * multiplier 2^30 and shift -8; the _EVEN opcodes' multiplier 1 and shift 9). */
static void pack_valid_records(const npu_layer* l, uint8_t* params, uint32_t room) {
  int8_t weights[PARAMS_BYTES];
  const int32_t multiplier = is_even(l->opcode) ? 1 : 1 << 30, shift = is_even(l->opcode) ? 9 : -8;
  uint32_t taps = npu_layer_taps(l), oc;
  if (!npu_has_records(l->opcode) || taps > PARAMS_BYTES || (uint64_t)l->oc * npu_record_bytes(taps) > room) {
    return;
  }
  memset(weights, 1, taps);
  for (oc = 0; oc < l->oc; ++oc) {
    npu_write_record(params + oc * npu_record_bytes(taps), 0, multiplier, shift, weights, taps);
  }
}

static void fixture_init(fixture* f) {
  memset(f, 0, sizeof *f);
  f->region_count = TABLE;
  f->regions[0] = npu_region(npu_test_alloc(PARAMS_BYTES), PARAMS_BYTES, AOTC_NPU_REGION_READ_ONLY);
  f->regions[1] = npu_region(npu_test_alloc(INPUT_BYTES), INPUT_BYTES, 0);
  f->regions[2] = npu_region(npu_test_alloc(OUT_A_BYTES), OUT_A_BYTES, 0);
  f->regions[3] = npu_region(npu_test_alloc(OUT_B_BYTES), OUT_B_BYTES, 0);
  f->first = valid_elementwise(AOTC_NPU_REF_OP_ADD, at(1, 128), at(1, 144), at(2, 0), 16);
  f->layer = valid_layer(AOTC_NPU_REF_OP_CONV2D);
  f->second = valid_elementwise(AOTC_NPU_REF_OP_ADD, at(1, 160), at(1, 176), at(3, 0), 16);
}

/* Writes the stream (and the layer's records) from the descriptions. */
static void fixture_build(fixture* f) {
  npu_stream_begin(&f->s, f->region_count);
  npu_add_elementwise(&f->s, &f->first);
  f->command = f->second_is_elementwise ? npu_add_elementwise(&f->s, &f->second) : npu_add_layer(&f->s, &f->layer);
  if (!f->second_is_elementwise) pack_valid_records(&f->layer, (uint8_t*)f->regions[0].base, f->regions[0].size);
}

/* The command under test's word `field`. */
static void patch_field(fixture* f, uint32_t field, uint32_t value) {
  npu_put32(f->s.bytes + f->command + 4u * field, value);
}

static void patch_header(fixture* f, uint32_t word, uint32_t value) {
  npu_put32(f->s.bytes + 4u * word, value);
}

#define CHECK_FIXTURE(expected, f) CHECK_JOB((expected), (f)->s.bytes, (f)->s.size, (f)->regions, (f)->region_count)

/* Builds a fresh fixture, lets `change` (a statement on `f`) describe the fault, checks. */
#define CHECK_FAULT(expected, change) \
  do {                                \
    fixture f;                        \
    fixture_init(&f);                 \
    change;                           \
    fixture_build(&f);                \
    CHECK_FIXTURE((expected), &f);    \
    npu_test_free_all();              \
  } while (0)

/* The same with a change after building (to words the descriptions cannot express). */
#define CHECK_PATCHED(expected, change) \
  do {                                  \
    fixture f;                          \
    fixture_init(&f);                   \
    fixture_build(&f);                  \
    change;                             \
    CHECK_FIXTURE((expected), &f);      \
    npu_test_free_all();                \
  } while (0)

/* The same for the layer of `opcode` (valid_layer) as the command under test. */
#define CHECK_LAYER_PATCHED(expected, opcode, change) \
  do {                                                \
    fixture f;                                        \
    fixture_init(&f);                                 \
    f.layer = valid_layer(opcode);                    \
    fixture_build(&f);                                \
    change;                                           \
    CHECK_FIXTURE((expected), &f);                    \
    npu_test_free_all();                              \
  } while (0)

static void test_status_strings(void) {
  int32_t status, other;
  for (status = AOTC_NPU_REF_ERR_PARAMETER; status <= AOTC_NPU_REF_OK; ++status) {
    const char* s = aotc_npu_ref_status_string(status);
    CHECK(s != NULL && s[0] != '\0' && strcmp(s, "unknown status") != 0);
    for (other = AOTC_NPU_REF_ERR_PARAMETER; other < status; ++other) {
      CHECK(strcmp(s, aotc_npu_ref_status_string(other)) != 0);
    }
  }
  CHECK(strcmp(aotc_npu_ref_status_string(1), "unknown status") == 0);
  CHECK(strcmp(aotc_npu_ref_status_string(AOTC_NPU_REF_ERR_PARAMETER - 1), "unknown status") == 0);
}

/* The fixtures the faults start from are valid, for every opcode under test. */
static void test_valid_fixtures(void) {
  uint32_t opcode;
  for (opcode = AOTC_NPU_REF_OP_CONV2D; opcode <= AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN; ++opcode) {
    if (opcode == AOTC_NPU_REF_OP_ADD || opcode == AOTC_NPU_REF_OP_MUL) continue;
    CHECK_FAULT(AOTC_NPU_REF_OK, f.layer = valid_layer(opcode));
  }
  CHECK_FAULT(AOTC_NPU_REF_OK, f.second_is_elementwise = 1);
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.second_is_elementwise = 1, f.second.opcode = AOTC_NPU_REF_OP_MUL));
}

static void test_null(void) {
  fixture f;
  npu_stream empty;
  fixture_init(&f);
  fixture_build(&f);
  CHECK_JOB(AOTC_NPU_REF_ERR_NULL, (const uint8_t*)NULL, f.s.size, f.regions, f.region_count);
  /* A null table with regions: the canaries are in the table the job was not given. */
  npu_fill_canaries(f.regions, f.region_count);
  CHECK_EQ_INT(AOTC_NPU_REF_ERR_NULL, aotc_npu_ref_validate(f.s.bytes, f.s.size, NULL, f.region_count));
  CHECK_EQ_INT(AOTC_NPU_REF_ERR_NULL, aotc_npu_ref_execute(f.s.bytes, f.s.size, NULL, f.region_count));
  CHECK_EQ_INT(0, npu_canaries_changed(f.regions, f.region_count));
  /* No regions and no table: an empty stream for an empty table is valid. */
  npu_stream_begin(&empty, 0);
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_execute(empty.bytes, empty.size, NULL, 0));
  CHECK_EQ_INT(AOTC_NPU_REF_ERR_REGION, aotc_npu_ref_execute(f.s.bytes, f.s.size, NULL, 0));
  npu_test_free_all();
}

static void test_header_faults(void) {
  CHECK_PATCHED(AOTC_NPU_REF_ERR_MAGIC, patch_header(&f, 0, AOTC_NPU_REF_MAGIC ^ 1u));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_VERSION, patch_header(&f, 1, 2u << 16));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_VERSION, patch_header(&f, 1, AOTC_NPU_REF_VERSION + 1u)); /* 1.3 */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_VERSION, patch_header(&f, 1, 0));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_VERSION, patch_header(&f, 5, 1)); /* the reserved word */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_SIZE, f.s.size -= 1);             /* not a multiple of 4 */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_SIZE, f.s.size += 4);             /* more than the header's */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_SIZE, patch_header(&f, 2, (uint32_t)f.s.size - 4u));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_SIZE, f.s.size = 20);             /* shorter than the header */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_SIZE, f.s.size = 0);
  CHECK_PATCHED(AOTC_NPU_REF_ERR_TRUNCATED, patch_header(&f, 3, 3)); /* fewer commands */
  /* The last command cut by a word, the header's size agreeing. */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_TRUNCATED, (f.s.size -= 4, patch_header(&f, 2, (uint32_t)f.s.size)));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_TRAILING, patch_header(&f, 3, 1));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_TRAILING,
                (npu_put32(f.s.bytes + f.s.size, 0), f.s.size += 4, patch_header(&f, 2, (uint32_t)f.s.size)));
}

/* Format 1.1 streams (the builder's) and 1.0 ones: the _EVEN opcodes exist only in 1.1;
 * the opcodes of 1.0 run in both. */
static void test_versions(void) {
  const uint32_t version_1_0 = AOTC_NPU_REF_VERSION_MAJOR << 16;
  const uint32_t version_1_1 = AOTC_NPU_REF_VERSION_MAJOR << 16 | 1u;
  uint32_t opcode;
  CHECK_EQ_INT(AOTC_NPU_REF_VERSION_MAJOR << 16 | 2u, AOTC_NPU_REF_VERSION);
  for (opcode = AOTC_NPU_REF_OP_CONV2D; opcode <= AOTC_NPU_REF_OP_MAX_POOL; ++opcode) {
    CHECK_LAYER_PATCHED(AOTC_NPU_REF_OK, opcode, patch_header(&f, 1, version_1_1)); /* old opcodes only */
    CHECK_LAYER_PATCHED(AOTC_NPU_REF_OK, opcode, patch_header(&f, 1, version_1_0));
  }
  /* An _EVEN command, valid in 1.1, is an unknown opcode in 1.0. */
  for (opcode = AOTC_NPU_REF_OP_CONV2D_EVEN; opcode <= AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN; ++opcode) {
    CHECK_LAYER_PATCHED(AOTC_NPU_REF_OK, opcode, patch_header(&f, 1, version_1_1));
    CHECK_LAYER_PATCHED(AOTC_NPU_REF_ERR_OPCODE, opcode, patch_header(&f, 1, version_1_0));
  }
}

static void test_command_word_faults(void) {
  const uint32_t words = (uint32_t)AOTC_NPU_REF_CONV_WORDS << 16;
  CHECK_PATCHED(AOTC_NPU_REF_ERR_OPCODE, patch_field(&f, 0, words | 0u));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_OPCODE, patch_field(&f, 0, words | 11u)); /* the first unknown one in 1.1 */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_OPCODE, patch_field(&f, 0, words | 0xFFFFu));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_WORD_COUNT, patch_field(&f, 0, AOTC_NPU_REF_OP_CONV2D));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_WORD_COUNT, patch_field(&f, 0, AOTC_NPU_REF_OP_CONV2D | (words + 0x10000u)));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_WORD_COUNT, patch_field(&f, 0, AOTC_NPU_REF_OP_CONV2D | (words - 0x10000u)));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_WORD_COUNT, patch_field(&f, 0, AOTC_NPU_REF_OP_CONV2D | 0xFFFF0000u));
  /* A FULLY_CONNECTED(_EVEN) opcode on a CONV2D's words; CONV2D_EVEN on a FULLY_CONNECTED's. */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_WORD_COUNT, patch_field(&f, 0, AOTC_NPU_REF_OP_FULLY_CONNECTED | words));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_WORD_COUNT, patch_field(&f, 0, AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN | words));
  CHECK_LAYER_PATCHED(AOTC_NPU_REF_ERR_WORD_COUNT, AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN,
                      patch_field(&f, 0, AOTC_NPU_REF_OP_CONV2D_EVEN | (uint32_t)AOTC_NPU_REF_FC_WORDS << 16));
}

static void test_region_faults(void) {
  CHECK_FAULT(AOTC_NPU_REF_ERR_REGION, f.layer.input.region = TABLE);
  CHECK_FAULT(AOTC_NPU_REF_ERR_REGION, f.layer.params.region = 0xFFFFFFFFu);
  CHECK_FAULT(AOTC_NPU_REF_ERR_REGION, f.layer.output.region = TABLE);
  CHECK_FAULT(AOTC_NPU_REF_ERR_REGION, (f.second_is_elementwise = 1, f.second.input2.region = TABLE));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_REGION, patch_header(&f, 4, TABLE - 1));   /* a table of another size */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_REGION, f.region_count = TABLE - 1);
  /* Misaligned bases (the regions shrunk to stay inside their blocks). */
  CHECK_FAULT(AOTC_NPU_REF_ERR_REGION, (f.regions[3].base = (uint8_t*)f.regions[3].base + 1, f.regions[3].size -= 1));
  CHECK_FAULT(AOTC_NPU_REF_ERR_REGION, (f.regions[2].base = (uint8_t*)f.regions[2].base + 8, f.regions[2].size -= 8));
  CHECK_FAULT(AOTC_NPU_REF_ERR_REGION, f.regions[2].base = NULL);           /* null with a size */
  /* A fifth region of size 0 with a null base: valid while no operand addresses it. */
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.region_count = TABLE + 1, f.regions[TABLE] = npu_region(NULL, 0, 0)));
  CHECK_FAULT(AOTC_NPU_REF_ERR_OUT_OF_BOUNDS,
              (f.region_count = TABLE + 1, f.regions[TABLE] = npu_region(NULL, 0, 0), f.layer.output = at(TABLE, 0)));
  /* Misaligned or null, the base of an unaddressed region of nonzero size is still a fault. */
  CHECK_FAULT(AOTC_NPU_REF_ERR_REGION, (f.region_count = TABLE + 1, f.regions[TABLE] = npu_region(NULL, 4, 0)));
}

static void test_shape_faults(void) {
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.n = 0);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.h = 0);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.c = 0);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.oc = 0);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.ow = 0);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.w = AOTC_NPU_REF_MAX_DIM + 1);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.oh = AOTC_NPU_REF_MAX_DIM + 1);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.kh = 0);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.kw = AOTC_NPU_REF_MAX_WINDOW + 1);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.sh = 0);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.sw = AOTC_NPU_REF_MAX_WINDOW + 1);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.dh = 0);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.dw = AOTC_NPU_REF_MAX_WINDOW + 1);
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, f.layer.pad_top = AOTC_NPU_REF_MAX_WINDOW + 1);
  CHECK_FAULT(AOTC_NPU_REF_OK, f.layer.pad_left = AOTC_NPU_REF_MAX_WINDOW); /* all padding: bias only */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_SHAPE, patch_field(&f, AOTC_NPU_REF_F_CONV_OUTPUT_N, 2)); /* N disagrees */
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, (f.layer = valid_layer(AOTC_NPU_REF_OP_DEPTHWISE_CONV2D), f.layer.oc = 4));
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, (f.layer = valid_layer(AOTC_NPU_REF_OP_FULLY_CONNECTED), f.layer.c = 0));
  /* The _EVEN twins' shapes are checked alike. */
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE,
              (f.layer = valid_layer(AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN), f.layer.oc = 4));
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.layer = valid_layer(AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN), f.layer.oc = 9));
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, (f.layer = valid_layer(AOTC_NPU_REF_OP_CONV2D_EVEN), f.layer.kw = 0));
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, (f.layer = valid_layer(AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN), f.layer.oc = 0));
  CHECK_FAULT(AOTC_NPU_REF_ERR_OUT_OF_BOUNDS,
              (f.layer = valid_layer(AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN), f.layer.n = 11)); /* 275 input bytes */
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, (f.second_is_elementwise = 1, f.second.count = 0));
  /* Pooling windows: the first one wholly in the padding, or the last one past the input. */
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, (f.layer = valid_layer(AOTC_NPU_REF_OP_AVG_POOL), f.layer.pad_top = 3));
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, (f.layer = valid_layer(AOTC_NPU_REF_OP_MAX_POOL), f.layer.pad_left = 3));
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.layer = valid_layer(AOTC_NPU_REF_OP_MAX_POOL), f.layer.pad_left = 2, f.layer.ow = 7));
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE, (f.layer = valid_layer(AOTC_NPU_REF_OP_AVG_POOL), f.layer.oh = 7));
  CHECK_FAULT(AOTC_NPU_REF_ERR_SHAPE,
              (f.layer = valid_layer(AOTC_NPU_REF_OP_MAX_POOL), f.layer.sw = 2, f.layer.ow = 4, f.layer.pad_left = 0));
}

/* ADD's and MUL's count is no dimension: it has no limit but its regions. */
static void test_large_elementwise_count(void) {
  const uint32_t count = AOTC_NPU_REF_MAX_DIM + 2;
  uint8_t* a = npu_test_alloc(count);
  aotc_npu_region regions[1];
  npu_elementwise e = valid_elementwise(AOTC_NPU_REF_OP_ADD, at(0, 0), at(0, 0), at(0, 0), count);
  npu_stream s;
  regions[0] = npu_region(a, count, 0);
  npu_stream_begin(&s, 1);
  npu_add_elementwise(&s, &e);
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_execute(s.bytes, s.size, regions, 1));
  npu_test_free_all();
}

static void test_overflow_faults(void) {
  /* The input's bytes: 65535^3. */
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERFLOW,
              (f.layer.h = f.layer.w = f.layer.c = AOTC_NPU_REF_MAX_DIM, f.layer.oh = f.layer.ow = 1));
  /* Two channel records of 12 + 255 * 255 * 65535 bytes (one fits in 32 bits, two do not). */
  CHECK_FAULT(AOTC_NPU_REF_ERR_OUT_OF_BOUNDS, (f.layer.h = f.layer.w = 1, f.layer.c = AOTC_NPU_REF_MAX_DIM,
                                               f.layer.kh = f.layer.kw = AOTC_NPU_REF_MAX_WINDOW, f.layer.oc = 1,
                                               f.layer.oh = f.layer.ow = 1));
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERFLOW, (f.layer.h = f.layer.w = 1, f.layer.c = AOTC_NPU_REF_MAX_DIM,
                                          f.layer.kh = f.layer.kw = AOTC_NPU_REF_MAX_WINDOW, f.layer.oc = 2,
                                          f.layer.oh = f.layer.ow = 1));
  /* The records of a fully connected layer: 65535 * (12 + 65536). */
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERFLOW, (f.layer = valid_layer(AOTC_NPU_REF_OP_FULLY_CONNECTED), f.layer.n = 1,
                                          f.layer.c = AOTC_NPU_REF_MAX_DIM, f.layer.oc = AOTC_NPU_REF_MAX_DIM));
}

static void test_bounds_faults(void) {
  /* The input ends exactly at its region's end, or one byte past it. */
  CHECK_FAULT(AOTC_NPU_REF_OK, f.layer.input.offset = INPUT_BYTES - 75);
  CHECK_FAULT(AOTC_NPU_REF_ERR_OUT_OF_BOUNDS, f.layer.input.offset = INPUT_BYTES - 74);
  CHECK_FAULT(AOTC_NPU_REF_ERR_OUT_OF_BOUNDS, f.layer.input.offset = 0xFFFFFFFFu);
  CHECK_FAULT(AOTC_NPU_REF_ERR_OUT_OF_BOUNDS, f.layer.output.offset = OUT_B_BYTES - 99);
  CHECK_FAULT(AOTC_NPU_REF_ERR_OUT_OF_BOUNDS, f.layer.params.offset = PARAMS_BYTES - 159);
  CHECK_FAULT(AOTC_NPU_REF_ERR_OUT_OF_BOUNDS, f.layer.n = 4); /* 300 input bytes */
  CHECK_FAULT(AOTC_NPU_REF_ERR_OUT_OF_BOUNDS, (f.second_is_elementwise = 1, f.second.input2.offset = INPUT_BYTES - 15));
  CHECK_FAULT(AOTC_NPU_REF_ERR_OUT_OF_BOUNDS, f.regions[3].size = 99);
}

static void test_read_only_and_overlap(void) {
  CHECK_FAULT(AOTC_NPU_REF_ERR_READ_ONLY, f.regions[3].flags = AOTC_NPU_REGION_READ_ONLY);
  CHECK_FAULT(AOTC_NPU_REF_ERR_READ_ONLY, f.layer.output = at(0, 512));
  /* A read-only input is fine. */
  CHECK_FAULT(AOTC_NPU_REF_OK, f.regions[1].flags = AOTC_NPU_REGION_READ_ONLY);
  /* The output overlaps the input by one byte, or starts right after it. */
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP, f.layer.output = at(1, 74));
  CHECK_FAULT(AOTC_NPU_REF_OK, f.layer.output = at(1, 75));
  /* The output over the records (in a writable region). */
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP, (f.regions[0].flags = 0, f.layer.output = at(0, 100)));
  /* Another entry of the table for the input's memory: overlap is by address. */
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP, (f.region_count = TABLE + 1, f.regions[TABLE] = f.regions[1],
                                         f.layer.output = at(TABLE, 16)));
  /* A 1x1 conv exactly over its input: only ADD and MUL may write in place. */
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP,
              (f.layer.kh = f.layer.kw = 1, f.layer.pad_top = f.layer.pad_left = 0, f.layer.c = f.layer.oc = 3,
               f.layer.output = f.layer.input));
  /* ADD and MUL: exactly over an input is allowed (its results: test_npu_ref.c), partly is not. */
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.second_is_elementwise = 1, f.second.output = f.second.input2));
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP, (f.second_is_elementwise = 1, f.second.output = at(1, 161)));
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP, (f.second_is_elementwise = 1, f.second.opcode = AOTC_NPU_REF_OP_MUL,
                                         f.second.output = at(1, 175)));
  /* Exactly over input 1 while partly over input 2. */
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP,
              (f.second_is_elementwise = 1, f.second.input2 = at(1, 168), f.second.output = f.second.input1));
}

/* Version 1.2: a windowed command of one batch may write its output from the overlap
 * distance below its input on, over it (aotc_npu_ref.h). The distances of the fixture's
 * layers (5x5x3, 3x3 windows, stride 1, padding 1), from the definition: the 4-channel
 * conv 46 B, the 6-channel depthwise conv 96 B, the pool 21 B. */
static void test_overlap_below_input(void) {
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.layer.input = at(1, 100), f.layer.output = at(1, 54)));
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP, (f.layer.input = at(1, 100), f.layer.output = at(1, 55)));
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.layer = valid_layer(AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN),
                                f.layer.input = at(1, 150), f.layer.output = at(1, 54)));
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP, (f.layer = valid_layer(AOTC_NPU_REF_OP_DEPTHWISE_CONV2D),
                                         f.layer.input = at(1, 150), f.layer.output = at(1, 55)));
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.layer = valid_layer(AOTC_NPU_REF_OP_MAX_POOL), f.layer.input = at(1, 100),
                                f.layer.output = at(1, 79)));
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP, (f.layer = valid_layer(AOTC_NPU_REF_OP_AVG_POOL), f.layer.input = at(1, 100),
                                         f.layer.output = at(1, 80)));
  /* Two batches, a fully connected layer: no overlap at any distance. */
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP, (f.layer.n = 2, f.layer.input = at(1, 100), f.layer.output = at(1, 0)));
  CHECK_FAULT(AOTC_NPU_REF_ERR_OVERLAP, (f.layer = valid_layer(AOTC_NPU_REF_OP_FULLY_CONNECTED),
                                         f.layer.input = at(1, 100), f.layer.output = at(1, 90)));
  /* The same overlap in a stream of 1.1. */
  do {
    fixture f;
    fixture_init(&f);
    f.layer.input = at(1, 100), f.layer.output = at(1, 54);
    fixture_build(&f);
    patch_header(&f, 1, AOTC_NPU_REF_VERSION_MAJOR << 16 | 1u);
    CHECK_FIXTURE(AOTC_NPU_REF_ERR_OVERLAP, &f);
    npu_test_free_all();
  } while (0);
}

static void test_parameter_faults(void) {
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, (f.layer.act_min = 10, f.layer.act_max = 9));
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.layer.act_min = 9, f.layer.act_max = 9));
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, f.layer.act_min = -129);
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, f.layer.act_max = 128);
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, f.layer.input_offset = AOTC_NPU_REF_MAX_OFFSET + 1);
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, f.layer.output_offset = -AOTC_NPU_REF_MAX_OFFSET - 1);
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.layer.input_offset = -AOTC_NPU_REF_MAX_OFFSET,
                                f.layer.output_offset = AOTC_NPU_REF_MAX_OFFSET));
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, (f.layer = valid_layer(AOTC_NPU_REF_OP_AVG_POOL), f.layer.act_min = 128));
  /* A channel record, the last one (every record is checked). */
  CHECK_PATCHED(AOTC_NPU_REF_ERR_PARAMETER, npu_put32((uint8_t*)f.regions[0].base + 3 * 40 + 4, 0xFFFFFFFFu));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_PARAMETER, npu_put32((uint8_t*)f.regions[0].base + 3 * 40 + 8, 32));
  CHECK_PATCHED(AOTC_NPU_REF_ERR_PARAMETER, npu_put32((uint8_t*)f.regions[0].base + 3 * 40 + 8, (uint32_t)-32));
  CHECK_PATCHED(AOTC_NPU_REF_OK, npu_put32((uint8_t*)f.regions[0].base + 3 * 40 + 8, (uint32_t)-31));
  CHECK_PATCHED(AOTC_NPU_REF_OK, npu_put32((uint8_t*)f.regions[0].base + 3 * 40 + 8, 31));
  /* The _EVEN opcodes' records: shift in [0, 62], multiplier >= 0, in every record (the
   * last one patched: conv and fully connected records are 40 bytes, 4 of them; depthwise
   * ones 24 bytes, 6 of them). */
  {
    static const uint32_t opcodes[3] = {AOTC_NPU_REF_OP_CONV2D_EVEN, AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN,
                                        AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN};
    static const uint32_t last_record[3] = {3 * 40, 5 * 24, 3 * 40};
    int k;
    for (k = 0; k < 3; ++k) {
#define LAST_RECORD ((uint8_t*)f.regions[0].base + last_record[k])
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_ERR_PARAMETER, opcodes[k], npu_put32(LAST_RECORD + 8, 63));
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_ERR_PARAMETER, opcodes[k], npu_put32(LAST_RECORD + 8, (uint32_t)-1));
      /* -8, valid for TFLite's rounding. */
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_ERR_PARAMETER, opcodes[k], npu_put32(LAST_RECORD + 8, (uint32_t)-8));
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_ERR_PARAMETER, opcodes[k], npu_put32(LAST_RECORD + 8, 0x80000000u));
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_ERR_PARAMETER, opcodes[k], npu_put32(LAST_RECORD + 4, (uint32_t)-1));
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_ERR_PARAMETER, opcodes[k], npu_put32(LAST_RECORD + 4, 0x80000000u));
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_OK, opcodes[k], npu_put32(LAST_RECORD + 8, 62));
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_OK, opcodes[k], npu_put32(LAST_RECORD + 8, 0));
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_OK, opcodes[k], npu_put32(LAST_RECORD + 8, 32)); /* beyond TFLite's 31 */
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_OK, opcodes[k], npu_put32(LAST_RECORD + 4, 0x7FFFFFFFu));
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_OK, opcodes[k], npu_put32(LAST_RECORD + 4, 0));
#undef LAST_RECORD
      /* The first record too. */
      CHECK_LAYER_PATCHED(AOTC_NPU_REF_ERR_PARAMETER, opcodes[k], npu_put32((uint8_t*)f.regions[0].base + 8, 63));
    }
  }
  /* ADD and MUL. */
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, (f.second_is_elementwise = 1, f.second.left_shift = 23));
  CHECK_FAULT(AOTC_NPU_REF_OK, (f.second_is_elementwise = 1, f.second.left_shift = 22));
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, (f.second_is_elementwise = 1, f.second.input1_multiplier = -1));
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, (f.second_is_elementwise = 1, f.second.input2_shift = 32));
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, (f.second_is_elementwise = 1, f.second.output_shift = -32));
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, (f.second_is_elementwise = 1, f.second.input2_offset = 257));
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, (f.second_is_elementwise = 1, f.second.opcode = AOTC_NPU_REF_OP_MUL,
                                           f.second.output_multiplier = INT32_MIN));
  CHECK_FAULT(AOTC_NPU_REF_ERR_PARAMETER, (f.second_is_elementwise = 1, f.second.opcode = AOTC_NPU_REF_OP_MUL,
                                           f.second.act_min = 5, f.second.act_max = 4));
}

/* ---- Streams of every opcode: truncations and field mutations ---------------------- */

/* The fixture's ADD, then one command of each other opcode, reading region 1 (and the
 * ADD's output) and writing disjoint parts of regions 2 and 3:
 *   conv [1,5,5,3] -> r3@0 (100 bytes), records at r0@0 (4 x 40)
 *   depthwise 3x3 /2 -> [1,2,2,6] r2@16 (24), records at r0@160 (6 x 24)
 *   fully connected 3 x 25 -> 3 x 4 r2@40 (12), records at r0@304 (4 x 40)
 *   avg pool 3x3 "same" -> r3@100 (75), max pool -> r3@175 (75)
 *   MUL of r1@128 and the ADD's output r2@0 -> r2@48 (16).
 * With `even`, the conv, depthwise and fully connected layers are their _EVEN twins. */
static void build_every_opcode(fixture* f, int even) {
  static const uint32_t params_at[5] = {0, 160, 304, 0, 0};
  static const uint32_t out_region[5] = {3, 2, 2, 3, 3}, out_at[5] = {0, 16, 40, 100, 175};
  npu_elementwise mul = valid_elementwise(AOTC_NPU_REF_OP_MUL, at(1, 128), at(2, 0), at(2, 48), 16);
  uint32_t opcode;
  npu_stream_begin(&f->s, f->region_count);
  npu_add_elementwise(&f->s, &f->first);
  for (opcode = AOTC_NPU_REF_OP_CONV2D; opcode <= AOTC_NPU_REF_OP_MAX_POOL; ++opcode) {
    npu_layer l = valid_layer(even ? even_twin(opcode) : opcode);
    l.params.offset = params_at[opcode - 1];
    l.output = at(out_region[opcode - 1], out_at[opcode - 1]);
    if (opcode == AOTC_NPU_REF_OP_DEPTHWISE_CONV2D) {
      l.oh = l.ow = 2, l.sh = l.sw = 2, l.pad_top = l.pad_left = 0;
    }
    pack_valid_records(&l, (uint8_t*)f->regions[0].base + l.params.offset, PARAMS_BYTES - l.params.offset);
    npu_add_layer(&f->s, &l);
  }
  npu_add_elementwise(&f->s, &mul);
}

static int is_status(int32_t status) {
  return status <= AOTC_NPU_REF_OK && status >= AOTC_NPU_REF_ERR_PARAMETER;
}

/* Every length short of a valid stream's: the stream copied into a block of exactly
 * that length (AddressSanitizer sees any read past it). */
static void test_truncations(int even) {
  fixture f;
  size_t length;
  fixture_init(&f);
  build_every_opcode(&f, even);
  CHECK_FIXTURE(AOTC_NPU_REF_OK, &f);
  for (length = 0; length < f.s.size; ++length) {
    uint8_t* copy = (uint8_t*)malloc(length == 0 ? 1 : length);
    if (copy == NULL) abort();
    memcpy(copy, f.s.bytes, length);
    CHECK_JOB(AOTC_NPU_REF_ERR_SIZE, copy, length, f.regions, f.region_count);
    /* With the header's size word agreeing, a cut past the header is a truncation. */
    if (length >= 4u * AOTC_NPU_REF_HEADER_WORDS && length % 4 == 0) {
      npu_put32(copy + 8, (uint32_t)length);
      CHECK_JOB(AOTC_NPU_REF_ERR_TRUNCATED, copy, length, f.regions, f.region_count);
    }
    free(copy);
  }
  npu_test_free_all();
}

/* Every word, header included, set to 0, 0xFFFFFFFF and 0x80000000 in turn: each result
 * is OK or a status, the same from validate as from execute, and a rejected job writes
 * nothing. (Under the sanitizers, every run is also free of memory errors and UB.) */
static void test_field_mutations(int even) {
  static const uint32_t values[3] = {0, 0xFFFFFFFFu, 0x80000000u};
  fixture f;
  size_t word, v, rejected = 0, total = 0;
  fixture_init(&f);
  build_every_opcode(&f, even);
  for (word = 0; word < f.s.size / 4; ++word) {
    const uint32_t original = npu_get32(f.s.bytes + 4 * word);
    for (v = 0; v < 3; ++v) {
      int32_t validated, executed;
      npu_put32(f.s.bytes + 4 * word, values[v]);
      npu_fill_canaries(f.regions, f.region_count);
      validated = aotc_npu_ref_validate(f.s.bytes, f.s.size, f.regions, f.region_count);
      executed = aotc_npu_ref_execute(f.s.bytes, f.s.size, f.regions, f.region_count);
      CHECK(is_status(executed));
      CHECK_EQ_INT(validated, executed);
      if (executed != AOTC_NPU_REF_OK) {
        CHECK_EQ_INT(0, npu_canaries_changed(f.regions, f.region_count));
        ++rejected;
      }
      ++total;
    }
    npu_put32(f.s.bytes + 4 * word, original);
  }
  /* Most words reject at least two of the three values (0 is valid in some). */
  CHECK(rejected > total / 2);
  CHECK_FIXTURE(AOTC_NPU_REF_OK, &f);
  npu_test_free_all();
}

/* ---- Counters and the driver interface ------------------------------------------------- */

static void check_counters(uint64_t jobs, uint64_t commands, uint64_t macs, uint64_t read, uint64_t written) {
  aotc_npu_ref_counters c;
  aotc_npu_ref_get_counters(&c);
  CHECK_EQ_INT(jobs, c.jobs);
  CHECK_EQ_INT(commands, c.commands);
  CHECK_EQ_INT(macs, c.macs);
  CHECK_EQ_INT(read, c.bytes_read);
  CHECK_EQ_INT(written, c.bytes_written);
}

static void test_counters(void) {
  fixture f;
  /* The fixture: ADD of 16 elements (reads 2 x 16, writes 16), then a conv [1,5,5,3] ->
   * [1,5,5,4] with 3x3 windows: 100 outputs x 27 taps; reads 75 input bytes and 4
   * records of 12 + 28 bytes; writes 100. */
  const uint64_t macs = 100 * 27, read = 32 + 75 + 4 * 40, written = 16 + 100;
  aotc_npu_ref_reset_counters();
  check_counters(0, 0, 0, 0, 0);
  fixture_init(&f);
  fixture_build(&f);
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_validate(f.s.bytes, f.s.size, f.regions, f.region_count));
  check_counters(0, 0, 0, 0, 0); /* validation alone runs nothing */
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_execute(f.s.bytes, f.s.size, f.regions, f.region_count));
  check_counters(1, 2, macs, read, written);
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_execute(f.s.bytes, f.s.size, f.regions, f.region_count));
  check_counters(2, 4, 2 * macs, 2 * read, 2 * written);
  /* A rejected job counts nothing, though its first command is valid. */
  patch_field(&f, AOTC_NPU_REF_F_CONV_ACT_MIN, 1000);
  CHECK(aotc_npu_ref_execute(f.s.bytes, f.s.size, f.regions, f.region_count) != AOTC_NPU_REF_OK);
  check_counters(2, 4, 2 * macs, 2 * read, 2 * written);
  aotc_npu_ref_get_counters(NULL); /* no crash */
  npu_test_free_all();
  /* Every opcode: depthwise [1,5,5,3] -> [1,2,2,6] 3x3 (24 x 9 taps, records 6 x 24);
   * fully connected 3 x 25 -> 3 x 4 (12 x 25, records 4 x 40); pools [1,5,5,3] read 75,
   * write 75 and count no MACs; MUL reads 2 x 16, writes 16. */
  aotc_npu_ref_reset_counters();
  fixture_init(&f);
  build_every_opcode(&f, 0);
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_execute(f.s.bytes, f.s.size, f.regions, f.region_count));
  check_counters(1, 7, macs + 24 * 9 + 12 * 25, read + (75 + 144) + (75 + 160) + 75 + 75 + 32,
                 written + 24 + 12 + 75 + 75 + 16);
  npu_test_free_all();
  /* The _EVEN twins count as CONV2D, DEPTHWISE_CONV2D and FULLY_CONNECTED do. */
  aotc_npu_ref_reset_counters();
  fixture_init(&f);
  build_every_opcode(&f, 1);
  CHECK_EQ_INT(AOTC_NPU_REF_OK, aotc_npu_ref_execute(f.s.bytes, f.s.size, f.regions, f.region_count));
  check_counters(1, 7, macs + 24 * 9 + 12 * 25, read + (75 + 144) + (75 + 160) + 75 + 75 + 32,
                 written + 24 + 12 + 75 + 75 + 16);
  npu_test_free_all();
}

static void test_driver_interface(void) {
  fixture f;
  aotc_npu_job job;
  CHECK(aotc_npu_start(NULL) != 0);
  CHECK(aotc_npu_wait(NULL) != 0);
  fixture_init(&f);
  fixture_build(&f);
  CHECK_EQ_INT(0, aotc_npu_invoke(f.s.bytes, (uint32_t)f.s.size, f.regions, f.region_count));
  memset(&job, 0, sizeof job);
  job.stream = f.s.bytes, job.stream_size = (uint32_t)f.s.size, job.regions = f.regions;
  job.region_count = f.region_count, job.status = 12345;
  CHECK_EQ_INT(0, aotc_npu_start(&job));
  CHECK_EQ_INT(0, job.status);
  CHECK_EQ_INT(0, aotc_npu_wait(&job));
  /* A failure: nonzero from start, kept in job.status, returned again by wait. */
  f.regions[3].flags = AOTC_NPU_REGION_READ_ONLY;
  npu_fill_canaries(f.regions, f.region_count);
  CHECK_EQ_INT(AOTC_NPU_REF_ERR_READ_ONLY, aotc_npu_start(&job));
  CHECK_EQ_INT(AOTC_NPU_REF_ERR_READ_ONLY, job.status);
  CHECK_EQ_INT(AOTC_NPU_REF_ERR_READ_ONLY, aotc_npu_wait(&job));
  CHECK_EQ_INT(AOTC_NPU_REF_ERR_READ_ONLY, aotc_npu_invoke(f.s.bytes, (uint32_t)f.s.size, f.regions, f.region_count));
  CHECK_EQ_INT(0, npu_canaries_changed(f.regions, f.region_count));
  npu_test_free_all();
}

void npu_fault_tests(void) {
  test_status_strings();
  test_valid_fixtures();
  test_null();
  test_header_faults();
  test_versions();
  test_overlap_below_input();
  test_command_word_faults();
  test_region_faults();
  test_shape_faults();
  test_large_elementwise_count();
  test_overflow_faults();
  test_bounds_faults();
  test_read_only_and_overlap();
  test_parameter_faults();
  test_truncations(0);
  test_truncations(1);
  test_field_mutations(0);
  test_field_mutations(1);
  test_counters();
  test_driver_interface();
}
