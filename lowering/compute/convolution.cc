// The convolution kernel shared by every front end; see convolution.h.
#include "lowering/compute/convolution.h"

#include <algorithm>

#include "lowering/compute/reduction.h"

namespace aotc {
namespace {

using ir::Expr;


// The index of activation element (n, c, spatial position) in the layout.
std::vector<Expr> activation_index(ActivationLayout layout, const Expr& n, const Expr& c, const std::vector<Expr>& pos) {
  std::vector<Expr> index = {n};
  if (layout == ActivationLayout::kChannelsFirst) index.push_back(c);
  index.insert(index.end(), pos.begin(), pos.end());
  if (layout == ActivationLayout::kChannelsLast) index.push_back(c);
  return index;
}

// The index of the weight of output channel `oc`, channel `ic` within its group, tap `k`.
std::vector<Expr> filter_index(FilterLayout layout, const Expr& oc, const Expr& ic, const std::vector<Expr>& k) {
  std::vector<Expr> index;
  switch (layout) {
    case FilterLayout::kOIK: index = {oc, ic}; break;
    case FilterLayout::kOKI: index = {oc}; break;
    case FilterLayout::kOneKO: index = {0}; break;
  }
  index.insert(index.end(), k.begin(), k.end());
  if (layout == FilterLayout::kOKI) index.push_back(ic);
  if (layout == FilterLayout::kOneKO) index.push_back(oc);
  return index;
}

std::vector<int64_t> input_extents(const ConvGeometry& c) {
  std::vector<int64_t> extents;
  for (const WindowAxis& axis : c.axes) extents.push_back(axis.input);
  return extents;
}

std::vector<int64_t> output_extents(const ConvGeometry& c) {
  std::vector<int64_t> extents;
  for (const WindowAxis& axis : c.axes) extents.push_back(axis.output);
  return extents;
}

}  // namespace

Staging choose_staging(const Graph& g, TensorId input, const ConvGeometry& c) {
  if (input == kNoTensor) return Staging::kNone;
  const Tensor& t = g.tensor(input);
  bool dies_here = !t.is_constant() && g.consumers(input).size() == 1 && !g.is_graph_output(input) &&
                   std::find(g.inputs.begin(), g.inputs.end(), input) == g.inputs.end();
  bool same_shape = c.out_channels == c.in_channels && output_extents(c) == input_extents(c);
  if (!dies_here || !same_shape) return Staging::kNone;
  if (c.groups == c.in_channels && c.out_per_group() == 1) return Staging::kPerChannel;
  bool pointwise = c.groups == 1 && std::all_of(c.axes.begin(), c.axes.end(), [](const WindowAxis& a) {
    return a.kernel == 1 && a.stride == 1 && a.pad_begin == 0 && a.pad_end == 0;
  });
  return pointwise ? Staging::kPerPixel : Staging::kNone;
}

namespace {

// The input term of the sum for (batch, channel, input position): read from the input
// tensor, or from a staged copy that holds the terms already.
using InputReader = std::function<Expr(const Expr& n, const Expr& channel, const std::vector<Expr>& pos)>;

class ConvolutionBuilder {
 public:
  ConvolutionBuilder(KernelBuilder& kb, const ConvGeometry& c, ConvArithmetic& a, const ConvOperands& ops)
      : kb_(kb), c_(c), a_(a), ops_(ops) {}

  ir::Stmt build() {
    Staging staging = choose_staging(kb_.graph(), ops_.input_tensor, c_);
    if (staging != Staging::kNone) kb_.allow_in_place(ops_.input_tensor);
    return a_.wrap([&] {
      switch (staging) {
        case Staging::kPerChannel: return per_channel();
        case Staging::kPerPixel: return per_pixel();
        case Staging::kNone: break;
      }
      return direct();
    });
  }

 private:
  // Every output element in the layout's memory order, reading the input tensor.
  ir::Stmt direct() {
    std::vector<std::string> names = {"n"};
    std::vector<std::string> spatial = spatial_names('o', c_.axes.size());
    bool channels_first = c_.layout == ActivationLayout::kChannelsFirst;
    if (channels_first) names.push_back("oc");
    names.insert(names.end(), spatial.begin(), spatial.end());
    if (!channels_first) names.push_back("oc");
    if (channels_first) {
      return ir::loop_nest(c_.output_shape(), names, [&](const std::vector<Expr>& index) {
        std::vector<Expr> pos(index.begin() + 2, index.end());
        return output_element(WindowTaps(c_.axes, pos, TapBounds::kGuard), index[0], index[1], pos, from_input());
      });
    }
    std::vector<int64_t> pixels = c_.output_shape();
    pixels.pop_back();
    names.pop_back();
    return ir::loop_nest(pixels, names, [&](const std::vector<Expr>& index) {
      std::vector<Expr> pos(index.begin() + 1, index.end());
      WindowTaps taps(c_.axes, pos, TapBounds::kGuard);
      return ir::loop_nest({c_.out_channels}, {"oc"}, [&](const std::vector<Expr>& oc) {
        return output_element(taps, index[0], oc[0], pos, from_input());
      });
    });
  }

  // Depthwise in place: each input channel is staged whole, then its output channel computed.
  ir::Stmt per_channel() {
    DataType staged = a_.staged_type(ops_.input->dtype);
    return ir::loop_nest({c_.batches, c_.out_channels}, {"n", "oc"}, [&](const std::vector<Expr>& nc) {
      ir::Buffer plane = ir::make_buffer("channel", staged, input_extents(c_));
      ir::Stmt copy = ir::loop_nest(input_extents(c_), spatial_names('i', c_.axes.size()), [&](const std::vector<Expr>& p) {
        return ir::store(plane, p, ir::cast(staged, from_input()(nc[0], nc[1], p)));
      });
      ir::Stmt compute = ir::loop_nest(output_extents(c_), spatial_names('o', c_.axes.size()), [&](const std::vector<Expr>& p) {
        return output_element(WindowTaps(c_.axes, p, TapBounds::kGuard), nc[0], nc[1], p,
                              [&](const Expr&, const Expr&, const std::vector<Expr>& at) { return widened(ir::load(plane, at)); });
      });
      return ir::allocate(plane, ir::seq({copy, compute}));
    });
  }

  // 1x1 in place: each input pixel's channels are staged, then the pixel's outputs computed.
  ir::Stmt per_pixel() {
    DataType staged = a_.staged_type(ops_.input->dtype);
    std::vector<int64_t> shape = {c_.batches};
    std::vector<std::string> names = {"n"};
    for (int64_t e : output_extents(c_)) shape.push_back(e);
    for (const std::string& s : spatial_names('o', c_.axes.size())) names.push_back(s);
    return ir::loop_nest(shape, names, [&](const std::vector<Expr>& p) {
      std::vector<Expr> pos(p.begin() + 1, p.end());
      ir::Buffer pixel = ir::make_buffer("pixel", staged, {c_.in_channels});
      ir::Stmt copy = ir::loop_nest({c_.in_channels}, {"ic"}, [&](const std::vector<Expr>& ic) {
        return ir::store(pixel, ic, ir::cast(staged, from_input()(p[0], ic[0], pos)));
      });
      WindowTaps taps(c_.axes, pos, TapBounds::kGuard);  // 1x1, unpadded: no guards
      ir::Stmt compute = ir::loop_nest({c_.out_channels}, {"oc"}, [&](const std::vector<Expr>& oc) {
        return output_element(taps, p[0], oc[0], pos, [&](const Expr&, const Expr& channel, const std::vector<Expr>&) {
          return widened(ir::load(pixel, {channel}));
        });
      });
      return ir::allocate(pixel, ir::seq({copy, compute}));
    });
  }

  InputReader from_input() const {
    return [this](const Expr& n, const Expr& channel, const std::vector<Expr>& pos) {
      return a_.input_term(ir::load(ops_.input, activation_index(c_.layout, n, channel, pos)));
    };
  }

  // A staged term back in the accumulator's type.
  Expr widened(const Expr& staged) const {
    return staged.dtype() == a_.accumulator() ? staged : ir::cast(a_.accumulator(), staged);
  }

  // output[n, oc, out_pos] = epilogue(output(sum over the window and the group's input
  // channels of input term * filter term, + bias)). `taps` is the window at out_pos.
  ir::Stmt output_element(const WindowTaps& taps, const Expr& n, const Expr& oc, const std::vector<Expr>& out_pos,
                          const InputReader& read) {
    ir::Var ic_var = ir::make_var("ic");
    Expr ic = ir::var_expr(ic_var);
    Expr channel = c_.groups == 1 ? ic : (oc / c_.out_per_group()) * c_.in_per_group() + ic;
    auto sum = [&](const Accumulator& acc) {
      auto add = [&](const std::vector<Expr>& k, const std::vector<Expr>& at) {
        Expr w = ir::load(ops_.filter, filter_index(c_.filter_layout, oc, ic, k));
        return acc.set(acc.value() + read(n, channel, at) * a_.filter_term(w, oc));
      };
      if (c_.layout == ActivationLayout::kChannelsFirst)
        return ir::for_loop(ic_var, 0, c_.in_per_group(), taps.loops(add));
      return taps.loops([&](const std::vector<Expr>& k, const std::vector<Expr>& at) {
        return ir::for_loop(ic_var, 0, c_.in_per_group(), add(k, at));
      });
    };
    auto write = [&](const Expr& total) {
      Expr biased = ops_.bias ? total + ir::load(ops_.bias, {oc}) : total;
      std::vector<Expr> out_index = activation_index(c_.layout, n, oc, out_pos);
      return ir::store(ops_.output, out_index, kb_.epilogue(a_.output(biased, oc), out_index));
    };
    return accumulate(ir::make_zero(a_.accumulator()), sum, write);
  }

  KernelBuilder& kb_;
  const ConvGeometry& c_;
  ConvArithmetic& a_;
  const ConvOperands& ops_;
};

}  // namespace

ConvGeometry onnx_conv_geometry(const Node& node, const Tensor& x, const Tensor& w) {
  if (x.shape.size() < 3)
    node_error(node, "input '" + x.name + "' has shape " + shape_str(x.shape) +
                         "; expected [N, C, D1, ...] with at least one spatial axis");
  if (w.shape.size() != x.shape.size())
    node_error(node, "weights '" + w.name + "' have shape " + shape_str(w.shape) + "; expected rank " +
                         std::to_string(x.shape.size()) + " like the input " + shape_str(x.shape));
  // Channels-last (kChannelsLastAttr): the channel axis and the weights' channel axes move
  // to the end; the spatial axes keep their order.
  bool channels_last = node.attr_int(kChannelsLastAttr, 0) != 0;
  size_t rank = x.shape.size();
  ConvGeometry geo;
  geo.batches = x.shape[0];
  geo.groups = node.attr_int("group", 1);
  geo.in_channels = channels_last ? x.shape.back() : x.shape[1];
  bool one_per_group = channels_last && geo.groups > 1 && geo.groups == geo.in_channels;
  geo.layout = channels_last ? ActivationLayout::kChannelsLast : ActivationLayout::kChannelsFirst;
  geo.filter_layout = !channels_last ? FilterLayout::kOIK : one_per_group ? FilterLayout::kOneKO : FilterLayout::kOKI;
  geo.out_channels = one_per_group ? w.shape.back() : w.shape[0];
  if (geo.groups < 1 || geo.in_channels % geo.groups != 0 || geo.out_channels % geo.groups != 0)
    node_error(node, "group " + std::to_string(geo.groups) + " must divide the input channels (" +
                         std::to_string(geo.in_channels) + ") and the output channels (" +
                         std::to_string(geo.out_channels) + ")");
  int64_t w_per_group = one_per_group ? 1 : channels_last ? w.shape.back() : w.shape[1];
  if (w_per_group != geo.in_per_group())
    node_error(node, "weights '" + w.name + "' have " + std::to_string(w_per_group) +
                         " input channels per group; expected " + std::to_string(geo.in_per_group()));
  std::vector<int64_t> input_extents = channels_last ? std::vector<int64_t>(x.shape.begin() + 1, x.shape.end() - 1)
                                                     : std::vector<int64_t>(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> kernel = channels_last ? std::vector<int64_t>(w.shape.begin() + 1, w.shape.begin() + rank - 1)
                                              : kernel_extents(node, w);
  geo.axes = resolve_window(node, input_extents, kernel, WindowKind::kConvolution);
  return geo;
}

std::vector<int64_t> kernel_extents(const Node& node, const Tensor& w) {
  std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  for (int64_t k : kernel)
    if (k < 1) node_error(node, "weights '" + w.name + "' have an empty kernel " + shape_str(w.shape));
  if (node.has_attr("kernel_shape") && node.attr_ints("kernel_shape") != kernel)
    node_error(node, "kernel_shape " + shape_str(node.attr_ints("kernel_shape")) +
                         " does not match the weights' spatial shape " + shape_str(kernel));
  return kernel;
}

std::vector<int64_t> ConvGeometry::output_shape() const {
  std::vector<int64_t> shape = {batches};
  if (layout == ActivationLayout::kChannelsFirst) shape.push_back(out_channels);
  for (const WindowAxis& axis : axes) shape.push_back(axis.output);
  if (layout == ActivationLayout::kChannelsLast) shape.push_back(out_channels);
  return shape;
}

ir::Stmt lower_convolution(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                           const ConvOperands& operands) {
  return ConvolutionBuilder(kb, geometry, arithmetic, operands).build();
}

}  // namespace aotc
