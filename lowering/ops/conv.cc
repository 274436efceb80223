// ONNX Conv: N-d convolution (1-D, 2-D, 3-D...) with groups (depthwise included), pads,
// strides, dilations, auto_pad and an optional bias, on float32 NCHW tensors.
//
// This file reads and checks the attributes; the kernel is the shared convolution
// (convolution.h): each output element one reduction over the input channels of its
// group and the kernel window, the bias and the fused epilogue (activation, residual
// add...) applied to the finished sum before the only store, so conv + bias + activation
// writes memory once. Padding is never materialized. On hosts with wide SIMD (the
// target's `simd` feature) float convolutions with constant weights take the
// register-blocked kernels of conv_host_f32.h instead.
#include "aot/graph/op_registry.h"
#include "lowering/ops/conv_host_f32.h"
#include "lowering/ops/convolution.h"

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
  check_bias(g, node, w.shape[0]);
  return geo;
}

void infer_conv(Graph& g, Node& node) {
  ConvGeometry geo = conv_geometry(g, node);
  set_output(g, node, 0, DataType::Float32(), geo.output_shape());
}

LoweredOp lower_conv(const Graph& g, const Node& node, KernelBuilder& kb) {
  ConvGeometry geo = conv_geometry(g, node);
  ConvOperands ops;
  ops.input = kb.input(0, "X");
  ops.filter = kb.input(1, "W");
  ops.bias = node.input(2) != kNoTensor ? kb.input(2, "B") : nullptr;
  ops.output = kb.output(0, "Y");
  ops.input_tensor = node.inputs[0];
  // Hosts with wide SIMD: register-blocked kernels over packed weights (conv_host_f32.h).
  if (host_f32_conv_applies(g, node, kb, geo)) return kb.finish(lower_host_f32_conv(g, node, kb, geo, ops));
  FloatConvArithmetic arithmetic;
  return kb.finish(lower_convolution(kb, geo, arithmetic, ops));
}

AOTC_REGISTER_OP("Conv", kernel_op(infer_conv, lower_conv).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
