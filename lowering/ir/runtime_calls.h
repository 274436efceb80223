// The fixed-point functions and micro-kernels of the C runtime (runtime-c/aotc_quant.h,
// aotc_quant_onnx.h, aotc_quant_softmax.h, aotc_dot.h, aotc_dot_f32.h, aotc_dot_strided.h, aotc_mve.h,
// aotc_elementwise.h) as loop-IR calls, and their
// evaluation for the IR interpreter.
//
// This is the one place where aotc's integer arithmetic is defined: the generated C calls
// the runtime's functions by name, and the interpreter (constant folding, unit tests)
// evaluates a call by calling the very same C functions, which are plain C99 that also
// compiles as C++. So the compiler, its tests and the generated code cannot disagree on a
// rounding. (The compile-time side, turning real scales into multipliers and shifts, is
// in quantization.h and quant_onnx.h.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lowering/ir/ir.h"

namespace aotc::ir {

// TFLite's requantization (aotc_quant.h): x * multiplier * 2^shift / 2^31 with TFLite's
// rounding, and its two steps.
Expr mul_by_quantized_multiplier(Expr x, Expr multiplier, Expr shift);
// The same for a multiplier that is not INT32_MIN (every multiplier computed from scales),
// in fewer instructions (aotc_requantize); the same result for every x.
Expr requantize(Expr x, Expr multiplier, Expr shift);
// The same for a multiplier in (2^30, 2^31) and a shift of -2 or less, given as the right
// shift (>= 2): one multiply-accumulate and one shift (aotc_requantize_right).
Expr requantize_right(Expr x, Expr multiplier, Expr right_shift);
// requantize_right plus the output zero point, saturated to int8 (aotc_requantize_s8):
// offset = 2^(e-2) + zero_point * 2^(e-1) and shift = e - 1 for the right shift e, with
// |offset| < 2^30.
Expr requantize_s8(Expr x, Expr multiplier, Expr offset, Expr shift);
// The same for an int64 x (TFLite's 16x8 kernels), the multiplier rounded to 16 bits.
Expr mul_by_quantized_multiplier_i64(Expr x, Expr multiplier, Expr shift);
Expr rounding_divide_by_pot(Expr x, Expr exponent);
Expr sat_rounding_doubling_high_mul(Expr a, Expr b);

// ONNX's requantization (aotc_quant_onnx.h): acc * multiplier / 2^shift rounded once, ties
// to even; and the rescaled sum of two operands over a common shift.
Expr onnx_requantize(Expr acc, Expr multiplier, Expr shift);
Expr onnx_requantize_high(Expr acc, Expr multiplier, Expr rounding_high, Expr rounding_low, Expr high_shift);
Expr onnx_requantize_s8(Expr acc, Expr multiplier, Expr rounding_high, Expr rounding_low, Expr high_shift,
                        Expr zero_point);
Expr onnx_requantize_sum(Expr a, Expr a_multiplier, Expr b, Expr b_multiplier, Expr shift);

// TFLite's int8 softmax (aotc_quant_softmax.h): exp(a) in Q0.31 for an int32 a <= 0 in
// Q5.26; leading zero bits of an int32 read as uint32 (32 for 0); for x > 0, 1/m in Q0.31,
// m in [1, 2) being x shifted left by count_leading_zeros(x).
Expr exp_on_negative_values_q5_26(Expr a);
Expr count_leading_zeros(Expr x);
Expr get_reciprocal(Expr x);
// TFLite's int8 LOGISTIC and TANH (aotc_quant_softmax.h): logistic(a) and tanh(a) in Q0.31
// for an int32 a in Q4.27.
Expr logistic_q4_27(Expr a);
Expr tanh_q4_27(Expr a);
// TFLite's int16 LOGISTIC and TANH (aotc_quant_softmax.h): the table-interpolated
// logistic(x) in [0, 32767] and tanh(x) in [-32767, 32767] (steps of 2^-15) of an int16 x
// (zero point 0), rescaled first by (multiplier, shift) to steps of 1/(3 * 4096).
Expr logistic_s16(Expr x, int32_t multiplier, int32_t shift);
Expr tanh_s16(Expr x, int32_t multiplier, int32_t shift);
// TFLite's GetInvSqrtQuantizedMultiplierExp (aotc_quant_softmax.h), for int8
// L2_NORMALIZATION and RSQRT: 1 / sqrt(x) of an int32 x as a Q31 multiplier and a left
// shift (<= 0) for mul_by_quantized_multiplier; x <= 1 gives INT32_MAX and 0.
Expr inv_sqrt_multiplier(Expr x);
Expr inv_sqrt_shift(Expr x);
// TFLite's int8 HARD_SWISH (aotc_quant.h): for x = input - zero point, hard_swish(x) on
// the output's scale, before its zero point, from two Q15 multipliers and exponents.
Expr hard_swish_s8(Expr x, int32_t output_multiplier, int32_t output_exponent, int32_t reluish_multiplier,
                   int32_t reluish_exponent);

// The int8 register blocks of aotc_dot.h (statements' calls; they return nothing), on
// addresses (address_of). Targets with the DSP extension run them two products per
// instruction.
// aotc_dot_s8_2x2: the four sums acc[0..3] += x0, x1 (n values each) . two weight rows.
Expr dot_s8_2x2(Expr x0, Expr x1, Expr packed_weights, Expr n, Expr acc);
// aotc_dot_s8_2x2_aligned: the same for word-aligned rows of whole words (n a multiple of
// 4), the second x1_offset bytes after the first.
Expr dot_s8_2x2_aligned(Expr x0, Expr x1_offset, Expr packed_weights, Expr n, Expr acc);
// aotc_stage_s8x2: two pixels of n int8 values into `staged`, widened in the order packed
// weights unpack in; aotc_dot_s16_2x2: aotc_dot_s8_2x2's four sums over `groups` groups
// of four of those staged values.
Expr stage_s8x2(Expr x0, Expr x1, Expr n, Expr staged);
Expr dot_s16_2x2(Expr staged, Expr packed_weights, Expr groups, Expr acc);
// aotc_dot_s8_1x4: acc[0..3] += x (n values) . four weight rows.
Expr dot_s8_1x4(Expr x, Expr packed_weights, Expr n, Expr acc);
// aotc_dot_s8_1x4_aligned: the same for a word-aligned x and n a multiple of 4.
Expr dot_s8_1x4_aligned(Expr x, Expr packed_weights, Expr n, Expr acc);
// aotc_dw3_s8: acc[j] += one kernel row of three taps (w02: w0 and w2 as halfwords, w1)
// over the word-aligned row at `row`, for `outputs` outputs `stride` apart (depthwise).
Expr dw3_s8(Expr row, Expr stride, Expr outputs, Expr w02, Expr w1, Expr acc);

// The float32 host kernels of aotc_host_f32.h (statements' calls), for targets with the
// `simd` feature: aotc_conv_f32, an NCHW convolution of one image (groups of 1) as a
// blocked matrix product over weights packed at compile time, im2col into `scratch` when
// not 1x1; aotc_depthwise_f32, a depthwise one (3x3 kernels through a padded plane in
// `scratch`). The geometry: channels c (and m out),
// input h x w, output oh x ow, kernel kh x kw, strides, padding before.
Expr conv_f32(Expr input, Expr output, Expr packed, int64_t c, int64_t h, int64_t w, int64_t m, int64_t oh,
              int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, Expr scratch);
Expr depthwise_f32(Expr input, Expr output, Expr packed, int64_t c, int64_t h, int64_t w, int64_t oh, int64_t ow,
                   int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, Expr scratch);

// The float32 register blocks of aotc_dot_f32.h (statements' calls), on addresses, over
// weights packed four channels side by side ([element][4]); each sum in TFLite's order.
// aotc_dot_f32_4x4: acc[4p + j] += x_p (n values) . channel j, for four pixels x0..x3.
Expr dot_f32_4x4(Expr x0, Expr x1, Expr x2, Expr x3, Expr packed_weights, Expr n, Expr acc);
// aotc_dot_f32_1x4: acc[j] += x (n values) . channel j.
Expr dot_f32_1x4(Expr x, Expr packed_weights, Expr n, Expr acc);
// aotc_dot_f32_1x16: aotc_dot_f32_1x4 for four blocks of four units at once, block b's
// weights from packed_weights + b * block_stride (Helium: each input loaded once for all).
Expr dot_f32_1x16(Expr x, Expr packed_weights, Expr block_stride, Expr n, Expr acc);
// aotc_dw_f32_4ch: acc[j] += a depthwise window of `rows` x `taps` taps for four channels:
// inputs `channels` apart along a row and `row_step` apart between rows, taps packed
// [tap][4] with `w_skip` floats skipped after each row's.
Expr dw_f32_4ch(Expr x, Expr channels, Expr row_step, Expr packed_taps, Expr w_skip, Expr rows, Expr taps, Expr acc);
// The strided dot products of aotc_dot_strided.h (statements' calls), which the tensorize
// pass puts in place of reduction loops: aotc_dot_f32, *acc = *acc + a[k * a_stride] *
// b[k * b_stride] for k < n in order; the integer kernels (aotc_dot_s8_s8, aotc_dot_u8_u8,
// aotc_dot_u8_s8, named by `kernel`) add (a[..] - a_zero_point) * (b[..] - b_zero_point).
Expr dot_f32_strided(Expr a, Expr a_stride, Expr b, Expr b_stride, Expr n, Expr acc);
Expr dot_int8_strided(const std::string& kernel, Expr a, Expr a_stride, Expr a_zero_point, Expr b, Expr b_stride,
                      Expr b_zero_point, Expr n, Expr acc);
// The Helium kernels of aotc_mve.h (statements' calls), arguments in the C functions'
// order: aotc_mve_conv_s8 (one output pixel: x, row_stride, rows, row_length,
// packed_weights, out_channels, then the requantization's bias, multiplier, left_shift,
// right_shift, per_channel, output_zero_point, act_min, act_max and y),
// aotc_mve_depthwise_s8 (one output row: band, row_stride, channels, kernel_h, kernel_w,
// stride_x, out_width, w, then the same nine), and the copies that stage inputs and build
// padded bands.
Expr mve_conv_s8(std::vector<Expr> args);
Expr mve_depthwise_s8(std::vector<Expr> args);
// aotc_mve_add_s8: TFLite's int8 ADD of n elements (a, b, n, then each input's offset,
// multiplier and shift, the output's multiplier, shift and zero point, act_min, act_max, y).
Expr mve_add_s8(std::vector<Expr> args);
// aotc_mve_window_sum_s8: the int32 sums of an average pool's window, channel by channel.
Expr mve_window_sum_s8(Expr x, Expr row_stride, Expr rows, Expr cols, Expr channels, Expr sums);
Expr mve_copy_s8(Expr dst, Expr src, Expr n);
Expr mve_fill_s8(Expr dst, Expr value, Expr n);
Expr mve_band_row_s8(Expr dst, Expr src, Expr valid, Expr width, Expr pad_left, Expr pad_right, Expr channels,
                     Expr zero_point);
Expr mve_gather_s8(Expr dst, Expr src, Expr row_stride, Expr rows, Expr run);

// BitShift and integer Pow (aotc_elementwise.h): shifts of unsigned values of up to 32
// bits (zero-extended) or of 64 bits, 0 when the count reaches the width; base^exponent in
// wrapping int64 arithmetic.
Expr shift_left(Expr x, Expr n, int bits);
Expr shift_right(Expr x, Expr n, int bits);
Expr pow_int64(Expr base, Expr exponent);
// BitwiseAnd/Or/Xor/Not (aotc_bit_<op>_u64, op "and", "or", "xor" or "not"): the bits of
// the operands widened to uint64 (signed ones sign-extended), as uint64; converting the
// result back to the operands' type keeps the bits of that width.
Expr bitwise(const std::string& op, std::vector<Expr> operands);
// Mod of signed integers (aotc_mod_i64): C's remainder, or with sign_of_divisor Python's;
// 0 for a zero divisor.
Expr mod_int64(Expr a, Expr b, bool sign_of_divisor);

// float16 (aotc_elementwise.h): the float32 value of a float16 bit pattern; the float16
// bit pattern nearest to a float64 (float32 converts exactly first), ties to even.
Expr float16_to_float32(Expr bits);
Expr float64_to_float16(Expr value);

// The runtime header that defines function `name` ("aotc_quant.h"), "" if it is none of
// the functions above: what generated code that calls it includes.
std::string runtime_call_header(const std::string& name);

// Whether runtime function `name` writes through its argument `index` (an address_of):
// the micro-kernels' accumulators and outputs. Code generation keeps such a buffer non-const.
bool runtime_call_writes_argument(const std::string& name, size_t index);

// For the interpreter: if `name` is one of the runtime functions above, stores its value
// for `args` (integers as int64, addresses as host pointers) in *result and returns true;
// returns false for any other name or arity.
bool evaluate_runtime_call(const std::string& name, const std::vector<int64_t>& args, int64_t* result);
// The same for the runtime functions with a floating-point argument or result (the float16
// conversions): every argument and the result as a double (16-bit patterns exactly).
bool is_runtime_float_call(const std::string& name);
bool evaluate_runtime_float_call(const std::string& name, const std::vector<double>& args, double* result);

}  // namespace aotc::ir
