// Elementwise operators: Add, Sub, Mul, Div (numpy broadcasting), Relu, Clip, Sigmoid,
// Tanh, HardSigmoid, HardSwish, and the identities Dropout (inference) and Identity.
//
// Each is defined once, by its scalar form; the same definition serves the stand-alone
// kernel and fused epilogues behind convolutions and other elementwise operators.
#include <cmath>
#include <limits>

#include "lowering/ops/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

void infer_broadcast(Graph& g, Node& node) {
  const Tensor& a = require_input(g, node, 0);
  std::vector<int64_t> shape = a.shape;
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (node.inputs[i] == kNoTensor) continue;
    const Tensor& b = require_input(g, node, i);
    if (b.dtype != a.dtype) node_error(node, "inputs have different types " + a.dtype.str() + " and " + b.dtype.str());
    shape = broadcast_shapes(node, shape, b.shape);
  }
  set_output(g, node, 0, a.dtype, shape);
}

void infer_unary_float(Graph& g, Node& node) {
  require_float32(g, node, 0);
  infer_broadcast(g, node);
}

LoweredOp lower_elementwise(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  const OpDef* def = find_op(node.op);
  const Tensor& y = g.tensor(node.outputs[0]);
  std::vector<int64_t> shape = y.shape.empty() ? std::vector<int64_t>{1} : y.shape;
  ir::Stmt body = ir::loop_nest(shape, {}, [&](const std::vector<Expr>& idx) {
    std::vector<Expr> operands;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      std::string param(1, static_cast<char>('A' + i));
      operands.push_back(node.inputs[i] == kNoTensor ? Expr() : kb.operand(node.inputs[i], param, idx));
    }
    Expr value = kb.epilogue(def->scalar(g, node, operands), idx);
    return ir::store(kb.output(0, "Y"), idx, value);  // declared last: inputs come first in C
  });
  return kb.finish(body);
}

OpDef elementwise(std::function<Expr(const Node&, const std::vector<Expr>&)> scalar, bool float_only = true) {
  // ONNX's elementwise operators need nothing from the graph to compute an element.
  return elementwise_op(float_only ? infer_unary_float : infer_broadcast,
                        [scalar](const Graph&, const Node& n, const std::vector<Expr>& in) { return scalar(n, in); });
}

Expr sigmoid(Expr x) { return Expr(1.0) / (Expr(1.0) + ir::call("expf", {-x}, x.dtype())); }

// Clip bounds: attributes before opset 11, optional inputs since.
Expr clip(const Node& node, const std::vector<Expr>& in) {
  Expr x = in[0];
  Expr lo = in.size() > 1 && in[1] ? in[1] : Expr();
  Expr hi = in.size() > 2 && in[2] ? in[2] : Expr();
  if (!lo && node.has_attr("min")) lo = ir::make_float(node.attr_float("min", 0), x.dtype());
  if (!hi && node.has_attr("max")) hi = ir::make_float(node.attr_float("max", 0), x.dtype());
  if (lo) x = ir::max(x, lo);
  if (hi) x = ir::min(x, hi);
  return x;
}

void infer_clip(Graph& g, Node& node) {
  require_float32(g, node, 0);
  const Tensor& x = g.tensor(node.inputs[0]);
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (node.inputs[i] == kNoTensor) continue;
    if (require_input(g, node, i).num_elements() != 1) node_error(node, "min and max must be scalars");
  }
  set_output(g, node, 0, x.dtype, x.shape);
}

void infer_identity(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (node.op == "Dropout") {
    if (node.input(2) != kNoTensor) {
      const Tensor& training = g.tensor(node.input(2));
      if (!training.is_constant() || training.element_as_int(0) != 0)
        node_error(node, "training_mode must be a constant false (inference only)");
    }
    // In inference the mask keeps everything: it is a constant, not a kernel output.
    if (node.outputs.size() > 1 && node.outputs[1] != kNoTensor) {
      Tensor& mask = g.tensor(node.outputs[1]);
      mask.dtype = DataType::Bool();
      mask.shape = x.shape;
      mask.shape_known = true;
      mask.data = std::vector<uint8_t>(static_cast<size_t>(x.num_elements()), 1);
      node.outputs[1] = kNoTensor;
    }
  }
  set_output(g, node, 0, x.dtype, x.shape);
}

OpDef clip_op() {
  OpDef def = elementwise(clip);
  def.infer = infer_clip;
  return def;
}

AOTC_REGISTER_OP("Add", elementwise([](const Node&, const std::vector<Expr>& in) { return in[0] + in[1]; }, false));
AOTC_REGISTER_OP("Sub", elementwise([](const Node&, const std::vector<Expr>& in) { return in[0] - in[1]; }, false));
AOTC_REGISTER_OP("Mul", elementwise([](const Node&, const std::vector<Expr>& in) { return in[0] * in[1]; }, false));
AOTC_REGISTER_OP("Div", elementwise([](const Node&, const std::vector<Expr>& in) { return in[0] / in[1]; }, false));
AOTC_REGISTER_OP("Relu", elementwise([](const Node&, const std::vector<Expr>& in) {
  return ir::max(in[0], ir::make_zero(in[0].dtype()));
}));
AOTC_REGISTER_OP("Clip", clip_op());
AOTC_REGISTER_OP("Sigmoid", elementwise([](const Node&, const std::vector<Expr>& in) { return sigmoid(in[0]); }));
AOTC_REGISTER_OP("Tanh", elementwise([](const Node&, const std::vector<Expr>& in) {
  return ir::call("tanhf", {in[0]}, in[0].dtype());
}));
AOTC_REGISTER_OP("HardSigmoid", elementwise([](const Node& n, const std::vector<Expr>& in) {
  Expr alpha = n.attr_float("alpha", 0.2), beta = n.attr_float("beta", 0.5);
  return ir::max(Expr(0.0), ir::min(Expr(1.0), alpha * in[0] + beta));
}));
AOTC_REGISTER_OP("HardSwish", elementwise([](const Node&, const std::vector<Expr>& in) {
  return in[0] * ir::max(Expr(0.0), ir::min(Expr(1.0), in[0] * Expr(1.0 / 6.0) + Expr(0.5)));
}));
AOTC_REGISTER_OP("Dropout", view_op(infer_identity));
AOTC_REGISTER_OP("Identity", view_op(infer_identity));

}  // namespace

OpDef elementwise_op(InferFn infer, ScalarFn scalar) {
  OpDef def = kernel_op(std::move(infer), lower_elementwise);
  def.scalar = std::move(scalar);
  // Element i of the output reads element i of every same-shaped input.
  return def.with({Role::kAnchor, Role::kEpilogue, Role::kInPlace});
}

}  // namespace aotc
