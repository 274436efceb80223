#include "lowering/ops/tflite_common.h"

#include <algorithm>
#include <cmath>

namespace aotc::tflite {

ir::Expr apply_float_activation(const Node& node, ir::Expr value) {
  std::string act = node.attr_string("fused_activation", "NONE");
  if (act == "NONE") return value;
  if (act == "RELU") return ir::max(value, ir::Expr(0.0));
  if (act == "RELU6") return ir::min(ir::max(value, ir::Expr(0.0)), ir::Expr(6.0));
  if (act == "RELU_N1_TO_1") return ir::min(ir::max(value, ir::Expr(-1.0)), ir::Expr(1.0));
  node_error(node, "fused activation " + act + " is not supported");
}

ir::Expr float_logistic(ir::Expr x) {
  const DataType f32 = DataType::Float32();
  ir::Expr exp_x = ir::call("expf", {x}, f32);
  ir::Expr logistic = ir::make_float(1.0) / (ir::make_float(1.0) + ir::call("expf", {-x}, f32));
  return ir::select(x > ir::make_float(16.619047164916992188), ir::make_float(1.0),
                    ir::select(x < ir::make_float(-9.0), exp_x, logistic));
}

bool is_int8(const Graph& g, TensorId id) { return g.tensor(id).dtype == DataType::Int(8); }

double scale_of(const Graph& g, TensorId id, size_t channel) {
  const Quantization& q = g.tensor(id).quant;
  return q.scale.size() > channel ? q.scale[channel] : q.scale.at(0);
}

float float_scale(const Graph& g, TensorId id) { return static_cast<float>(scale_of(g, id)); }

bool checked_log2(float x, int* log2) {
  const float x_log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float rounded = std::round(x_log2);
  *log2 = static_cast<int>(rounded);
  return std::fabs(x_log2 - rounded) < 1e-3f;
}

int32_t zero_point_of(const Graph& g, TensorId id) {
  const Quantization& q = g.tensor(id).quant;
  return q.zero_point.empty() ? 0 : static_cast<int32_t>(q.zero_point[0]);
}

bool is_per_channel(const Graph& g, TensorId id) { return g.tensor(id).quant.scale.size() > 1; }

void require_quantized(const Graph& g, const Node& node, TensorId id) {
  if (g.tensor(id).quant.empty())
    node_error(node, "tensor '" + g.tensor(id).name + "' is " + g.tensor(id).dtype.str() + " but has no quantization parameters");
}

QuantizedRange output_range(const Graph& g, const Node& node, TensorId output) {
  const Tensor& t = g.tensor(output);
  int32_t lo = t.dtype.is_int() ? -(1 << (t.dtype.bits - 1)) : 0;
  int32_t hi = t.dtype.is_int() ? (1 << (t.dtype.bits - 1)) - 1 : (1 << t.dtype.bits) - 1;
  std::string act = node.attr_string("fused_activation", "NONE");
  if (act != "NONE" && act != "RELU" && act != "RELU6" && act != "RELU_N1_TO_1")
    node_error(node, "fused activation " + act + " is not supported on quantized tensors");
  return quantized_activation_range(act, scale_of(g, output), zero_point_of(g, output), lo, hi);
}

ir::Expr clamp(ir::Expr x, const QuantizedRange& range) { return ir::max(ir::min(x, range.max), range.min); }

std::vector<QuantizedMultiplier> channel_multipliers(const Graph& g, TensorId input, TensorId filter, TensorId output,
                                                     int64_t channels) {
  std::vector<QuantizedMultiplier> out;
  int64_t n = is_per_channel(g, filter) ? channels : 1;
  for (int64_t c = 0; c < n; ++c) {
    // Products and quotient in double from the float scales, as TFLite's
    // PopulateConvolutionQuantizationParams does.
    double real = static_cast<double>(static_cast<float>(scale_of(g, input))) *
                  static_cast<double>(static_cast<float>(scale_of(g, filter, static_cast<size_t>(c)))) /
                  static_cast<double>(static_cast<float>(scale_of(g, output)));
    out.push_back(quantize_multiplier(real));
  }
  return out;
}

Node as_operator(const Node& node, const std::string& op) {
  Node copy = node;
  copy.op = op;
  return copy;
}

OpDef translated_op(Translation translate, InferFn check) {
  auto infer = [translate, check](Graph& g, Node& node) {
    if (check) check(g, node);
    Node target = translate(g, node);
    std::vector<Tensor> declared;
    for (TensorId id : node.outputs) declared.push_back(id == kNoTensor ? Tensor{} : g.tensor(id));
    find_op(target.op)->infer(g, target);
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i] == kNoTensor) continue;
      const Tensor& out = g.tensor(node.outputs[i]);
      if (out.dtype != declared[i].dtype)
        node_error(node, "output '" + out.name + "' is " + declared[i].dtype.str() +
                             " in the model but the operator computes " + out.dtype.str());
      if (declared[i].shape_known && out.shape != declared[i].shape)
        node_error(node, "output '" + out.name + "' is " + shape_str(declared[i].shape) +
                             " in the model but the operator computes " + shape_str(out.shape));
    }
  };
  auto lower = [translate](const LowerContext& ctx) {
    Node target = translate(ctx.graph, ctx.node);
    return find_op(target.op)->lower(LowerContext{ctx.graph, target, ctx.func_name, ctx.target});
  };
  return kernel_op(infer, lower);
}

}  // namespace aotc::tflite
