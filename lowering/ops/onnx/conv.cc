// ONNX Conv: N-d convolution (1-D, 2-D, 3-D...) with groups (depthwise included), pads,
// strides, dilations, auto_pad and an optional bias, on float32 NCHW tensors.
//
// This file reads and checks the attributes; the kernel is the shared convolution
// (convolution.h): each output element one reduction over the input channels of its
// group and the kernel window, the bias and the fused epilogue (activation, residual
// add...) applied to the finished sum before the only store, so conv + bias + activation
// writes memory once. Padding is never materialized. On hosts with wide SIMD (the
// target's `simd` feature) float convolutions with constant weights take the
// register-blocked kernels of lowering/kernels/host_simd/conv_host_f32.h instead, and on
// cores with an FPU the FPU register blocks, channels-last (chosen by the kernel strategy,
// lowering/kernels/conv_kernels.h; the channels_last pass gives a convolution that layout
// where its kernels prefer it: prefers_channels_last).
#include "aot/graph/op_registry.h"
#include "lowering/kernels/conv_kernels.h"
#include "lowering/compute/convolution.h"
#include "lowering/ops/onnx/fused_clamp.h"

namespace aotc {
namespace {

using ir::Expr;

void check_bias(const Graph& g, const Node& node, int64_t out_channels) {
  if (node.input(2) == kNoTensor) return;
  require_float32(g, node, 2);
  const Tensor& b = g.tensor(node.inputs[2]);
  if (b.shape != std::vector<int64_t>{out_channels})
    node_error(node, "bias '" + b.name + "' has shape " + shape_str(b.shape) + "; expected [" +
                         std::to_string(out_channels) + "]");
}

// Validates X [N, C, D...] (float32), W [M, C / group, K...] and B [M], and resolves the
// window.
ConvGeometry conv_geometry(const Graph& g, const Node& node) {
  require_spatial_input(g, node, 0);
  require_float32(g, node, 1);
  const Tensor& w = g.tensor(node.inputs[1]);
  ConvGeometry geo = onnx_conv_geometry(node, g.tensor(node.inputs[0]), w);
  check_bias(g, node, geo.out_channels);  // not w's first extent: channels-last depthwise w is [1, KH, KW, M]
  return geo;
}

void infer_conv(Graph& g, Node& node) {
  ConvGeometry geo = conv_geometry(g, node);
  set_output(g, node, 0, DataType::Float32(), geo.output_shape());
}

// The convolution as a ConvProblem for the kernel strategy (lowering/kernels/conv_kernels.h):
// on hosts with wide vectors the packed register blocks, on cores with an FPU (once the
// channels_last pass has given it that layout) the FPU register blocks, else the generic
// loops.
ConvProblem conv_problem(const Graph& g, const Node& node, FloatConvArithmetic& arithmetic) {
  ConvProblem p;
  p.geometry = conv_geometry(g, node);
  p.arithmetic = &arithmetic;
  p.input = node.inputs[0];
  p.filter = node.inputs[1];
  p.bias = node.input(2);
  p.output = node.outputs[0];
  const Tensor& filter = g.tensor(p.filter);
  bool constant_bias = p.bias != kNoTensor && g.tensor(p.bias).is_constant();
  p.constants = {&filter, constant_bias ? &g.tensor(p.bias) : nullptr, 0};
  p.float32_constant_filter = g.tensor(p.input).dtype == DataType::Float32() && filter.is_constant();
  p.depthwise = p.geometry.filter_layout == FilterLayout::kOneKO;
  p.clamp = leading_clamp(g, node);
  p.input_name = "X", p.filter_name = "W", p.bias_name = "B", p.output_name = "Y";
  return p;
}

LoweredOp lower_conv(const Graph& g, const Node& node, KernelBuilder& kb) {
  FloatConvArithmetic arithmetic;
  return build_conv_kernel(kb, conv_problem(g, node, arithmetic));
}

OpDef conv_op() {
  OpDef def = kernel_op(infer_conv, lower_conv).with({Role::kAnchor});
  def.prefers_channels_last = [](const Graph& g, const Node& node, const TargetFacts& target) {
    FloatConvArithmetic arithmetic;
    return channels_last_pays(conv_problem(g, node, arithmetic), target);
  };
  return def;
}

AOTC_REGISTER_OP("Conv", conv_op());

}  // namespace
}  // namespace aotc
