// TFLite's comparisons (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL) and
// LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT: numpy broadcasting, bool results. They are what
// decides an IF's branch or a WHILE's condition in a converted model.
//
// float32, int32 and int64 (and bool, for EQUAL and NOT_EQUAL) compare as C compares.
// int8 and uint8 compare as TensorFlow Lite Micro's reference kernels do (comparisons.cc,
// reference_ops.h), which is not always the raw comparison: each side, relative to its
// zero point and shifted left by 8 bits, is multiplied by its own scale in fixed point
// (QuantizeMultiplierSmallerThanOneExp, so the scale must be below 1), and the two results
// are compared. Two nearby values of a tensor with a small scale can so compare equal.
#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/elementwise.h"
#include "lowering/ops/tflite/tflite_common.h"

namespace aotc {
namespace {

using ir::Expr;
using Operands = const std::vector<Expr>&;

// TFLite Micro's left shift before the rescaling of each side.
constexpr int kComparisonLeftShift = 8;

bool is_quantized_byte(DataType t) { return t == DataType::Int(8) || t == DataType::UInt(8); }

Expr compare(const std::string& op, Expr a, Expr b) {
  if (op == "tfl.EQUAL") return a == b;
  if (op == "tfl.NOT_EQUAL") return a != b;
  if (op == "tfl.LESS") return a < b;
  if (op == "tfl.LESS_EQUAL") return a <= b;
  if (op == "tfl.GREATER") return a > b;
  return a >= b;  // tfl.GREATER_EQUAL
}

// One side of an int8/uint8 comparison, as TFLite Micro rescales it.
QuantizedMultiplier side_multiplier(const Graph& g, const Node& node, TensorId id) {
  double scale = tflite::scale_of(g, id);
  if (!(scale > 0.0 && scale < 1.0))
    node_error(node, "input '" + g.tensor(id).name + "' has scale " + std::to_string(scale) +
                         "; TFLite's quantized comparison needs a scale in (0, 1)");
  return quantize_multiplier(scale);
}

Expr rescaled(const Graph& g, TensorId id, const QuantizedMultiplier& m, Expr value) {
  Expr centered = ir::cast(DataType::Int(32), std::move(value)) - tflite::zero_point_of(g, id);
  return ir::mul_by_quantized_multiplier(centered * (1 << kComparisonLeftShift), m.multiplier, m.shift);
}

Expr comparison_scalar(const Graph& g, const Node& node, Operands in) {
  if (!is_quantized_byte(g.tensor(node.inputs[0]).dtype)) return compare(node.op, in[0], in[1]);
  QuantizedMultiplier m1 = side_multiplier(g, node, node.inputs[0]), m2 = side_multiplier(g, node, node.inputs[1]);
  return compare(node.op, rescaled(g, node.inputs[0], m1, in[0]), rescaled(g, node.inputs[1], m2, in[1]));
}

void infer_comparison(Graph& g, Node& node) {
  bool equality = node.op == "tfl.EQUAL" || node.op == "tfl.NOT_EQUAL";
  const Tensor& a = require_input(g, node, 0);
  DataType t = a.dtype;
  bool supported = t == DataType::Float32() || t == DataType::Int(32) || t == DataType::Int(64) || is_quantized_byte(t) ||
                   (equality && t.is_bool());
  if (!supported)
    node_error(node, "input '" + a.name + "' is " + t.str() + "; supported: float32, int8, uint8, int32, int64" +
                         (equality ? ", bool" : ""));
  binary_infer(kAllTypes, DataType::Bool())(g, node);
  if (is_quantized_byte(t)) {
    for (size_t i = 0; i < 2; ++i) {
      tflite::require_quantized(g, node, node.inputs[i]);
      side_multiplier(g, node, node.inputs[i]);  // rejects what TFLite rejects, now rather than at lowering
    }
  }
}

AOTC_REGISTER_OPS(elementwise_op(infer_comparison, comparison_scalar), "tfl.EQUAL", "tfl.NOT_EQUAL", "tfl.LESS",
                  "tfl.LESS_EQUAL", "tfl.GREATER", "tfl.GREATER_EQUAL");

AOTC_REGISTER_OP("tfl.LOGICAL_AND", elementwise(binary_infer(kBoolType), [](const Node&, Operands in) {
                   return ir::logical_and(in[0], in[1]);
                 }));
AOTC_REGISTER_OP("tfl.LOGICAL_OR", elementwise(binary_infer(kBoolType), [](const Node&, Operands in) {
                   return ir::binary(ir::BinaryOp::kOr, in[0], in[1]);
                 }));
AOTC_REGISTER_OP("tfl.LOGICAL_NOT", elementwise(broadcast_infer(kBoolType), [](const Node&, Operands in) {
                   return ir::logical_not(in[0]);
                 }));

}  // namespace
}  // namespace aotc
