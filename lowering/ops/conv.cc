// Conv: N-d convolution (1-D, 2-D, 3-D...) with groups (depthwise included), pads,
// strides, dilations, auto_pad and an optional bias, lowered to a direct loop nest.
//
// Each output element is one reduction over the input channels of its group and the
// kernel window. The bias and the fused epilogue (activation, residual add...) are applied
// to the finished sum before the only store, so conv + bias + activation writes memory
// once. Padding is never materialized: taps that fall into it are skipped.
#include "lowering/ops/kernel_builder.h"
#include "aot/graph/op_registry.h"
#include "lowering/ops/reduction.h"
#include "lowering/ops/spatial.h"

namespace aotc {
namespace {

using ir::Expr;

struct ConvGeometry {
  int64_t groups = 1;
  int64_t in_channels_per_group = 0;
  int64_t out_channels_per_group = 0;
  std::vector<WindowAxis> axes;
  std::vector<int64_t> output_shape;
};

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
  int64_t in_channels = x.shape[1], out_channels = w.shape[0];
  if (geo->groups < 1 || in_channels % geo->groups != 0 || out_channels % geo->groups != 0)
    node_error(node, "group " + std::to_string(geo->groups) + " must divide the input channels (" +
                         std::to_string(in_channels) + ") and the output channels (" +
                         std::to_string(out_channels) + ")");
  geo->in_channels_per_group = in_channels / geo->groups;
  geo->out_channels_per_group = out_channels / geo->groups;
  if (w.shape[1] != geo->in_channels_per_group)
    node_error(node, "weights '" + w.name + "' have " + std::to_string(w.shape[1]) +
                         " input channels per group; expected " + std::to_string(geo->in_channels_per_group));
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
  set_groups(node, x, w, &geo);
  check_bias(g, node, w.shape[0]);
  std::vector<int64_t> input_extents(x.shape.begin() + 2, x.shape.end());
  geo.axes = resolve_window(node, input_extents, kernel_extents(node, w), WindowKind::kConvolution);
  geo.output_shape = windowed_output_shape(x.shape, w.shape[0], geo.axes);
  return geo;
}

void infer_conv(Graph& g, Node& node) {
  ConvGeometry geo = conv_geometry(g, node);
  set_output(g, node, 0, DataType::Float32(), geo.output_shape);
}

// The input channel that weight channel `ic` of output channel `oc` reads.
Expr input_channel(const ConvGeometry& geo, const Expr& oc, const Expr& ic) {
  if (geo.groups == 1) return ic;
  Expr group = oc / geo.out_channels_per_group;
  return group * geo.in_channels_per_group + ic;
}

LoweredOp lower_conv(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  ConvGeometry geo = conv_geometry(g, node);
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer w = kb.input(1, "W");
  ir::Buffer bias = node.input(2) != kNoTensor ? kb.input(2, "B") : nullptr;
  ir::Buffer y = kb.output(0, "Y");

  std::vector<std::string> names = {"n", "oc"};
  for (const std::string& s : spatial_names('o', geo.axes.size())) names.push_back(s);
  ir::Stmt body = ir::loop_nest(geo.output_shape, names, [&](const std::vector<Expr>& out_index) {
    Expr n = out_index[0], oc = out_index[1];
    std::vector<Expr> out_pos(out_index.begin() + 2, out_index.end());
    ir::Var ic = ir::make_var("ic");
    Expr channel = input_channel(geo, oc, ir::var_expr(ic));
    return with_accumulator("acc", 0.0, [&](const Accumulator& acc) {
      ir::Stmt window = for_each_tap(geo.axes, out_pos, [&](const std::vector<Expr>& kernel_pos,
                                                            const std::vector<Expr>& input_pos) {
        std::vector<Expr> x_index = {n, channel}, w_index = {oc, ir::var_expr(ic)};
        x_index.insert(x_index.end(), input_pos.begin(), input_pos.end());
        w_index.insert(w_index.end(), kernel_pos.begin(), kernel_pos.end());
        return acc.set(acc.value() + ir::load(x, x_index) * ir::load(w, w_index));
      });
      Expr result = bias ? acc.value() + ir::load(bias, {oc}) : acc.value();
      return ir::seq({ir::for_loop(ic, 0, geo.in_channels_per_group, window),
                      ir::store(y, out_index, kb.epilogue(result, out_index))});
    });
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("Conv", kernel_op(infer_conv, lower_conv).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
