// TFLite reductions: MEAN, SUM, REDUCE_MAX, ARG_MAX, ARG_MIN, and L2_NORMALIZATION (a
// reduction of each row followed by a division).
//
// Float MEAN, SUM and REDUCE_MAX are ONNX's ReduceMean, ReduceSum and ReduceMax once the
// axes are known (tflite_common.h: translated_op): TFLite sums in the input's order from
// 0 and divides by the element count, as those do. So is an int8 REDUCE_MAX, which TFLite
// Micro computes on the raw values (its input and output must share a quantization).
//
// Quantized MEAN and SUM (int8, int16) follow TensorFlow Lite Micro's reduce_common.cc and
// reference_ops::QuantizedMeanOrSum, its only integer path since 2023 ("Align mean kernel to
// TFL"): the raw values are summed in int32, the sum less zero point * count is rescaled by
// input scale / output scale, for a MEAN with 1 / count folded into the multiplier, then
// offset and clamped. That holds when input and output share a quantization too: TFLite
// Micro no longer divides the raw sum by the count there (C's truncating division, which
// is up to 1 LSB off the rounded multiply, e.g. on every global average pool of a
// MobileNet whose MEAN keeps the scale).
//
// ARG_MAX and ARG_MIN return the first index of the extreme value along one axis
// (reference_ops::ArgMinMax compares strictly), as int32 or int64.
//
// L2_NORMALIZATION (float) divides each row along the last axis by
// max(sqrt(sum of squares), 1e-6), the sum in the row's order (reference_ops). int8
// (reference_integer_ops::L2Normalization) sums the squares of x - zero point in int32,
// takes TFLite's fixed-point 1 / sqrt of the sum as a multiplier and shift
// (runtime-c/aotc_quant_softmax.h), and requantizes each x - zero point by it to steps of
// 1/128 at zero point 0, whatever the output tensor declares (TFLite Micro reads neither).
#include <algorithm>
#include <cstdint>

#include "aot/graph/op_registry.h"
#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/axis_split.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;

bool is_quantized_int(DataType t) { return t == DataType::Int(8) || t == DataType::Int(16); }

// The reduced axes (input 1, a constant), negative ones from the end, repeats ignored
// (TFLite's ResolveAxis).
std::vector<bool> reduced_axes(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> reduced(x.shape.size(), false);
  for (int64_t axis : constant_ints(g, node, 1, "axis")) reduced[static_cast<size_t>(normalize_axis(node, axis, rank))] = true;
  return reduced;
}

std::vector<int64_t> output_shape(const Node& node, const AxisSplit& split) {
  if (node.attr_int("keep_dims", 0) == 0) return split.kept_shape();
  std::vector<int64_t> shape = split.shape();
  for (size_t d = 0; d < shape.size(); ++d)
    if (split.is_reduced(d)) shape[d] = 1;
  return shape;
}

bool same_quantization(const Graph& g, TensorId a, TensorId b) {
  return static_cast<float>(tflite::scale_of(g, a)) == static_cast<float>(tflite::scale_of(g, b)) &&
         tflite::zero_point_of(g, a) == tflite::zero_point_of(g, b);
}

// ---------------------------------------------------------------- float (and int8 max): ONNX reductions

// An empty axis list reduces nothing in TFLite (ResolveAxis resolves no axis, and each
// output element is its input element), where ONNX would reduce every axis.
Node translate_reduction(const Node& node, const std::string& onnx_op) {
  Node t = tflite::as_operator(node, onnx_op);
  t.attrs["keepdims"] = node.attr_int("keep_dims", 0);
  t.attrs["noop_with_empty_axes"] = int64_t{1};
  return t;
}

// ---------------------------------------------------------------- quantized MEAN and SUM

void infer_quantized_reduce(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  AxisSplit split(x.shape, reduced_axes(g, node));
  for (TensorId id : {node.inputs[0], node.outputs[0]}) tflite::require_per_tensor_quantized(g, node, id);
  // The int32 sum cannot overflow.
  if (split.group_size() > (int64_t{1} << 31) / (int64_t{1} << x.dtype.bits))
    node_error(node, "sums " + std::to_string(split.group_size()) + " elements, more than an int32 sum of " +
                         x.dtype.str() + " values holds");
  tflite::set_declared_output(g, node, 0, x.dtype, output_shape(node, split));
}

// Index `kept` of the output (with the reduced axes as 0 when kept as size 1).
std::vector<Expr> output_index(const Node& node, const AxisSplit& split, const std::vector<Expr>& kept) {
  return buffer_index(node.attr_int("keep_dims", 0) ? split.first(kept) : kept);
}

LoweredOp lower_quantized_reduce(const LowerContext& ctx, bool mean) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  TensorId in = node.inputs[0], out = node.outputs[0];
  AxisSplit split(g.tensor(in).shape, reduced_axes(g, node));
  int64_t count = split.group_size();
  DataType t = g.tensor(in).dtype;
  int32_t lo = -(1 << (t.bits - 1)), hi = (1 << (t.bits - 1)) - 1;
  int32_t in_zp = tflite::zero_point_of(g, in), out_zp = tflite::zero_point_of(g, out);
  QuantizedMultiplier m = quantize_multiplier(static_cast<double>(static_cast<float>(tflite::scale_of(g, in))) /
                                              static_cast<double>(static_cast<float>(tflite::scale_of(g, out))));
  if (mean) {
    // 1 / count folded into the multiplier, as QuantizedMeanOrSum does.
    int shift = 63 - __builtin_clzll(static_cast<unsigned long long>(count));
    shift = std::min(shift, 32);
    shift = std::min(shift, 31 + m.shift);
    m.multiplier = static_cast<int32_t>((static_cast<int64_t>(m.multiplier) << shift) / count);
    m.shift -= shift;
  }
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input"), y = kb.output(0, "output");
  ir::Stmt body = split.for_each_group([&](const std::vector<Expr>& kept) {
    auto sum = [&](const Accumulator& acc) {
      return split.for_each_element(kept, [&](const std::vector<Expr>& at) {
        return acc.set(acc.value() + ir::cast(DataType::Int(32), ir::load(x, at)));
      });
    };
    auto write = [&](const Expr& total) {
      Expr shifted = total - ir::make_int(static_cast<int64_t>(static_cast<int32_t>(in_zp * count)));
      Expr value = tflite::clamp(ir::mul_by_quantized_multiplier(shifted, m.multiplier, m.shift) + out_zp, {lo, hi});
      return ir::store(y, output_index(node, split, kept), ir::cast(t, value));
    };
    return accumulate(ir::make_zero(DataType::Int(32)), sum, write);
  });
  return kb.finish(body);
}

// MEAN and SUM: the quantized kernel for int8 and int16, ONNX's otherwise.
OpDef mean_or_sum(bool mean) {
  const std::string onnx_op = mean ? "ReduceMean" : "ReduceSum";
  auto translate = [onnx_op](const Graph&, const Node& node) { return translate_reduction(node, onnx_op); };
  OpDef float_def = tflite::translated_op(translate);
  auto infer = [float_def](Graph& g, Node& node) {
    DataType t = require_input(g, node, 0).dtype;
    if (is_quantized_int(t)) return infer_quantized_reduce(g, node);
    if (t != DataType::Float32()) node_error(node, "input is " + t.str() + "; supported: float32, int8 and int16");
    float_def.infer(g, node);
  };
  auto lower = [float_def, mean](const LowerContext& ctx) {
    if (is_quantized_int(ctx.graph.tensor(ctx.node.inputs[0]).dtype)) return lower_quantized_reduce(ctx, mean);
    return float_def.lower(ctx);
  };
  return kernel_op(infer, lower);
}

void check_reduce_max(Graph& g, Node& node) {
  DataType t = require_input(g, node, 0).dtype;
  if (t == DataType::Int(8)) {
    for (TensorId id : {node.inputs[0], node.outputs[0]}) tflite::require_per_tensor_quantized(g, node, id);
    if (!same_quantization(g, node.inputs[0], node.outputs[0]))
      node_error(node, "input and output have different quantization, which TFLite Micro's int8 REDUCE_MAX rejects");
  } else if (t != DataType::Float32()) {
    node_error(node, "input is " + t.str() + "; supported: float32 and int8");
  }
}

// ---------------------------------------------------------------- ARG_MAX, ARG_MIN

size_t arg_axis(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  return static_cast<size_t>(
      normalize_axis(node, constant_int_scalar(g, node, 1, "axis"), static_cast<int64_t>(x.shape.size())));
}

AxisSplit arg_split(const Graph& g, const Node& node) {
  const Tensor& x = g.tensor(node.inputs[0]);
  std::vector<bool> reduced(x.shape.size(), false);
  reduced[arg_axis(g, node)] = true;
  return AxisSplit(x.shape, reduced);
}

void infer_arg(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.dtype != DataType::Float32() && x.dtype != DataType::Int(8) && x.dtype != DataType::Int(16) &&
      x.dtype != DataType::Int(32))
    node_error(node, "input is " + x.dtype.str() + "; supported: float32, int8, int16 and int32");
  DataType index_type = g.tensor(node.outputs[0]).dtype;
  if (index_type != DataType::Int(32) && index_type != DataType::Int(64))
    node_error(node, "output is " + index_type.str() + "; ARG_MAX and ARG_MIN give int32 or int64");
  std::string option = node.attr_string("output_type", "");
  if (!option.empty() && option != (index_type == DataType::Int(32) ? "INT32" : "INT64"))
    node_error(node, "output_type " + option + " but the output tensor is " + index_type.str());
  tflite::set_declared_output(g, node, 0, index_type, arg_split(g, node).kept_shape());
}

LoweredOp lower_arg(const LowerContext& ctx, bool is_max) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  AxisSplit split = arg_split(g, node);
  size_t axis = arg_axis(g, node);
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input"), y = kb.output(0, "output");
  ir::Stmt body = split.for_each_group([&](const std::vector<Expr>& kept) {
    std::vector<Expr> first = split.first(kept);
    return with_accumulator("best", ir::load(x, first), [&](const Accumulator& best) {
      return with_accumulator("best_index", ir::make_int(0), [&](const Accumulator& index) {
        ir::Var i = ir::make_var("i");
        std::vector<Expr> at = first;
        at[axis] = ir::var_expr(i);
        Expr current = ir::load(x, at);
        Expr better = is_max ? current > best.value() : current < best.value();
        ir::Stmt scan = ir::for_loop(i, 1, ir::make_int(split.shape()[axis] - 1),
                                     ir::if_then_else(better, ir::seq({best.set(current), index.set(ir::var_expr(i))})));
        return ir::seq({scan, ir::store(y, buffer_index(kept), ir::cast(y->dtype, index.value()))});
      });
    });
  });
  return kb.finish(body);
}

// ---------------------------------------------------------------- L2_NORMALIZATION

// The int8 sum of squares of a row is an int32: at most 255^2 per element.
constexpr int64_t kMaxInt8L2Depth = INT32_MAX / (255 * 255);

void infer_l2_normalization(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.dtype != DataType::Float32() && x.dtype != DataType::Int(8))
    node_error(node, "input is " + x.dtype.str() + "; supported: float32 and int8");
  if (x.shape.empty()) node_error(node, "input must have at least one dimension");
  if (x.dtype == DataType::Int(8)) {
    tflite::require_per_tensor_quantized(g, node, node.inputs[0]);
    if (x.shape.back() > kMaxInt8L2Depth)
      node_error(node, "rows of " + std::to_string(x.shape.back()) +
                           " int8 elements: their int32 sum of squares may overflow (at most " +
                           std::to_string(kMaxInt8L2Depth) + ")");
  }
  std::string act = node.attr_string("fused_activation", "NONE");
  if (act != "NONE") node_error(node, "fused activation " + act + " is not supported (TFLite takes none)");
  tflite::set_declared_output(g, node, 0, x.dtype, x.shape);
}

LoweredOp lower_l2_normalization(const LowerContext& ctx) {
  const Tensor& x_tensor = ctx.graph.tensor(ctx.node.inputs[0]);
  std::vector<bool> reduced(x_tensor.shape.size(), false);
  reduced.back() = true;
  AxisSplit split(x_tensor.shape, reduced);
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input"), y = kb.output(0, "output");
  bool integer = x->dtype == DataType::Int(8);
  // The element as the sums and the integer kernel see it: x - zero point for int8.
  auto element = [&](const std::vector<Expr>& at) {
    Expr v = ir::load(x, at);
    return integer ? ir::cast(DataType::Int(32), v) - tflite::zero_point_of(ctx.graph, ctx.node.inputs[0]) : v;
  };
  ir::Stmt body = split.for_each_group([&](const std::vector<Expr>& kept) {
    auto sum = [&](const Accumulator& acc) {
      return split.for_each_element(kept, [&](const std::vector<Expr>& at) {
        Expr v = element(at);
        return acc.set(acc.value() + v * v);
      });
    };
    auto write_integer = [&](const Expr& squares) {
      // Each element times 1 / sqrt(squares), at 2^7 (steps of 1/128).
      ir::Var multiplier = ir::make_var("inv_l2norm"), shift = ir::make_var("inv_l2norm_shift");
      ir::Stmt rescale = split.for_each_element(kept, [&](const std::vector<Expr>& at) {
        Expr v = ir::mul_by_quantized_multiplier(element(at), ir::var_expr(multiplier), ir::var_expr(shift) + 7);
        return ir::store(y, at, ir::cast(DataType::Int(8), tflite::clamp(v, {-128, 127})));
      });
      return ir::let(multiplier, ir::inv_sqrt_multiplier(squares), ir::let(shift, ir::inv_sqrt_shift(squares), rescale));
    };
    auto write = [&](const Expr& squares) {
      if (integer) return write_integer(squares);
      Expr norm = ir::call("sqrtf", {squares}, DataType::Float32());
      Expr epsilon = ir::make_float(1e-6);
      Expr divisor = ir::select(norm < epsilon, epsilon, norm);  // std::max(l2_norm, epsilon)
      return split.for_each_element(kept, [&](const std::vector<Expr>& at) {
        return ir::store(y, at, ir::load(x, at) / divisor);
      });
    };
    return accumulate(integer ? ir::make_int(0) : ir::make_float(0.0), sum, write);
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("tfl.MEAN", mean_or_sum(true));
AOTC_REGISTER_OP("tfl.SUM", mean_or_sum(false));
AOTC_REGISTER_OP("tfl.REDUCE_MAX", tflite::translated_op([](const Graph&, const Node& node) {
                                     return translate_reduction(node, "ReduceMax");
                                   }, check_reduce_max));
AOTC_REGISTER_OP("tfl.ARG_MAX", kernel_op(infer_arg, [](const LowerContext& ctx) { return lower_arg(ctx, true); }));
AOTC_REGISTER_OP("tfl.ARG_MIN", kernel_op(infer_arg, [](const LowerContext& ctx) { return lower_arg(ctx, false); }));
AOTC_REGISTER_OP("tfl.L2_NORMALIZATION", kernel_op(infer_l2_normalization, lower_l2_normalization).with({Role::kInPlace}));

}  // namespace
}  // namespace aotc
