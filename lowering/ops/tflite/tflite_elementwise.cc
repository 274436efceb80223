// TFLite ADD, SUB and MUL on float32, int8, int16 and int32 tensors, with numpy broadcasting
// and a fused activation.
//
// The quantized kernels repeat TensorFlow Lite Micro's reference kernels (integer_ops/add.h,
// reference/add.h, reference/sub.h, integer_ops/mul.h) step for step, because their output
// must be bit-identical: ADD and SUB bring both inputs to a common scale with 20 bits of
// headroom (int8) or 15 (int16) before adding and requantize the sum; MUL requantizes the
// product of the zero-point-corrected inputs. The multipliers are computed at compile time
// exactly as TFLite Micro's Prepare functions compute them, roundings included.
//
// int16 MUL is int8's formula with zero points 0 (TensorFlow Lite Micro refuses others; the
// product of two int16 values fits int32). int16 ADD and SUB take that general path whatever
// the pot_scale_int16 option says:
// TensorFlow Lite Micro's ADD calls reference_ops::Add with pot_scale false, and its SUB
// has no power-of-two variant (TFLite's own power-of-two path, for zero points 0 and
// power-of-two scales, is not what TFLite Micro runs).
//
// int32 (unquantized; shape arithmetic: sizes multiplied or offset) wraps on overflow, where
// TFLite's `a + b` is undefined. TensorFlow Lite Micro's int32 ADD clamps to the whole int32
// range whatever its fused activation says; its SUB and MUL clamp to the activation's range.
#include <algorithm>
#include <functional>

#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;

enum class Arithmetic { kAdd, kSub, kMul };

// ---------------------------------------------------------------- element functions

using ElementFunction = std::function<Expr(Expr, Expr)>;

// A quantized value as int32 relative to its zero point.
Expr centered(const Graph& g, TensorId id, Expr value) {
  return ir::cast(DataType::Int(32), std::move(value)) - tflite::zero_point_of(g, id);
}

// TFLite's MultiplyByQuantizedMultiplier in the fewest instructions its multiplier allows
// (every form gives the same result for every value; runtime-c/aotc_quant.h): one
// multiply-accumulate and one shift for a multiplier above 2^30 with a right shift of 2 or
// more, else without the saturating case (quantize_multiplier never gives INT32_MIN).
Expr requantized(Expr value, const QuantizedMultiplier& m) {
  if (m.multiplier > (int64_t{1} << 30) && m.shift <= -2) return ir::requantize_right(std::move(value), m.multiplier, -m.shift);
  return ir::requantize(std::move(value), m.multiplier, m.shift);
}

// requantized(value, m) + zero_point clamped to `range` (within int8).
Expr requantized_s8(Expr value, const QuantizedMultiplier& m, int32_t zero_point, const QuantizedRange& range) {
  int64_t e = -m.shift;
  bool saturating = m.multiplier > (int64_t{1} << 30) && e >= 2 && e <= 24;
  int64_t offset = saturating ? (int64_t{1} << (e - 2)) + int64_t{zero_point} * (int64_t{1} << (e - 1)) : 0;
  if (!saturating || offset <= -(int64_t{1} << 30) || offset >= (int64_t{1} << 30))
    return tflite::clamp(requantized(std::move(value), m) + zero_point, range);
  // aotc_requantize_s8 adds the zero point and saturates to int8; only a narrower range left.
  Expr out = ir::requantize_s8(std::move(value), m.multiplier, static_cast<int32_t>(offset), static_cast<int32_t>(e - 1));
  if (range.max < 127) out = ir::min(out, range.max);
  return range.min > -128 ? ir::max(out, range.min) : out;
}

// An ADD or SUB input c (centred) rescaled: requantized(c * 2^L, m), L the left shift (20
// for int8, 15 for int16). The input with the larger scale has the factor 1/2, a
// multiplier of exactly 2^30: its high multiply halves c * 2^L exactly (an even number:
// the rounding nudge is below a half) and the right shift e <= L - 1 divides c * 2^(L - 1)
// exactly, so the result is c * 2^(L - 1 - e), one shift.
Expr rescaled_input(Expr c, const QuantizedMultiplier& m, int left_shift) {
  int64_t exponent = left_shift - 1 + m.shift;
  if (m.multiplier == (int64_t{1} << 30) && m.shift <= 0 && exponent >= 0) return std::move(c) * (int64_t{1} << exponent);
  return requantized(std::move(c) * (1 << left_shift), m);
}

// int8 and int16 (reference_ops::AddElementwise and SubElementwise, one formula for both
// types but the left shift): the raw sum stays inside int32 for every input pair.
ElementFunction quantized_add_sub(const Graph& g, const Node& node, Arithmetic op) {
  tflite::AddSubMultipliers m = tflite::add_sub_multipliers(g, node, op == Arithmetic::kSub);
  TensorId in1 = node.inputs[0], in2 = node.inputs[1], out = node.outputs[0];
  QuantizedRange range = tflite::output_range(g, node, out);
  int32_t out_zero_point = tflite::zero_point_of(g, out);
  bool int8 = tflite::is_int8(g, out);
  return [=, &g](Expr a, Expr b) {
    Expr scaled1 = rescaled_input(centered(g, in1, a), m.input1, m.left_shift);
    Expr scaled2 = rescaled_input(centered(g, in2, b), m.input2, m.left_shift);
    Expr raw = op == Arithmetic::kAdd ? scaled1 + scaled2 : scaled1 - scaled2;
    if (int8) return requantized_s8(raw, m.output, out_zero_point, range);
    return tflite::clamp(requantized(raw, m.output) + out_zero_point, range);
  };
}

// int8 and int16 (reference_integer_ops::MulElementwise).
ElementFunction quantized_mul(const Graph& g, const Node& node) {
  QuantizedMultiplier m = tflite::mul_multiplier(g, node);
  TensorId in1 = node.inputs[0], in2 = node.inputs[1], out = node.outputs[0];
  QuantizedRange range = tflite::output_range(g, node, out);
  int32_t out_zero_point = tflite::zero_point_of(g, out);
  bool int8 = tflite::is_int8(g, out);
  return [=, &g](Expr a, Expr b) {
    Expr product = centered(g, in1, a) * centered(g, in2, b);
    if (int8) return requantized_s8(product, m, out_zero_point, range);
    return tflite::clamp(requantized(product, m) + out_zero_point, range);
  };
}

ElementFunction float_arithmetic(const Node& node, Arithmetic op) {
  return [&node, op](Expr a, Expr b) {
    Expr raw = op == Arithmetic::kAdd ? a + b : op == Arithmetic::kSub ? a - b : a * b;
    return tflite::apply_float_activation(node, raw);
  };
}

// CalculateActivationRange on int32: RELU [0, max], RELU6 [0, 6], RELU_N1_TO_1 [-1, 1].
ElementFunction int32_arithmetic(const Node& node, Arithmetic op) {
  std::string act = op == Arithmetic::kAdd ? "NONE" : node.attr_string("fused_activation", "NONE");
  if (act != "NONE" && act != "RELU" && act != "RELU6" && act != "RELU_N1_TO_1")
    node_error(node, "fused activation " + act + " is not supported");
  return [op, act](Expr a, Expr b) {
    Expr raw = op == Arithmetic::kAdd ? wrapping_add(a, b) : op == Arithmetic::kSub ? wrapping_sub(a, b) : wrapping_mul(a, b);
    if (act == "NONE") return raw;
    Expr low = ir::make_int(act == "RELU_N1_TO_1" ? -1 : 0, DataType::Int(32));
    if (act == "RELU") return ir::max(raw, low);
    return ir::min(ir::max(raw, low), ir::make_int(act == "RELU6" ? 6 : 1, DataType::Int(32)));
  };
}

ElementFunction element_function(const Graph& g, const Node& node, Arithmetic op) {
  if (g.tensor(node.inputs[0]).dtype == DataType::Float32()) return float_arithmetic(node, op);
  if (g.tensor(node.inputs[0]).dtype == DataType::Int(32)) return int32_arithmetic(node, op);
  return op == Arithmetic::kMul ? quantized_mul(g, node) : quantized_add_sub(g, node, op);
}

// ---------------------------------------------------------------- operator

void infer_arithmetic(Graph& g, Node& node, Arithmetic op) {
  const Tensor& a = require_input(g, node, 0);
  const Tensor& b = require_input(g, node, 1);
  if (a.dtype != b.dtype) node_error(node, "inputs have different types " + a.dtype.str() + " and " + b.dtype.str());
  if (a.dtype != DataType::Float32() && a.dtype != DataType::Int(8) && a.dtype != DataType::Int(16) &&
      a.dtype != DataType::Int(32))
    node_error(node, "input '" + a.name + "' is " + a.dtype.str() + "; only float32, int8, int16 and int32 are supported");
  tflite::set_declared_output(g, node, 0, a.dtype, broadcast_shapes(node, a.shape, b.shape));
  if (a.dtype == DataType::Int(32)) {
    for (TensorId id : {node.inputs[0], node.inputs[1], node.outputs[0]})
      if (!g.tensor(id).quant.empty())
        node_error(node, "tensor '" + g.tensor(id).name + "' is a quantized int32; int32 arithmetic takes unquantized tensors (as TFLite Micro's ADD and SUB require)");
    element_function(g, node, op);  // rejects an activation it has no int32 range for
  } else if (a.dtype != DataType::Float32()) {
    for (TensorId id : {node.inputs[0], node.inputs[1], node.outputs[0]}) {
      tflite::require_per_tensor_quantized(g, node, id);
      if (op == Arithmetic::kMul && a.dtype == DataType::Int(16) && tflite::zero_point_of(g, id) != 0)
        node_error(node, "tensor '" + g.tensor(id).name + "' has zero point " + std::to_string(tflite::zero_point_of(g, id)) +
                             "; an int16 MUL takes zero points 0 (as TFLite Micro requires)");
    }
    element_function(g, node, op);  // rejects multipliers TFLite rejects, now rather than at lowering
  }
}

LoweredOp lower_arithmetic(const LowerContext& ctx, Arithmetic op) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  ir::Buffer a = kb.input(0, "input1"), b = kb.input(1, "input2"), y = kb.output(0, "output");
  const Node anchor = unfused_anchor(node);
  ElementFunction element = element_function(g, anchor, op);
  ir::Stmt body = ir::loop_nest(y->shape, {}, [&](const std::vector<Expr>& index) {
    return ir::store(y, index, kb.epilogue(element(broadcast_load(a, index), broadcast_load(b, index)), index));
  });
  return kb.finish(body);
}

OpDef arithmetic_op(Arithmetic op) {
  OpDef def = kernel_op([op](Graph& g, Node& n) { infer_arithmetic(g, n, op); },
                        [op](const LowerContext& ctx) { return lower_arithmetic(ctx, op); });
  // The element function is also what fuses an ADD behind a convolution (residual blocks).
  def.scalar = [op](const Graph& g, const Node& n, const std::vector<Expr>& in) {
    return element_function(g, n, op)(in[0], in[1]);
  };
  // Output element i reads element i of each input of the output's shape.
  return def.with({Role::kAnchor, Role::kEpilogue, Role::kInPlace});
}

AOTC_REGISTER_OP("tfl.ADD", arithmetic_op(Arithmetic::kAdd));
AOTC_REGISTER_OP("tfl.SUB", arithmetic_op(Arithmetic::kSub));
AOTC_REGISTER_OP("tfl.MUL", arithmetic_op(Arithmetic::kMul));

}  // namespace
}  // namespace aotc
