/* aotc_npu_ref.c: the reference NPU's driver; aotc_npu_ref.h is its specification.
 *
 * aotc_npu_ref_execute walks the stream twice: the first walk checks every command (and
 * writes nothing), the second runs them, so a fault in a later command stops the job
 * before its first byte is written. Both walks see a command through decode(): a table
 * maps each opcode's field word indices (the header's AOTC_NPU_REF_F_* constants) onto
 * one generic set of slots, so the checks and the kernels read the same field list.
 * A fully connected layer is a 1x1 convolution in those slots (its channel records are
 * laid out the same way), and the fields an opcode does not have take neutral values
 * (dimensions, kernels, strides and dilations 1, everything else 0), so most checks
 * apply to every opcode unchanged.
 *
 * Freestanding C99 without libc, like the rest of the runtime. Stream words and channel
 * records are read byte by byte (no alignment is assumed of either). After validation
 * every operand's byte size fits in 32 bits and lies inside its region, so the kernels'
 * index arithmetic in uint32_t cannot overflow; int32 sums wrap through uint32_t. */
#include "aotc_npu_ref.h"

#include "aotc_quant.h"
#include "aotc_quant_onnx.h"

#define HEADER_BYTES (4u * AOTC_NPU_REF_HEADER_WORDS)
#define RECORD_HEADER AOTC_NPU_REF_CHANNEL_RECORD_HEADER_BYTES

/* Generic slots. Operands first, as (region, byte offset) pairs: operand k's region is
 * slot 2k. Then the dimensions and window fields (1 when an opcode has no such field),
 * then the rest (0 when absent). */
enum slot {
  S_IN1_REGION, S_IN1_AT, S_IN2_REGION, S_IN2_AT, S_PAR_REGION, S_PAR_AT, S_OUT_REGION, S_OUT_AT,
  S_N, S_H, S_W, S_C, S_OUT_N, S_OUT_H, S_OUT_W, S_OUT_C,
  S_KERNEL_H, S_KERNEL_W, S_STRIDE_H, S_STRIDE_W, S_DILATION_H, S_DILATION_W,
  S_PAD_TOP, S_PAD_LEFT,
  S_IN1_OFFSET, S_IN2_OFFSET, S_OUT_OFFSET, S_ACT_MIN, S_ACT_MAX, S_LEFT_SHIFT,
  S_IN1_MULTIPLIER, S_IN1_SHIFT, S_IN2_MULTIPLIER, S_IN2_SHIFT, S_OUT_MULTIPLIER, S_OUT_SHIFT,
  S_COUNT
};
enum operand { OPD_IN1, OPD_IN2, OPD_PAR, OPD_OUT, OPD_COUNT };

/* Each layout: the word index of every slot's field, 0 for none (word 0 is the opcode). */
enum layout { L_CONV, L_FC, L_POOL, L_ADD, L_MUL, L_COUNT };
static const uint8_t kLayouts[L_COUNT][S_COUNT] = {
    [L_CONV] = {[S_IN1_REGION] = AOTC_NPU_REF_F_CONV_INPUT_REGION, [S_IN1_AT] = AOTC_NPU_REF_F_CONV_INPUT_OFFSET,
                [S_N] = AOTC_NPU_REF_F_CONV_INPUT_N, [S_H] = AOTC_NPU_REF_F_CONV_INPUT_H,
                [S_W] = AOTC_NPU_REF_F_CONV_INPUT_W, [S_C] = AOTC_NPU_REF_F_CONV_INPUT_C,
                [S_OUT_REGION] = AOTC_NPU_REF_F_CONV_OUTPUT_REGION, [S_OUT_AT] = AOTC_NPU_REF_F_CONV_OUTPUT_OFFSET,
                [S_OUT_N] = AOTC_NPU_REF_F_CONV_OUTPUT_N, [S_OUT_H] = AOTC_NPU_REF_F_CONV_OUTPUT_H,
                [S_OUT_W] = AOTC_NPU_REF_F_CONV_OUTPUT_W, [S_OUT_C] = AOTC_NPU_REF_F_CONV_OUTPUT_C,
                [S_PAR_REGION] = AOTC_NPU_REF_F_CONV_PARAMS_REGION, [S_PAR_AT] = AOTC_NPU_REF_F_CONV_PARAMS_OFFSET,
                [S_KERNEL_H] = AOTC_NPU_REF_F_CONV_KERNEL_H, [S_KERNEL_W] = AOTC_NPU_REF_F_CONV_KERNEL_W,
                [S_STRIDE_H] = AOTC_NPU_REF_F_CONV_STRIDE_H, [S_STRIDE_W] = AOTC_NPU_REF_F_CONV_STRIDE_W,
                [S_DILATION_H] = AOTC_NPU_REF_F_CONV_DILATION_H, [S_DILATION_W] = AOTC_NPU_REF_F_CONV_DILATION_W,
                [S_PAD_TOP] = AOTC_NPU_REF_F_CONV_PAD_TOP, [S_PAD_LEFT] = AOTC_NPU_REF_F_CONV_PAD_LEFT,
                [S_IN1_OFFSET] = AOTC_NPU_REF_F_CONV_INPUT_OFFSET_VALUE,
                [S_OUT_OFFSET] = AOTC_NPU_REF_F_CONV_OUTPUT_OFFSET_VALUE,
                [S_ACT_MIN] = AOTC_NPU_REF_F_CONV_ACT_MIN, [S_ACT_MAX] = AOTC_NPU_REF_F_CONV_ACT_MAX},
    /* [batches, in_features] -> [batches, units]: N = batches, C = in_features, OC = units. */
    [L_FC] = {[S_IN1_REGION] = AOTC_NPU_REF_F_FC_INPUT_REGION, [S_IN1_AT] = AOTC_NPU_REF_F_FC_INPUT_OFFSET,
              [S_N] = AOTC_NPU_REF_F_FC_BATCHES, [S_C] = AOTC_NPU_REF_F_FC_IN_FEATURES,
              [S_OUT_REGION] = AOTC_NPU_REF_F_FC_OUTPUT_REGION, [S_OUT_AT] = AOTC_NPU_REF_F_FC_OUTPUT_OFFSET,
              [S_OUT_N] = AOTC_NPU_REF_F_FC_BATCHES, [S_OUT_C] = AOTC_NPU_REF_F_FC_UNITS,
              [S_PAR_REGION] = AOTC_NPU_REF_F_FC_PARAMS_REGION, [S_PAR_AT] = AOTC_NPU_REF_F_FC_PARAMS_OFFSET,
              [S_IN1_OFFSET] = AOTC_NPU_REF_F_FC_INPUT_OFFSET_VALUE,
              [S_OUT_OFFSET] = AOTC_NPU_REF_F_FC_OUTPUT_OFFSET_VALUE,
              [S_ACT_MIN] = AOTC_NPU_REF_F_FC_ACT_MIN, [S_ACT_MAX] = AOTC_NPU_REF_F_FC_ACT_MAX},
    /* The output shares the input's N and C. */
    [L_POOL] = {[S_IN1_REGION] = AOTC_NPU_REF_F_POOL_INPUT_REGION, [S_IN1_AT] = AOTC_NPU_REF_F_POOL_INPUT_OFFSET,
                [S_N] = AOTC_NPU_REF_F_POOL_INPUT_N, [S_H] = AOTC_NPU_REF_F_POOL_INPUT_H,
                [S_W] = AOTC_NPU_REF_F_POOL_INPUT_W, [S_C] = AOTC_NPU_REF_F_POOL_INPUT_C,
                [S_OUT_REGION] = AOTC_NPU_REF_F_POOL_OUTPUT_REGION, [S_OUT_AT] = AOTC_NPU_REF_F_POOL_OUTPUT_OFFSET,
                [S_OUT_N] = AOTC_NPU_REF_F_POOL_INPUT_N, [S_OUT_H] = AOTC_NPU_REF_F_POOL_OUTPUT_H,
                [S_OUT_W] = AOTC_NPU_REF_F_POOL_OUTPUT_W, [S_OUT_C] = AOTC_NPU_REF_F_POOL_INPUT_C,
                [S_KERNEL_H] = AOTC_NPU_REF_F_POOL_KERNEL_H, [S_KERNEL_W] = AOTC_NPU_REF_F_POOL_KERNEL_W,
                [S_STRIDE_H] = AOTC_NPU_REF_F_POOL_STRIDE_H, [S_STRIDE_W] = AOTC_NPU_REF_F_POOL_STRIDE_W,
                [S_PAD_TOP] = AOTC_NPU_REF_F_POOL_PAD_TOP, [S_PAD_LEFT] = AOTC_NPU_REF_F_POOL_PAD_LEFT,
                [S_ACT_MIN] = AOTC_NPU_REF_F_POOL_ACT_MIN, [S_ACT_MAX] = AOTC_NPU_REF_F_POOL_ACT_MAX},
    /* `count` elements: C = OC = count. */
    [L_ADD] = {[S_IN1_REGION] = AOTC_NPU_REF_F_ADD_INPUT1_REGION, [S_IN1_AT] = AOTC_NPU_REF_F_ADD_INPUT1_OFFSET,
               [S_IN2_REGION] = AOTC_NPU_REF_F_ADD_INPUT2_REGION, [S_IN2_AT] = AOTC_NPU_REF_F_ADD_INPUT2_OFFSET,
               [S_OUT_REGION] = AOTC_NPU_REF_F_ADD_OUTPUT_REGION, [S_OUT_AT] = AOTC_NPU_REF_F_ADD_OUTPUT_OFFSET,
               [S_C] = AOTC_NPU_REF_F_ADD_COUNT, [S_OUT_C] = AOTC_NPU_REF_F_ADD_COUNT,
               [S_IN1_OFFSET] = AOTC_NPU_REF_F_ADD_INPUT1_OFFSET_VALUE,
               [S_IN2_OFFSET] = AOTC_NPU_REF_F_ADD_INPUT2_OFFSET_VALUE,
               [S_LEFT_SHIFT] = AOTC_NPU_REF_F_ADD_LEFT_SHIFT,
               [S_IN1_MULTIPLIER] = AOTC_NPU_REF_F_ADD_INPUT1_MULTIPLIER, [S_IN1_SHIFT] = AOTC_NPU_REF_F_ADD_INPUT1_SHIFT,
               [S_IN2_MULTIPLIER] = AOTC_NPU_REF_F_ADD_INPUT2_MULTIPLIER, [S_IN2_SHIFT] = AOTC_NPU_REF_F_ADD_INPUT2_SHIFT,
               [S_OUT_MULTIPLIER] = AOTC_NPU_REF_F_ADD_OUTPUT_MULTIPLIER, [S_OUT_SHIFT] = AOTC_NPU_REF_F_ADD_OUTPUT_SHIFT,
               [S_OUT_OFFSET] = AOTC_NPU_REF_F_ADD_OUTPUT_OFFSET_VALUE,
               [S_ACT_MIN] = AOTC_NPU_REF_F_ADD_ACT_MIN, [S_ACT_MAX] = AOTC_NPU_REF_F_ADD_ACT_MAX},
    [L_MUL] = {[S_IN1_REGION] = AOTC_NPU_REF_F_MUL_INPUT1_REGION, [S_IN1_AT] = AOTC_NPU_REF_F_MUL_INPUT1_OFFSET,
               [S_IN2_REGION] = AOTC_NPU_REF_F_MUL_INPUT2_REGION, [S_IN2_AT] = AOTC_NPU_REF_F_MUL_INPUT2_OFFSET,
               [S_OUT_REGION] = AOTC_NPU_REF_F_MUL_OUTPUT_REGION, [S_OUT_AT] = AOTC_NPU_REF_F_MUL_OUTPUT_OFFSET,
               [S_C] = AOTC_NPU_REF_F_MUL_COUNT, [S_OUT_C] = AOTC_NPU_REF_F_MUL_COUNT,
               [S_IN1_OFFSET] = AOTC_NPU_REF_F_MUL_INPUT1_OFFSET_VALUE,
               [S_IN2_OFFSET] = AOTC_NPU_REF_F_MUL_INPUT2_OFFSET_VALUE,
               [S_OUT_MULTIPLIER] = AOTC_NPU_REF_F_MUL_OUTPUT_MULTIPLIER, [S_OUT_SHIFT] = AOTC_NPU_REF_F_MUL_OUTPUT_SHIFT,
               [S_OUT_OFFSET] = AOTC_NPU_REF_F_MUL_OUTPUT_OFFSET_VALUE,
               [S_ACT_MIN] = AOTC_NPU_REF_F_MUL_ACT_MIN, [S_ACT_MAX] = AOTC_NPU_REF_F_MUL_ACT_MAX},
};

/* How a command turns an int32 sum into its output scale: TFLite's fixed-point multiplier
 * (every opcode of 1.0) or ONNX's single rounding, ties to even (the _EVEN opcodes of
 * 1.1), each with the range of shifts the validator accepts and the kernels bound to. */
typedef int32_t (*requantizer)(int32_t acc, int32_t multiplier, int32_t shift);
static int32_t requantize_tflite(int32_t acc, int32_t multiplier, int32_t shift) {
  return aotc_mul_by_quantized_multiplier(acc, multiplier, shift);
}
static int32_t requantize_even(int32_t acc, int32_t multiplier, int32_t shift) {
  return aotc_onnx_requantize(acc, multiplier, shift);
}
enum rounding { R_TFLITE, R_EVEN, R_COUNT };
static const struct {
  int32_t min_shift, max_shift;
  requantizer requantize;
} kRoundings[R_COUNT] = {
    [R_TFLITE] = {-AOTC_NPU_REF_MAX_SHIFT, AOTC_NPU_REF_MAX_SHIFT, requantize_tflite},
    [R_EVEN] = {0, AOTC_NPU_REF_MAX_EVEN_SHIFT, requantize_even},
};

/* Per opcode: its word count and layout, the minor version that introduced it, whether it
 * is a depthwise convolution, and its rounding (words 0: not an opcode). */
static const struct {
  uint8_t words;
  uint8_t layout;
  uint8_t minor;
  uint8_t depthwise;
  uint8_t rounding;
} kOps[] = {{0, 0, 0, 0, R_TFLITE},
            {AOTC_NPU_REF_CONV_WORDS, L_CONV, 0, 0, R_TFLITE},
            {AOTC_NPU_REF_CONV_WORDS, L_CONV, 0, 1, R_TFLITE},
            {AOTC_NPU_REF_FC_WORDS, L_FC, 0, 0, R_TFLITE},
            {AOTC_NPU_REF_POOL_WORDS, L_POOL, 0, 0, R_TFLITE},
            {AOTC_NPU_REF_POOL_WORDS, L_POOL, 0, 0, R_TFLITE},
            {AOTC_NPU_REF_ADD_WORDS, L_ADD, 0, 0, R_TFLITE},
            {AOTC_NPU_REF_MUL_WORDS, L_MUL, 0, 0, R_TFLITE},
            {AOTC_NPU_REF_CONV_WORDS, L_CONV, 1, 0, R_EVEN},
            {AOTC_NPU_REF_CONV_WORDS, L_CONV, 1, 1, R_EVEN},
            {AOTC_NPU_REF_FC_WORDS, L_FC, 1, 0, R_EVEN}};
#define OPCODE_LIMIT (sizeof(kOps) / sizeof(kOps[0]))

typedef struct command {
  uint32_t opcode;
  uint32_t f[S_COUNT];
} command;

/* A command's sizes, from its decoded shape: each operand's bytes (0: no such operand),
 * and for the opcodes with channel records (is_conv) the taps per output element and
 * the bytes of a channel record. Up to 2^49 before validation has bounded them. */
typedef struct extent {
  uint64_t bytes[OPD_COUNT];
  uint64_t out_elements;
  uint64_t taps;
  uint64_t record;
} extent;

static aotc_npu_ref_counters g_counters;

static uint32_t load32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Two's complement, without C's implementation-defined unsigned-to-signed conversion. */
static int32_t to_i32(uint32_t u) {
  return u <= 0x7FFFFFFFu ? (int32_t)u : (int32_t)(u - 0x80000000u) + INT32_MIN;
}

/* CONV2D, DEPTHWISE_CONV2D, FULLY_CONNECTED and their _EVEN twins: the opcodes with
 * channel records. */
static int is_conv(uint32_t opcode) {
  return kOps[opcode].layout == L_CONV || kOps[opcode].layout == L_FC;
}
static int is_depthwise(uint32_t opcode) {
  return kOps[opcode].depthwise;
}
static int is_pool(uint32_t opcode) {
  return opcode == AOTC_NPU_REF_OP_AVG_POOL || opcode == AOTC_NPU_REF_OP_MAX_POOL;
}
static int is_elementwise(uint32_t opcode) {
  return opcode == AOTC_NPU_REF_OP_ADD || opcode == AOTC_NPU_REF_OP_MUL;
}

/* `at` points at the command's first word, whose opcode and word count are checked. */
static void decode(const uint8_t* at, command* cmd) {
  const uint8_t* layout;
  int s;
  cmd->opcode = load32(at) & 0xFFFFu;
  layout = kLayouts[kOps[cmd->opcode].layout];
  for (s = 0; s < S_COUNT; ++s) {
    uint32_t absent = (s >= S_N && s < S_PAD_TOP) ? 1u : 0u;
    cmd->f[s] = layout[s] != 0 ? load32(at + 4u * layout[s]) : absent;
  }
}

static int32_t sfield(const command* cmd, int slot) {
  return to_i32(cmd->f[slot]);
}

static int has_operand(const command* cmd, int operand) {
  return kLayouts[kOps[cmd->opcode].layout][2 * operand] != 0;
}

static void measure(const command* cmd, extent* e) {
  const uint32_t* f = cmd->f;
  e->bytes[OPD_IN1] = (uint64_t)f[S_N] * f[S_H] * f[S_W] * f[S_C];
  e->out_elements = (uint64_t)f[S_OUT_N] * f[S_OUT_H] * f[S_OUT_W] * f[S_OUT_C];
  e->bytes[OPD_OUT] = e->out_elements;
  e->bytes[OPD_IN2] = is_elementwise(cmd->opcode) ? e->bytes[OPD_IN1] : 0;
  e->taps = 0;
  e->record = 0;
  e->bytes[OPD_PAR] = 0;
  if (is_conv(cmd->opcode)) {
    uint64_t channels = is_depthwise(cmd->opcode) ? 1u : f[S_C];
    e->taps = (uint64_t)f[S_KERNEL_H] * f[S_KERNEL_W] * channels;
    e->record = RECORD_HEADER + ((e->taps + 3u) & ~(uint64_t)3u);
    e->bytes[OPD_PAR] = e->record * f[S_OUT_C];
  }
}

/* ---- Validation -------------------------------------------------------------------- */

static int in_range(int32_t v, int32_t lo, int32_t hi) {
  return v >= lo && v <= hi;
}

/* Every window of `out` positions, `stride` apart from -pad, `kernel` taps long, holds
 * at least one of the `in` positions: the first one ends past 0, the last starts before
 * `in` (windows move forward, so the others lie between). */
static int windows_overlap(uint32_t in, uint32_t out, uint32_t kernel, uint32_t stride, uint32_t pad) {
  return kernel > pad && (uint64_t)(out - 1u) * stride < (uint64_t)in + pad;
}

static int32_t check_shape(const command* cmd) {
  const uint32_t* f = cmd->f;
  int s;
  for (s = S_N; s <= S_OUT_C; ++s) {
    /* ADD's and MUL's count has no limit but its regions. */
    int unbounded = is_elementwise(cmd->opcode) && (s == S_C || s == S_OUT_C);
    if (f[s] == 0 || (f[s] > AOTC_NPU_REF_MAX_DIM && !unbounded)) return AOTC_NPU_REF_ERR_SHAPE;
  }
  for (s = S_KERNEL_H; s <= S_PAD_LEFT; ++s) {
    if ((f[s] == 0 && s < S_PAD_TOP) || f[s] > AOTC_NPU_REF_MAX_WINDOW) return AOTC_NPU_REF_ERR_SHAPE;
  }
  if (f[S_OUT_N] != f[S_N]) return AOTC_NPU_REF_ERR_SHAPE;
  if (is_depthwise(cmd->opcode) && f[S_OUT_C] % f[S_C] != 0) return AOTC_NPU_REF_ERR_SHAPE;
  if (is_pool(cmd->opcode) &&
      (!windows_overlap(f[S_H], f[S_OUT_H], f[S_KERNEL_H], f[S_STRIDE_H], f[S_PAD_TOP]) ||
       !windows_overlap(f[S_W], f[S_OUT_W], f[S_KERNEL_W], f[S_STRIDE_W], f[S_PAD_LEFT]))) {
    return AOTC_NPU_REF_ERR_SHAPE;
  }
  return AOTC_NPU_REF_OK;
}

static uintptr_t address(const aotc_npu_region* regions, const command* cmd, int operand) {
  return (uintptr_t)regions[cmd->f[2 * operand]].base + cmd->f[2 * operand + 1];
}

/* The least number of bytes by which the output of a windowed command of one batch may
 * begin below its input and run on over it (aotc_npu_ref.h, Validation): the largest
 * end of an output pixel, (p + 1) * OUT_C, less the first input byte that the windows of
 * pixels p, p + 1, ... read, found from the last pixel back. */
static uint64_t overlap_distance(const command* cmd) {
  const uint32_t* f = cmd->f;
  uint64_t p = (uint64_t)f[S_OUT_H] * f[S_OUT_W], need = UINT64_MAX, distance = 0;
  while (p-- > 0) {
    const int64_t y = (int64_t)(p / f[S_OUT_W]) * f[S_STRIDE_H] - f[S_PAD_TOP];
    const int64_t x = (int64_t)(p % f[S_OUT_W]) * f[S_STRIDE_W] - f[S_PAD_LEFT];
    const uint64_t row = y < 0 ? 0u : (uint64_t)y >= f[S_H] ? f[S_H] - 1u : (uint64_t)y;
    const uint64_t column = x < 0 ? 0u : (uint64_t)x >= f[S_W] ? f[S_W] - 1u : (uint64_t)x;
    const uint64_t first = (row * f[S_W] + column) * f[S_C], end = (p + 1u) * f[S_OUT_C];
    if (first < need) need = first;
    if (end > need && end - need > distance) distance = end - need;
  }
  return distance;
}

/* Whether a command of a stream of minor version `minor` may write its output `below`
 * bytes below its input and over it (aotc_npu_ref.h, Validation). */
static int may_overlap_input(const command* cmd, uint32_t minor, uint64_t below) {
  const int windowed = kOps[cmd->opcode].layout == L_CONV || is_pool(cmd->opcode);
  return minor >= 2u && windowed && cmd->f[S_N] == 1u && below >= overlap_distance(cmd);
}

/* Bounds, read-only and overlap; every operand's region index is below the table's size. */
static int32_t check_operands(const command* cmd, const extent* e, const aotc_npu_region* regions, uint32_t minor) {
  int k;
  uintptr_t out;
  for (k = 0; k < OPD_COUNT; ++k) {
    const aotc_npu_region* r;
    if (!has_operand(cmd, k)) continue;
    r = &regions[cmd->f[2 * k]];
    if ((uint64_t)cmd->f[2 * k + 1] + e->bytes[k] > r->size) return AOTC_NPU_REF_ERR_OUT_OF_BOUNDS;
  }
  if (regions[cmd->f[S_OUT_REGION]].flags & AOTC_NPU_REGION_READ_ONLY) return AOTC_NPU_REF_ERR_READ_ONLY;
  /* By address, not region index: two entries of the table may describe the same memory. */
  out = address(regions, cmd, OPD_OUT);
  for (k = 0; k < OPD_OUT; ++k) {
    uintptr_t in;
    if (!has_operand(cmd, k)) continue;
    in = address(regions, cmd, k);
    if (in == out && e->bytes[k] == e->bytes[OPD_OUT] && is_elementwise(cmd->opcode)) continue;
    if (k == OPD_IN1 && out <= in && may_overlap_input(cmd, minor, (uint64_t)(in - out))) continue;
    if (in < out + e->bytes[OPD_OUT] && out < in + e->bytes[k]) return AOTC_NPU_REF_ERR_OVERLAP;
  }
  return AOTC_NPU_REF_OK;
}

static int32_t check_parameters(const command* cmd, const extent* e, const aotc_npu_region* regions) {
  const int32_t act_min = sfield(cmd, S_ACT_MIN), act_max = sfield(cmd, S_ACT_MAX);
  const int32_t max_shift = AOTC_NPU_REF_MAX_SHIFT;
  int s;
  if (!in_range(act_min, -128, 127) || !in_range(act_max, act_min, 127)) return AOTC_NPU_REF_ERR_PARAMETER;
  for (s = S_IN1_OFFSET; s <= S_OUT_OFFSET; ++s) {
    if (!in_range(sfield(cmd, s), -AOTC_NPU_REF_MAX_OFFSET, AOTC_NPU_REF_MAX_OFFSET)) return AOTC_NPU_REF_ERR_PARAMETER;
  }
  if (cmd->f[S_LEFT_SHIFT] > AOTC_NPU_REF_MAX_LEFT_SHIFT) return AOTC_NPU_REF_ERR_PARAMETER;
  for (s = S_IN1_MULTIPLIER; s <= S_OUT_SHIFT; s += 2) {
    if (sfield(cmd, s) < 0 || !in_range(sfield(cmd, s + 1), -max_shift, max_shift)) return AOTC_NPU_REF_ERR_PARAMETER;
  }
  if (is_conv(cmd->opcode)) {
    const uint8_t* record = (const uint8_t*)regions[cmd->f[S_PAR_REGION]].base + cmd->f[S_PAR_AT];
    const int32_t min_record_shift = kRoundings[kOps[cmd->opcode].rounding].min_shift;
    const int32_t max_record_shift = kRoundings[kOps[cmd->opcode].rounding].max_shift;
    uint32_t oc;
    for (oc = 0; oc < cmd->f[S_OUT_C]; ++oc, record += e->record) {
      if (to_i32(load32(record + 4)) < 0 ||
          !in_range(to_i32(load32(record + 8)), min_record_shift, max_record_shift)) {
        return AOTC_NPU_REF_ERR_PARAMETER;
      }
    }
  }
  return AOTC_NPU_REF_OK;
}

static int32_t check_command(const command* cmd, const aotc_npu_region* regions, size_t region_count, uint32_t minor) {
  extent e;
  int32_t status;
  int k;
  for (k = 0; k < OPD_COUNT; ++k) {
    if (has_operand(cmd, k) && cmd->f[2 * k] >= region_count) return AOTC_NPU_REF_ERR_REGION;
  }
  status = check_shape(cmd);
  if (status != AOTC_NPU_REF_OK) return status;
  measure(cmd, &e);
  /* Region sizes are 32-bit: no operand of more bytes can fit. (One channel record, at
   * most 12 + 255 * 255 * 65535 + 3 bytes, always does.) */
  for (k = 0; k < OPD_COUNT; ++k) {
    if (e.bytes[k] > UINT32_MAX) return AOTC_NPU_REF_ERR_OVERFLOW;
  }
  status = check_operands(cmd, &e, regions, minor);
  if (status != AOTC_NPU_REF_OK) return status;
  return check_parameters(cmd, &e, regions);
}

static int32_t check_header(const uint8_t* stream, size_t size, const aotc_npu_region* regions, size_t region_count) {
  uint32_t version;
  size_t i;
  if (stream == NULL || (regions == NULL && region_count > 0)) return AOTC_NPU_REF_ERR_NULL;
  if (size < HEADER_BYTES || size % 4u != 0) return AOTC_NPU_REF_ERR_SIZE;
  if (load32(stream) != AOTC_NPU_REF_MAGIC) return AOTC_NPU_REF_ERR_MAGIC;
  version = load32(stream + 4);
  if ((version >> 16) != AOTC_NPU_REF_VERSION_MAJOR || (version & 0xFFFFu) > AOTC_NPU_REF_VERSION_MINOR ||
      load32(stream + 20) != 0) {
    return AOTC_NPU_REF_ERR_VERSION;
  }
  if (load32(stream + 8) != size) return AOTC_NPU_REF_ERR_SIZE;
  if (load32(stream + 16) != region_count) return AOTC_NPU_REF_ERR_REGION;
  for (i = 0; i < region_count; ++i) {
    const void* base = regions[i].base;
    if (regions[i].size > 0 && (base == NULL || (uintptr_t)base % AOTC_NPU_REF_ALIGNMENT != 0)) {
      return AOTC_NPU_REF_ERR_REGION;
    }
  }
  return AOTC_NPU_REF_OK;
}

/* ---- Kernels (after validation) ----------------------------------------------------- */

static int8_t clamp_output(int64_t v, const command* cmd) {
  const int32_t lo = sfield(cmd, S_ACT_MIN), hi = sfield(cmd, S_ACT_MAX);
  return (int8_t)(v < lo ? lo : v > hi ? hi : v);
}

/* requantize(acc) + output_offset, clamped, with the command's rounding; acc is the
 * int32 sum's bits. A convolution's per-channel shift is read from its parameter region
 * while the job runs, and an earlier command of the same job may have written that region
 * after validation (fuzz_npu_stream found a shift of -222 so): it is bounded to the
 * rounding's validated range here, as a hardware shift field is, so that any bytes give
 * defined arithmetic (and a meaningless output, which is that job's own doing). A
 * negative multiplier written so is defined arithmetic for both roundings. */
static int8_t finish(uint32_t acc, int32_t multiplier, int32_t shift, const command* cmd) {
  const int rounding = kOps[cmd->opcode].rounding;
  if (shift < kRoundings[rounding].min_shift) shift = kRoundings[rounding].min_shift;
  if (shift > kRoundings[rounding].max_shift) shift = kRoundings[rounding].max_shift;
  return clamp_output((int64_t)kRoundings[rounding].requantize(to_i32(acc), multiplier, shift) +
                          sfield(cmd, S_OUT_OFFSET),
                      cmd);
}

/* CONV2D, DEPTHWISE_CONV2D and FULLY_CONNECTED (a 1x1 CONV2D), and their _EVEN twins
 * (finish() rounds as the opcode says). */
static void run_conv(const command* cmd, const extent* e, const int8_t* in, const uint8_t* params, int8_t* out) {
  const uint32_t* f = cmd->f;
  const int depthwise = is_depthwise(cmd->opcode);
  const uint32_t depth_multiplier = f[S_OUT_C] / f[S_C];
  const uint32_t group = depthwise ? 1u : f[S_C]; /* input channels per output channel */
  const int32_t input_offset = sfield(cmd, S_IN1_OFFSET);
  const uint32_t record_bytes = (uint32_t)e->record;
  uint32_t b, oy, ox, oc, ky, kx, ic;
  for (b = 0; b < f[S_N]; ++b) {
    for (oy = 0; oy < f[S_OUT_H]; ++oy) {
      for (ox = 0; ox < f[S_OUT_W]; ++ox) {
        const int32_t y0 = (int32_t)(oy * f[S_STRIDE_H]) - (int32_t)f[S_PAD_TOP];
        const int32_t x0 = (int32_t)(ox * f[S_STRIDE_W]) - (int32_t)f[S_PAD_LEFT];
        for (oc = 0; oc < f[S_OUT_C]; ++oc) {
          const uint8_t* record = params + (size_t)oc * record_bytes;
          const int8_t* weights = (const int8_t*)(record + RECORD_HEADER);
          const uint32_t first_channel = depthwise ? oc / depth_multiplier : 0u;
          uint32_t acc = load32(record);
          for (ky = 0; ky < f[S_KERNEL_H]; ++ky) {
            const int32_t iy = y0 + (int32_t)(ky * f[S_DILATION_H]);
            if (iy < 0 || iy >= (int32_t)f[S_H]) continue;
            for (kx = 0; kx < f[S_KERNEL_W]; ++kx) {
              const int32_t ix = x0 + (int32_t)(kx * f[S_DILATION_W]);
              const int8_t* x;
              const int8_t* w;
              if (ix < 0 || ix >= (int32_t)f[S_W]) continue;
              x = in + (((size_t)b * f[S_H] + (uint32_t)iy) * f[S_W] + (uint32_t)ix) * f[S_C] + first_channel;
              w = weights + ((size_t)ky * f[S_KERNEL_W] + kx) * group;
              for (ic = 0; ic < group; ++ic) acc += (uint32_t)((x[ic] + input_offset) * w[ic]);
            }
          }
          *out++ = finish(acc, to_i32(load32(record + 4)), to_i32(load32(record + 8)), cmd);
        }
      }
    }
  }
}

/* AVG_POOL and MAX_POOL over the taps inside the input (at least one, by validation). */
static void run_pool(const command* cmd, const int8_t* in, int8_t* out) {
  const uint32_t* f = cmd->f;
  const int32_t h = (int32_t)f[S_H], w = (int32_t)f[S_W], channels = (int32_t)f[S_C];
  uint32_t b, oy, ox;
  int32_t c, y, x;
  for (b = 0; b < f[S_N]; ++b) {
    for (oy = 0; oy < f[S_OUT_H]; ++oy) {
      const int32_t y0 = (int32_t)(oy * f[S_STRIDE_H]) - (int32_t)f[S_PAD_TOP];
      const int32_t y_begin = y0 < 0 ? 0 : y0;
      const int32_t y_end = y0 + (int32_t)f[S_KERNEL_H] < h ? y0 + (int32_t)f[S_KERNEL_H] : h;
      for (ox = 0; ox < f[S_OUT_W]; ++ox) {
        const int32_t x0 = (int32_t)(ox * f[S_STRIDE_W]) - (int32_t)f[S_PAD_LEFT];
        const int32_t x_begin = x0 < 0 ? 0 : x0;
        const int32_t x_end = x0 + (int32_t)f[S_KERNEL_W] < w ? x0 + (int32_t)f[S_KERNEL_W] : w;
        const int32_t count = (y_end - y_begin) * (x_end - x_begin);
        for (c = 0; c < channels; ++c) {
          int32_t sum = 0, max = -128;
          for (y = y_begin; y < y_end; ++y) {
            for (x = x_begin; x < x_end; ++x) {
              const int32_t v = in[(((size_t)b * f[S_H] + (uint32_t)y) * f[S_W] + (uint32_t)x) * f[S_C] + (uint32_t)c];
              sum += v;
              if (v > max) max = v;
            }
          }
          if (cmd->opcode == AOTC_NPU_REF_OP_MAX_POOL) {
            *out++ = clamp_output(max, cmd);
          } else {
            *out++ = clamp_output(sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count, cmd);
          }
        }
      }
    }
  }
}

/* ADD and MUL; element i of both inputs is read before out[i] is written (in place). */
static void run_elementwise(const command* cmd, const int8_t* in1, const int8_t* in2, int8_t* out) {
  const int32_t offset1 = sfield(cmd, S_IN1_OFFSET), offset2 = sfield(cmd, S_IN2_OFFSET);
  const int32_t out_multiplier = sfield(cmd, S_OUT_MULTIPLIER), out_shift = sfield(cmd, S_OUT_SHIFT);
  const int32_t scale = (int32_t)1 << cmd->f[S_LEFT_SHIFT];
  uint32_t i;
  for (i = 0; i < cmd->f[S_C]; ++i) {
    const int32_t a = in1[i] + offset1, b = in2[i] + offset2;
    uint32_t acc;
    if (cmd->opcode == AOTC_NPU_REF_OP_MUL) {
      acc = (uint32_t)(a * b);
    } else {
      acc = (uint32_t)aotc_mul_by_quantized_multiplier(a * scale, sfield(cmd, S_IN1_MULTIPLIER),
                                                        sfield(cmd, S_IN1_SHIFT)) +
            (uint32_t)aotc_mul_by_quantized_multiplier(b * scale, sfield(cmd, S_IN2_MULTIPLIER),
                                                        sfield(cmd, S_IN2_SHIFT));
    }
    out[i] = finish(acc, out_multiplier, out_shift, cmd);
  }
}

static void run_command(const command* cmd, const aotc_npu_region* regions) {
  const int8_t* in1 = (const int8_t*)regions[cmd->f[S_IN1_REGION]].base + cmd->f[S_IN1_AT];
  int8_t* out = (int8_t*)regions[cmd->f[S_OUT_REGION]].base + cmd->f[S_OUT_AT];
  extent e;
  measure(cmd, &e);
  if (is_conv(cmd->opcode)) {
    run_conv(cmd, &e, in1, (const uint8_t*)regions[cmd->f[S_PAR_REGION]].base + cmd->f[S_PAR_AT], out);
    g_counters.macs += e.out_elements * e.taps;
  } else if (is_pool(cmd->opcode)) {
    run_pool(cmd, in1, out);
  } else {
    run_elementwise(cmd, in1, (const int8_t*)regions[cmd->f[S_IN2_REGION]].base + cmd->f[S_IN2_AT], out);
  }
  g_counters.commands += 1;
  g_counters.bytes_read += e.bytes[OPD_IN1] + e.bytes[OPD_IN2] + e.bytes[OPD_PAR];
  g_counters.bytes_written += e.bytes[OPD_OUT];
}

/* ---- The stream ----------------------------------------------------------------------- */

/* Walks the commands after the header: checks each one (run == 0), or runs each one
 * (run != 0, only after a walk that checked them all). */
static int32_t walk(const uint8_t* stream, size_t size, const aotc_npu_region* regions, size_t region_count,
                    int run) {
  const uint32_t commands = load32(stream + 12);
  const uint32_t minor = load32(stream + 4) & 0xFFFFu;
  size_t at = HEADER_BYTES;
  uint32_t i;
  for (i = 0; i < commands; ++i) {
    const uint32_t first = at < size ? load32(stream + at) : 0u;
    const uint32_t opcode = first & 0xFFFFu;
    command cmd;
    int32_t status;
    if (at == size) return AOTC_NPU_REF_ERR_TRUNCATED;
    /* An opcode of a later minor version than the stream's is unknown to that stream. */
    if (opcode == 0 || opcode >= OPCODE_LIMIT || kOps[opcode].minor > minor) return AOTC_NPU_REF_ERR_OPCODE;
    if ((first >> 16) != kOps[opcode].words) return AOTC_NPU_REF_ERR_WORD_COUNT;
    if (size - at < 4u * (size_t)kOps[opcode].words) return AOTC_NPU_REF_ERR_TRUNCATED;
    decode(stream + at, &cmd);
    if (run) {
      run_command(&cmd, regions);
    } else {
      status = check_command(&cmd, regions, region_count, minor);
      if (status != AOTC_NPU_REF_OK) return status;
    }
    at += 4u * (size_t)kOps[opcode].words;
  }
  return at == size ? AOTC_NPU_REF_OK : AOTC_NPU_REF_ERR_TRAILING;
}

int32_t aotc_npu_ref_validate(const uint8_t* stream, size_t stream_size, const aotc_npu_region* regions,
                              size_t region_count) {
  int32_t status = check_header(stream, stream_size, regions, region_count);
  if (status != AOTC_NPU_REF_OK) return status;
  return walk(stream, stream_size, regions, region_count, 0);
}

int32_t aotc_npu_ref_execute(const uint8_t* stream, size_t stream_size, const aotc_npu_region* regions,
                             size_t region_count) {
  int32_t status = aotc_npu_ref_validate(stream, stream_size, regions, region_count);
  if (status != AOTC_NPU_REF_OK) return status;
  g_counters.jobs += 1;
  return walk(stream, stream_size, regions, region_count, 1);
}

const char* aotc_npu_ref_status_string(int32_t status) {
  switch (status) {
    case AOTC_NPU_REF_OK: return "ok";
    case AOTC_NPU_REF_ERR_NULL: return "null stream or region table";
    case AOTC_NPU_REF_ERR_MAGIC: return "not a reference-NPU stream";
    case AOTC_NPU_REF_ERR_VERSION: return "unsupported stream version";
    case AOTC_NPU_REF_ERR_SIZE: return "bad stream size";
    case AOTC_NPU_REF_ERR_TRUNCATED: return "stream truncated";
    case AOTC_NPU_REF_ERR_TRAILING: return "words after the last command";
    case AOTC_NPU_REF_ERR_OPCODE: return "unknown opcode";
    case AOTC_NPU_REF_ERR_WORD_COUNT: return "wrong command word count";
    case AOTC_NPU_REF_ERR_REGION: return "bad region index, table size or base";
    case AOTC_NPU_REF_ERR_SHAPE: return "bad shape";
    case AOTC_NPU_REF_ERR_OVERFLOW: return "size overflow";
    case AOTC_NPU_REF_ERR_OUT_OF_BOUNDS: return "operand outside its region";
    case AOTC_NPU_REF_ERR_READ_ONLY: return "output in a read-only region";
    case AOTC_NPU_REF_ERR_OVERLAP: return "output overlaps an input";
    case AOTC_NPU_REF_ERR_PARAMETER: return "parameter out of range";
    default: return "unknown status";
  }
}

void aotc_npu_ref_get_counters(aotc_npu_ref_counters* counters) {
  /* Member by member: a struct copy may become a memcpy call, which a freestanding
   * target need not have. */
  if (counters == NULL) return;
  counters->jobs = g_counters.jobs;
  counters->commands = g_counters.commands;
  counters->macs = g_counters.macs;
  counters->bytes_read = g_counters.bytes_read;
  counters->bytes_written = g_counters.bytes_written;
}

void aotc_npu_ref_reset_counters(void) {
  g_counters.jobs = 0;
  g_counters.commands = 0;
  g_counters.macs = 0;
  g_counters.bytes_read = 0;
  g_counters.bytes_written = 0;
}

/* ---- The generic driver interface (aotc_npu.h): synchronous, the whole job in start. */

int32_t aotc_npu_start(aotc_npu_job* job) {
  if (job == NULL) return AOTC_NPU_REF_ERR_NULL;
  job->status = aotc_npu_ref_execute(job->stream, job->stream_size, job->regions, job->region_count);
  return job->status;
}

int32_t aotc_npu_wait(aotc_npu_job* job) {
  if (job == NULL) return AOTC_NPU_REF_ERR_NULL;
  return job->status;
}
