// ONNX Conv: N-d convolution (1-D, 2-D, 3-D...) with groups (depthwise included), pads,
// strides, dilations, auto_pad and an optional bias, on float32 NCHW tensors.
//
// This file reads and checks the attributes; the kernel is the shared convolution
// (convolution.h): each output element one reduction over the input channels of its
// group and the kernel window, the bias and the fused epilogue (activation, residual
// add...) applied to the finished sum before the only store, so conv + bias + activation
// writes memory once. Padding is never materialized.
#include "aot/graph/op_registry.h"
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

// Splits the channels into groups: X has C channels, W is [M, C / group, ...].
void set_groups(const Node& node, const Tensor& x, const Tensor& w, ConvGeometry* geo) {
  geo->groups = node.attr_int("group", 1);
  geo->in_channels = x.shape[1];
  geo->out_channels = w.shape[0];
  if (geo->groups < 1 || geo->in_channels % geo->groups != 0 || geo->out_channels % geo->groups != 0)
    node_error(node, "group " + std::to_string(geo->groups) + " must divide the input channels (" +
                         std::to_string(geo->in_channels) + ") and the output channels (" +
                         std::to_string(geo->out_channels) + ")");
  if (w.shape[1] != geo->in_per_group())
    node_error(node, "weights '" + w.name + "' have " + std::to_string(w.shape[1]) +
                         " input channels per group; expected " + std::to_string(geo->in_per_group()));
}

// The kernel's spatial extents come from W; a kernel_shape attribute must agree.
std::vector<int64_t> kernel_extents(const Node& node, const Tensor& w) {
  std::vector<int64_t> extents(w.shape.begin() + 2, w.shape.end());
  for (int64_t k : extents)
    if (k < 1) node_error(node, "weights '" + w.name + "' have an empty kernel " + shape_str(w.shape));
  if (node.has_attr("kernel_shape") && node.attr_ints("kernel_shape") != extents)
    node_error(node, "kernel_shape " + shape_str(node.attr_ints("kernel_shape")) +
                         " does not match the weights' spatial shape " + shape_str(extents));
  return extents;
}

// Validates X [N, C, D...], W [M, C / group, K...] and B [M], and resolves the window.
ConvGeometry conv_geometry(const Graph& g, const Node& node) {
  require_spatial_input(g, node, 0);
  require_float32(g, node, 1);
  const Tensor& x = g.tensor(node.inputs[0]);
  const Tensor& w = g.tensor(node.inputs[1]);
  if (w.shape.size() != x.shape.size())
    node_error(node, "weights '" + w.name + "' have shape " + shape_str(w.shape) + "; expected rank " +
                         std::to_string(x.shape.size()) + " like the input " + shape_str(x.shape));
  ConvGeometry geo;
  geo.layout = ActivationLayout::kChannelsFirst;
  geo.filter_layout = FilterLayout::kOIK;
  geo.batches = x.shape[0];
  set_groups(node, x, w, &geo);
  check_bias(g, node, w.shape[0]);
  std::vector<int64_t> input_extents(x.shape.begin() + 2, x.shape.end());
  geo.axes = resolve_window(node, input_extents, kernel_extents(node, w), WindowKind::kConvolution);
  return geo;
}

void infer_conv(Graph& g, Node& node) {
  ConvGeometry geo = conv_geometry(g, node);
  set_output(g, node, 0, DataType::Float32(), geo.output_shape());
}

LoweredOp lower_conv(const LowerContext& ctx) {
  ConvGeometry geo = conv_geometry(ctx.graph, ctx.node);
  KernelBuilder kb(ctx);
  ConvOperands ops;
  ops.input = kb.input(0, "X");
  ops.filter = kb.input(1, "W");
  ops.bias = ctx.node.input(2) != kNoTensor ? kb.input(2, "B") : nullptr;
  ops.output = kb.output(0, "Y");
  ops.input_tensor = ctx.node.inputs[0];
  FloatConvArithmetic arithmetic;
  return kb.finish(lower_convolution(kb, geo, arithmetic, ops));
}

AOTC_REGISTER_OP("Conv", kernel_op(infer_conv, lower_conv).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
