// BatchNormalization in inference mode: a per-channel affine map on axis 1,
//   Y[n, c, d...] = (X[n, c, d...] - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c].
//
// The statistics are operands of the kernel rather than folded into a scale and a shift,
// because they need not be constants (the ONNX tests feed them as graph inputs), and
// because this order of operations is the one ONNX's reference computes, so results
// agree to rounding. The square root is computed once per channel, not per element.
// A BatchNormalization behind a Conv with constant operands never gets here: the fusion
// pass folds it into the convolution's weights.
//
// Training mode (computing batch statistics, updating running ones) is rejected.
#include "lowering/ops/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

// The operands after X, in ONNX's input order.
constexpr const char* kStatisticNames[] = {"scale", "B", "input_mean", "input_var"};

void reject_training(const Graph& g, const Node& node) {
  if (node.attr_int("training_mode", 0) != 0)
    node_error(node, "training_mode=1 is not supported (inference only: batch statistics are not computed)");
  for (size_t i = 1; i < node.outputs.size(); ++i)
    if (node.outputs[i] != kNoTensor)
      node_error(node, "output '" + g.tensor(node.outputs[i]).name +
                           "' (running or saved statistics) is only produced in training mode; inference only");
  if (node.attr_int("spatial", 1) == 0)
    node_error(node, "spatial=0 (statistics per activation rather than per channel) is not supported");
}

void infer_batch_norm(Graph& g, Node& node) {
  reject_training(g, node);
  require_float32(g, node, 0);
  const Tensor& x = g.tensor(node.inputs[0]);
  if (x.shape.size() < 2)
    node_error(node, "input X must have rank >= 2 (N x C x ...), got " + shape_str(x.shape));
  int64_t channels = x.shape[1];
  for (size_t i = 1; i <= 4; ++i) {
    require_float32(g, node, i);
    const Tensor& statistic = g.tensor(node.inputs[i]);
    if (statistic.shape != std::vector<int64_t>{channels})
      node_error(node, std::string(kStatisticNames[i - 1]) + " must have shape [" + std::to_string(channels) +
                           "] (one value per channel), got " + shape_str(statistic.shape));
  }
  set_output(g, node, 0, x.dtype, x.shape);
}

LoweredOp lower_batch_norm(const LowerContext& ctx) {
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer scale = kb.input(1, "scale");
  ir::Buffer bias = kb.input(2, "B");
  ir::Buffer mean = kb.input(3, "mean");
  ir::Buffer var = kb.input(4, "var");
  ir::Buffer y = kb.output(0, "Y");
  Expr epsilon = ir::make_float(node.attr_float("epsilon", 1e-5));

  const std::vector<int64_t>& shape = x->shape;
  std::vector<int64_t> batch_and_channel(shape.begin(), shape.begin() + 2);
  std::vector<int64_t> spatial(shape.begin() + 2, shape.end());
  std::vector<std::string> spatial_names;
  for (size_t i = 0; i < spatial.size(); ++i) spatial_names.push_back("d" + std::to_string(i));

  ir::Stmt body = ir::loop_nest(batch_and_channel, {"n", "c"}, [&](const std::vector<Expr>& nc) {
    Expr c = nc[1];
    ir::Var std_dev = ir::make_var("std_dev", DataType::Float32());
    ir::Stmt per_element = ir::loop_nest(spatial, spatial_names, [&](const std::vector<Expr>& d) {
      std::vector<Expr> index = nc;
      index.insert(index.end(), d.begin(), d.end());
      Expr normalized = (ir::load(x, index) - ir::load(mean, {c})) / ir::var_expr(std_dev);
      Expr value = normalized * ir::load(scale, {c}) + ir::load(bias, {c});
      return ir::store(y, index, kb.epilogue(value, index));
    });
    Expr variance = ir::load(var, {c}) + epsilon;
    return ir::let(std_dev, ir::call("sqrtf", {variance}, DataType::Float32()), per_element);
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("BatchNormalization", kernel_op(infer_batch_norm, lower_batch_norm).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
