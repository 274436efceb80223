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
  tflite::AddSubMultipliers m = tflite::add_sub_multipliers(g, node, op == Arithmetic::kSub);
  TensorId in1 = node.inputs[0], in2 = node.inputs[1], out = node.outputs[0];
  QuantizedRange range = tflite::output_range(g, node, out);
  int32_t out_zero_point = tflite::zero_point_of(g, out);
  return [=, &g](Expr a, Expr b) {
    Expr scaled1 = requantized(centered(g, in1, a) * (1 << tflite::kAddSubLeftShift), m.input1);
    Expr scaled2 = requantized(centered(g, in2, b) * (1 << tflite::kAddSubLeftShift), m.input2);
    Expr raw = op == Arithmetic::kAdd ? scaled1 + scaled2 : scaled1 - scaled2;
    return tflite::clamp(requantized(raw, m.output) + out_zero_point, range);
  };
}

ElementFunction int8_mul(const Graph& g, const Node& node) {
  QuantizedMultiplier m = tflite::mul_multiplier(g, node);
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
}  // namespace aotc
