// ONNX ConvTranspose: the transposed (fractionally strided) convolution of any spatial
// rank, with groups, strides, dilations, pads or auto_pad, output_padding and
// output_shape, on float32 or float64 NCHW tensors.
//
// Each input element scatters into the output: X[n, c, i] * W[c, m, k] lands on output
// position o = i * stride + k * dilation - pad_begin. The kernel computes it as a gather
// instead, one reduction per output element, so that every element is written once (no
// zero fill, no read-modify-write) and the bias and fused epilogue apply before the only
// store: for each tap k, the input position is i = (o + pad_begin - k * dilation) /
// stride when that is a whole number inside the input, else the tap contributes nothing.
// An axis where every tap of every output lands inside the input, with stride 1, has no
// check at all.
//
// Output size per axis, as ONNX defines it: stride * (input - 1) + output_padding +
// (kernel - 1) * dilation + 1 - pad_begin - pad_end with explicit pads; with output_shape
// (or auto_pad SAME_*, where the output is input * stride) the pads are what makes that
// size, split with the odd one at the end (SAME_UPPER) or at the beginning, and never
// negative: an output longer than the natural one gets zeros (the bias) at the end, as
// ONNX Runtime computes it.
#include <algorithm>

#include "aot/graph/op_registry.h"
#include "lowering/compute/convolution.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "lowering/compute/window.h"

namespace aotc {
namespace {

using ir::Expr;

struct TransposedAxis {
  int64_t input = 0, kernel = 1, stride = 1, dilation = 1;
  int64_t pad_begin = 0, pad_end = 0, output_padding = 0;
  int64_t output = 0;

  // The output extent before pads are taken away.
  int64_t natural() const { return stride * (input - 1) + output_padding + (kernel - 1) * dilation + 1; }
};

struct TransposedGeometry {
  int64_t batches = 1, in_channels = 0, out_channels = 0, groups = 1;
  std::vector<TransposedAxis> axes;

  int64_t in_per_group() const { return in_channels / groups; }
  int64_t out_per_group() const { return out_channels / groups; }
  std::vector<int64_t> output_shape() const {
    std::vector<int64_t> shape = {batches, out_channels};
    for (const TransposedAxis& a : axes) shape.push_back(a.output);
    return shape;
  }
};

// Pads that make the output `output` long: the total split with the odd element at the
// end for SAME_UPPER, at the beginning otherwise (ONNX's definition).
void pads_for_output(TransposedAxis& axis, int64_t output, bool same_upper) {
  axis.output = output;
  int64_t total = std::max<int64_t>(0, axis.natural() - output);
  axis.pad_begin = same_upper ? total / 2 : total - total / 2;
  axis.pad_end = total - axis.pad_begin;
}

void check_float_operand(const Graph& g, const Node& node, size_t index, DataType type) {
  const Tensor& t = require_input(g, node, index);
  if (t.dtype != type)
    node_error(node, "input '" + t.name + "' is " + t.dtype.str() + "; expected " + type.str() + " like X");
}

// Validates X [N, C, D...], W [C, M / group, K...] and B [M], and resolves the output.
TransposedGeometry transposed_geometry(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.dtype != DataType::Float32() && x.dtype != DataType::Float64())
    node_error(node, "input '" + x.name + "' is " + x.dtype.str() + "; supported: float32, float64");
  if (x.shape.size() < 3)
    node_error(node, "input '" + x.name + "' has shape " + shape_str(x.shape) +
                         "; expected [N, C, D1, ...] with at least one spatial axis");
  check_float_operand(g, node, 1, x.dtype);
  const Tensor& w = g.tensor(node.inputs[1]);
  if (w.shape.size() != x.shape.size())
    node_error(node, "weights '" + w.name + "' have shape " + shape_str(w.shape) + "; expected rank " +
                         std::to_string(x.shape.size()) + " like the input " + shape_str(x.shape));

  TransposedGeometry geo;
  geo.batches = x.shape[0];
  geo.in_channels = x.shape[1];
  geo.groups = node.attr_int("group", 1);
  if (geo.groups < 1 || geo.in_channels % geo.groups != 0)
    node_error(node, "group " + std::to_string(geo.groups) + " must divide the input channels (" +
                         std::to_string(geo.in_channels) + ")");
  if (w.shape[0] != geo.in_channels)
    node_error(node, "weights '" + w.name + "' have shape " + shape_str(w.shape) + "; expected " +
                         std::to_string(geo.in_channels) + " input channels first");
  geo.out_channels = w.shape[1] * geo.groups;
  if (node.input(2) != kNoTensor) {
    check_float_operand(g, node, 2, x.dtype);
    const Tensor& b = g.tensor(node.inputs[2]);
    if (b.shape != std::vector<int64_t>{geo.out_channels})
      node_error(node, "bias '" + b.name + "' has shape " + shape_str(b.shape) + "; expected [" +
                           std::to_string(geo.out_channels) + "]");
  }

  size_t rank = x.shape.size() - 2;
  std::vector<int64_t> kernel = kernel_extents(node, w);
  std::vector<int64_t> strides = per_axis_attr(node, "strides", rank, 1, 1);
  std::vector<int64_t> dilations = per_axis_attr(node, "dilations", rank, 1, 1);
  std::vector<int64_t> pads = per_axis_attr(node, "pads", 2 * rank, 0, 0);
  std::vector<int64_t> output_padding = per_axis_attr(node, "output_padding", rank, 0, 0);
  std::vector<int64_t> output_shape;
  if (node.has_attr("output_shape")) {
    output_shape = node.attr_ints("output_shape");
    // Some exporters give the whole shape [N, M, D...]; the spatial extents are the last.
    if (output_shape.size() == rank + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
    if (output_shape.size() != rank)
      node_error(node, "output_shape has " + std::to_string(node.attr_ints("output_shape").size()) +
                           " values; expected " + std::to_string(rank));
  }
  std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad.empty()) auto_pad = "NOTSET";
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    node_error(node, "auto_pad '" + auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");

  for (size_t i = 0; i < rank; ++i) {
    TransposedAxis axis;
    axis.input = x.shape[2 + i];
    axis.kernel = kernel[i];
    axis.stride = strides[i];
    axis.dilation = dilations[i];
    axis.output_padding = output_padding[i];
    if (axis.output_padding >= std::max(axis.stride, axis.dilation))
      node_error(node, "output_padding " + std::to_string(axis.output_padding) +
                           " must be smaller than the stride or the dilation of spatial axis " + std::to_string(i));
    bool same_upper = auto_pad == "SAME_UPPER";
    if (!output_shape.empty()) {
      if (output_shape[i] < 1) node_error(node, "output_shape " + shape_str(output_shape) + " has an empty axis");
      pads_for_output(axis, output_shape[i], same_upper);
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      pads_for_output(axis, axis.input * axis.stride, same_upper);
    } else {
      if (auto_pad == "NOTSET") {
        axis.pad_begin = pads[i];
        axis.pad_end = pads[rank + i];
      }
      axis.output = axis.natural() - axis.pad_begin - axis.pad_end;
      if (axis.output < 1)
        node_error(node, "spatial axis " + std::to_string(i) + ": pads " + std::to_string(axis.pad_begin) + "+" +
                             std::to_string(axis.pad_end) + " leave no output");
    }
    geo.axes.push_back(axis);
  }
  return geo;
}

void infer_conv_transpose(Graph& g, Node& node) {
  TransposedGeometry geo = transposed_geometry(g, node);
  set_output(g, node, 0, g.tensor(node.inputs[0]).dtype, geo.output_shape());
}

// The input coordinate that tap `k` of output position `o` reads along `axis`, and the
// condition for it to exist (none when every tap of every output position exists).
struct TapSource {
  Expr input_position;
  Expr exists;  // empty: always
};

TapSource tap_source(const TransposedAxis& axis, const Expr& o, const Expr& k) {
  Expr t = o + axis.pad_begin - k * axis.dilation;
  // t ranges over [pad_begin - (kernel - 1) * dilation, output - 1 + pad_begin].
  int64_t lowest = axis.pad_begin - (axis.kernel - 1) * axis.dilation;
  int64_t highest = axis.output - 1 + axis.pad_begin;
  TapSource source;
  if (axis.stride == 1) {
    source.input_position = t;
    bool low = lowest < 0, high = highest >= axis.input;
    if (low && high) {
      // 0 <= t < input as one unsigned comparison: a negative t wraps to a large value.
      source.exists = ir::cast(DataType::UInt(32), t) < ir::make_int(axis.input, DataType::UInt(32));
    } else if (low) {
      source.exists = t >= 0;
    } else if (high) {
      source.exists = t < axis.input;
    }
    return source;
  }
  // t must be a multiple of the stride in [0, input * stride): t % stride is 0 for the
  // negative multiples too, which the range check then excludes.
  source.input_position = t / axis.stride;
  Expr in_range = ir::cast(DataType::UInt(32), t) < ir::make_int(axis.input * axis.stride, DataType::UInt(32));
  source.exists = ir::logical_and(in_range, t % axis.stride == 0);
  return source;
}

LoweredOp lower_conv_transpose(const Graph& g, const Node& node, KernelBuilder& kb) {
  TransposedGeometry geo = transposed_geometry(g, node);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer w = kb.input(1, "W");
  ir::Buffer bias = node.input(2) != kNoTensor ? kb.input(2, "B") : nullptr;
  ir::Buffer y = kb.output(0, "Y");
  DataType t = x->dtype;
  size_t rank = geo.axes.size();

  std::vector<std::string> names = {"n", "oc"};
  for (const std::string& s : spatial_names('o', rank)) names.push_back(s);
  std::vector<std::string> tap_names = spatial_names('k', rank);
  ir::Stmt body = ir::loop_nest(geo.output_shape(), names, [&](const std::vector<Expr>& out) {
    Expr n = out[0], oc = out[1];
    std::vector<Expr> out_pos(out.begin() + 2, out.end());
    Expr group = geo.groups == 1 ? Expr(0) : oc / geo.out_per_group();
    Expr oc_in_group = geo.groups == 1 ? oc : oc % geo.out_per_group();
    auto sum = [&](const Accumulator& acc) {
      ir::Var ic_var = ir::make_var("ic");
      Expr ic = ir::var_expr(ic_var);
      Expr channel = geo.groups == 1 ? ic : group * geo.in_per_group() + ic;
      std::vector<ir::Var> k_vars;
      std::vector<Expr> k_pos, x_index = {n, channel}, w_index = {channel, oc_in_group};
      std::vector<TapSource> sources;
      for (size_t i = 0; i < rank; ++i) {
        k_vars.push_back(ir::make_var(tap_names[i]));
        k_pos.push_back(ir::var_expr(k_vars.back()));
        sources.push_back(tap_source(geo.axes[i], out_pos[i], k_pos.back()));
        x_index.push_back(sources.back().input_position);
        w_index.push_back(k_pos.back());
      }
      ir::Stmt tap = acc.set(acc.value() + ir::load(x, x_index) * ir::load(w, w_index));
      // Innermost axis first; each axis's check sits just inside its own loop.
      for (size_t i = rank; i-- > 0;) {
        if (sources[i].exists) tap = ir::if_then_else(sources[i].exists, tap);
        tap = ir::for_loop(k_vars[i], 0, geo.axes[i].kernel, tap);
      }
      return ir::for_loop(ic_var, 0, geo.in_per_group(), tap);
    };
    auto write = [&](const Expr& total) {
      Expr biased = bias ? total + ir::load(bias, {oc}) : total;
      return ir::store(y, out, kb.epilogue(biased, out));
    };
    return accumulate(ir::make_zero(t), sum, write);
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("ConvTranspose", kernel_op(infer_conv_transpose, lower_conv_transpose).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
