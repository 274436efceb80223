// TFLite CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and TRANSPOSE_CONV: float32, int8,
// and TFLite's 16x8 scheme (int16 activations, int8 weights).
//
// The sums follow TFLite's reference kernels step for step — the same window order, the
// same skipping of padded positions, bias added after the sum — because float results
// then match to the last bit and int8 results must. int8 kernels accumulate
// (input - input_zero_point) * filter in int32, add the int32 bias, requantize with the
// per-channel multiplier and shift computed at compile time, add the output zero point
// and clamp to the fused activation's range: integer arithmetic only. 16x8 kernels
// (zero points 0) accumulate in the bias's type, int64 (requantized by the 64-bit
// MultiplyByQuantizedMultiplier) or int32 (by the 32-bit one), as TFLite Micro does. This
// file reads TFLite's options and defines TFLite's quantization scheme
// (TfliteConvArithmetic), which the fully connected layer and the transposed convolution use
// too; a convolution is then a ConvProblem, whose kernel the kernel strategy chooses
// (lowering/kernels/conv_kernels.h).
#include <algorithm>
#include <memory>
#include <optional>

#include "aot/graph/op_registry.h"
#include "lowering/ir/runtime_calls.h"
#include "lowering/kernels/node_problem.h"
#include "lowering/compute/channel_constants.h"
#include "lowering/compute/channel_header.h"
#include "lowering/compute/convolution.h"
#include "lowering/compute/reduction.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;

// Input and output types must agree, and quantized tensors must carry quantization: int8
// with an int32 bias; int16 (16x8) with zero points 0 and an int64 or int32 bias.
void check_kernel_types(const Graph& g, const Node& node, TensorId in, TensorId filter, TensorId bias) {
  TensorId out = node.outputs.at(0);
  DataType t = g.tensor(in).dtype;
  if (t != DataType::Float32() && t != DataType::Int(8) && t != DataType::Int(16))
    node_error(node, "input '" + g.tensor(in).name + "' is " + t.str() + "; only float32, int8 and int16 are supported");
  if (g.tensor(out).dtype != t) node_error(node, "input and output types differ");
  if (t.is_int()) {
    for (TensorId id : {in, filter, out}) tflite::require_quantized(g, node, id);
    if (g.tensor(filter).dtype != DataType::Int(8))
      node_error(node, "filter '" + g.tensor(filter).name + "' is " + g.tensor(filter).dtype.str() + "; int8 is required");
    DataType bias_type = bias != kNoTensor ? g.tensor(bias).dtype : DataType::Int(32);
    if (t == DataType::Int(8) && bias_type != DataType::Int(32))
      node_error(node, "bias '" + g.tensor(bias).name + "' must be int32 for an int8 kernel");
    if (t == DataType::Int(16)) {
      if (bias_type != DataType::Int(64) && bias_type != DataType::Int(32))
        node_error(node, "bias '" + g.tensor(bias).name + "' must be int64 or int32 for an int16 kernel");
      if (tflite::zero_point_of(g, in) != 0 || tflite::zero_point_of(g, out) != 0)
        node_error(node, "int16 input and output must have zero point 0 (TFLite's 16x8 scheme)");
    }
  } else if (g.tensor(filter).dtype != DataType::Float32()) {
    node_error(node, "float32 input with " + g.tensor(filter).dtype.str() + " filter: hybrid models are not supported");
  }
}

void check_types(const Graph& g, const Node& node) {
  check_kernel_types(g, node, node.inputs.at(0), node.inputs.at(1), node.input(2));
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
                               node.attr_int("dilation_h", 1), 0),
            tflite_window_axis(node, padding, in.shape[2], filter.shape[2], node.attr_int("stride_w", 1),
                               node.attr_int("dilation_w", 1), 1)};
  return c;
}

void infer_conv(Graph& g, Node& node, bool depthwise) {
  ConvGeometry c = conv_geometry(g, node, depthwise);
  check_types(g, node);
  tflite::require_bias_length(g, node, node.input(2), c.out_channels);
  tflite::set_declared_output(g, node, 0, g.tensor(node.outputs[0]).dtype, c.output_shape());
}

// The accumulator's type, as TFLite Micro picks it: int32 for int8; for 16x8, the bias's
// type, or without a bias int64 unless the operator's quantized_bias_type is int32.
DataType accumulator_type(const Graph& g, const Node& node, TensorId input, TensorId bias) {
  if (g.tensor(input).dtype != DataType::Int(16)) return DataType::Int(32);
  if (bias != kNoTensor) return g.tensor(bias).dtype;
  return node.attr_int("int32_accumulator", 0) != 0 ? DataType::Int(32) : DataType::Int(64);
}

// TFLite's quantized schemes: terms (input - input_zero_point) and (filter -
// filter_zero_point) in the accumulator's type (accumulator_type); the sum
// plus bias requantized by the channel's multiplier and shift (tables when the filter is
// quantized per channel), plus the output zero point, clamped to the fused activation's
// range within the output type.
class TfliteQuantizedArithmetic : public ConvArithmetic {
 public:
  TfliteQuantizedArithmetic(const Graph& g, const Node& node, TensorId input, TensorId filter, TensorId bias,
                            TensorId output, int64_t channels)
      : accumulator_(accumulator_type(g, node, input, bias)),
        input_zero_point_(tflite::zero_point_of(g, input)),
        filter_zero_point_(tflite::zero_point_of(g, filter)),
        output_zero_point_(tflite::zero_point_of(g, output)),
        range_(tflite::output_range(g, node, output)) {
    std::vector<double> multipliers, shifts, right_shifts, offsets, offset_shifts;
    right_shift_only_ = accumulator_ == DataType::Int(32);
    saturating_s8_ = right_shift_only_ && g.tensor(output).dtype == DataType::Int(8);
    bool fully_connected = node.op == "tfl.FULLY_CONNECTED";
    for (const QuantizedMultiplier& q : tflite::channel_multipliers(g, input, filter, output, channels, fully_connected)) {
      multipliers.push_back(q.multiplier);
      shifts.push_back(q.shift);
      right_shifts.push_back(-q.shift);
      // aotc_requantize_right's domain: a multiplier above 2^30, a right shift of 2 or more.
      right_shift_only_ = right_shift_only_ && q.multiplier > (int64_t{1} << 30) && q.shift <= -2;
      if (!right_shift_only_ || -q.shift > 24) {
        saturating_s8_ = false;
        continue;
      }
      // aotc_requantize_s8's offset: the rounding of the last shift and the zero point.
      int64_t e = -q.shift, offset = (int64_t{1} << (e - 2)) + int64_t{output_zero_point_} * (int64_t{1} << (e - 1));
      saturating_s8_ = saturating_s8_ && offset > -(int64_t{1} << 30) && offset < (int64_t{1} << 30);
      offsets.push_back(static_cast<double>(offset));
      offset_shifts.push_back(static_cast<double>(e - 1));
    }
    saturating_s8_ = saturating_s8_ && right_shift_only_;
    if (saturating_s8_)
      for (size_t c = 0; c < multipliers.size(); ++c)
        channel_constants_.push_back({static_cast<int32_t>(multipliers[c]), static_cast<int32_t>(offsets[c]),
                                      static_cast<int32_t>(offset_shifts[c])});
    multiplier_ = constants_.add("multiplier", DataType::Int(32), multipliers);
    if (saturating_s8_) {
      offset_ = constants_.add("offset", DataType::Int(32), offsets);
      shift_ = constants_.add("shift", DataType::Int(32), offset_shifts);
    } else {
      shift_ = right_shift_only_ ? constants_.add("right_shift", DataType::Int(32), right_shifts)
                                 : constants_.add("shift", DataType::Int(32), shifts);
    }
  }

  DataType accumulator() const override { return accumulator_; }
  Expr input_term(const Expr& x) const override {
    Expr widened = ir::cast(accumulator_, x);
    return input_zero_point_ == 0 ? widened : widened - ir::make_int(input_zero_point_, accumulator_);
  }
  Expr filter_term(const Expr& w, const Expr&) const override {
    Expr widened = ir::cast(accumulator_, w);
    return filter_zero_point_ == 0 ? widened : widened - ir::make_int(filter_zero_point_, accumulator_);
  }
  Expr output(const Expr& sum, const Expr& oc) const override {
    Expr multiplier = constants_.at(multiplier_, oc), shift = constants_.at(shift_, oc);
    if (saturating_s8_) return output_from(sum, {multiplier, constants_.at(offset_, oc), shift});
    Expr scaled = accumulator_ == DataType::Int(64) ? ir::mul_by_quantized_multiplier_i64(sum, multiplier, shift)
                  : right_shift_only_                   ? ir::requantize_right(sum, multiplier, shift)
                                                        : ir::requantize(sum, multiplier, shift);
    return tflite::clamp(scaled + output_zero_point_, range_);
  }
  // aotc_requantize_s8's multiplier, offset and shift, where it applies.
  std::vector<int32_t> channel_constants(int64_t oc) const override {
    if (channel_constants_.empty()) return {};
    return channel_constants_[channel_constants_.size() == 1 ? 0 : static_cast<size_t>(oc)];
  }
  Expr output_from(const Expr& sum, const std::vector<Expr>& constants) const override {
    // Zero point and int8 saturation inside aotc_requantize_s8; only a narrower range left.
    Expr value = ir::requantize_s8(sum, constants.at(0), constants.at(1), constants.at(2));
    if (range_.max < 127) value = ir::min(value, range_.max);
    return range_.min > -128 ? ir::max(value, range_.min) : value;
  }
  ir::Stmt wrap(const std::function<ir::Stmt()>& body) override { return constants_.wrap(body); }
  // x - zero_point of an int8 x fits in int16, and so does an int16 x (zero point 0).
  DataType staged_type(DataType) const override { return DataType::Int(16); }

 private:
  DataType accumulator_;
  int32_t input_zero_point_, filter_zero_point_, output_zero_point_;
  QuantizedRange range_;
  ChannelConstants constants_;
  // shift_: right shifts if right_shift_only_, aotc_requantize_s8's shifts if saturating_s8_.
  ChannelConstants::Handle multiplier_ = 0, shift_ = 0, offset_ = 0;
  bool right_shift_only_ = false;
  // int8 output and aotc_requantize_s8's domain (offsets below 2^30).
  bool saturating_s8_ = false;
  std::vector<std::vector<int32_t>> channel_constants_;  // per channel (or one): multiplier, offset, shift
};

// The arithmetic of a TFLite kernel with input 0, input 1 as filter, and `channels`
// output channels: int8 or float with the fused activation.
std::unique_ptr<ConvArithmetic> tflite_arithmetic(const Graph& g, const Node& node, TensorId output, int64_t channels) {
  if (g.tensor(node.inputs[0]).dtype.is_int())
    return std::make_unique<TfliteQuantizedArithmetic>(g, node, node.inputs[0], node.inputs[1], node.input(2), output,
                                                       channels);
  return std::make_unique<FloatConvArithmetic>([&node](Expr v) { return tflite::apply_float_activation(node, v); });
}

// Whether the int8 kernels specialized for microcontrollers (the register blocks below,
// Helium's conv_mve_s8.h) can take the node: int8 (not 16x8) with constant symmetric
// weights and a constant bias.
bool int8_constant_symmetric(const Graph& g, const Node& node) {
  TensorId bias = node.input(2);
  bool constant = g.tensor(node.inputs[1]).is_constant() && (bias == kNoTensor || g.tensor(bias).is_constant());
  const std::vector<int64_t>& filter_zero_points = g.tensor(node.inputs[1]).quant.zero_point;
  bool symmetric = std::all_of(filter_zero_points.begin(), filter_zero_points.end(), [](int64_t z) { return z == 0; });
  return tflite::is_int8(g, node.inputs[0]) && constant && symmetric;
}

// TFLite's requantization of a kernel with input 0 and filter 1 into `output`, per channel.
ChannelRequantization channel_requantization(const Graph& g, const Node& node, TensorId output, int64_t channels) {
  ChannelRequantization q;
  q.channels = tflite::channel_multipliers(g, node.inputs[0], node.inputs[1], output, channels,
                                           node.op == "tfl.FULLY_CONNECTED");
  if (q.channels.size() == 1) q.channels.resize(static_cast<size_t>(channels), q.channels[0]);
  q.output_zero_point = tflite::zero_point_of(g, output);
  q.range = tflite::output_range(g, node, output);
  return q;
}

// float32 input and a constant float32 filter: what the float32 register blocks
// (blocked_f32.h) pack.
bool float32_constant_filter(const Graph& g, const Node& node) {
  return g.tensor(node.inputs[0]).dtype == DataType::Float32() && g.tensor(node.inputs[1]).dtype == DataType::Float32() &&
         g.tensor(node.inputs[1]).is_constant();
}

// The kernel's multiply-accumulates and its shape in a few words, as metadata.json's
// "macs" and "geometry" (bench/firmware lists the slowest kernels with their instructions
// per MAC).
LoweredOp with_work(LoweredOp lowered, int64_t macs, const std::string& geometry) {
  lowered.func.attrs["macs"] = std::to_string(macs);
  lowered.func.attrs["geometry"] = geometry;
  return lowered;
}

// "3x3/2 depthwise 16 ch, out 24x24": kernel, stride (if not 1), channels, output extents.
LoweredOp with_conv_work(LoweredOp lowered, const ConvGeometry& c, bool depthwise) {
  int64_t macs = c.batches * c.out_channels * c.in_per_group();
  std::string kernel, stride, out;
  for (const WindowAxis& a : c.axes) {
    macs *= a.output * a.kernel;
    kernel += (kernel.empty() ? "" : "x") + std::to_string(a.kernel);
    stride += (stride.empty() ? "" : "x") + std::to_string(a.stride);
    out += (out.empty() ? "" : "x") + std::to_string(a.output);
  }
  bool unit_stride = std::all_of(c.axes.begin(), c.axes.end(), [](const WindowAxis& a) { return a.stride == 1; });
  std::string channels = depthwise ? "depthwise " + std::to_string(c.out_channels) + " ch"
                                   : std::to_string(c.in_channels) + "->" + std::to_string(c.out_channels) + " ch";
  return with_work(std::move(lowered), macs, kernel + (unit_stride ? "" : "/" + stride) + " " + channels + ", out " + out);
}

// The fused epilogue as a residual ADD, when it is one int8 ADD of the convolution's output
// and a tensor of the output's shape (a residual connection).
std::optional<FusedResidualAdd> residual_add(const Graph& g, const Node& node) {
  if (node.body.size() != 1 || node.body[0].op != "tfl.ADD") return std::nullopt;
  const Node& add = node.body[0];
  TensorId conv = anchor_output(node);
  if (add.inputs.size() != 2 || !tflite::is_int8(g, add.outputs[0])) return std::nullopt;
  bool convolution_first = add.inputs[0] == conv;
  TensorId other = convolution_first ? add.inputs[1] : add.inputs[0];
  if (convolution_first == (add.inputs[1] == conv) || g.tensor(other).shape != g.tensor(add.outputs[0]).shape)
    return std::nullopt;
  tflite::AddSubMultipliers m = tflite::add_sub_multipliers(g, add, false);
  FusedResidualAdd r;
  r.other = other;
  r.convolution_first = convolution_first;
  r.input1_zero_point = tflite::zero_point_of(g, add.inputs[0]);
  r.input2_zero_point = tflite::zero_point_of(g, add.inputs[1]);
  r.output_zero_point = tflite::zero_point_of(g, add.outputs[0]);
  r.input1 = m.input1, r.input2 = m.input2, r.output = m.output;
  r.range = tflite::output_range(g, add, add.outputs[0]);
  return r;
}

// The convolution as a ConvProblem for the kernel strategy (lowering/kernels/conv_kernels.h),
// which picks the kernel for the target: Helium's vector kernels, the int8 register blocks,
// the float32 register blocks or the generic loops. (Also what an NPU backend reads:
// node_problem.h.)
NodeProblem conv_problem(const Graph& g, const Node& node, bool depthwise) {
  NodeProblem problem;
  ConvProblem& p = problem.conv.emplace();
  p.geometry = conv_geometry(g, node, depthwise);
  p.depthwise = depthwise;
  // An epilogue fused behind the node (a residual ADD) starts from the node's own output.
  problem.arithmetic = tflite_arithmetic(g, node, anchor_output(node), p.geometry.out_channels);
  p.arithmetic = problem.arithmetic.get();
  p.input = node.inputs[0];
  p.filter = node.inputs[1];
  p.bias = node.input(2);
  p.output = node.outputs[0];
  p.constants = {&g.tensor(p.filter), p.bias != kNoTensor ? &g.tensor(p.bias) : nullptr, tflite::zero_point_of(g, p.input)};
  p.int8_constant_symmetric = int8_constant_symmetric(g, node);
  p.float32_constant_filter = float32_constant_filter(g, node);
  if (p.int8_constant_symmetric) {
    p.requantization = channel_requantization(g, node, anchor_output(node), p.geometry.out_channels);
    p.residual_add = residual_add(g, node);
  }
  return problem;
}

NodeProblem conv_2d_problem(const Graph& g, const Node& node) { return conv_problem(g, node, false); }
NodeProblem depthwise_conv_2d_problem(const Graph& g, const Node& node) { return conv_problem(g, node, true); }

LoweredOp lower_conv(const LowerContext& ctx, bool depthwise) {
  NodeProblem problem = conv_problem(ctx.graph, ctx.node, depthwise);
  KernelBuilder kb(ctx);
  return with_conv_work(build_conv_kernel(kb, *problem.conv), problem.conv->geometry, depthwise);
}

// FULLY_CONNECTED: input [..., depth] viewed as [batches, depth]; filter [units, depth].
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
  // The kernels read one bias per unit (fuzz_compile found one shorter than that).
  tflite::require_bias_length(g, node, node.input(2), f.units);
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
std::vector<int32_t> folded_int8_bias(const Graph& g, const Node& node, const FcGeometry& f) {
  const Tensor& filter = g.tensor(node.inputs[1]);
  TensorId bias = node.input(2);
  bool constant = filter.is_constant() && (bias == kNoTensor || g.tensor(bias).is_constant());
  if (!tflite::is_int8(g, node.inputs[0]) || !constant || tflite::zero_point_of(g, node.inputs[1]) != 0) return {};
  return folded_biases(bias == kNoTensor ? nullptr : &g.tensor(bias), f.units,
                       static_cast<int32_t>(tflite::zero_point_of(g, node.inputs[0])), [&](int64_t unit) {
                         int64_t sum = 0;
                         for (int64_t d = 0; d < f.depth; ++d) sum += filter.element_as_int(unit * f.depth + d);
                         return sum;
                       });
}

// The layer as an FcProblem for the kernel strategy (lowering/kernels/fc_kernels.h): on a
// core with Helium the runtime's vector kernel, on other microcontrollers blocks of four
// units over packed weights, float32 register blocks with an FPU, else a loop per unit.
NodeProblem fc_problem(const Graph& g, const Node& node) {
  NodeProblem problem;
  FcProblem& p = problem.fc.emplace();
  p.geometry = fc_geometry(g, node);
  const FcGeometry& f = p.geometry;
  problem.arithmetic = tflite_arithmetic(g, node, node.outputs[0], f.units);
  p.arithmetic = problem.arithmetic.get();
  p.input = node.inputs[0];
  p.filter = node.inputs[1];
  p.bias = node.input(2);
  p.output = node.outputs[0];
  p.folded_bias = folded_int8_bias(g, node, f);
  p.input_zero_point = static_cast<int32_t>(tflite::zero_point_of(g, p.input));
  p.float32_constant_filter = float32_constant_filter(g, node);
  if (!p.folded_bias.empty()) p.requantization = channel_requantization(g, node, node.outputs[0], f.units);
  p.planned_input = std::find(g.inputs.begin(), g.inputs.end(), node.inputs[0]) == g.inputs.end();
  return problem;
}

LoweredOp lower_fc(const LowerContext& ctx) {
  NodeProblem problem = fc_problem(ctx.graph, ctx.node);
  const FcGeometry& f = problem.fc->geometry;
  KernelBuilder kb(ctx);
  return with_work(build_fc_kernel(kb, *problem.fc), f.batches * f.units * f.depth,
                   std::to_string(f.depth) + "->" + std::to_string(f.units) + (f.batches > 1 ? " x" + std::to_string(f.batches) : ""));
}

// TRANSPOSE_CONV(output_shape, filter [O, KH, KW, I], input [N, H, W, I], bias): each
// input pixel (iy, ix) adds filter * value to output (iy * stride - pad + ky, ...). TFLite's
// reference kernel scatters in that order (input row, column, channel, then filter row and
// column); here each output element gathers its terms in the same order — input rows and
// columns ascending, so filter rows and columns descending — then adds the bias, so float
// sums round as TFLite's do. The padding is the SAME or VALID padding of a convolution
// from the output's size to the input's.
//
// The output shape is the output_shape operand's values when they are known at compile time
// (a constant, or computed from SHAPE and folded), and must then agree with the shape the
// model declares for the output. TensorFlow Lite Micro never reads the operand (its Prepare
// sizes everything from the declared output), so when the operand is computed at run time
// (a graph input) the declared shape is the output shape, as there.
std::vector<int64_t> transpose_conv_output_shape(const Graph& g, const Node& node) {
  const Tensor& shape = require_input(g, node, 0);
  const Tensor& declared = g.tensor(node.outputs.at(0));
  if (shape.shape.size() != 1 || !shape.dtype.is_integer())
    node_error(node, "the output shape (input 0) must be a 1-D integer tensor, got " + shape.dtype.str() + shape_str(shape.shape));
  if (!shape.is_constant()) {
    if (!declared.shape_known)
      node_error(node, "the output shape (input 0) is computed at run time and the model declares no shape for output '" +
                           declared.name + "'");
    return declared.shape;
  }
  std::vector<int64_t> values = shape.ints();
  for (int64_t v : values)
    if (v < 1 || v > kMaxTensorElements)
      node_error(node, "output shape " + shape_str(values) + " has a size below 1 or larger than any tensor");
  return values;
}

struct TransposeConvGeometry {
  int64_t batches, in_h, in_w, in_channels, out_h, out_w, out_channels, kh, kw, stride_h, stride_w, pad_h, pad_w;
};

TransposeConvGeometry transpose_conv_geometry(const Graph& g, const Node& node) {
  const Tensor& filter = require_input(g, node, 1);
  const Tensor& in = require_input(g, node, 2);
  std::vector<int64_t> out = transpose_conv_output_shape(g, node);
  if (in.shape.size() != 4 || filter.shape.size() != 4 || out.size() != 4)
    node_error(node, "output shape, filter and input must be 4-D (NHWC, filter OHWI)");
  if (filter.shape[3] != in.shape[3])
    node_error(node, "filter " + shape_str(filter.shape) + " does not match the input's " + std::to_string(in.shape[3]) + " channels");
  if (out[0] != in.shape[0] || out[3] != filter.shape[0])
    node_error(node, "output shape " + shape_str(out) + " does not match input " + shape_str(in.shape) + " and filter " +
                         shape_str(filter.shape));
  TransposeConvGeometry t{in.shape[0], in.shape[1], in.shape[2], in.shape[3], out[1], out[2], out[3],
                          filter.shape[1], filter.shape[2], node.attr_int("stride_h", 1), node.attr_int("stride_w", 1), 0, 0};
  std::string padding = node.attr_string("padding", "SAME");
  t.pad_h = tflite_window_axis(node, padding, t.out_h, t.kh, t.stride_h, 1).pad_begin;
  t.pad_w = tflite_window_axis(node, padding, t.out_w, t.kw, t.stride_w, 1).pad_begin;
  return t;
}

void infer_transpose_conv(Graph& g, Node& node) {
  TransposeConvGeometry t = transpose_conv_geometry(g, node);
  TensorId in = node.inputs[2], filter = node.inputs[1];
  DataType type = g.tensor(in).dtype;
  TensorId bias = node.input(3);
  check_kernel_types(g, node, in, filter, bias);
  tflite::require_bias_length(g, node, bias, t.out_channels);
  tflite::set_declared_output(g, node, 0, type, {t.batches, t.out_h, t.out_w, t.out_channels});
}

LoweredOp lower_transpose_conv(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  TransposeConvGeometry t = transpose_conv_geometry(g, node);
  KernelBuilder kb(ctx);
  ir::Buffer w = kb.input(1, "filter"), x = kb.input(2, "input");
  ir::Buffer bias = node.input(3) != kNoTensor ? kb.input(3, "bias") : nullptr;
  ir::Buffer y = kb.output(0, "output");
  std::unique_ptr<ConvArithmetic> a;
  if (g.tensor(node.inputs[2]).dtype.is_int())
    a = std::make_unique<TfliteQuantizedArithmetic>(g, node, node.inputs[2], node.inputs[1], node.input(3),
                                                    anchor_output(node), t.out_channels);
  else
    a = std::make_unique<FloatConvArithmetic>([&node](Expr v) { return tflite::apply_float_activation(node, v); });

  // The input position of output position o and filter tap k along one axis, when o + pad
  // - k is a multiple of the stride inside the input: a condition and the index.
  auto source = [](const Expr& o, const Expr& k, int64_t pad, int64_t stride, int64_t extent) {
    Expr shifted = o + ir::make_int(pad) - k;
    Expr on_grid = ir::logical_and(shifted >= 0, shifted % ir::make_int(stride) == 0);
    Expr index = shifted / ir::make_int(stride);
    return std::make_pair(ir::logical_and(on_grid, index < ir::make_int(extent)), index);
  };
  ir::Stmt body = a->wrap([&] {
    return ir::loop_nest({t.batches, t.out_h, t.out_w, t.out_channels}, {"n", "oy", "ox", "oc"}, [&](const std::vector<Expr>& o) {
      auto sum = [&](const Accumulator& acc) {
        return ir::loop_nest({t.kh, t.kw}, {"ry", "rx"}, [&](const std::vector<Expr>& r) {
          Expr ky = ir::make_int(t.kh - 1) - r[0], kx = ir::make_int(t.kw - 1) - r[1];
          auto [in_y, iy] = source(o[1], ky, t.pad_h, t.stride_h, t.in_h);
          auto [in_x, ix] = source(o[2], kx, t.pad_w, t.stride_w, t.in_w);
          ir::Var c = ir::make_var("ic");
          Expr term = a->input_term(ir::load(x, {o[0], iy, ix, ir::var_expr(c)})) *
                      a->filter_term(ir::load(w, {o[3], ky, kx, ir::var_expr(c)}), o[3]);
          return ir::if_then_else(ir::logical_and(in_y, in_x),
                                  ir::for_loop(c, 0, ir::make_int(t.in_channels), acc.set(acc.value() + term)));
        });
      };
      auto write = [&](const Expr& total) {
        Expr biased = bias ? total + ir::load(bias, {o[3]}) : total;
        return ir::store(y, o, kb.epilogue(a->output(biased, o[3]), o));
      };
      return accumulate(ir::make_zero(a->accumulator()), sum, write);
    });
  });
  return kb.finish(body);
}

OpDef conv_op(bool depthwise) {
  return kernel_op([depthwise](Graph& g, Node& n) { infer_conv(g, n, depthwise); },
                   [depthwise](const LowerContext& ctx) { return lower_conv(ctx, depthwise); })
      .with({Role::kAnchor});
}

AOTC_REGISTER_OP("tfl.CONV_2D", conv_op(false));
AOTC_REGISTER_OP("tfl.DEPTHWISE_CONV_2D", conv_op(true));
AOTC_REGISTER_OP("tfl.FULLY_CONNECTED", kernel_op(infer_fc, lower_fc));
AOTC_REGISTER_NODE_PROBLEM("tfl.CONV_2D", conv_2d_problem);
AOTC_REGISTER_NODE_PROBLEM("tfl.DEPTHWISE_CONV_2D", depthwise_conv_2d_problem);
AOTC_REGISTER_NODE_PROBLEM("tfl.FULLY_CONNECTED", fc_problem);
AOTC_REGISTER_OP("tfl.TRANSPOSE_CONV", kernel_op(infer_transpose_conv, lower_transpose_conv).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
