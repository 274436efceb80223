// TFLite RESHAPE, SQUEEZE, EXPAND_DIMS, QUANTIZE and DEQUANTIZE.
//
// RESHAPE, SQUEEZE and EXPAND_DIMS move no data: they are views, and the memory planner
// gives their output the input's bytes. QUANTIZE and DEQUANTIZE convert between float32 and quantized integers
// (and QUANTIZE also between two quantized integer types) exactly as TensorFlow Lite
// Micro's reference kernels do: reference_ops::AffineQuantize, Requantize and Dequantize.
// Converting from and to float needs float arithmetic at run time; requantizing does not.
#include <optional>
#include <set>
#include <utility>

#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;

// ---------------------------------------------------------------- RESHAPE

// Legacy converters wrote a reshape to a scalar without a shape input, as the shape [0]
// in the new_shape option and the output tensor; TFLite reads that [0] as [] (its
// GetOutputShapeFromParam, TFLite Micro's ReshapeOutput).
bool is_legacy_scalar(const Node& node, const std::vector<int64_t>& shape) {
  return node.input(1) == kNoTensor && shape == std::vector<int64_t>{0};
}

// The shape a RESHAPE asks for in its constant shape input (or, without one, in its
// new_shape option), with a -1 resolved from `elements`. nullopt if it states none.
std::optional<std::vector<int64_t>> requested_shape(const Graph& g, const Node& node, int64_t elements) {
  std::vector<int64_t> shape;
  TensorId shape_input = node.input(1);
  if (shape_input != kNoTensor && g.tensor(shape_input).is_constant() && g.tensor(shape_input).shape.size() == 1) {
    if (g.tensor(shape_input).dtype.kind != DataType::Kind::kInt)
      node_error(node, "the shape tensor '" + g.tensor(shape_input).name + "' is " + g.tensor(shape_input).dtype.str() +
                           ", not an integer type");
    shape = g.tensor(shape_input).ints();
  } else if (node.has_attr("new_shape")) {
    shape = node.attr_ints("new_shape");
    if (is_legacy_scalar(node, shape)) shape.clear();
  } else {
    return std::nullopt;
  }
  int64_t known = 1;
  int stretch = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && stretch < 0) {
      stretch = static_cast<int>(i);
    } else if (shape[i] < 0) {
      node_error(node, "requested shape " + shape_str(shape) + " has a negative size other than one -1");
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      node_error(node, "requested shape " + shape_str(shape) + " has more elements than a 64-bit count holds");
    }
  }
  if (stretch >= 0 && known != 0) shape[static_cast<size_t>(stretch)] = elements / known;
  return shape;
}

// TFLite Micro reshapes to the output shape the model declares; the requested shape, if
// stated, must agree with it, and the element count must not change.
void infer_reshape(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  Tensor& y = g.tensor(node.outputs.at(0));
  if (y.shape_known && is_legacy_scalar(node, y.shape)) y.shape.clear();
  std::optional<std::vector<int64_t>> requested = requested_shape(g, node, x.num_elements());
  if (!y.shape_known && !requested) node_error(node, "the output shape is neither declared nor requested");
  std::vector<int64_t> shape = y.shape_known ? y.shape : *requested;
  if (requested && *requested != shape)
    node_error(node, "output '" + y.name + "' is declared " + shape_str(shape) + " but the operator requests " +
                         shape_str(*requested));
  if (num_elements(shape) != x.num_elements())
    node_error(node, "cannot reshape " + shape_str(x.shape) + " (" + std::to_string(x.num_elements()) +
                         " elements) to " + shape_str(shape));
  tflite::set_declared_output(g, node, 0, x.dtype, shape);
}

// SQUEEZE drops the listed size-1 dimensions (squeeze_dims, negative from the end), or
// every size-1 dimension when none are listed.
void infer_squeeze(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> dropped(x.shape.size(), false);
  std::vector<int64_t> dims = node.attr_ints("squeeze_dims");
  for (int64_t d : dims) {
    size_t axis = static_cast<size_t>(normalize_axis(node, d, rank));
    if (x.shape[axis] != 1)
      node_error(node, "squeeze_dims " + shape_str(dims) + " names dimension " + std::to_string(axis) + " of " +
                           shape_str(x.shape) + ", which is not 1");
    dropped[axis] = true;
  }
  std::vector<int64_t> shape;
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (!(dims.empty() ? x.shape[d] == 1 : dropped[d])) shape.push_back(x.shape[d]);
  tflite::set_declared_output(g, node, 0, x.dtype, shape);
}

// EXPAND_DIMS(x, axis) inserts a dimension of size 1 before `axis` (of the output's rank).
void infer_expand_dims(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  const Tensor& axis_tensor = require_input(g, node, 1);
  if (!axis_tensor.is_constant() || axis_tensor.num_elements() != 1 || !axis_tensor.dtype.is_integer())
    node_error(node, "axis must be a constant integer scalar");
  int64_t axis = normalize_axis(node, axis_tensor.element_as_int(0), static_cast<int64_t>(x.shape.size()) + 1);
  std::vector<int64_t> shape = x.shape;
  shape.insert(shape.begin() + axis, 1);
  tflite::set_declared_output(g, node, 0, x.dtype, shape);
}

// ---------------------------------------------------------------- QUANTIZE, DEQUANTIZE

// [min, max] of an integer type.
QuantizedRange type_range(DataType t) {
  if (t.is_uint()) return {0, static_cast<int32_t>((int64_t{1} << t.bits) - 1)};
  return {static_cast<int32_t>(-(int64_t{1} << (t.bits - 1))), static_cast<int32_t>((int64_t{1} << (t.bits - 1)) - 1)};
}

// The integer-to-integer conversions TFLite Micro's QUANTIZE implements.
bool is_supported_requantization(DataType from, DataType to) {
  static const std::set<std::pair<std::string, std::string>> kPairs = {
      {"int8", "int8"},  {"int8", "uint8"},  {"int8", "int16"},  {"int8", "int32"}, {"uint8", "int8"},
      {"int16", "int8"}, {"int16", "int16"}, {"int16", "int32"}, {"int32", "int8"}, {"int32", "int16"}};
  return kPairs.count({from.str(), to.str()}) != 0;
}

void infer_quantize(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  const Tensor& y = g.tensor(node.outputs.at(0));
  if (x.dtype == DataType::Float32()) {
    if (y.dtype != DataType::Int(8) && y.dtype != DataType::Int(16))
      node_error(node, "quantizing float32 to " + y.dtype.str() + " is not supported (only int8 and int16)");
  } else if (!is_supported_requantization(x.dtype, y.dtype)) {
    node_error(node, "requantizing " + x.dtype.str() + " to " + y.dtype.str() + " is not supported");
  } else {
    tflite::require_per_tensor_quantized(g, node, node.inputs[0]);
  }
  tflite::require_per_tensor_quantized(g, node, node.outputs[0]);
  tflite::set_declared_output(g, node, 0, y.dtype, x.shape);
}

// AffineQuantize: round(x / scale) + zero_point, clamped to the output type, with the
// division in float and TfLiteRound (half away from zero, roundf). The clamp is applied
// before the conversion to an integer, so that values beyond the int32 range saturate
// instead of overflowing (TFLite converts first, which is undefined behaviour there).
Expr affine_quantize(const Graph& g, const Node& node, Expr x) {
  TensorId out = node.outputs[0];
  float scale = static_cast<float>(tflite::scale_of(g, out));
  int32_t zero_point = tflite::zero_point_of(g, out);
  QuantizedRange range = type_range(g.tensor(out).dtype);
  Expr rounded = ir::call("roundf", {x / ir::make_float(scale)}, DataType::Float32());
  Expr clamped =
      ir::min(ir::max(rounded, ir::make_float(range.min - zero_point)), ir::make_float(range.max - zero_point));
  return ir::cast(DataType::Int(32), clamped) + zero_point;
}

// Requantize: (x - input_zero_point) * (input_scale / output_scale) + output_zero_point,
// clamped to the output type; the ratio of the float scales in double precision.
Expr requantize(const Graph& g, const Node& node, Expr x) {
  TensorId in = node.inputs[0], out = node.outputs[0];
  QuantizedMultiplier m = quantize_multiplier(tflite::scale_of(g, in) / tflite::scale_of(g, out));
  Expr centered = ir::cast(DataType::Int(32), x) - tflite::zero_point_of(g, in);
  Expr scaled = ir::mul_by_quantized_multiplier(centered, m.multiplier, m.shift) + tflite::zero_point_of(g, out);
  return tflite::clamp(scaled, type_range(g.tensor(out).dtype));
}

void infer_dequantize(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.dtype != DataType::Int(8) && x.dtype != DataType::Int(16) && x.dtype != DataType::UInt(8))
    node_error(node, "input '" + x.name + "' is " + x.dtype.str() + "; only int8, uint8 and int16 can be dequantized");
  tflite::require_per_tensor_quantized(g, node, node.inputs[0]);
  tflite::set_declared_output(g, node, 0, DataType::Float32(), x.shape);
}

// Dequantize: static_cast<float>(scale * (x - zero_point)) with scale a double. Done in
// float with the same result: x - zero_point needs at most 17 bits and the float scale 24,
// so the double product is exact and both ways round that exact product once to float.
Expr dequantize(const Graph& g, const Node& node, Expr x) {
  TensorId in = node.inputs[0];
  Expr centered = ir::cast(DataType::Int(32), x) - tflite::zero_point_of(g, in);
  return ir::make_float(static_cast<float>(tflite::scale_of(g, in))) * ir::cast(DataType::Float32(), centered);
}

using Conversion = Expr (*)(const Graph&, const Node&, Expr);

// Y[i] = convert(X[i]) over the whole tensor.
LoweredOp lower_conversion(const LowerContext& ctx, Conversion convert) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input"), y = kb.output(0, "output");
  ir::Stmt body = ir::loop_nest(y->shape, {}, [&](const std::vector<Expr>& index) {
    return ir::store(y, index, convert(g, node, ir::load(x, index)));
  });
  return kb.finish(body);
}

LoweredOp lower_quantize(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& n = ctx.node;
  bool from_float = g.tensor(n.inputs[0]).dtype == DataType::Float32();
  return lower_conversion(ctx, from_float ? affine_quantize : requantize);
}

LoweredOp lower_dequantize(const LowerContext& ctx) {
  return lower_conversion(ctx, dequantize);
}

AOTC_REGISTER_OP("tfl.RESHAPE", view_op(infer_reshape));
AOTC_REGISTER_OP("tfl.SQUEEZE", view_op(infer_squeeze));
AOTC_REGISTER_OP("tfl.EXPAND_DIMS", view_op(infer_expand_dims));
// Y[i] reads only X[i]: a requantization (int8 to int8) may write over its input.
AOTC_REGISTER_OP("tfl.QUANTIZE", kernel_op(infer_quantize, lower_quantize).with({Role::kInPlace}));
AOTC_REGISTER_OP("tfl.DEQUANTIZE", kernel_op(infer_dequantize, lower_dequantize));

}  // namespace
}  // namespace aotc
