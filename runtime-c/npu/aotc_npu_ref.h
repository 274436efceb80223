/* aotc_npu_ref.h: the reference NPU that aotc defines, its command stream (format version
 * 1.2), and its driver.
 *
 * The reference NPU ("npu-ref", targets/npu-ref.toml) runs int8 convolutions, depthwise
 * convolutions, fully connected layers, average and max pooling, and elementwise ADD and
 * MUL, with TensorFlow Lite's integer arithmetic: per-channel requantization, activation
 * clamps and padding. Since version 1.1 the convolutions and fully connected layers also
 * come with ONNX's requantization (QLinearConv, QLinearMatMul: one rounding to nearest,
 * ties to even), as the _EVEN opcodes. aotc compiles each offloaded region of a model into one command
 * stream; the driver (aotc_npu_ref.c, one generic C implementation for every model)
 * validates a stream against the region table it is given and then interprets it, bit for
 * bit as aotc's own int8 CPU kernels and TFLite Micro's reference kernels compute. A real
 * device would execute the same stream; this driver is what runs it today, on the host
 * and on any microcontroller.
 *
 * ---- Stream layout ------------------------------------------------------------------
 *
 * A stream is a sequence of 32-bit little-endian words: a header of
 * AOTC_NPU_REF_HEADER_WORDS words, then the commands, back to back, nothing after them.
 *
 *   header word 0  AOTC_NPU_REF_MAGIC ("ANPU" in memory)
 *   header word 1  version: major << 16 | minor (this header describes 1.2; a driver
 *                  accepts its own major version and any minor version up to its own,
 *                  and in a stream of minor version v only the opcodes of versions up
 *                  to 1.v: 1.0 has opcodes 1 to 7, 1.1 adds 8 to 10; 1.2 adds no opcode
 *                  but lets a windowed command write over its input, see Validation)
 *   header word 2  the stream's size in bytes (a multiple of 4, equal to the size given)
 *   header word 3  number of commands
 *   header word 4  number of regions the stream addresses (the table must have exactly
 *                  this many)
 *   header word 5  0 (reserved: a later version may use it; a driver rejects another
 *                  value as AOTC_NPU_REF_ERR_VERSION)
 *
 * Each command starts with one word, opcode | word_count << 16, where word_count is the
 * number of words of the command, this one included; in version 1 it is fixed per opcode
 * (AOTC_NPU_REF_*_WORDS). The _EVEN opcodes CONV2D_EVEN, DEPTHWISE_CONV2D_EVEN and
 * FULLY_CONNECTED_EVEN have the words, fields and channel records of CONV2D,
 * DEPTHWISE_CONV2D and FULLY_CONNECTED; only the meaning of a record's multiplier and
 * shift differs (see Arithmetic). Fields are the words that follow, at the word indices given by
 * the AOTC_NPU_REF_F_* constants below; signed fields are two's complement.
 *
 * A tensor operand is two words: the index of a region in the table, and a byte offset
 * in it. Tensors are dense int8 arrays; 4-D ones are NHWC. The bytes an operand covers
 * follow from the command's shapes; every one must lie inside its region.
 *
 * Convolution, depthwise convolution and fully connected layers read their parameters
 * from one operand: for each output channel in order, a *channel record* of
 *   int32 bias, int32 multiplier, int32 shift,
 *   then the channel's weights as int8, zero-padded to a multiple of 4 bytes:
 *     CONV2D(_EVEN): [KH][KW][C] (the channel's filter, TFLite's OHWI order)
 *     DEPTHWISE_CONV2D(_EVEN): [KH][KW] (the channel's taps)
 *     FULLY_CONNECTED(_EVEN): [in_features]
 * so a channel record is 12 + align4(taps) bytes: the NPU reads each output channel's
 * bias, requantization and weights in one sequential pass. (Per-tensor quantized layers
 * repeat the one multiplier and shift in every record; a layer without bias has 0.)
 *
 * ---- Arithmetic (TFLite's reference kernels) ----------------------------------------
 *
 * requantize(acc, m, s) is TFLite's MultiplyByQuantizedMultiplier: with l = max(s, 0)
 * and r = max(-s, 0), RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(acc * 2^l,
 * m), r) (aotc_mul_by_quantized_multiplier in aotc_quant.h, which the driver calls).
 * requantize_even(acc, m, s), ONNX's requantization, is acc * m / 2^s (m >= 0, s in
 * [0, AOTC_NPU_REF_MAX_EVEN_SHIFT]) formed exactly, rounded once to the nearest integer
 * with ties to even, and saturated to int32 (aotc_onnx_requantize in aotc_quant_onnx.h,
 * which the driver calls): with factor 1/2 (m = 1, s = 1), sums 1, 3, 5, -1, -3, -5
 * give 0, 2, 2, 0, -2, -2.
 * clamp(v) = min(max(v, act_min), act_max).
 *
 * CONV2D: out[n, oy, ox, oc] = clamp(requantize(bias[oc] + sum over ky, kx, ic of
 *   (in[n, iy, ix, ic] + input_offset) * w[oc, ky, kx, ic], m[oc], s[oc]) + output_offset)
 *   with iy = oy * stride_h - pad_top + ky * dilation_h (ix alike); taps outside the
 *   input contribute nothing (padding). Input and output have the same N.
 * DEPTHWISE_CONV2D: as CONV2D with output channel oc = ic * M + j (M = OC / C, the depth
 *   multiplier) summing over ky, kx only, reading input channel ic = oc / M.
 * FULLY_CONNECTED: out[b, u] = clamp(requantize(bias[u] + sum over i of
 *   (in[b, i] + input_offset) * w[u, i], m[u], s[u]) + output_offset).
 * CONV2D_EVEN, DEPTHWISE_CONV2D_EVEN, FULLY_CONNECTED_EVEN (1.1): as CONV2D,
 *   DEPTHWISE_CONV2D, FULLY_CONNECTED with requantize_even for requantize.
 * AVG_POOL: the sum of the window's taps inside the input, divided by their count with
 *   rounding half away from zero ((sum + count / 2) / count for sum > 0, else
 *   (sum - count / 2) / count, in C's truncating division), then clamp. Input and output
 *   share N and C (and quantization: no rescaling).
 * MAX_POOL: the largest of the window's taps inside the input, then clamp.
 *   Every pooling window must contain at least one tap of the input.
 * ADD: a = (in1 + input1_offset) * 2^left_shift, b likewise; out = clamp(requantize(
 *   requantize(a, m1, s1) + requantize(b, m2, s2), m_out, s_out) + output_offset).
 * MUL: out = clamp(requantize((in1 + input1_offset) * (in2 + input2_offset), m_out,
 *   s_out) + output_offset).
 * Sums are int32 as in TFLite (the driver wraps them, defined C, where TFLite would
 * overflow; no valid model does); adding output_offset and clamping happen in a wider
 * type.
 *
 * ---- Validation ---------------------------------------------------------------------
 *
 * aotc_npu_ref_validate checks the whole stream against the region table before anything
 * runs, and execution never touches memory outside the regions:
 *   - the header (magic, version, size, counts) and that the commands fill the stream
 *     exactly, each with an opcode known to the stream's version (an _EVEN opcode in a
 *     1.0 stream is AOTC_NPU_REF_ERR_OPCODE) and its word count;
 *   - every region index is below the table's size; every region of nonzero size has a
 *     non-null base aligned to AOTC_NPU_REF_ALIGNMENT;
 *   - every dimension is at least 1 and at most AOTC_NPU_REF_MAX_DIM (ADD's and MUL's
 *     count is an element count, not a dimension: at least 1, bounded by its regions);
 *     kernel sizes, strides and dilations are at least 1 and at most
 *     AOTC_NPU_REF_MAX_WINDOW, paddings at most AOTC_NPU_REF_MAX_WINDOW; every operand's
 *     byte size fits in 32 bits, as region sizes do (else AOTC_NPU_REF_ERR_OVERFLOW);
 *   - shapes agree (conv: same N; depthwise: OC a multiple of C; pooling: same N and C;
 *     every pooling window overlaps the input);
 *   - every operand's bytes lie inside its region; outputs are not in read-only regions;
 *   - an output does not overlap any operand the command reads, in memory (two entries
 *     of the table may describe the same bytes), except that ADD and MUL may write exactly
 *     over an input (the same address and size: element i is read before it is written),
 *     and, in a stream of version 1.2 or later, a windowed command of one batch (CONV2D,
 *     DEPTHWISE_CONV2D and their _EVEN twins, AVG_POOL, MAX_POOL) may write its output
 *     over its input when the output begins at least the overlap distance below the
 *     input (no other overlap is allowed). The device writes output pixels in row-major order and a
 *     pixel's channels while it reads that pixel's window, so when it writes pixel p it
 *     will still read only the windows of pixels p, p + 1, ..., each from its first tap on
 *     (top row, left column, channel 0, clamped into the input); the distance is the
 *     largest (p + 1) * OUT_C - min over q >= p of first(q), and each output byte then
 *     lands on input bytes read for the last time;
 *   - parameters are in range: act_min <= act_max, both in [-128, 127]; input offsets in
 *     [-256, 256]; output offsets in [-256, 256]; shifts in [-31, 31] (also those of the
 *     channel records, except that the _EVEN opcodes' record shifts are in [0, 62]);
 *     ADD's left_shift in [0, 22]; multipliers are not negative (also those of the
 *     channel records).
 */
#ifndef AOTC_NPU_REF_H_
#define AOTC_NPU_REF_H_

#include <stddef.h>
#include <stdint.h>

#include "aotc_npu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AOTC_NPU_REF_MAGIC 0x55504E41u /* "ANPU" as little-endian bytes */
#define AOTC_NPU_REF_VERSION_MAJOR 1u
#define AOTC_NPU_REF_VERSION_MINOR 2u
#define AOTC_NPU_REF_VERSION ((AOTC_NPU_REF_VERSION_MAJOR << 16) | AOTC_NPU_REF_VERSION_MINOR)
#define AOTC_NPU_REF_HEADER_WORDS 6u

/* Limits the validator enforces (see above). */
#define AOTC_NPU_REF_ALIGNMENT 16u /* bytes, of every region's base */
#define AOTC_NPU_REF_MAX_DIM 65535u
#define AOTC_NPU_REF_MAX_WINDOW 255u
#define AOTC_NPU_REF_MAX_OFFSET 256
#define AOTC_NPU_REF_MAX_SHIFT 31
#define AOTC_NPU_REF_MAX_EVEN_SHIFT 62 /* of the _EVEN opcodes' channel records; the least is 0 */
#define AOTC_NPU_REF_MAX_LEFT_SHIFT 22
#define AOTC_NPU_REF_CHANNEL_RECORD_HEADER_BYTES 12u

/* Opcodes. */
enum aotc_npu_ref_opcode {
  AOTC_NPU_REF_OP_CONV2D = 1,
  AOTC_NPU_REF_OP_DEPTHWISE_CONV2D = 2,
  AOTC_NPU_REF_OP_FULLY_CONNECTED = 3,
  AOTC_NPU_REF_OP_AVG_POOL = 4,
  AOTC_NPU_REF_OP_MAX_POOL = 5,
  AOTC_NPU_REF_OP_ADD = 6,
  AOTC_NPU_REF_OP_MUL = 7,
  /* 1.1: as CONV2D, DEPTHWISE_CONV2D, FULLY_CONNECTED, with ONNX's requantization. */
  AOTC_NPU_REF_OP_CONV2D_EVEN = 8,
  AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN = 9,
  AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN = 10
};

/* ---- CONV2D, DEPTHWISE_CONV2D and their _EVEN twins: word indices of the fields, and the
 * word count. */
enum aotc_npu_ref_conv_field {
  AOTC_NPU_REF_F_CONV_INPUT_REGION = 1,
  AOTC_NPU_REF_F_CONV_INPUT_OFFSET = 2,
  AOTC_NPU_REF_F_CONV_INPUT_N = 3,
  AOTC_NPU_REF_F_CONV_INPUT_H = 4,
  AOTC_NPU_REF_F_CONV_INPUT_W = 5,
  AOTC_NPU_REF_F_CONV_INPUT_C = 6,
  AOTC_NPU_REF_F_CONV_OUTPUT_REGION = 7,
  AOTC_NPU_REF_F_CONV_OUTPUT_OFFSET = 8,
  AOTC_NPU_REF_F_CONV_OUTPUT_N = 9,
  AOTC_NPU_REF_F_CONV_OUTPUT_H = 10,
  AOTC_NPU_REF_F_CONV_OUTPUT_W = 11,
  AOTC_NPU_REF_F_CONV_OUTPUT_C = 12,
  AOTC_NPU_REF_F_CONV_PARAMS_REGION = 13, /* channel records, one per output channel */
  AOTC_NPU_REF_F_CONV_PARAMS_OFFSET = 14,
  AOTC_NPU_REF_F_CONV_KERNEL_H = 15,
  AOTC_NPU_REF_F_CONV_KERNEL_W = 16,
  AOTC_NPU_REF_F_CONV_STRIDE_H = 17,
  AOTC_NPU_REF_F_CONV_STRIDE_W = 18,
  AOTC_NPU_REF_F_CONV_DILATION_H = 19,
  AOTC_NPU_REF_F_CONV_DILATION_W = 20,
  AOTC_NPU_REF_F_CONV_PAD_TOP = 21,
  AOTC_NPU_REF_F_CONV_PAD_LEFT = 22,
  AOTC_NPU_REF_F_CONV_INPUT_OFFSET_VALUE = 23,  /* signed: -(input zero point) */
  AOTC_NPU_REF_F_CONV_OUTPUT_OFFSET_VALUE = 24, /* signed: output zero point */
  AOTC_NPU_REF_F_CONV_ACT_MIN = 25,             /* signed */
  AOTC_NPU_REF_F_CONV_ACT_MAX = 26,             /* signed */
  AOTC_NPU_REF_CONV_WORDS = 27
};

/* ---- FULLY_CONNECTED(_EVEN): input [batches, in_features], output [batches, units]. */
enum aotc_npu_ref_fc_field {
  AOTC_NPU_REF_F_FC_INPUT_REGION = 1,
  AOTC_NPU_REF_F_FC_INPUT_OFFSET = 2,
  AOTC_NPU_REF_F_FC_BATCHES = 3,
  AOTC_NPU_REF_F_FC_IN_FEATURES = 4,
  AOTC_NPU_REF_F_FC_OUTPUT_REGION = 5,
  AOTC_NPU_REF_F_FC_OUTPUT_OFFSET = 6,
  AOTC_NPU_REF_F_FC_UNITS = 7,
  AOTC_NPU_REF_F_FC_PARAMS_REGION = 8, /* channel records, one per unit */
  AOTC_NPU_REF_F_FC_PARAMS_OFFSET = 9,
  AOTC_NPU_REF_F_FC_INPUT_OFFSET_VALUE = 10,  /* signed */
  AOTC_NPU_REF_F_FC_OUTPUT_OFFSET_VALUE = 11, /* signed */
  AOTC_NPU_REF_F_FC_ACT_MIN = 12,             /* signed */
  AOTC_NPU_REF_F_FC_ACT_MAX = 13,             /* signed */
  AOTC_NPU_REF_FC_WORDS = 14
};

/* ---- AVG_POOL and MAX_POOL: input [N, H, W, C], output [N, OH, OW, C]. */
enum aotc_npu_ref_pool_field {
  AOTC_NPU_REF_F_POOL_INPUT_REGION = 1,
  AOTC_NPU_REF_F_POOL_INPUT_OFFSET = 2,
  AOTC_NPU_REF_F_POOL_INPUT_N = 3,
  AOTC_NPU_REF_F_POOL_INPUT_H = 4,
  AOTC_NPU_REF_F_POOL_INPUT_W = 5,
  AOTC_NPU_REF_F_POOL_INPUT_C = 6,
  AOTC_NPU_REF_F_POOL_OUTPUT_REGION = 7,
  AOTC_NPU_REF_F_POOL_OUTPUT_OFFSET = 8,
  AOTC_NPU_REF_F_POOL_OUTPUT_H = 9,
  AOTC_NPU_REF_F_POOL_OUTPUT_W = 10,
  AOTC_NPU_REF_F_POOL_KERNEL_H = 11,
  AOTC_NPU_REF_F_POOL_KERNEL_W = 12,
  AOTC_NPU_REF_F_POOL_STRIDE_H = 13,
  AOTC_NPU_REF_F_POOL_STRIDE_W = 14,
  AOTC_NPU_REF_F_POOL_PAD_TOP = 15,
  AOTC_NPU_REF_F_POOL_PAD_LEFT = 16,
  AOTC_NPU_REF_F_POOL_ACT_MIN = 17, /* signed */
  AOTC_NPU_REF_F_POOL_ACT_MAX = 18, /* signed */
  AOTC_NPU_REF_POOL_WORDS = 19
};

/* ---- ADD: `count` elements of each input, elementwise (no broadcasting). */
enum aotc_npu_ref_add_field {
  AOTC_NPU_REF_F_ADD_INPUT1_REGION = 1,
  AOTC_NPU_REF_F_ADD_INPUT1_OFFSET = 2,
  AOTC_NPU_REF_F_ADD_INPUT2_REGION = 3,
  AOTC_NPU_REF_F_ADD_INPUT2_OFFSET = 4,
  AOTC_NPU_REF_F_ADD_OUTPUT_REGION = 5,
  AOTC_NPU_REF_F_ADD_OUTPUT_OFFSET = 6,
  AOTC_NPU_REF_F_ADD_COUNT = 7,
  AOTC_NPU_REF_F_ADD_INPUT1_OFFSET_VALUE = 8,  /* signed */
  AOTC_NPU_REF_F_ADD_INPUT2_OFFSET_VALUE = 9,  /* signed */
  AOTC_NPU_REF_F_ADD_LEFT_SHIFT = 10,
  AOTC_NPU_REF_F_ADD_INPUT1_MULTIPLIER = 11,   /* signed, >= 0 */
  AOTC_NPU_REF_F_ADD_INPUT1_SHIFT = 12,        /* signed */
  AOTC_NPU_REF_F_ADD_INPUT2_MULTIPLIER = 13,
  AOTC_NPU_REF_F_ADD_INPUT2_SHIFT = 14,
  AOTC_NPU_REF_F_ADD_OUTPUT_MULTIPLIER = 15,
  AOTC_NPU_REF_F_ADD_OUTPUT_SHIFT = 16,
  AOTC_NPU_REF_F_ADD_OUTPUT_OFFSET_VALUE = 17, /* signed */
  AOTC_NPU_REF_F_ADD_ACT_MIN = 18,             /* signed */
  AOTC_NPU_REF_F_ADD_ACT_MAX = 19,             /* signed */
  AOTC_NPU_REF_ADD_WORDS = 20
};

/* ---- MUL: `count` elements of each input, elementwise (no broadcasting). */
enum aotc_npu_ref_mul_field {
  AOTC_NPU_REF_F_MUL_INPUT1_REGION = 1,
  AOTC_NPU_REF_F_MUL_INPUT1_OFFSET = 2,
  AOTC_NPU_REF_F_MUL_INPUT2_REGION = 3,
  AOTC_NPU_REF_F_MUL_INPUT2_OFFSET = 4,
  AOTC_NPU_REF_F_MUL_OUTPUT_REGION = 5,
  AOTC_NPU_REF_F_MUL_OUTPUT_OFFSET = 6,
  AOTC_NPU_REF_F_MUL_COUNT = 7,
  AOTC_NPU_REF_F_MUL_INPUT1_OFFSET_VALUE = 8,  /* signed */
  AOTC_NPU_REF_F_MUL_INPUT2_OFFSET_VALUE = 9,  /* signed */
  AOTC_NPU_REF_F_MUL_OUTPUT_MULTIPLIER = 10,   /* signed, >= 0 */
  AOTC_NPU_REF_F_MUL_OUTPUT_SHIFT = 11,        /* signed */
  AOTC_NPU_REF_F_MUL_OUTPUT_OFFSET_VALUE = 12, /* signed */
  AOTC_NPU_REF_F_MUL_ACT_MIN = 13,             /* signed */
  AOTC_NPU_REF_F_MUL_ACT_MAX = 14,             /* signed */
  AOTC_NPU_REF_MUL_WORDS = 15
};

/* What aotc_npu_ref_validate returns: 0, or the first fault it found. */
enum aotc_npu_ref_status {
  AOTC_NPU_REF_OK = 0,
  AOTC_NPU_REF_ERR_NULL = -1,          /* a null stream, or a null table with regions */
  AOTC_NPU_REF_ERR_MAGIC = -2,         /* not a reference-NPU stream */
  AOTC_NPU_REF_ERR_VERSION = -3,       /* another major version, a newer minor one, or a reserved word set */
  AOTC_NPU_REF_ERR_SIZE = -4,          /* size not a multiple of 4, shorter than the header, or not the header's */
  AOTC_NPU_REF_ERR_TRUNCATED = -5,     /* a command runs past the end, or fewer commands than the header says */
  AOTC_NPU_REF_ERR_TRAILING = -6,      /* words after the last command */
  AOTC_NPU_REF_ERR_OPCODE = -7,        /* an unknown opcode, or one newer than the stream's version */
  AOTC_NPU_REF_ERR_WORD_COUNT = -8,    /* a command's word count is not its opcode's */
  AOTC_NPU_REF_ERR_REGION = -9,        /* a region index out of the table, a table of another size, a bad base */
  AOTC_NPU_REF_ERR_SHAPE = -10,        /* a zero or too large dimension, window, stride, padding; shapes disagree */
  AOTC_NPU_REF_ERR_OVERFLOW = -11,     /* an element count or byte size does not fit */
  AOTC_NPU_REF_ERR_OUT_OF_BOUNDS = -12, /* an operand's bytes leave its region */
  AOTC_NPU_REF_ERR_READ_ONLY = -13,    /* an output in a read-only region */
  AOTC_NPU_REF_ERR_OVERLAP = -14,      /* an output overlaps an operand the command reads */
  AOTC_NPU_REF_ERR_PARAMETER = -15     /* an offset, shift, multiplier or clamp out of range */
};

/* Checks `stream` (stream_size bytes) against the region table as described above.
 * Reads nothing outside the stream and the parameter operands' regions; writes nothing. */
int32_t aotc_npu_ref_validate(const uint8_t* stream, size_t stream_size, const aotc_npu_region* regions,
                              size_t region_count);

/* Validates, then runs every command in order. Returns 0 or the validator's status; on
 * a fault nothing has been written. */
int32_t aotc_npu_ref_execute(const uint8_t* stream, size_t stream_size, const aotc_npu_region* regions,
                             size_t region_count);

/* A short, static name for an aotc_npu_ref_status ("unknown status" for others). */
const char* aotc_npu_ref_status_string(int32_t status);

/* What the driver has done since the last reset: commands run, multiply-accumulates
 * (output elements times taps per output, padding taps included, for CONV2D,
 * DEPTHWISE_CONV2D, FULLY_CONNECTED and their _EVEN twins; 0 for the others), and bytes of operands read
 * (inputs and parameters, once per command) and written (outputs). Jobs that fail
 * validation count nothing. */
typedef struct aotc_npu_ref_counters {
  uint64_t jobs;
  uint64_t commands;
  uint64_t macs;
  uint64_t bytes_read;
  uint64_t bytes_written;
} aotc_npu_ref_counters;

void aotc_npu_ref_get_counters(aotc_npu_ref_counters* counters);
void aotc_npu_ref_reset_counters(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AOTC_NPU_REF_H_ */
