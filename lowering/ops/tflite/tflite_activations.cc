// TFLite elementwise activations and math: LOGISTIC, TANH, RELU, RELU6, RELU_N1_TO_1,
// LEAKY_RELU, HARD_SWISH, PRELU, ABS, NEG, SQRT, RSQRT, EXP, LOG, MINIMUM, MAXIMUM and
// SQUARED_DIFFERENCE.
//
// Each is defined once by its scalar form (elementwise_op), so it also fuses behind a
// convolution. Float forms are TFLite's reference kernels' expressions, in the same order
// of operations. Integer forms follow TensorFlow Lite Micro's kernels exactly:
//   RELU (int8, int16): requantize x - input zero point by input/output scale, add the
//     output zero point, clamp to [output zero point, type max];
//   RELU6 (int8, int16): clamp the raw value to [zero point, quantized 6] (no requantization);
//   LEAKY_RELU (int8, int16): requantize by input/output scale where x >= its zero point,
//     by input * alpha / output scale below;
//   PRELU (int8; int16 with int8 alpha): likewise, the negative side multiplied by
//     alpha - its zero point first;
//   MINIMUM, MAXIMUM: compare the raw values (inputs and output share a quantization);
//   HARD_SWISH (int8): TFLite's 16-bit fixed-point steps (aotc_hard_swish_s8);
//   LOGISTIC, TANH (int8): x - zero point, saturated beyond the input radius, else
//     rescaled to Q4.27 and put through gemmlowp's fixed-point logistic or tanh
//     (runtime-c/aotc_quant_softmax.h), then to the output's 1/256 (zero point -128) or
//     1/128 (zero point 0) steps;
//   LOGISTIC, TANH (int16, zero points 0, output scale 2^-15): x rescaled to steps of
//     1/(3 * 4096), then TFLite's table of sigmoid(i / 24) interpolated linearly
//     (aotc_logistic_s16, aotc_tanh_s16);
//   ABS (int8; int16 with zero points 0): |x - input zero point|, requantized when the
//     scales differ, plus the output zero point; int16 without quantization: std::abs;
//   RSQRT (int8): 1 / sqrt(x - zero point) from TFLite's fixed-point inverse square root
//     (aotc_inv_sqrt_multiplier / _shift) at 2^20, then requantized by
//     1 / (sqrt(input scale) * output scale); x at the zero point gives 127. TFLite Micro
//     fails the invocation on an input below the zero point: so does the kernel, which
//     checks every input first and returns AOTC_ERR_INVALID_ARGUMENT;
//   SQUARED_DIFFERENCE (int8, int16 with zero points 0): both inputs at 2^7 (int8) or 2^0
//     times their value, rescaled to half the larger input scale, subtracted, squared,
//     and requantized to the output's scale; int32: the wrapping square of the difference.
// The multipliers are computed as TFLite Micro's Prepare functions compute them.
#include <cmath>
#include <cstdint>

#include "aot/graph/op_registry.h"
#include "lowering/ir/builtins.h"
#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;
using tflite::float_scale;
using tflite::checked_log2;
using Operands = const std::vector<Expr>&;

const DataType kF32 = DataType::Float32();
const DataType kI8 = DataType::Int(8);
const DataType kI16 = DataType::Int(16);
const DataType kI32 = DataType::Int(32);

// [min, max] of an integer type.
QuantizedRange type_range(DataType t) {
  return {static_cast<int32_t>(-(int64_t{1} << (t.bits - 1))), static_cast<int32_t>((int64_t{1} << (t.bits - 1)) - 1)};
}

std::string type_list(const std::vector<DataType>& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) s += (i == 0 ? "" : i + 1 == types.size() ? " and " : ", ") + types[i].str();
  return s;
}

// Input `index` has one of `types`; quantized integers carry one scale.
DataType require_one_of(const Graph& g, const Node& node, size_t index, const std::vector<DataType>& types) {
  const Tensor& t = require_input(g, node, index);
  for (DataType d : types) {
    if (t.dtype != d) continue;
    if (d.is_int() && d.bits <= 16) tflite::require_per_tensor_quantized(g, node, node.inputs[index]);
    return d;
  }
  node_error(node, "input '" + t.name + "' is " + t.dtype.str() + "; supported: " + type_list(types));
}

// An operator of one input whose output has its type and shape.
InferFn unary(std::vector<DataType> types) {
  return [types](Graph& g, Node& node) {
    DataType t = require_one_of(g, node, 0, types);
    tflite::set_declared_output(g, node, 0, t, g.tensor(node.inputs[0]).shape);
    if (t.is_int() && t.bits <= 16) tflite::require_per_tensor_quantized(g, node, node.outputs[0]);
  };
}

// An operator of two inputs of one type that broadcast together.
InferFn binary(std::vector<DataType> types) {
  return [types](Graph& g, Node& node) {
    DataType t = require_one_of(g, node, 0, types);
    const Tensor& b = require_input(g, node, 1);
    if (b.dtype != t) node_error(node, "inputs have different types " + t.str() + " and " + b.dtype.str());
    tflite::set_declared_output(g, node, 0, t, broadcast_shapes(node, g.tensor(node.inputs[0]).shape, b.shape));
  };
}

bool is_quantized(const Graph& g, TensorId id) { return g.tensor(id).dtype.is_int() && g.tensor(id).dtype.bits <= 16; }

Expr centered(const Graph& g, TensorId id, const Expr& v) {
  return ir::cast(DataType::Int(32), v) - tflite::zero_point_of(g, id);
}

Expr requantized(const Expr& v, const QuantizedMultiplier& m) {
  return ir::mul_by_quantized_multiplier(v, m.multiplier, m.shift);
}

// clamp(v) as the output's type.
Expr clamped(const Graph& g, const Node& node, const Expr& v, QuantizedRange range) {
  return ir::cast(g.tensor(node.outputs[0]).dtype, tflite::clamp(v, range));
}

bool has_quantization(const Graph& g, TensorId id) { return !g.tensor(id).quant.empty(); }

// Tensor `id` carries one positive scale and a zero point of `t`'s range (or 0 with
// `zero_zero_point`, as TFLite's int16 kernels require).
void require_scale_and_zero_point(const Graph& g, const Node& node, TensorId id, DataType t, bool zero_zero_point) {
  tflite::require_per_tensor_quantized(g, node, id);
  const Tensor& tensor = g.tensor(id);
  if (!(tflite::scale_of(g, id) > 0))
    node_error(node, "tensor '" + tensor.name + "' has the scale " + std::to_string(tflite::scale_of(g, id)) +
                         "; it must be positive");
  int64_t zero = tensor.quant.zero_point.empty() ? 0 : tensor.quant.zero_point[0];
  QuantizedRange range = type_range(t);
  if (zero_zero_point && zero != 0)
    node_error(node, "tensor '" + tensor.name + "' has the zero point " + std::to_string(zero) + "; TFLite Micro's " +
                         t.str() + " " + node.op + " needs 0");
  if (zero < range.min || zero > range.max)
    node_error(node, "tensor '" + tensor.name + "' has the zero point " + std::to_string(zero) + ", outside " + t.str());
}

// max(a, b) and min(a, b) as std::max and std::min compute them.
Expr std_max(const Expr& a, const Expr& b) { return ir::select(a < b, b, a); }
Expr std_min(const Expr& a, const Expr& b) { return ir::select(b < a, b, a); }

Expr f32(double v) { return ir::make_float(v); }

// ---------------------------------------------------------------- RELU family

Expr relu(const Graph& g, const Node& node, Operands in) {
  if (!is_quantized(g, node.inputs[0])) return ir::select(in[0] < f32(0), f32(0), in[0]);
  TensorId x = node.inputs[0], y = node.outputs[0];
  // CalculateReluOpData: scales ratio in double; the clamp from the output zero point up.
  QuantizedMultiplier m = quantize_multiplier(static_cast<double>(float_scale(g, x)) / static_cast<double>(float_scale(g, y)));
  QuantizedRange range = type_range(g.tensor(y).dtype);
  range.min = std::max(range.min, tflite::zero_point_of(g, y));
  return clamped(g, node, requantized(centered(g, x, in[0]), m) + tflite::zero_point_of(g, y), range);
}

// RELU6 and RELU_N1_TO_1 on floats: val > upper ? upper : val < lower ? lower : val.
Expr float_clamp(const Expr& v, double lower, double upper) {
  return ir::select(v > f32(upper), f32(upper), ir::select(v < f32(lower), f32(lower), v));
}

Expr relu6(const Graph& g, const Node& node, Operands in) {
  if (!is_quantized(g, node.inputs[0])) return float_clamp(in[0], 0, 6);
  TensorId x = node.inputs[0];
  DataType t = g.tensor(x).dtype;
  QuantizedRange range = type_range(t);
  // FloatToQuantizedType(6, scale, zero point): round(6 / scale) + zero point, clamped.
  int32_t zero = tflite::zero_point_of(g, x);
  double six_steps = std::round(static_cast<double>(6.0f / float_scale(g, x)));
  int32_t six = static_cast<int32_t>(std::min<double>(range.max, std::max<double>(range.min, six_steps + zero)));
  Expr v = ir::cast(DataType::Int(32), in[0]);
  // A bound at the end of the type's range clamps nothing; it is left out, as C compilers
  // warn about a comparison that is always false (-Wtype-limits).
  Expr clamped_below = zero > range.min ? ir::select(v < zero, ir::make_int(zero), v) : v;
  return ir::cast(t, six < range.max ? ir::select(v > six, ir::make_int(six), clamped_below) : clamped_below);
}

Expr relu_n1_to_1(const Graph&, const Node&, Operands in) { return float_clamp(in[0], -1, 1); }

Expr leaky_relu(const Graph& g, const Node& node, Operands in) {
  float alpha = static_cast<float>(node.attr_float("alpha", 0.2));
  if (!is_quantized(g, node.inputs[0])) return ir::select(in[0] > f32(0), in[0], in[0] * f32(alpha));
  TensorId x = node.inputs[0], y = node.outputs[0];
  // CalculateOpDataLeakyRelu: both ratios formed in float, then widened.
  QuantizedMultiplier identity = quantize_multiplier(static_cast<double>(float_scale(g, x) / float_scale(g, y)));
  QuantizedMultiplier negative = quantize_multiplier(static_cast<double>(float_scale(g, x) * alpha / float_scale(g, y)));
  Expr v = centered(g, x, in[0]);
  Expr scaled = ir::select(v >= 0, requantized(v, identity), requantized(v, negative));
  return clamped(g, node, scaled + tflite::zero_point_of(g, y), type_range(g.tensor(y).dtype));
}

// HARD_SWISH's two 16-bit multipliers (HardSwishPrepare): the input at 2^-7 of its scale
// to the output's scale, and to the scale where 3 is 2^15; each a Q31 multiplier rounded
// to Q15 (DownScaleInt32ToInt16Multiplier) and an exponent.
struct HardSwishScales {
  int32_t output_multiplier, output_exponent, reluish_multiplier, reluish_exponent;
};

int32_t q15(int32_t q31) {
  if (q31 >= INT32_MAX - (1 << 15)) return INT16_MAX;
  return (q31 + (1 << 15)) >> 16;
}

HardSwishScales hard_swish_scales(const Graph& g, const Node& node) {
  float hires_input_scale = (1.0f / 128.0f) * float_scale(g, node.inputs[0]);
  QuantizedMultiplier out = quantize_multiplier(static_cast<double>(hires_input_scale / float_scale(g, node.outputs[0])));
  QuantizedMultiplier reluish = quantize_multiplier(static_cast<double>(hires_input_scale / (3.0f / 32768.0f)));
  if (out.shift > 0) node_error(node, "the output scale is below 1/128 of the input's, which TFLite Micro's HARD_SWISH rejects");
  // TFLite's 16-bit rounding shifts (aotc_rounding_divide_by_pot_s16) take shifts of up to 31.
  if (out.shift < -31 || reluish.shift < -31)
    node_error(node, "input and output scales too far apart for the 16-bit fixed-point HARD_SWISH");
  return {q15(out.multiplier), out.shift, q15(reluish.multiplier), reluish.shift};
}

Expr hard_swish(const Graph& g, const Node& node, Operands in) {
  if (is_quantized(g, node.inputs[0])) {
    HardSwishScales s = hard_swish_scales(g, node);
    Expr v = ir::hard_swish_s8(centered(g, node.inputs[0], in[0]), s.output_multiplier, s.output_exponent,
                               s.reluish_multiplier, s.reluish_exponent);
    return clamped(g, node, v + tflite::zero_point_of(g, node.outputs[0]), {-128, 127});
  }
  // float: in * min(6, max(0, in + 3)) / 6.
  Expr relu6_of_shifted = std_min(f32(6), std_max(f32(0), in[0] + f32(3)));
  return in[0] * relu6_of_shifted / f32(6);
}

void infer_hard_swish(Graph& g, Node& node) {
  unary({kF32, DataType::Int(8)})(g, node);
  if (is_quantized(g, node.inputs[0])) hard_swish_scales(g, node);
}

Expr prelu(const Graph& g, const Node& node, Operands in) {
  if (!is_quantized(g, node.inputs[0])) return ir::select(in[0] >= f32(0), in[0], in[0] * in[1]);
  TensorId x = node.inputs[0], alpha = node.inputs[1], y = node.outputs[0];
  QuantizedMultiplier positive =
      quantize_multiplier(static_cast<double>(float_scale(g, x)) / static_cast<double>(float_scale(g, y)));
  QuantizedMultiplier negative = quantize_multiplier(static_cast<double>(float_scale(g, x)) *
                                                     static_cast<double>(float_scale(g, alpha)) /
                                                     static_cast<double>(float_scale(g, y)));
  Expr v = centered(g, x, in[0]);
  Expr scaled = ir::select(v >= 0, requantized(v, positive), requantized(v * centered(g, alpha, in[1]), negative));
  return clamped(g, node, scaled + tflite::zero_point_of(g, y), type_range(g.tensor(y).dtype));
}

// float32 and int8 PRELU take alpha of the input's type; int16 takes int8 alpha
// (PreluPrepare).
void infer_prelu(Graph& g, Node& node) {
  DataType t = require_one_of(g, node, 0, {kF32, kI8, kI16});
  const Tensor& alpha = require_input(g, node, 1);
  DataType alpha_type = t == kI16 ? kI8 : t;
  if (alpha.dtype != alpha_type)
    node_error(node, "alpha '" + alpha.name + "' is " + alpha.dtype.str() + "; with a " + t.str() + " input PRELU takes " +
                         alpha_type.str() + " alpha");
  tflite::set_declared_output(g, node, 0, t, broadcast_shapes(node, g.tensor(node.inputs[0]).shape, alpha.shape));
  if (is_quantized(g, node.inputs[0])) {
    tflite::require_per_tensor_quantized(g, node, node.inputs[1]);
    tflite::require_per_tensor_quantized(g, node, node.outputs[0]);
  }
}

// ---------------------------------------------------------------- LOGISTIC, TANH (int8)

// The input rescaling of TFLite's int8 LOGISTIC and TANH (CalculateArithmeticOpData):
// scale * 2^27 as a Q31 multiplier and exponent (frexp), and the radius beyond which the
// result saturates (CalculateInputRadius).
struct Q4Rescale {
  int32_t multiplier, shift, radius;
};

Q4Rescale q4_rescale(const Graph& g, TensorId input) {
  double real = static_cast<double>(float_scale(g, input)) * static_cast<double>(1 << 27);
  int shift = 0;
  double q = std::frexp(real, &shift);
  int64_t multiplier = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (multiplier == (int64_t{1} << 31)) {  // q rounded up to 1
    multiplier /= 2;
    ++shift;
  }
  double radius = 15.0 * static_cast<double>(int64_t{1} << 27) / std::ldexp(1.0, shift);
  // A tiny input scale makes the radius exceed every int8 input anyway: capped, since the
  // conversion of a larger value to int32 is undefined.
  return {static_cast<int32_t>(multiplier), shift, static_cast<int32_t>(std::min(std::floor(radius), 2147483647.0))};
}

// int8 LOGISTIC (logistic = true) or TANH.
Expr int8_sigmoid_like(const Graph& g, const Node& node, const Expr& x, bool logistic) {
  TensorId in = node.inputs[0];
  Q4Rescale r = q4_rescale(g, in);
  Expr v = centered(g, in, x);
  Expr q4 = ir::mul_by_quantized_multiplier(v, r.multiplier, r.shift);
  Expr q0 = logistic ? ir::logistic_q4_27(q4) : ir::tanh_q4_27(q4);
  // Q0.31 to steps of 2^-8 (zero point -128) or 2^-7.
  Expr scaled = logistic ? ir::rounding_divide_by_pot(q0, 23) - 128 : ir::rounding_divide_by_pot(q0, 24);
  Expr inside = tflite::clamp(scaled, {-128, 127});
  Expr value = ir::select(v <= -r.radius, ir::make_int(-128), ir::select(v >= r.radius, ir::make_int(127), inside));
  return ir::cast(DataType::Int(8), value);
}

// ---------------------------------------------------------------- LOGISTIC, TANH (int16)

// The rescaling of an int16 input to steps of 1/(3 * 4096) before the table look-up, as
// TFLite Micro's LOGISTIC and TANH Prepare compute it: a power-of-two input scale of 2^-12
// (and for TANH 2^-11) is the exact multiplier 3 (6); any other scale is doubled until
// scale * 3 * 4096 * 2^shift passes 32767 / 2 and then truncated.
struct LutRescale {
  int32_t multiplier, shift;
};

LutRescale int16_lut_rescale(const Graph& g, const Node& node, bool logistic) {
  TensorId x = node.inputs[0], y = node.outputs[0];
  require_scale_and_zero_point(g, node, x, kI16, true);
  require_scale_and_zero_point(g, node, y, kI16, true);
  int output_log2 = 0;
  if (!checked_log2(float_scale(g, y), &output_log2) || output_log2 != -15)
    node_error(node, "int16 " + node.op + " writes steps of 2^-15: the output scale must be 2^-15, got " +
                         std::to_string(float_scale(g, y)));
  float scale = float_scale(g, x);
  int input_log2 = 0;
  bool power_of_two = checked_log2(scale, &input_log2);
  int shift = 12 + input_log2;
  if (power_of_two && (shift == 0 || (!logistic && shift == 1))) return {3 << shift, 0};
  double multiplier = static_cast<double>(scale) * 4096.0 * 3.0;
  shift = 0;
  while (multiplier <= 32767.0 / 2.0 && shift <= 30) {
    ++shift;
    multiplier *= 2.0;
  }
  // A scale above 32767 / (3 * 4096) keeps its multiplier above 32767 (shift 0), which
  // TFLite Micro uses as it is: every int16 input times it stays inside int32 up to 65535.
  if (multiplier >= 65536.0)
    node_error(node, "the input scale " + std::to_string(scale) +
                         " is too large for TFLite's int16 table look-up (below 65536 / (3 * 4096): input times "
                         "its multiplier must stay inside int32)");
  return {static_cast<int32_t>(multiplier), shift};
}

Expr int16_sigmoid_like(const Graph& g, const Node& node, const Expr& x, bool logistic) {
  LutRescale r = int16_lut_rescale(g, node, logistic);
  Expr v = ir::cast(kI32, x);
  return ir::cast(kI16, logistic ? ir::logistic_s16(v, r.multiplier, r.shift) : ir::tanh_s16(v, r.multiplier, r.shift));
}

void infer_logistic_or_tanh(Graph& g, Node& node, bool logistic) {
  unary({kF32, kI8, kI16})(g, node);
  if (g.tensor(node.inputs[0]).dtype == kI16) {
    int16_lut_rescale(g, node, logistic);
    return;
  }
  if (!is_quantized(g, node.inputs[0])) return;
  // TFLite Micro's LOGISTIC requires the output zero point -128; both write steps of
  // 1/256 (LOGISTIC) or 1/128 (TANH) whatever the output's scale says.
  if (logistic && tflite::zero_point_of(g, node.outputs[0]) != -128)
    node_error(node, "int8 LOGISTIC needs the output zero point -128, got " +
                         std::to_string(tflite::zero_point_of(g, node.outputs[0])));
}

// ---------------------------------------------------------------- math

Expr call(const std::string& name, const Expr& x) { return ir::call(name, {x}, kF32); }

// ABS: float32; int8 and int16 quantized per tensor (int16 with zero points 0); int16
// without quantization parameters (TFLite Micro then takes std::abs of the raw values).
void infer_abs(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  DataType t = x.dtype;
  if (t != kF32 && t != kI8 && t != kI16)
    node_error(node, "input '" + x.name + "' is " + t.str() + "; supported: float32, int8 and int16");
  tflite::set_declared_output(g, node, 0, t, x.shape);
  if (t == kI8 || (t == kI16 && has_quantization(g, node.inputs[0]))) {
    require_scale_and_zero_point(g, node, node.inputs[0], t, t == kI16);
    require_scale_and_zero_point(g, node, node.outputs[0], t, t == kI16);
  }
}

Expr abs_value(const Graph& g, const Node& node, Operands in) {
  TensorId x = node.inputs[0], y = node.outputs[0];
  DataType t = g.tensor(x).dtype;
  if (t == kF32) return call("fabsf", in[0]);
  if (!has_quantization(g, x)) {
    // std::abs of an int16, narrowed back: -32768 stays -32768.
    Expr v = ir::cast(kI32, in[0]);
    Expr magnitude = ir::select(v < 0, -v, v);
    return ir::cast(t, ir::select(magnitude > 32767, ir::make_int(-32768), magnitude));
  }
  Expr v = centered(g, x, in[0]);
  Expr magnitude = ir::select(v < 0, -v, v);
  // AbsEvalQuantized rescales only when the float scales differ.
  Expr scaled = magnitude;
  if (float_scale(g, x) != float_scale(g, y))
    scaled = requantized(magnitude, quantize_multiplier(static_cast<double>(float_scale(g, x)) /
                                                        static_cast<double>(float_scale(g, y))));
  return clamped(g, node, scaled + tflite::zero_point_of(g, y), type_range(t));
}

// RSQRT: float32, and int8 quantized per tensor (TFLite Micro has no int16 RSQRT).
QuantizedMultiplier rsqrt_multiplier(const Graph& g, const Node& node) {
  // SetRsqrtOutputMultiplier: 1 / (sqrt(input scale) * output scale), in double.
  return quantize_multiplier(1.0 / (std::sqrt(static_cast<double>(float_scale(g, node.inputs[0]))) *
                                    static_cast<double>(float_scale(g, node.outputs[0]))));
}

// The fixed-point result is formed at 2^20 and then rescaled by 2^-20: the rescaling's
// right shift must stay within the 31 bits the runtime shifts by.
constexpr int32_t kRsqrtShift = 20;

void infer_rsqrt(Graph& g, Node& node) {
  // TFLite Micro's Prepare (elementwise.cc, IsRsqrtSupportedType) fails on int16 before
  // the int16 case of its RsqrtEval could run: there is no int16 arithmetic to follow.
  const Tensor& x = require_input(g, node, 0);
  if (x.dtype == kI16)
    node_error(node, "input '" + x.name + "' is int16; supported: float32 and int8 (TFLite Micro has no int16 RSQRT either)");
  unary({kF32, kI8})(g, node);
  if (g.tensor(node.inputs[0]).dtype != kI8) return;
  require_scale_and_zero_point(g, node, node.inputs[0], kI8, false);
  require_scale_and_zero_point(g, node, node.outputs[0], kI8, false);
  if (rsqrt_multiplier(g, node).shift - kRsqrtShift < -31)
    node_error(node, "input and output scales too far apart for TFLite's int8 RSQRT");
}

// int8 RSQRT of `value` = x - input zero point (>= 0), as RsqrtEvalQuantized computes it.
ir::Stmt int8_rsqrt(const Graph& g, const Node& node, const Expr& x,
                    const std::function<ir::Stmt(const Expr&)>& write) {
  QuantizedMultiplier m = rsqrt_multiplier(g, node);
  ir::Var value = ir::make_var("value"), inv_sqrt = ir::make_var("inv_sqrt"), inv_sqrt_shift = ir::make_var("inv_sqrt_shift");
  Expr v = ir::var_expr(value);
  // 1 / sqrt(value) at 2^20, then on the output's scale.
  Expr at_2_20 =
      ir::mul_by_quantized_multiplier(ir::make_int(1), ir::var_expr(inv_sqrt), ir::var_expr(inv_sqrt_shift) + kRsqrtShift);
  Expr output = ir::mul_by_quantized_multiplier(at_2_20, m.multiplier, m.shift - kRsqrtShift) +
                tflite::zero_point_of(g, node.outputs[0]);
  Expr result = ir::cast(kI8, ir::select(v == 0, ir::make_int(127), tflite::clamp(output, {-128, 127})));
  return ir::let(value, centered(g, node.inputs[0], x),
                 ir::let(inv_sqrt, ir::inv_sqrt_multiplier(v), ir::let(inv_sqrt_shift, ir::inv_sqrt_shift(v), write(result))));
}

// RSQRT's kernel: TFLite Micro checks each int8 input before it computes it and fails the
// invocation on one below the zero point (a negative real value); this kernel checks them
// all first and returns AOTC_ERR_INVALID_ARGUMENT. (So RSQRT is no epilogue: a fused copy
// would lose the check.)
LoweredOp lower_rsqrt(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  ir::Buffer in = kb.input(0, "input"), out = kb.output(0, "output");
  std::vector<int64_t> shape = out->shape;  // the output's, at least one dimension
  std::vector<ir::Stmt> body;
  bool quantized = out->dtype == kI8;
  // With the zero point -128 no int8 input is below it.
  if (quantized && tflite::zero_point_of(g, node.inputs[0]) > -128) {
    Expr zero_point = ir::make_int(tflite::zero_point_of(g, node.inputs[0]));
    body.push_back(ir::loop_nest(shape, {}, [&](const std::vector<Expr>& idx) {
      Expr below_zero = ir::cast(kI32, ir::load(in, idx)) < zero_point;
      return ir::if_then_else(below_zero, ir::return_stmt(ir::call(ir::builtin::kErrInvalidArgument, {}, kI32)));
    }));
  }
  body.push_back(ir::loop_nest(shape, {}, [&](const std::vector<Expr>& idx) {
    Expr x = ir::load(in, idx);
    auto write = [&](const Expr& v) { return ir::store(out, idx, kb.epilogue(v, idx)); };
    if (quantized) return int8_rsqrt(g, node, x, write);
    return write(f32(1) / call("sqrtf", x));  // 1.f / std::sqrt(f)
  }));
  return kb.finish(ir::seq(body));
}

// ---------------------------------------------------------------- binary

// MINIMUM / MAXIMUM: std::min / std::max of the raw values.
Expr minimum(const Graph&, const Node&, Operands in) { return std_min(in[0], in[1]); }
Expr maximum(const Graph&, const Node&, Operands in) { return std_max(in[0], in[1]); }

// SQUARED_DIFFERENCE: float32, int32 (wrapping), and int8 / int16 quantized per tensor
// (int16 with zero points 0).
void infer_squared_difference(Graph& g, Node& node) {
  binary({kF32, kI8, kI16, kI32})(g, node);
  DataType t = g.tensor(node.inputs[0]).dtype;
  if (t != kI8 && t != kI16) return;
  for (TensorId id : {node.inputs[0], node.inputs[1], node.outputs[0]}) require_scale_and_zero_point(g, node, id, t, t == kI16);
}

Expr squared_difference(const Graph& g, const Node& node, Operands in) {
  DataType t = g.tensor(node.inputs[0]).dtype;
  if (t == kF32) {
    Expr d = in[0] - in[1];
    return d * d;
  }
  if (t == kI32) {
    Expr d = wrapping_sub(in[0], in[1]);
    return wrapping_mul(d, d);
  }
  // PrepareQuantized: int8 values at 2^7 (the squares of 255 * 2^7 stay in int32), int16
  // ones at 2^0; both inputs rescaled to half the larger input scale, the square of the
  // difference to the output's scale; the ratios in double from the float scales.
  TensorId a = node.inputs[0], b = node.inputs[1], y = node.outputs[0];
  int left_shift = t == kI8 ? 7 : 0;
  double twice_max_input_scale = 2.0 * static_cast<double>(std::max(float_scale(g, a), float_scale(g, b)));
  QuantizedMultiplier a_multiplier = quantize_multiplier(static_cast<double>(float_scale(g, a)) / twice_max_input_scale);
  QuantizedMultiplier b_multiplier = quantize_multiplier(static_cast<double>(float_scale(g, b)) / twice_max_input_scale);
  // (1 << 2 * left_shift) * output scale is a float product in TFLite.
  float output_denominator = static_cast<float>(1 << (2 * left_shift)) * float_scale(g, y);
  QuantizedMultiplier output_multiplier =
      quantize_multiplier(twice_max_input_scale * twice_max_input_scale / static_cast<double>(output_denominator));
  Expr scaled_a = requantized(centered(g, a, in[0]) * (1 << left_shift), a_multiplier);
  Expr scaled_b = requantized(centered(g, b, in[1]) * (1 << left_shift), b_multiplier);
  Expr difference = scaled_a - scaled_b;
  Expr output = requantized(difference * difference, output_multiplier) + tflite::zero_point_of(g, y);
  return clamped(g, node, output, type_range(t));
}

const std::vector<DataType> kFloatOnly = {kF32};
const std::vector<DataType> kFloatInt8Int16 = {kF32, DataType::Int(8), DataType::Int(16)};

AOTC_REGISTER_OP("tfl.LOGISTIC", elementwise_op([](Graph& g, Node& n) { infer_logistic_or_tanh(g, n, true); },
                                                [](const Graph& g, const Node& n, Operands in) {
                                                  DataType t = g.tensor(n.inputs[0]).dtype;
                                                  if (t == kI16) return int16_sigmoid_like(g, n, in[0], true);
                                                  if (t == kI8) return int8_sigmoid_like(g, n, in[0], true);
                                                  return tflite::float_logistic(in[0]);
                                                }));
AOTC_REGISTER_OP("tfl.TANH", elementwise_op([](Graph& g, Node& n) { infer_logistic_or_tanh(g, n, false); },
                                            [](const Graph& g, const Node& n, Operands in) {
                                              DataType t = g.tensor(n.inputs[0]).dtype;
                                              if (t == kI16) return int16_sigmoid_like(g, n, in[0], false);
                                              if (t == kI8) return int8_sigmoid_like(g, n, in[0], false);
                                              return call("tanhf", in[0]);
                                            }));
AOTC_REGISTER_OP("tfl.RELU", elementwise_op(unary(kFloatInt8Int16), relu));
AOTC_REGISTER_OP("tfl.RELU6", elementwise_op(unary(kFloatInt8Int16), relu6));
AOTC_REGISTER_OP("tfl.RELU_N1_TO_1", elementwise_op(unary(kFloatOnly), relu_n1_to_1));
AOTC_REGISTER_OP("tfl.LEAKY_RELU", elementwise_op(unary(kFloatInt8Int16), leaky_relu));
AOTC_REGISTER_OP("tfl.HARD_SWISH", elementwise_op(infer_hard_swish, hard_swish));
AOTC_REGISTER_OP("tfl.PRELU", elementwise_op(infer_prelu, prelu));
AOTC_REGISTER_OP("tfl.ABS", elementwise_op(infer_abs, abs_value));
AOTC_REGISTER_OP("tfl.NEG", elementwise_op(unary(kFloatOnly), [](const Graph&, const Node&, Operands in) { return -in[0]; }));
AOTC_REGISTER_OP("tfl.SQRT", elementwise_op(unary(kFloatOnly),
                                            [](const Graph&, const Node&, Operands in) { return call("sqrtf", in[0]); }));
AOTC_REGISTER_OP("tfl.RSQRT", kernel_op(infer_rsqrt, lower_rsqrt).with({Role::kAnchor, Role::kInPlace}));
AOTC_REGISTER_OP("tfl.EXP", elementwise_op(unary(kFloatOnly),
                                           [](const Graph&, const Node&, Operands in) { return call("expf", in[0]); }));
AOTC_REGISTER_OP("tfl.LOG", elementwise_op(unary(kFloatOnly),
                                           [](const Graph&, const Node&, Operands in) { return call("logf", in[0]); }));
AOTC_REGISTER_OP("tfl.MINIMUM", elementwise_op(binary({kF32, DataType::Int(8), DataType::Int(16), DataType::Int(32)}), minimum));
AOTC_REGISTER_OP("tfl.MAXIMUM", elementwise_op(binary({kF32, DataType::Int(8), DataType::Int(16), DataType::Int(32)}), maximum));
AOTC_REGISTER_OP("tfl.SQUARED_DIFFERENCE", elementwise_op(infer_squared_difference, squared_difference));

}  // namespace
}  // namespace aotc
