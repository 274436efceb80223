// TFLite CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, float32 and int8.
//
// The sums follow TFLite's reference kernels step for step — the same window order, the
// same skipping of padded positions, bias added after the sum — because float results
// then match to the last bit and int8 results must. int8 kernels accumulate
// (input - input_zero_point) * filter in int32, add the int32 bias, requantize with the
// per-channel multiplier and shift computed at compile time, add the output zero point
// and clamp to the fused activation's range: integer arithmetic only. The convolutions
// are the shared kernel of convolution.h (NHWC); this file reads TFLite's options and
// defines TFLite's quantization scheme (TfliteConvArithmetic), which the fully connected
// layer uses too.
#include <algorithm>
#include <memory>

#include "lowering/ir/runtime_calls.h"
#include "aot/graph/op_registry.h"
#include "lowering/ops/channel_constants.h"
#include "lowering/ops/convolution.h"
#include "lowering/ops/reduction.h"
#include "lowering/ops/tflite_common.h"
#include "lowering/ops/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;

// Input and output types must agree, and int8 tensors must carry quantization.
void check_types(const Graph& g, const Node& node) {
  TensorId in = node.inputs.at(0), filter = node.inputs.at(1), out = node.outputs.at(0);
  DataType t = g.tensor(in).dtype;
  if (t != DataType::Float32() && t != DataType::Int(8))
    node_error(node, "input '" + g.tensor(in).name + "' is " + t.str() + "; only float32 and int8 are supported");
  if (g.tensor(out).dtype != t) node_error(node, "input and output types differ");
  if (t == DataType::Int(8)) {
    for (TensorId id : {in, filter, out}) tflite::require_quantized(g, node, id);
    if (g.tensor(filter).dtype != DataType::Int(8))
      node_error(node, "filter '" + g.tensor(filter).name + "' is " + g.tensor(filter).dtype.str() + "; int8 is required");
    TensorId bias = node.input(2);
    if (bias != kNoTensor && g.tensor(bias).dtype != DataType::Int(32))
      node_error(node, "bias '" + g.tensor(bias).name + "' must be int32 for an int8 kernel");
  } else if (g.tensor(filter).dtype != DataType::Float32()) {
    node_error(node, "float32 input with " + g.tensor(filter).dtype.str() + " filter: hybrid models are not supported");
  }
}

// CONV_2D: input [N, H, W, C], filter [M, KH, KW, C / groups]; DEPTHWISE_CONV_2D:
// filter [1, KH, KW, M], M a multiple of C (the depth multiplier), one group per input
// channel.
ConvGeometry conv_geometry(const Graph& g, const Node& node, bool depthwise) {
  const Tensor& in = require_input(g, node, 0);
  const Tensor& filter = require_input(g, node, 1);
  if (in.shape.size() != 4 || filter.shape.size() != 4) node_error(node, "input and filter must be 4-D (NHWC)");
  ConvGeometry c;
  c.layout = ActivationLayout::kChannelsLast;
  c.filter_layout = depthwise ? FilterLayout::kOneKO : FilterLayout::kOKI;
  c.batches = in.shape[0];
  c.in_channels = in.shape[3];
  c.out_channels = depthwise ? filter.shape[3] : filter.shape[0];
  if (depthwise) {
    if (c.in_channels == 0 || c.out_channels % c.in_channels != 0)
      node_error(node, "depthwise output channels " + std::to_string(c.out_channels) +
                           " are not a multiple of input channels " + std::to_string(c.in_channels));
    c.groups = c.in_channels;
  } else {
    // TFLite's grouped convolution: the filter holds C / groups input channels.
    int64_t per_group = filter.shape[3];
    if (per_group < 1 || c.in_channels % per_group != 0 || c.out_channels % (c.in_channels / per_group) != 0)
      node_error(node, "filter has " + std::to_string(per_group) + " input channels, which does not divide the input's " +
                           std::to_string(c.in_channels) + " into groups of the " + std::to_string(c.out_channels) +
                           " output channels");
    c.groups = c.in_channels / per_group;
  }
  std::string padding = node.attr_string("padding", "SAME");
  c.axes = {tflite_window_axis(node, padding, in.shape[1], filter.shape[1], node.attr_int("stride_h", 1),
                               node.attr_int("dilation_h", 1)),
            tflite_window_axis(node, padding, in.shape[2], filter.shape[2], node.attr_int("stride_w", 1),
                               node.attr_int("dilation_w", 1))};
  return c;
}

void infer_conv(Graph& g, Node& node, bool depthwise) {
  ConvGeometry c = conv_geometry(g, node, depthwise);
  check_types(g, node);
  if (node.input(2) != kNoTensor && g.tensor(node.inputs[2]).num_elements() != c.out_channels)
    node_error(node, "bias has " + std::to_string(g.tensor(node.inputs[2]).num_elements()) + " elements, expected " +
                         std::to_string(c.out_channels));
  tflite::set_declared_output(g, node, 0, g.tensor(node.outputs[0]).dtype, c.output_shape());
}

// TFLite's int8 scheme: terms (input - input_zero_point) and (filter - filter_zero_point)
// in int32; the sum plus bias requantized by the channel's multiplier and shift (tables
// when the filter is quantized per channel), plus the output zero point, clamped to the
// fused activation's range.
class TfliteInt8Arithmetic : public ConvArithmetic {
 public:
  TfliteInt8Arithmetic(const Graph& g, const Node& node, TensorId input, TensorId filter, TensorId output,
                       int64_t channels)
      : input_zero_point_(tflite::zero_point_of(g, input)),
        filter_zero_point_(tflite::zero_point_of(g, filter)),
        output_zero_point_(tflite::zero_point_of(g, output)),
        range_(tflite::output_range(g, node, output)) {
    std::vector<double> multipliers, shifts;
    for (const QuantizedMultiplier& q : tflite::channel_multipliers(g, input, filter, output, channels)) {
      multipliers.push_back(q.multiplier);
      shifts.push_back(q.shift);
    }
    multiplier_ = constants_.add("multiplier", DataType::Int(32), multipliers);
    shift_ = constants_.add("shift", DataType::Int(32), shifts);
  }

  DataType accumulator() const override { return DataType::Int(32); }
  Expr input_term(const Expr& x) const override { return ir::cast(DataType::Int(32), x) - input_zero_point_; }
  Expr filter_term(const Expr& w, const Expr&) const override {
    Expr widened = ir::cast(DataType::Int(32), w);
    return filter_zero_point_ == 0 ? widened : widened - filter_zero_point_;
  }
  Expr output(const Expr& sum, const Expr& oc) const override {
    Expr scaled = ir::mul_by_quantized_multiplier(sum, constants_.at(multiplier_, oc), constants_.at(shift_, oc));
    return tflite::clamp(scaled + output_zero_point_, range_);
  }
  ir::Stmt wrap(const std::function<ir::Stmt()>& body) override { return constants_.wrap(body); }
  // x - zero_point of an int8 x fits in int16.
  DataType staged_type(DataType) const override { return DataType::Int(16); }

 private:
  int32_t input_zero_point_, filter_zero_point_, output_zero_point_;
  QuantizedRange range_;
  ChannelConstants constants_;
  ChannelConstants::Handle multiplier_ = 0, shift_ = 0;
};

// The arithmetic of a TFLite kernel with input 0, input 1 as filter, and `channels`
// output channels: int8 or float with the fused activation.
std::unique_ptr<ConvArithmetic> tflite_arithmetic(const Graph& g, const Node& node, TensorId output, int64_t channels) {
  if (tflite::is_int8(g, node.inputs[0]))
    return std::make_unique<TfliteInt8Arithmetic>(g, node, node.inputs[0], node.inputs[1], output, channels);
  return std::make_unique<FloatConvArithmetic>([&node](Expr v) { return tflite::apply_float_activation(node, v); });
}

LoweredOp lower_conv(const LowerContext& ctx, bool depthwise) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  ConvGeometry c = conv_geometry(g, node, depthwise);
  KernelBuilder kb(ctx);
  ConvOperands ops;
  ops.input = kb.input(0, "input");
  ops.filter = kb.input(1, "filter");
  ops.bias = node.input(2) != kNoTensor ? kb.input(2, "bias") : nullptr;
  ops.output = kb.output(0, "output");
  ops.input_tensor = node.inputs[0];
  // An epilogue fused behind the node (a residual ADD) starts from the node's own output.
  std::unique_ptr<ConvArithmetic> arithmetic = tflite_arithmetic(g, node, anchor_output(node), c.out_channels);
  return kb.finish(lower_convolution(kb, c, *arithmetic, ops));
}

// FULLY_CONNECTED: input [..., depth] viewed as [batches, depth]; filter [units, depth].
struct FcGeometry {
  int64_t batches, depth, units;
};

FcGeometry fc_geometry(const Graph& g, const Node& node) {
  const Tensor& in = require_input(g, node, 0);
  const Tensor& filter = require_input(g, node, 1);
  if (filter.shape.size() != 2) node_error(node, "filter must be 2-D [units, depth]");
  if (node.attr_string("weights_format", "DEFAULT") != "DEFAULT") node_error(node, "shuffled weights are not supported");
  FcGeometry f{0, filter.shape[1], filter.shape[0]};
  if (f.depth == 0 || in.num_elements() % f.depth != 0)
    node_error(node, "input " + shape_str(in.shape) + " does not divide into rows of " + std::to_string(f.depth));
  f.batches = in.num_elements() / f.depth;
  return f;
}

void infer_fc(Graph& g, Node& node) {
  FcGeometry f = fc_geometry(g, node);
  check_types(g, node);
  std::vector<int64_t> shape = {f.batches, f.units};
  if (node.attr_int("keep_num_dims", 0)) {
    shape = g.tensor(node.inputs[0]).shape;
    shape.back() = f.units;
  }
  tflite::set_declared_output(g, node, 0, g.tensor(node.outputs[0]).dtype, shape);
}

// For int8 with constant weights (symmetric, as TFLite requires) and bias, the input's
// zero point moves into the bias at compile time: sum (x - zp) * w = sum x * w - zp * sum w.
// Computed in 32-bit two's complement, as the kernel sums, so the result is the same bit
// for bit, and the inner loop becomes a plain dot product. Empty when it does not apply.
std::vector<double> folded_int8_bias(const Graph& g, const Node& node, const FcGeometry& f) {
  const Tensor& filter = g.tensor(node.inputs[1]);
  TensorId bias = node.input(2);
  bool constant = filter.is_constant() && (bias == kNoTensor || g.tensor(bias).is_constant());
  if (!tflite::is_int8(g, node.inputs[0]) || !constant || tflite::zero_point_of(g, node.inputs[1]) != 0) return {};
  int64_t zero_point = tflite::zero_point_of(g, node.inputs[0]);
  std::vector<double> folded;
  for (int64_t unit = 0; unit < f.units; ++unit) {
    int64_t sum = bias == kNoTensor ? 0 : g.tensor(bias).element_as_int(unit);
    for (int64_t d = 0; d < f.depth; ++d) sum -= zero_point * filter.element_as_int(unit * f.depth + d);
    folded.push_back(static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(sum))));
  }
  return folded;
}

LoweredOp lower_fc(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  FcGeometry f = fc_geometry(g, node);
  KernelBuilder kb(ctx);
  // Parameters seen as 2-D, whatever the tensors' ranks.
  ir::Buffer x = ir::make_buffer("input", g.tensor(node.inputs[0]).dtype, {f.batches, f.depth});
  ir::Buffer w = kb.input(1, "filter");
  ir::Buffer y2 = ir::make_buffer("output", g.tensor(node.outputs[0]).dtype, {f.batches, f.units});
  std::unique_ptr<ConvArithmetic> a = tflite_arithmetic(g, node, node.outputs[0], f.units);
  std::vector<double> folded = folded_int8_bias(g, node, f);
  ir::Buffer bias = folded.empty() && node.input(2) != kNoTensor ? kb.input(2, "bias") : nullptr;
  ChannelConstants folded_bias;
  ChannelConstants::Handle folded_handle = folded.empty() ? 0 : folded_bias.add("bias", DataType::Int(32), folded);
  // On a core with the DSP extension the dot product is the runtime's aotc_dot_s8 (two
  // 16-bit multiply-accumulates per instruction); elsewhere a loop the C compiler sees whole.
  bool dsp_dot = !folded.empty() && ctx.target.has("dsp");

  ir::Stmt body = a->wrap([&] {
    return folded_bias.wrap([&] {
      return ir::loop_nest({f.batches, f.units}, {"b", "unit"}, [&](const std::vector<Expr>& o) {
        auto sum = [&](const Accumulator& acc) {
          if (dsp_dot)
            return acc.set(ir::dot_s8(ir::address_of(x, {o[0], 0}), ir::address_of(w, {o[1], 0}), f.depth, acc.value()));
          ir::Var d = ir::make_var("d");
          Expr dv = ir::var_expr(d);
          Expr input = ir::load(x, {o[0], dv});
          Expr term = (folded.empty() ? a->input_term(input) : ir::cast(DataType::Int(32), input)) *
                      a->filter_term(ir::load(w, {o[1], dv}), o[1]);
          return ir::for_loop(d, 0, ir::make_int(f.depth), acc.set(acc.value() + term));
        };
        auto write = [&](const Expr& total) {
          Expr biased = !folded.empty() ? total + folded_bias.at(folded_handle, o[1])
                                        : (bias ? total + ir::load(bias, {o[1]}) : total);
          return ir::store(y2, o, a->output(biased, o[1]));
        };
        return accumulate(ir::make_zero(a->accumulator()), sum, write);
      });
    });
  });
  LoweredOp lowered = kb.finish(body);
  // The 2-D views stand for the input and output tensors.
  lowered.func.params.insert(lowered.func.params.begin(), x);
  lowered.args.insert(lowered.args.begin(), node.inputs[0]);
  lowered.func.params.push_back(y2);
  lowered.args.push_back(node.outputs[0]);
  return lowered;
}

OpDef conv_op(bool depthwise) {
  return kernel_op([depthwise](Graph& g, Node& n) { infer_conv(g, n, depthwise); },
                   [depthwise](const LowerContext& ctx) { return lower_conv(ctx, depthwise); })
      .with({Role::kAnchor});
}

AOTC_REGISTER_OP("tfl.CONV_2D", conv_op(false));
AOTC_REGISTER_OP("tfl.DEPTHWISE_CONV_2D", conv_op(true));
AOTC_REGISTER_OP("tfl.FULLY_CONNECTED", kernel_op(infer_fc, lower_fc));

}  // namespace
}  // namespace aotc
