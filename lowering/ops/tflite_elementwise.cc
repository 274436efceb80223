// TFLite ADD, SUB and MUL on float32 and int8 tensors, with numpy broadcasting and a
// fused activation.
//
// The int8 kernels repeat TensorFlow Lite Micro's reference kernels (integer_ops/add.h,
// reference/sub.h, integer_ops/mul.h) step for step, because their output must be
// bit-identical: ADD and SUB bring both inputs to a common scale with 20 bits of headroom
// before adding and requantize the sum; MUL requantizes the product of the
// zero-point-corrected inputs. The multipliers are computed at compile time exactly as
// TFLite Micro's Prepare functions compute them, roundings included.
#include <algorithm>
#include <functional>

#include "lowering/ir/runtime_calls.h"
#include "lowering/ops/kernel_builder.h"
#include "aot/graph/op_registry.h"
#include "lowering/ops/tflite_common.h"
#include "lowering/ops/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;

enum class Arithmetic { kAdd, kSub, kMul };

// ---------------------------------------------------------------- int8 parameters

// ADD and SUB scale each zero-point-corrected input by 2^20 before rescaling, so that
// the rescaled inputs keep 20 bits of precision below the output's unit.
constexpr int kAddSubLeftShift = tflite::Int8AddMultipliers::kLeftShift;

// The three rescalings of an int8 ADD or SUB (TFLite's ArithmeticParams).
using AddSubMultipliers = tflite::Int8AddMultipliers;

// TFLite's QuantizeMultiplierSmallerThanOneExp: the factor must lie in (0, 1).
QuantizedMultiplier multiplier_below_one(const Node& node, double real, const std::string& what) {
  if (!(real > 0.0 && real < 1.0))
    node_error(node, "the " + what + " rescaling factor " + std::to_string(real) +
                         " is not in (0, 1), which TFLite's int8 kernel requires");
  return quantize_multiplier(real);
}

float float_scale(const Graph& g, TensorId id) { return static_cast<float>(tflite::scale_of(g, id)); }

// TFLite Micro's ADD (add_common.cc) combines the float scales in double precision; its
// SUB (sub_common.cc) does the same arithmetic in float and widens the results. The two
// can differ in the last bit of a multiplier, so each is reproduced as it is.
AddSubMultipliers add_sub_multipliers(const Graph& g, const Node& node, Arithmetic op) {
  float s1 = float_scale(g, node.inputs[0]), s2 = float_scale(g, node.inputs[1]);
  float out = float_scale(g, node.outputs[0]);
  double real1, real2, real_out;
  if (op == Arithmetic::kAdd) {
    double twice_max_input_scale = 2 * static_cast<double>(std::max(s1, s2));
    real1 = static_cast<double>(s1) / twice_max_input_scale;
    real2 = static_cast<double>(s2) / twice_max_input_scale;
    real_out = twice_max_input_scale / ((1 << kAddSubLeftShift) * static_cast<double>(out));
  } else {
    float twice_max_input_scale = 2 * std::max(s1, s2);
    real1 = static_cast<double>(s1 / twice_max_input_scale);
    real2 = static_cast<double>(s2 / twice_max_input_scale);
    real_out = static_cast<double>(twice_max_input_scale / ((1 << kAddSubLeftShift) * out));
  }
  return {multiplier_below_one(node, real1, "first input's"), multiplier_below_one(node, real2, "second input's"),
          multiplier_below_one(node, real_out, "output")};
}

// MUL (mul_common.cc): input1_scale * input2_scale / output_scale in double precision.
QuantizedMultiplier mul_multiplier(const Graph& g, const Node& node) {
  double real = static_cast<double>(float_scale(g, node.inputs[0])) *
                static_cast<double>(float_scale(g, node.inputs[1])) /
                static_cast<double>(float_scale(g, node.outputs[0]));
  return quantize_multiplier(real);
}

// ---------------------------------------------------------------- element functions

using ElementFunction = std::function<Expr(Expr, Expr)>;

// An int8 value as int32 relative to its zero point.
Expr centered(const Graph& g, TensorId id, Expr value) {
  return ir::cast(DataType::Int(32), std::move(value)) - tflite::zero_point_of(g, id);
}

Expr requantized(Expr value, const QuantizedMultiplier& m) {
  return ir::mul_by_quantized_multiplier(std::move(value), m.multiplier, m.shift);
}

ElementFunction int8_add_sub(const Graph& g, const Node& node, Arithmetic op) {
  AddSubMultipliers m = add_sub_multipliers(g, node, op);
  TensorId in1 = node.inputs[0], in2 = node.inputs[1], out = node.outputs[0];
  QuantizedRange range = tflite::output_range(g, node, out);
  int32_t out_zero_point = tflite::zero_point_of(g, out);
  return [=, &g](Expr a, Expr b) {
    Expr scaled1 = requantized(centered(g, in1, a) * (1 << kAddSubLeftShift), m.input1);
    Expr scaled2 = requantized(centered(g, in2, b) * (1 << kAddSubLeftShift), m.input2);
    Expr raw = op == Arithmetic::kAdd ? scaled1 + scaled2 : scaled1 - scaled2;
    return tflite::clamp(requantized(raw, m.output) + out_zero_point, range);
  };
}

ElementFunction int8_mul(const Graph& g, const Node& node) {
  QuantizedMultiplier m = mul_multiplier(g, node);
  TensorId in1 = node.inputs[0], in2 = node.inputs[1], out = node.outputs[0];
  QuantizedRange range = tflite::output_range(g, node, out);
  int32_t out_zero_point = tflite::zero_point_of(g, out);
  return [=, &g](Expr a, Expr b) {
    return tflite::clamp(requantized(centered(g, in1, a) * centered(g, in2, b), m) + out_zero_point, range);
  };
}

ElementFunction float_arithmetic(const Node& node, Arithmetic op) {
  return [&node, op](Expr a, Expr b) {
    Expr raw = op == Arithmetic::kAdd ? a + b : op == Arithmetic::kSub ? a - b : a * b;
    return tflite::apply_float_activation(node, raw);
  };
}

ElementFunction element_function(const Graph& g, const Node& node, Arithmetic op) {
  if (!tflite::is_int8(g, node.inputs[0])) return float_arithmetic(node, op);
  return op == Arithmetic::kMul ? int8_mul(g, node) : int8_add_sub(g, node, op);
}

// ---------------------------------------------------------------- operator

void infer_arithmetic(Graph& g, Node& node, Arithmetic op) {
  const Tensor& a = require_input(g, node, 0);
  const Tensor& b = require_input(g, node, 1);
  if (a.dtype != b.dtype) node_error(node, "inputs have different types " + a.dtype.str() + " and " + b.dtype.str());
  if (a.dtype != DataType::Float32() && a.dtype != DataType::Int(8))
    node_error(node, "input '" + a.name + "' is " + a.dtype.str() + "; only float32 and int8 are supported");
  tflite::set_declared_output(g, node, 0, a.dtype, broadcast_shapes(node, a.shape, b.shape));
  if (a.dtype == DataType::Int(8)) {
    for (TensorId id : {node.inputs[0], node.inputs[1], node.outputs[0]})
      tflite::require_per_tensor_quantized(g, node, id);
    element_function(g, node, op);  // rejects multipliers TFLite rejects, now rather than at lowering
  }
}

LoweredOp lower_arithmetic(const LowerContext& ctx, Arithmetic op) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  ir::Buffer a = kb.input(0, "input1"), b = kb.input(1, "input2"), y = kb.output(0, "output");
  ElementFunction element = element_function(g, node, op);
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

tflite::Int8AddMultipliers tflite::int8_add_multipliers(const Graph& g, const Node& add) {
  return add_sub_multipliers(g, add, Arithmetic::kAdd);
}

}  // namespace aotc
