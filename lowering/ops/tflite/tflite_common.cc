#include "lowering/ops/tflite/tflite_common.h"

#include <algorithm>
#include <cmath>

#include "aot/graph/lowered_op.h"

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

void require_bias_length(const Graph& g, const Node& node, TensorId bias, int64_t expected) {
  if (bias != kNoTensor && g.tensor(bias).num_elements() != expected)
    node_error(node, "bias has " + std::to_string(g.tensor(bias).num_elements()) + " elements, expected " +
                         std::to_string(expected));
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

QuantizedMultiplier per_tensor_product_multiplier(float input_scale, float filter_scale, float output_scale) {
  float product = input_scale * filter_scale;
  return quantize_multiplier(static_cast<double>(product) / static_cast<double>(output_scale));
}

std::vector<QuantizedMultiplier> channel_multipliers(const Graph& g, TensorId input, TensorId filter, TensorId output,
                                                     int64_t channels, bool fully_connected) {
  if (fully_connected && !is_per_channel(g, filter))
    return {per_tensor_product_multiplier(static_cast<float>(scale_of(g, input)), static_cast<float>(scale_of(g, filter)),
                                          static_cast<float>(scale_of(g, output)))};
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

namespace {

// TFLite's QuantizeMultiplierSmallerThanOneExp: the factor must lie in (0, 1).
QuantizedMultiplier multiplier_below_one(const Node& node, double real, const std::string& what) {
  if (!(real > 0.0 && real < 1.0))
    node_error(node, "the " + what + " rescaling factor " + std::to_string(real) +
                         " is not in (0, 1), which TFLite's quantized kernel requires");
  return quantize_multiplier(real);
}

}  // namespace

// TFLite Micro's ADD (add_common.cc) combines the float scales in double precision; its
// SUB (sub_common.cc) does the same arithmetic in float and widens the results. The two
// can differ in the last bit of a multiplier, so each is reproduced as it is.
AddSubMultipliers add_sub_multipliers(const Graph& g, const Node& node, bool subtract) {
  float s1 = float_scale(g, node.inputs[0]), s2 = float_scale(g, node.inputs[1]);
  float out = float_scale(g, node.outputs[0]);
  int left_shift = g.tensor(node.outputs[0]).dtype == DataType::Int(16) ? kAddSubLeftShiftInt16 : kAddSubLeftShift;
  double real1, real2, real_out;
  if (!subtract) {
    double twice_max_input_scale = 2 * static_cast<double>(std::max(s1, s2));
    real1 = static_cast<double>(s1) / twice_max_input_scale;
    real2 = static_cast<double>(s2) / twice_max_input_scale;
    real_out = twice_max_input_scale / ((1 << left_shift) * static_cast<double>(out));
  } else {
    float twice_max_input_scale = 2 * std::max(s1, s2);
    real1 = static_cast<double>(s1 / twice_max_input_scale);
    real2 = static_cast<double>(s2 / twice_max_input_scale);
    real_out = static_cast<double>(twice_max_input_scale / ((1 << left_shift) * out));
  }
  return {multiplier_below_one(node, real1, "first input's"), multiplier_below_one(node, real2, "second input's"),
          multiplier_below_one(node, real_out, "output"), left_shift};
}

// MUL (mul_common.cc): input1_scale * input2_scale / output_scale in double precision.
QuantizedMultiplier mul_multiplier(const Graph& g, const Node& node) {
  double real = static_cast<double>(float_scale(g, node.inputs[0])) *
                static_cast<double>(float_scale(g, node.inputs[1])) /
                static_cast<double>(float_scale(g, node.outputs[0]));
  return quantize_multiplier(real);
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
    // The translation reads the operator's own output (a PAD's fill is its output's zero
    // point), which fusion replaced with the last epilogue step's: translate the operator as
    // it was, then give it back its epilogue and the chain's output.
    Node target = translate(ctx.graph, unfused_anchor(ctx.node));
    target.outputs = ctx.node.outputs;
    target.body = ctx.node.body;
    if (ctx.node.has_attr(kAnchorOutputAttr)) target.attrs[kAnchorOutputAttr] = ctx.node.attrs.at(kAnchorOutputAttr);
    return find_op(target.op)->lower(LowerContext{ctx.graph, target, ctx.func_name, ctx.target});
  };
  return kernel_op(infer, lower);
}

}  // namespace aotc::tflite
