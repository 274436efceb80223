// TFLite BATCH_MATMUL, float32, int8 and int16, as TensorFlow Lite Micro's reference
// kernel computes it (reference_ops::BatchMatMul).
//
// out[..., m, n] = sum_k lhs[..., m, k] * rhs[..., k, n], with adj_x / adj_y reading an
// operand's last two dimensions transposed and the batch dimensions broadcast as numpy's
// matmul does (matmul.h: the shape rules and index arithmetic shared with ONNX MatMul).
// Float sums run over k from 0 in order; int8 sums (lhs - lhs zero point) * (rhs - rhs zero
// point) in int32 and requantizes by lhs scale * rhs scale / output scale, then clamps to
// int8 (BATCH_MATMUL has no fused activation); int16 (zero points 0) sums in int64 and
// requantizes with the 64-bit MultiplyByQuantizedMultiplier.
#include <utility>

#include "aot/graph/op_registry.h"
#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/matmul.h"
#include "lowering/compute/reduction.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;

// An operand's shape as the product sees it: the last two dimensions swapped when adjoint.
std::vector<int64_t> as_seen(std::vector<int64_t> shape, bool adjoint) {
  if (adjoint) std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return shape;
}

MatMulShape batch_matmul_shape(const Graph& g, const Node& node) {
  const Tensor& lhs = require_input(g, node, 0);
  const Tensor& rhs = require_input(g, node, 1);
  if (lhs.shape.size() < 2 || rhs.shape.size() < 2 || lhs.shape.size() > 5 || rhs.shape.size() > 5)
    node_error(node, "operands must have 2 to 5 dimensions, got " + shape_str(lhs.shape) + " and " + shape_str(rhs.shape));
  return matmul_shape(node, as_seen(lhs.shape, node.attr_int("adj_x", 0) != 0),
                      as_seen(rhs.shape, node.attr_int("adj_y", 0) != 0));
}

void infer_batch_matmul(Graph& g, Node& node) {
  MatMulShape s = batch_matmul_shape(g, node);
  DataType t = g.tensor(node.inputs[0]).dtype;
  if (t != DataType::Float32() && t != DataType::Int(8) && t != DataType::Int(16))
    node_error(node, "lhs is " + t.str() + "; only float32, int8 and int16 are supported");
  if (g.tensor(node.inputs[1]).dtype != t) node_error(node, "lhs and rhs have different types");
  if (t.is_int()) {
    for (TensorId id : {node.inputs[0], node.inputs[1], node.outputs[0]}) {
      tflite::require_per_tensor_quantized(g, node, id);
      if (t == DataType::Int(16) && tflite::zero_point_of(g, id) != 0)
        node_error(node, "int16 operands and output must have zero point 0, as TFLite Micro requires");
    }
  }
  tflite::set_declared_output(g, node, 0, t, s.output);
}

LoweredOp lower_batch_matmul(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  MatMulShape s = batch_matmul_shape(g, node);
  bool adj_x = node.attr_int("adj_x", 0) != 0, adj_y = node.attr_int("adj_y", 0) != 0;
  DataType t = g.tensor(node.inputs[0]).dtype;
  bool quantized = t.is_int(), wide = t == DataType::Int(16);
  DataType acc_type = wide ? DataType::Int(64) : quantized ? DataType::Int(32) : DataType::Float32();
  KernelBuilder kb(ctx);
  ir::Buffer lhs = kb.input(0, "lhs"), rhs = kb.input(1, "rhs"), y = kb.output(0, "output");
  auto term = [&](TensorId id, const Expr& v) {
    if (!quantized) return v;
    int32_t zero_point = tflite::zero_point_of(g, id);
    Expr widened = ir::cast(acc_type, v);
    return zero_point == 0 ? widened : widened - ir::make_int(zero_point, acc_type);
  };
  QuantizedMultiplier m;
  if (quantized)
    m = tflite::per_tensor_product_multiplier(static_cast<float>(tflite::scale_of(g, node.inputs[0])),
                                              static_cast<float>(tflite::scale_of(g, node.inputs[1])),
                                              static_cast<float>(tflite::scale_of(g, node.outputs[0])));
  int32_t out_zp = quantized ? tflite::zero_point_of(g, node.outputs[0]) : 0;
  ir::Stmt body = for_each_product_element(s, [&](const std::vector<Expr>& out_index, const std::vector<Expr>& batch,
                                                  const Expr& row, const Expr& col) {
    auto sum = [&](const Accumulator& acc) {
      ir::Var k = ir::make_var("k");
      Expr kv = ir::var_expr(k);
      Expr a = ir::load(lhs, adj_x ? matmul_operand_index(lhs, false, batch, kv, row, kv)
                                   : matmul_operand_index(lhs, false, batch, row, kv, kv));
      Expr b = ir::load(rhs, adj_y ? matmul_operand_index(rhs, false, batch, col, kv, kv)
                                   : matmul_operand_index(rhs, false, batch, kv, col, kv));
      return ir::for_loop(k, 0, ir::make_int(s.k), acc.set(acc.value() + term(node.inputs[0], a) * term(node.inputs[1], b)));
    };
    auto write = [&](const Expr& total) {
      if (!quantized) return ir::store(y, out_index, total);
      Expr scaled = (wide ? ir::mul_by_quantized_multiplier_i64(total, m.multiplier, m.shift)
                          : ir::mul_by_quantized_multiplier(total, m.multiplier, m.shift)) + out_zp;
      QuantizedRange range = wide ? QuantizedRange{-32768, 32767} : QuantizedRange{-128, 127};
      return ir::store(y, out_index, ir::cast(t, tflite::clamp(scaled, range)));
    };
    return accumulate(ir::make_zero(acc_type), sum, write);
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("tfl.BATCH_MATMUL", kernel_op(infer_batch_matmul, lower_batch_matmul));

}  // namespace
}  // namespace aotc
