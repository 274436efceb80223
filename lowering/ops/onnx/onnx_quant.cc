// ONNX's quantized operators: QuantizeLinear, DequantizeLinear (per tensor, per axis and,
// opset 21, per block), QLinearConv and QLinearMatMul, and aotc.QLinearAdd, the
// integer Add that the fold_qdq pass makes out of DequantizeLinear + Add + QuantizeLinear.
//
// QuantizeLinear and DequantizeLinear convert between float32 and integers, so they
// compute in float:  y = saturate(round_half_even(x / scale) + zero_point)  and
// y = (x - zero_point) * scale, in float32 as ONNX defines them.
//
// The other kernels are integer only. They accumulate (x - x_zero_point) *
// (w - w_zero_point) in int32, add an int32 bias, and requantize with a multiplier and
// shift computed at compile time from the float32 factor x_scale * w_scale / y_scale
// (lowering/quant_onnx.h): the real product rounded once, ties to even, which is ONNX's
// definition exactly. The output zero point is added and the value clamped to the output
// type, or to a narrower range when fold_qdq has folded a Relu or Clip into the node (the
// kAotcClampMin/kAotcClampMax attributes, in the output's integer domain).
//
// Scales and zero points must be constants (initializers): the requantization constants
// are computed at compile time, and a quantized model always has them as constants.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/channel_constants.h"
#include "lowering/kernels/node_problem.h"
#include "lowering/kernels/pool_kernels.h"
#include "lowering/compute/channel_header.h"
#include "lowering/compute/convolution.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"
#include "aot/import/onnx_importer.h"
#include "lowering/compute/reduction.h"
#include "lowering/compute/window.h"
#include "lowering/ir/quant_onnx.h"

namespace aotc {
namespace {

using ir::Expr;

// Attributes set by fold_qdq on the nodes it creates: the output range of a folded
// Relu or Clip, as integers of the output type.
constexpr const char* kAotcClampMin = "aotc.clamp_min";
constexpr const char* kAotcClampMax = "aotc.clamp_max";

// ---------------------------------------------------------------- quantization parameters

struct IntRange {
  int64_t min = 0, max = 0;
};

IntRange type_range(DataType t) {
  if (t.is_uint()) return {0, (int64_t{1} << t.bits) - 1};
  return {-(int64_t{1} << (t.bits - 1)), (int64_t{1} << (t.bits - 1)) - 1};
}

bool is_quantized_type(DataType t) { return (t.is_int() || t.is_uint()) && t.bits <= 16; }

// The scales and zero points of one quantized operand, read from constant inputs: one
// pair per tensor, or one per index along a quantization axis.
struct QuantParams {
  DataType type;                     // the quantized values' type (the zero point's)
  std::vector<float> scales;         // one, or one per channel
  std::vector<int32_t> zero_points;  // as many as scales (zeros when the input is absent)

  bool per_tensor() const { return scales.size() == 1; }
};

// Reads inputs `scale_index` and `zero_point_index` of `node` (the latter optional) for
// quantized values of type `type`. Both must be constants with equal element counts.
QuantParams read_quant_params(const Graph& g, const Node& node, size_t scale_index, size_t zero_point_index,
                              DataType type) {
  const Tensor& scale = require_input(g, node, scale_index);
  if (scale.dtype != DataType::Float32())
    node_error(node, "scale '" + scale.name + "' is " + scale.dtype.str() + "; only float32 scales are supported");
  if (!scale.is_constant())
    node_error(node, "scale '" + scale.name +
                         "' must be a constant (an initializer): requantization is computed at compile time");
  if (scale.num_elements() < 1) node_error(node, "scale '" + scale.name + "' is empty");
  QuantParams q;
  q.type = type;
  for (double s : scale.floats()) {
    if (!(s > 0) || !std::isfinite(s))
      node_error(node, "scale '" + scale.name + "' holds " + std::to_string(s) + "; scales must be positive");
    q.scales.push_back(static_cast<float>(s));
  }
  TensorId zp_id = node.input(zero_point_index);
  if (zp_id == kNoTensor) {
    q.zero_points.assign(q.scales.size(), 0);
    return q;
  }
  const Tensor& zp = g.tensor(zp_id);
  if (zp.dtype != type)
    node_error(node,
               "zero point '" + zp.name + "' is " + zp.dtype.str() + " but the quantized values are " + type.str());
  if (!zp.is_constant()) node_error(node, "zero point '" + zp.name + "' must be a constant (an initializer)");
  if (zp.num_elements() != scale.num_elements())
    node_error(node, "scale '" + scale.name + "' and zero point '" + zp.name + "' have different shapes " +
                         shape_str(scale.shape) + " and " + shape_str(zp.shape));
  for (int64_t v : zp.ints()) q.zero_points.push_back(static_cast<int32_t>(v));
  return q;
}

// The type of a quantized output: its zero point's, or uint8 when there is none.
DataType output_quantized_type(const Graph& g, const Node& node, size_t zero_point_index) {
  TensorId zp = node.input(zero_point_index);
  DataType t = zp == kNoTensor ? DataType::UInt(8) : g.tensor(zp).dtype;
  if (!is_quantized_type(t))
    node_error(node, "quantized type " + t.str() + " is not supported (8- and 16-bit integers)");
  return t;
}

void require_quantized_input(const Graph& g, const Node& node, size_t index, bool allow_int32 = false) {
  DataType t = require_input(g, node, index).dtype;
  if (!is_quantized_type(t) && !(allow_int32 && t == DataType::Int(32)))
    node_error(node, "input '" + g.tensor(node.inputs[index]).name + "' is " + t.str() +
                         "; quantized values must be 8- or 16-bit integers");
}

// ---------------------------------------------------------------- QuantizeLinear, DequantizeLinear

// Which scale and zero point each element of a QuantizeLinear/DequantizeLinear uses:
//   per tensor  one parameter (axis -1);
//   per axis    one per index along the normalized `axis` (opset 13, default 1);
//   blocked     (block_size > 0, opset 21) parameters of x's shape but ceil(extent /
//               block_size) along `axis`: element i uses the one at i with its index along
//               `axis` divided by block_size.
struct QuantizationLayout {
  int64_t axis = -1;
  int64_t block_size = 0;
  std::vector<int64_t> scale_shape;
};

QuantizationLayout quantization_layout(const Graph& g, const Node& node, const Tensor& x) {
  const Tensor& scale = require_input(g, node, 1);
  QuantizationLayout layout;
  layout.block_size = node.attr_int("block_size", 0);
  if (layout.block_size < 0) node_error(node, "block_size must not be negative, got " + std::to_string(layout.block_size));
  if (layout.block_size == 0 && scale.num_elements() == 1) return layout;
  if (g.opset != 0 && g.opset < 13)
    node_error(node, "per-axis scales need opset 13 (the model imports opset " + std::to_string(g.opset) + ")");
  int64_t rank = static_cast<int64_t>(x.shape.size());
  layout.axis = normalize_axis(node, node.attr_int("axis", 1), rank);
  int64_t extent = x.shape[static_cast<size_t>(layout.axis)];
  if (layout.block_size == 0) {
    if (scale.shape.size() != 1 || scale.shape[0] != extent)
      node_error(node, "scale '" + scale.name + "' has shape " + shape_str(scale.shape) + "; expected a scalar or [" +
                           std::to_string(extent) + "] for axis " + std::to_string(layout.axis) + " of " + shape_str(x.shape));
    layout.scale_shape = scale.shape;
    return layout;
  }
  std::vector<int64_t> expected = x.shape;
  expected[static_cast<size_t>(layout.axis)] = (extent + layout.block_size - 1) / layout.block_size;
  if (scale.shape != expected)
    node_error(node, "scale '" + scale.name + "' has shape " + shape_str(scale.shape) + "; blocks of " +
                         std::to_string(layout.block_size) + " along axis " + std::to_string(layout.axis) + " of " +
                         shape_str(x.shape) + " need " + shape_str(expected));
  TensorId zero_point = node.input(2);
  if (zero_point != kNoTensor && g.tensor(zero_point).shape != expected)
    node_error(node, "zero point '" + g.tensor(zero_point).name + "' has shape " + shape_str(g.tensor(zero_point).shape) +
                         "; it must have the scale's, " + shape_str(expected));
  layout.scale_shape = expected;
  return layout;
}

// QuantizeLinear's type: output_dtype (opset 21) when given, which a zero point's type
// must equal; else the zero point's (uint8 without one).
DataType quantize_output_type(const Graph& g, const Node& node) {
  int64_t code = node.attr_int("output_dtype", 0);
  if (code == 0) return output_quantized_type(g, node, 2);
  std::optional<DataType> t = onnx_element_dtype(code);
  if (!t || !is_quantized_type(*t))
    node_error(node, "output_dtype " + onnx_element_type_name(code) + " is not supported (8- and 16-bit integers)");
  if (node.input(2) != kNoTensor && g.tensor(node.inputs[2]).dtype != *t)
    node_error(node, "output_dtype " + onnx_element_type_name(code) + " differs from the zero point's type " +
                         g.tensor(node.inputs[2]).dtype.str());
  return *t;
}

void infer_quantize_linear(Graph& g, Node& node) {
  require_float32(g, node, 0);
  const Tensor& x = g.tensor(node.inputs[0]);
  // QuantizeLinear-23's `precision`: the type x / y_scale is computed in. aotc divides in
  // float32, y_scale's type and the default (0: unset, 1: float32).
  int64_t precision = node.attr_int("precision", 0);
  if (precision != 0 && precision != 1)
    node_error(node, "precision " + std::to_string(precision) + " is not supported (the division is in float32)");
  DataType out = quantize_output_type(g, node);
  quantization_layout(g, node, x);
  read_quant_params(g, node, 1, 2, out);
  set_output(g, node, 0, out, x.shape);
}

void infer_dequantize_linear(Graph& g, Node& node) {
  require_quantized_input(g, node, 0, /*allow_int32=*/true);
  const Tensor& x = g.tensor(node.inputs[0]);
  // DequantizeLinear-23's output_dtype: float32 (the scale's type, the default) only.
  int64_t output_dtype = node.attr_int("output_dtype", 0);
  if (output_dtype != 0 && output_dtype != 1)
    node_error(node, "output_dtype " + onnx_element_type_name(output_dtype) + " is not supported (float32 only)");
  quantization_layout(g, node, x);
  QuantParams q = read_quant_params(g, node, 1, 2, x.dtype);
  if (x.dtype == DataType::Int(32) &&
      std::any_of(q.zero_points.begin(), q.zero_points.end(), [](int32_t z) { return z != 0; }))
    node_error(node, "int32 values cannot have a nonzero zero point");
  set_output(g, node, 0, DataType::Float32(), x.shape);
}

// The elementwise kernel of QuantizeLinear and DequantizeLinear: y[i] = element(x[i], c),
// `c` being i's index along the quantization axis (0 when per tensor), inside the tables
// of `constants`.
LoweredOp lower_linear_conversion(const Graph& g, const Node& node, KernelBuilder& kb, ChannelConstants& constants,
                                  const std::function<Expr(const Expr& x, const Expr& channel)>& element) {
  const Tensor& x = g.tensor(node.inputs[0]);
  QuantizationLayout layout = quantization_layout(g, node, x);
  std::vector<int64_t> shape = x.shape.empty() ? std::vector<int64_t>{1} : x.shape;
  ir::Buffer in = kb.input(0, "x");
  ir::Buffer out = kb.output(0, "y");
  // The parameters' row-major position for element `index` (see QuantizationLayout).
  auto parameter = [&](const std::vector<Expr>& index) -> Expr {
    if (layout.axis < 0) return 0;
    if (layout.block_size == 0) return index[static_cast<size_t>(layout.axis)];
    Expr flat = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      Expr at = static_cast<int64_t>(d) == layout.axis ? index[d] / ir::make_int(layout.block_size) : index[d];
      flat = flat * ir::make_int(layout.scale_shape[d]) + at;
    }
    return flat;
  };
  ir::Stmt body = constants.wrap([&] {
    return ir::loop_nest(shape, {}, [&](const std::vector<Expr>& index) {
      return ir::store(out, index, element(ir::load(in, index), parameter(index)));
    });
  });
  return kb.finish(body);
}

std::vector<double> as_doubles(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }
std::vector<double> as_doubles(const std::vector<int32_t>& v) { return std::vector<double>(v.begin(), v.end()); }

// y = saturate(round_half_even(x / scale) + zero_point), the division in float32 as ONNX
// defines it. Rounding and clamping happen in float, so that values beyond the int32
// range saturate instead of overflowing the conversion to an integer.
LoweredOp lower_quantize_linear(const Graph& g, const Node& node, KernelBuilder& kb) {
  DataType out_type = g.tensor(node.outputs[0]).dtype;
  QuantParams q = read_quant_params(g, node, 1, 2, out_type);
  IntRange range = type_range(out_type);
  ChannelConstants constants;
  auto scale = constants.add("scale", DataType::Float32(), as_doubles(q.scales));
  auto zero_point = constants.add("zero_point", DataType::Float32(), as_doubles(q.zero_points));
  return lower_linear_conversion(g, node, kb, constants, [&](const Expr& x, const Expr& c) {
    Expr rounded =
        ir::call("nearbyintf", {x / constants.at(scale, c)}, DataType::Float32()) + constants.at(zero_point, c);
    // max(min, NaN) is min (see ir::max), so NaN saturates to the type's minimum instead of
    // reaching the conversion, where it would be undefined behaviour in C.
    Expr clamped = ir::min(ir::max(ir::make_float(static_cast<double>(range.min)), rounded),
                           ir::make_float(static_cast<double>(range.max)));
    return ir::cast(out_type, ir::cast(DataType::Int(32), clamped));
  });
}

// y = (x - zero_point) * scale, the difference exact in int32, the product in float32.
LoweredOp lower_dequantize_linear(const Graph& g, const Node& node, KernelBuilder& kb) {
  QuantParams q = read_quant_params(g, node, 1, 2, g.tensor(node.inputs[0]).dtype);
  bool no_zero_point = std::all_of(q.zero_points.begin(), q.zero_points.end(), [](int32_t z) { return z == 0; });
  ChannelConstants constants;
  auto scale = constants.add("scale", DataType::Float32(), as_doubles(q.scales));
  auto zero_point = constants.add("zero_point", DataType::Int(32), as_doubles(q.zero_points));
  return lower_linear_conversion(g, node, kb, constants, [&](const Expr& x, const Expr& c) {
    Expr widened = ir::cast(DataType::Int(32), x);
    Expr centered = no_zero_point ? widened : widened - constants.at(zero_point, c);
    return ir::cast(DataType::Float32(), centered) * constants.at(scale, c);
  });
}

// ---------------------------------------------------------------- shared by the integer kernels

// The last step of every integer kernel: clamp the requantized value to the output range
// (the type's, narrowed by a folded activation), add the output zero point and narrow to
// the output type. The clamp comes first, so that a saturated int32 cannot overflow.
class OutputStage {
 public:
  OutputStage(const Node& node, const QuantParams& output) : type_(output.type), zero_point_(output.zero_points.at(0)) {
    IntRange range = type_range(output.type);
    int64_t lo = std::max(range.min, node.attr_int(kAotcClampMin, range.min));
    int64_t hi = std::min(range.max, node.attr_int(kAotcClampMax, range.max));
    if (lo > hi) node_error(node, "empty output range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    min_ = lo - zero_point_;
    max_ = hi - zero_point_;
  }

  Expr apply(const Expr& scaled) const {
    Expr clamped = ir::max(ir::min(scaled, ir::make_int(max_)), ir::make_int(min_));
    return ir::cast(type_, zero_point_ == 0 ? clamped : clamped + zero_point_);
  }

  // The output's range, zero point included (the type's, narrowed by a folded activation).
  QuantizedRange range() const {
    return {static_cast<int32_t>(min_ + zero_point_), static_cast<int32_t>(max_ + zero_point_)};
  }

  // For a value that already holds the zero point and is saturated to the type's range:
  // the clamp to a narrower range (a folded activation's), and the narrowing.
  Expr apply_to_saturated(Expr value) const {
    IntRange range = type_range(type_);
    if (max_ + zero_point_ < range.max) value = ir::min(value, ir::make_int(max_ + zero_point_));
    if (min_ + zero_point_ > range.min) value = ir::max(value, ir::make_int(min_ + zero_point_));
    return ir::cast(type_, value);
  }

 private:
  DataType type_;
  int32_t zero_point_;
  int64_t min_ = 0, max_ = 0;
};

// acc * factor[channel] rounded half to even, with the exact multiplier and shift of each
// float32 factor (one, or one per channel) as compile-time constants; in the short form of
// aotc_onnx_requantize_high when every factor has it (factors below 1/4).
class Requantizer {
 public:
  Requantizer(const std::vector<float>& factors, ChannelConstants* constants) : constants_(constants) {
    std::vector<double> multipliers, shifts, rounding_high, rounding_low;
    for (float f : factors) {
      std::optional<HighWordRequantization> h = high_word_requantization(exact_multiplier(f));
      if (!h) {
        high_.clear();
        break;
      }
      high_.push_back(*h);
    }
    for (size_t i = 0; i < factors.size(); ++i) {
      if (!high_.empty()) {
        multipliers.push_back(high_[i].multiplier);
        rounding_high.push_back(high_[i].rounding_high);
        rounding_low.push_back(high_[i].rounding_low);
        shifts.push_back(high_[i].high_shift);
      } else {
        ExactMultiplier m = exact_multiplier(factors[i]);
        multipliers.push_back(m.multiplier);
        shifts.push_back(m.shift);
      }
    }
    multiplier_ = constants->add("multiplier", DataType::Int(32), multipliers);
    shift_ = constants->add("shift", DataType::Int(32), shifts);
    if (!high_.empty()) {
      rounding_high_ = constants->add("rounding_high", DataType::Int(32), rounding_high);
      rounding_low_ = constants->add("rounding_low", DataType::Int(32), rounding_low);
    }
  }

  // Whether every factor has the short form.
  bool high_word() const { return !high_.empty(); }
  // The short form's constants of channel `channel`, in aotc_onnx_requantize_high's argument
  // order (multiplier, rounding_high, rounding_low, high_shift); valid when high_word().
  std::vector<int32_t> high_word_constants(int64_t channel) const {
    const HighWordRequantization& h = high_[high_.size() == 1 ? 0 : static_cast<size_t>(channel)];
    return {h.multiplier, h.rounding_high, h.rounding_low, h.high_shift};
  }
  // The same as expressions read from the constant tables.
  std::vector<Expr> high_word_operands(const Expr& channel) const {
    return {constants_->at(multiplier_, channel), constants_->at(rounding_high_, channel),
            constants_->at(rounding_low_, channel), constants_->at(shift_, channel)};
  }

  Expr apply(const Expr& acc, const Expr& channel) const {
    if (high_word()) {
      std::vector<Expr> c = high_word_operands(channel);
      return ir::onnx_requantize_high(acc, c[0], c[1], c[2], c[3]);
    }
    return ir::onnx_requantize(acc, constants_->at(multiplier_, channel), constants_->at(shift_, channel));
  }

 private:
  const ChannelConstants* constants_;
  std::vector<HighWordRequantization> high_;  // one per factor, or none (the general form)
  ChannelConstants::Handle multiplier_ = 0, shift_ = 0, rounding_high_ = 0, rounding_low_ = 0;
};

// The requantization factors a_scale[i] * b_scale[j] / y_scale, in float32 and in that
// order, as ONNX Runtime and the ONNX reference implementation compute them: one per pair
// (i, j), row-major (one per output channel for a convolution, whose input has one scale).
std::vector<float> product_factors(const QuantParams& a, const QuantParams& b, const QuantParams& y) {
  std::vector<float> factors;
  for (float as : a.scales) {
    for (float bs : b.scales) {
      float product = as * bs;
      factors.push_back(product / y.scales[0]);
    }
  }
  return factors;
}

// value - zero_point in int32 (the zero point from `constants`, channel `channel`).
Expr centered(const Expr& value, const QuantParams& q, const ChannelConstants& constants, ChannelConstants::Handle zp,
              const Expr& channel) {
  Expr widened = ir::cast(DataType::Int(32), value);
  bool all_zero = std::all_of(q.zero_points.begin(), q.zero_points.end(), [](int32_t z) { return z == 0; });
  return all_zero ? widened : widened - constants.at(zp, channel);
}

// The optional int32 bias of `node` at input `index`, checked to hold `count` values, or
// kNoTensor.
TensorId checked_bias(const Graph& g, const Node& node, size_t index, int64_t count) {
  TensorId id = node.input(index);
  if (id == kNoTensor) return kNoTensor;
  const Tensor& b = require_input(g, node, index);
  if (b.dtype != DataType::Int(32))
    node_error(node, "bias '" + b.name + "' is " + b.dtype.str() + "; int32 is required");
  if (b.num_elements() != count || b.shape.size() != 1)
    node_error(node,
               "bias '" + b.name + "' has shape " + shape_str(b.shape) + "; expected [" + std::to_string(count) + "]");
  return id;
}

// That bias as a parameter, or null.
ir::Buffer optional_bias(const Graph& g, const Node& node, KernelBuilder& kb, size_t index, int64_t count) {
  return checked_bias(g, node, index, count) == kNoTensor ? nullptr : kb.input(index, "bias");
}

// ---------------------------------------------------------------- QLinearConv

// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B.
ConvGeometry qconv_geometry(const Graph& g, const Node& node) {
  require_quantized_input(g, node, 0);
  require_quantized_input(g, node, 3);
  return onnx_conv_geometry(node, g.tensor(node.inputs[0]), g.tensor(node.inputs[3]));
}

struct QConvParams {
  QuantParams x, w, y;
};

QConvParams qconv_params(const Graph& g, const Node& node, int64_t out_channels) {
  QConvParams p;
  p.x = read_quant_params(g, node, 1, 2, g.tensor(node.inputs[0]).dtype);
  p.w = read_quant_params(g, node, 4, 5, g.tensor(node.inputs[3]).dtype);
  p.y = read_quant_params(g, node, 6, 7, output_quantized_type(g, node, 7));
  if (!p.x.per_tensor() || !p.y.per_tensor()) node_error(node, "x and y must be quantized per tensor");
  if (!p.w.per_tensor() && static_cast<int64_t>(p.w.scales.size()) != out_channels)
    node_error(node, "w has " + std::to_string(p.w.scales.size()) + " scales; expected 1 or one per output channel (" +
                         std::to_string(out_channels) + ")");
  return p;
}

void infer_qlinear_conv(Graph& g, Node& node) {
  ConvGeometry geo = qconv_geometry(g, node);
  QConvParams p = qconv_params(g, node, geo.out_channels);
  if (node.input(8) != kNoTensor) {
    const Tensor& b = require_input(g, node, 8);
    if (b.dtype != DataType::Int(32) || b.num_elements() != geo.out_channels)
      node_error(node, "bias '" + b.name + "' must be int32 [" + std::to_string(geo.out_channels) + "]");
  }
  set_output(g, node, 0, p.y.type, geo.output_shape());
}

// ONNX's integer scheme: terms (x - x_zero_point) and (w - w_zero_point[channel]) in int32,
// the sum plus bias requantized exactly (ties to even), clamped, plus y's zero point. Of
// QLinearConv (w's channels are output channels) and of QLinearMatMul as a fully connected
// layer (x = a, w = b, whose columns are the output units).
class QLinearArithmetic : public ConvArithmetic {
 public:
  QLinearArithmetic(const Node& node, const QConvParams& p)
      : p_(p), output_(node, p.y), requantize_(product_factors(p.x, p.w, p.y), &constants_) {
    x_zero_point_ = constants_.add("x_zero_point", DataType::Int(32), as_doubles(p.x.zero_points));
    w_zero_point_ = constants_.add("w_zero_point", DataType::Int(32), as_doubles(p.w.zero_points));
  }

  DataType accumulator() const override { return DataType::Int(32); }
  Expr input_term(const Expr& x) const override { return centered(x, p_.x, constants_, x_zero_point_, 0); }
  Expr filter_term(const Expr& w, const Expr& oc) const override {
    return centered(w, p_.w, constants_, w_zero_point_, oc);
  }
  Expr output(const Expr& sum, const Expr& oc) const override {
    if (int8_form()) return output_from(sum, requantize_.high_word_operands(oc));
    return output_.apply(requantize_.apply(sum, oc));
  }
  // aotc_onnx_requantize_s8's constants but the zero point, where it applies (int8 outputs
  // of factors below 1/4).
  std::vector<int32_t> channel_constants(int64_t oc) const override {
    return int8_form() ? requantize_.high_word_constants(oc) : std::vector<int32_t>{};
  }
  Expr output_from(const Expr& sum, const std::vector<Expr>& c) const override {
    return output_.apply_to_saturated(
        ir::onnx_requantize_s8(sum, c.at(0), c.at(1), c.at(2), c.at(3), ir::make_int(p_.y.zero_points[0])));
  }
  ir::Stmt wrap(const std::function<ir::Stmt()>& body) override { return constants_.wrap(body); }
  // A centred 8-bit value fits in int16; a 16-bit one needs int32.
  DataType staged_type(DataType input) const override {
    return input.bits <= 8 ? DataType::Int(16) : DataType::Int(32);
  }

 private:
  // The requantization and int8 saturation in one runtime call (aotc_onnx_requantize_s8).
  bool int8_form() const { return p_.y.type == DataType::Int(8) && requantize_.high_word(); }

  QConvParams p_;
  ChannelConstants constants_;
  OutputStage output_;
  Requantizer requantize_;
  ChannelConstants::Handle x_zero_point_ = 0, w_zero_point_ = 0;
};

// ONNX's requantization as data (ChannelRequantization, kHalfToEven): each factor's exact
// multiplier and shift, one per output channel; y's zero point and range. For readers that
// compute it themselves (an NPU backend): the kernels take QLinearArithmetic.
ChannelRequantization half_to_even_requantization(const std::vector<float>& factors, int64_t channels,
                                                  const QuantParams& y, const OutputStage& output) {
  ChannelRequantization q;
  q.rounding = ChannelRequantization::Rounding::kHalfToEven;
  for (int64_t c = 0; c < channels; ++c) {
    ExactMultiplier m = exact_multiplier(factors[factors.size() == 1 ? 0 : static_cast<size_t>(c)]);
    q.channels.push_back({m.multiplier, m.shift});
  }
  q.output_zero_point = y.zero_points[0];
  q.range = output.range();
  return q;
}

// The convolution as a ConvProblem for the kernel strategy (lowering/kernels/conv_kernels.h);
// also what an NPU backend reads (node_problem.h).
NodeProblem qlinear_conv_problem(const Graph& g, const Node& node) {
  NodeProblem result;
  ConvProblem& problem = result.conv.emplace();
  problem.geometry = qconv_geometry(g, node);
  QConvParams p = qconv_params(g, node, problem.geometry.out_channels);
  result.arithmetic = std::make_shared<QLinearArithmetic>(node, p);
  problem.arithmetic = result.arithmetic.get();
  problem.input = node.inputs[0];
  problem.filter = node.inputs[3];
  problem.bias = checked_bias(g, node, 8, problem.geometry.out_channels);
  problem.output = node.outputs[0];
  problem.constants.filter = &g.tensor(problem.filter);
  problem.constants.bias = problem.bias != kNoTensor ? &g.tensor(problem.bias) : nullptr;
  problem.constants.input_zero_point = p.x.zero_points[0];
  problem.depthwise = problem.geometry.filter_layout == FilterLayout::kOneKO;
  // What the int8 register blocks fold and pack at compile time (they read channels-last
  // activations, which the channels_last pass gives ONNX's convolutions).
  auto zero = [](int32_t z) { return z == 0; };
  const Tensor& bias = problem.bias != kNoTensor ? g.tensor(problem.bias) : g.tensor(problem.filter);
  problem.int8_constant_symmetric = p.x.type == DataType::Int(8) && p.w.type == DataType::Int(8) &&
                                    g.tensor(problem.filter).is_constant() && bias.is_constant() &&
                                    std::all_of(p.w.zero_points.begin(), p.w.zero_points.end(), zero);
  if (problem.int8_constant_symmetric && p.y.type == DataType::Int(8))
    problem.requantization = half_to_even_requantization(product_factors(p.x, p.w, p.y), problem.geometry.out_channels,
                                                         p.y, OutputStage(node, p.y));
  problem.input_name = "x", problem.filter_name = "w", problem.output_name = "y";
  return result;
}

LoweredOp lower_qlinear_conv(const Graph& g, const Node& node, KernelBuilder& kb) {
  return build_conv_kernel(kb, *qlinear_conv_problem(g, node).conv);
}

OpDef qlinear_conv_op() {
  OpDef def = kernel_op(infer_qlinear_conv, lower_qlinear_conv).with({Role::kAnchor});
  def.prefers_channels_last = [](const Graph& g, const Node& node, const TargetFacts& target) {
    return channels_last_pays(*qlinear_conv_problem(g, node).conv, target);
  };
  return def;
}

// ---------------------------------------------------------------- QLinearMatMul

// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point, and
// (an aotc extension that fold_qdq uses for Gemm's bias) an int32 bias [N] at index 8.
// Operands have rank >= 2 and broadcast their batch dimensions; a may be quantized per
// row (M parameters) and b per column (N parameters).
struct QMatMulShape {
  std::vector<int64_t> output;  // batch..., M, N
  int64_t m = 0, k = 0, n = 0;
};

QMatMulShape qmatmul_shape(const Graph& g, const Node& node) {
  require_quantized_input(g, node, 0);
  require_quantized_input(g, node, 3);
  const std::vector<int64_t>& a = g.tensor(node.inputs[0]).shape;
  const std::vector<int64_t>& b = g.tensor(node.inputs[3]).shape;
  if (a.size() < 2 || b.size() < 2)
    node_error(node, "a " + shape_str(a) + " and b " + shape_str(b) + " must have at least two dimensions");
  QMatMulShape s;
  s.m = a[a.size() - 2], s.k = a.back(), s.n = b.back();
  if (b[b.size() - 2] != s.k) node_error(node, "inner dimensions differ: " + shape_str(a) + " x " + shape_str(b));
  s.output = broadcast_shapes(node, std::vector<int64_t>(a.begin(), a.end() - 2),
                              std::vector<int64_t>(b.begin(), b.end() - 2));
  s.output.push_back(s.m);
  s.output.push_back(s.n);
  return s;
}

struct QMatMulParams {
  QuantParams a, b, y;
};

QMatMulParams qmatmul_params(const Graph& g, const Node& node, const QMatMulShape& s) {
  QMatMulParams p;
  p.a = read_quant_params(g, node, 1, 2, g.tensor(node.inputs[0]).dtype);
  p.b = read_quant_params(g, node, 4, 5, g.tensor(node.inputs[3]).dtype);
  p.y = read_quant_params(g, node, 6, 7, output_quantized_type(g, node, 7));
  if (!p.a.per_tensor() && static_cast<int64_t>(p.a.scales.size()) != s.m)
    node_error(node, "a has " + std::to_string(p.a.scales.size()) + " scales; expected 1 or one per row (" +
                         std::to_string(s.m) + ")");
  if (!p.b.per_tensor() && static_cast<int64_t>(p.b.scales.size()) != s.n)
    node_error(node, "b has " + std::to_string(p.b.scales.size()) + " scales; expected 1 or one per column (" +
                         std::to_string(s.n) + ")");
  if (!p.y.per_tensor()) node_error(node, "y must be quantized per tensor");
  return p;
}

void infer_qlinear_matmul(Graph& g, Node& node) {
  QMatMulShape s = qmatmul_shape(g, node);
  QMatMulParams p = qmatmul_params(g, node, s);
  if (node.input(8) != kNoTensor) {
    const Tensor& b = require_input(g, node, 8);
    if (b.dtype != DataType::Int(32) || b.num_elements() != s.n)
      node_error(node, "bias '" + b.name + "' must be int32 [" + std::to_string(s.n) + "]");
  }
  set_output(g, node, 0, p.y.type, s.output);
}

// A QLinearMatMul whose b is a constant matrix [K, N] and whose a is quantized per tensor
// is a fully connected layer (a viewed as [batches, K]): an FcProblem for the kernel
// strategy (lowering/kernels/fc_kernels.h), whose int8 kernels pack b at compile time.
bool is_fully_connected(const Graph& g, const Node& node, const QMatMulParams& p) {
  const Tensor& b = g.tensor(node.inputs[3]);
  return b.is_constant() && b.shape.size() == 2 && p.a.per_tensor();
}

// The fully connected layer as an FcProblem (empty when the node is not one); also what an
// NPU backend reads (node_problem.h).
NodeProblem qlinear_fc_problem(const Graph& g, const Node& node) {
  QMatMulShape s = qmatmul_shape(g, node);
  QMatMulParams p = qmatmul_params(g, node, s);
  NodeProblem result;
  if (!is_fully_connected(g, node, p)) return result;
  FcProblem& fc = result.fc.emplace();
  fc.geometry = {g.tensor(node.inputs[0]).num_elements() / s.k, s.k, s.n};
  result.arithmetic = std::make_shared<QLinearArithmetic>(node, QConvParams{p.a, p.b, p.y});
  fc.arithmetic = result.arithmetic.get();
  fc.input = node.inputs[0];
  fc.filter = node.inputs[3];
  fc.bias = checked_bias(g, node, 8, s.n);
  fc.output = node.outputs[0];
  fc.filter_depth_major = true;
  const Tensor& b = g.tensor(fc.filter);
  const Tensor* bias = fc.bias != kNoTensor ? &g.tensor(fc.bias) : nullptr;
  bool symmetric = std::all_of(p.b.zero_points.begin(), p.b.zero_points.end(), [](int32_t z) { return z == 0; });
  if (p.a.type == DataType::Int(8) && p.b.type == DataType::Int(8) && symmetric && (!bias || bias->is_constant())) {
    fc.input_zero_point = p.a.zero_points[0];
    fc.folded_bias = folded_biases(bias, s.n, p.a.zero_points[0], [&](int64_t unit) {
      int64_t sum = 0;
      for (int64_t d = 0; d < s.k; ++d) sum += b.element_as_int(fc.filter_index(unit, d));
      return sum;
    });
    if (p.y.type == DataType::Int(8))
      fc.requantization = half_to_even_requantization(product_factors(p.a, p.b, p.y), s.n, p.y, OutputStage(node, p.y));
  }
  fc.planned_input = std::find(g.inputs.begin(), g.inputs.end(), fc.input) == g.inputs.end();
  return result;
}

LoweredOp lower_qlinear_matmul(const Graph& g, const Node& node, KernelBuilder& kb) {
  QMatMulShape s = qmatmul_shape(g, node);
  QMatMulParams p = qmatmul_params(g, node, s);
  if (is_fully_connected(g, node, p)) return build_fc_kernel(kb, *qlinear_fc_problem(g, node).fc);
  ir::Buffer a = kb.input(0, "a");
  ir::Buffer b = kb.input(3, "b");
  ir::Buffer bias = optional_bias(g, node, kb, 8, s.n);
  ir::Buffer y = kb.output(0, "y");

  ChannelConstants constants;
  auto a_zero_point = constants.add("a_zero_point", DataType::Int(32), as_doubles(p.a.zero_points));
  auto b_zero_point = constants.add("b_zero_point", DataType::Int(32), as_doubles(p.b.zero_points));
  Requantizer requantize(product_factors(p.a, p.b, p.y), &constants);
  OutputStage output(node, p.y);

  std::vector<std::string> names;
  for (size_t i = 0; i + 2 < s.output.size(); ++i) names.push_back("b" + std::to_string(i));
  names.push_back("m");
  names.push_back("n");
  ir::Stmt body = constants.wrap([&] {
    return ir::loop_nest(s.output, names, [&](const std::vector<Expr>& out_index) {
      std::vector<Expr> batch(out_index.begin(), out_index.end() - 2);
      Expr m = out_index[out_index.size() - 2], n = out_index.back();
      Expr row = p.a.per_tensor() ? Expr(0) : m, column = p.b.per_tensor() ? Expr(0) : n;
      Expr factor_index = row * static_cast<int64_t>(p.b.scales.size()) + column;  // as in product_factors
      auto sum = [&](const Accumulator& acc) {
        ir::Var k = ir::make_var("k");
        std::vector<Expr> a_index = batch, b_index = batch;
        a_index.push_back(m), a_index.push_back(ir::var_expr(k));
        b_index.push_back(ir::var_expr(k)), b_index.push_back(n);
        Expr term = centered(broadcast_load(a, a_index), p.a, constants, a_zero_point, row) *
                    centered(broadcast_load(b, b_index), p.b, constants, b_zero_point, column);
        return ir::for_loop(k, 0, s.k, acc.set(acc.value() + term));
      };
      auto write = [&](const Expr& total) {
        Expr biased = bias ? total + ir::load(bias, {n}) : total;
        return ir::store(y, out_index, output.apply(requantize.apply(biased, factor_index)));
      };
      return accumulate(ir::make_int(0), sum, write);  // int32
    });
  });
  return kb.finish(body);
}

// ---------------------------------------------------------------- aotc.QLinearAveragePool

// Inputs: x, x_scale, x_zero_point, y_scale, y_zero_point (the layout of ONNX Runtime's
// com.microsoft QLinearAveragePool), per tensor; AveragePool's attributes; x 4-D, NCHW, or
// NHWC with kChannelsLastAttr (as the channels_last pass leaves it). fold_qdq makes it of
// DequantizeLinear -> AveragePool or GlobalAveragePool -> QuantizeLinear, so that a QDQ
// model's pooling reads its int8 input rather than a float copy four times its size. Every
// window lies inside the input (anything else is refused, and fold_qdq then leaves the
// pattern in float), so each averages `count` = kernel size values, requantized once:
//   y = round_half_even((sum - count * x_zero_point) * x_scale / (count * y_scale)) + y_zero_point.
struct QPoolParams {
  QuantParams x, y;
};

QPoolParams qpool_params(const Graph& g, const Node& node) {
  QPoolParams p;
  p.x = read_quant_params(g, node, 1, 2, g.tensor(node.inputs[0]).dtype);
  p.y = read_quant_params(g, node, 3, 4, output_quantized_type(g, node, 4));
  if (!p.x.per_tensor() || !p.y.per_tensor()) node_error(node, "x and y must be quantized per tensor");
  return p;
}

std::vector<WindowAxis> qpool_window(const Graph& g, const Node& node) {
  require_quantized_input(g, node, 0);
  const std::vector<int64_t>& x = g.tensor(node.inputs[0]).shape;
  if (x.size() != 4) node_error(node, "input has shape " + shape_str(x) + "; expected 4-D");
  bool channels_last = node.attr_int(kChannelsLastAttr, 0) != 0;
  std::vector<int64_t> extents = channels_last ? std::vector<int64_t>{x[1], x[2]} : std::vector<int64_t>{x[2], x[3]};
  std::vector<WindowAxis> axes = resolve_window(node, extents, pooling_kernel_shape(node, 2), WindowKind::kPooling);
  for (const WindowAxis& a : axes)
    if (a.can_leave_input() || a.dilation != 1)
      node_error(node, "windows that leave the input (padding, ceil_mode) or are dilated are not supported");
  return axes;
}

void infer_qlinear_average_pool(Graph& g, Node& node) {
  std::vector<WindowAxis> axes = qpool_window(g, node);
  QPoolParams p = qpool_params(g, node);
  const std::vector<int64_t>& x = g.tensor(node.inputs[0]).shape;
  bool channels_last = node.attr_int(kChannelsLastAttr, 0) != 0;
  set_output(g, node, 0, p.y.type,
             channels_last ? std::vector<int64_t>{x[0], axes[0].output, axes[1].output, x[3]}
                           : std::vector<int64_t>{x[0], x[1], axes[0].output, axes[1].output});
}

LoweredOp lower_qlinear_average_pool(const Graph& g, const Node& node, KernelBuilder& kb) {
  std::vector<WindowAxis> axes = qpool_window(g, node);
  QPoolParams p = qpool_params(g, node);
  int64_t count = axes[0].kernel * axes[1].kernel;
  // One factor: a constant of the code, no table.
  ChannelConstants constants;
  Requantizer requantize({static_cast<float>(static_cast<double>(p.x.scales[0]) / (static_cast<double>(p.y.scales[0]) * count))},
                         &constants);
  OutputStage output(node, p.y);
  int64_t zero_point_sum = count * p.x.zero_points[0];
  WindowReduction reduction{
      ir::make_int(0), [](Expr acc, Expr x) { return acc + ir::cast(DataType::Int(32), x); },
      [&](Expr acc, Expr) { return output.apply(requantize.apply(zero_point_sum ? acc - zero_point_sum : acc, 0)); }, false};
  const std::vector<int64_t>& x = g.tensor(node.inputs[0]).shape;
  if (node.attr_int(kChannelsLastAttr, 0) != 0) {
    PoolProblem problem{x[0], x[3], axes, g.tensor(node.inputs[0]).dtype, true, reduction, node.inputs[0], node.outputs[0]};
    return build_pool_kernel(kb, problem);
  }
  // Channels first: the same reduction, channel by channel.
  ir::Buffer in = kb.input(0, "x");
  ir::Buffer y = kb.output(0, "y");
  std::vector<int64_t> out_shape = {x[0], x[1], axes[0].output, axes[1].output};
  ir::Stmt body = ir::loop_nest(out_shape, {"n", "c", "oy", "ox"}, [&](const std::vector<Expr>& o) {
    WindowTaps window(axes, {o[2], o[3]});
    auto taps = [&](const Accumulator& acc) {
      return window.loops([&](const std::vector<Expr>&, const std::vector<Expr>& at) {
        return acc.set(reduction.update(acc.value(), ir::load(in, {o[0], o[1], at[0], at[1]})));
      });
    };
    auto write = [&](const Expr& total) { return ir::store(y, o, reduction.finish(total, Expr())); };
    return window.bind(accumulate(reduction.init, taps, write));
  });
  return kb.finish(body);
}

// ---------------------------------------------------------------- aotc.QLinearAdd

// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point (the
// layout of ONNX Runtime's com.microsoft QLinearAdd), all per tensor; a and b broadcast.
// y = (a - a_zp) * (a_scale / y_scale) + (b - b_zp) * (b_scale / y_scale), the two float32
// factors over a common shift, the sum rounded once, ties to even.
struct QAddParams {
  QuantParams a, b, y;
};

QAddParams qadd_params(const Graph& g, const Node& node) {
  require_quantized_input(g, node, 0);
  require_quantized_input(g, node, 3);
  QAddParams p;
  p.a = read_quant_params(g, node, 1, 2, g.tensor(node.inputs[0]).dtype);
  p.b = read_quant_params(g, node, 4, 5, g.tensor(node.inputs[3]).dtype);
  p.y = read_quant_params(g, node, 6, 7, output_quantized_type(g, node, 7));
  if (!p.a.per_tensor() || !p.b.per_tensor() || !p.y.per_tensor())
    node_error(node, "a, b and y must be quantized per tensor");
  return p;
}

void infer_qlinear_add(Graph& g, Node& node) {
  QAddParams p = qadd_params(g, node);
  std::vector<int64_t> shape = broadcast_shapes(node, g.tensor(node.inputs[0]).shape, g.tensor(node.inputs[3]).shape);
  set_output(g, node, 0, p.y.type, shape);
}

// The sum of one element of a and of b (their int8 or uint8 values), as y's value.
Expr qlinear_add_element(const Graph& g, const Node& node, const Expr& a, const Expr& b) {
  QAddParams p = qadd_params(g, node);
  CommonShiftMultipliers factors =
      common_shift_multipliers(p.a.scales[0] / p.y.scales[0], p.b.scales[0] / p.y.scales[0]);
  Expr a_centered = ir::cast(DataType::Int(32), a) - p.a.zero_points[0];
  Expr b_centered = ir::cast(DataType::Int(32), b) - p.b.zero_points[0];
  Expr sum = ir::onnx_requantize_sum(a_centered, factors.a_multiplier, b_centered, factors.b_multiplier, factors.shift);
  return OutputStage(node, p.y).apply(sum);
}

LoweredOp lower_qlinear_add(const Graph& g, const Node& node, KernelBuilder& kb) {
  const Tensor& out = g.tensor(node.outputs[0]);
  std::vector<int64_t> shape = out.shape.empty() ? std::vector<int64_t>{1} : out.shape;
  ir::Stmt body = ir::loop_nest(shape, {}, [&](const std::vector<Expr>& index) {
    Expr a = kb.operand(node.inputs[0], "a", index), b = kb.operand(node.inputs[3], "b", index);
    return ir::store(kb.output(0, "y"), index, qlinear_add_element(g, node, a, b));
  });
  return kb.finish(body);
}

// aotc.QLinearAdd as an epilogue: a residual block's sum fused behind the convolution that
// computes one operand (its other inputs, scales and zero points, are constants).
OpDef qlinear_add_op() {
  OpDef def = kernel_op(infer_qlinear_add, lower_qlinear_add);
  def.scalar = [](const Graph& g, const Node& n, const std::vector<Expr>& in) {
    return qlinear_add_element(g, n, in.at(0), in.at(3));
  };
  // Element i of y reads element i of a same-shaped operand only.
  return def.with({Role::kEpilogue, Role::kInPlace});
}

// ---------------------------------------------------------------- registration

AOTC_REGISTER_OP("QuantizeLinear", kernel_op(infer_quantize_linear, lower_quantize_linear));
AOTC_REGISTER_OP("DequantizeLinear", kernel_op(infer_dequantize_linear, lower_dequantize_linear));
// Its kernels apply the fused epilogue (a residual aotc.QLinearAdd) to every output element.
AOTC_REGISTER_OP("QLinearConv", qlinear_conv_op());
AOTC_REGISTER_OP("QLinearMatMul", kernel_op(infer_qlinear_matmul, lower_qlinear_matmul));
AOTC_REGISTER_NODE_PROBLEM("QLinearConv", qlinear_conv_problem);
AOTC_REGISTER_NODE_PROBLEM("QLinearMatMul", qlinear_fc_problem);
AOTC_REGISTER_OP("aotc.QLinearAveragePool", kernel_op(infer_qlinear_average_pool, lower_qlinear_average_pool));
AOTC_REGISTER_OP("aotc.QLinearAdd", qlinear_add_op());

}  // namespace
}  // namespace aotc
