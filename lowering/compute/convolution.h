// One convolution kernel for every front end: ONNX Conv (float, NCHW), QLinearConv and the
// integer convolutions fold_qdq makes (ONNX's exact requantization, NCHW), and TFLite's
// CONV_2D and DEPTHWISE_CONV_2D (float and int8 with TFLite's requantization, NHWC).
//
// The front ends only read their operator's attributes: they describe the convolution as
// a ConvGeometry (layouts, channels, groups, the resolved window) and say how values
// enter the sum and how the sum becomes an output element (a ConvArithmetic: the
// quantization scheme). Everything else is here, once: the loop nest in the layout's
// memory order, the window's bounds (window.h: taps in the padding are never visited,
// and bounds are computed only on the axes where a tap can leave the input), groups and
// depthwise channel multipliers, the bias, the fused epilogue, and the staged variants
// that let a depthwise or 1x1 convolution write its output over its own input.
//
// Summation order follows the layout, innermost over contiguous memory: NCHW sums over
// channels, then taps; NHWC over taps, then channels (TFLite's reference kernels' order,
// which float results must follow to match TFLite to the last bit).
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "lowering/ir/quantization.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/window.h"

namespace aotc {

// The constant operands a DSP convolution kernel (conv_blocked_s8.h, depthwise_s8.h) folds
// and packs at compile time.
struct FoldedConvConstants {
  const Tensor* filter = nullptr;  // [M, KH, KW, C] (depthwise: [1, KH, KW, C]), int8, zero point 0
  const Tensor* bias = nullptr;    // [M] int32, or null
  int32_t input_zero_point = 0;
};

// How an int8 sum becomes an output element, as data: one multiplier per output channel,
// the output's zero point, the fused activation's range, and how the product rounds:
//   kTflite      TFLite's MultiplyByQuantizedMultiplier (a doubling high multiply, then a
//                rounding shift: two roundings, ties away from zero); `shift` is a left
//                shift (negative: right), as QuantizedMultiplier has it;
//   kHalfToEven  ONNX's QLinearConv/QLinearMatMul: the exact factor multiplier / 2^shift
//                (quant_onnx.h's ExactMultiplier, shift 0..62), one rounding to nearest,
//                ties to even.
// Then + output_zero_point, clamped to `range`. Kernels that requantize vectors of
// channels at once (Helium) and NPU backends read it in this form.
struct ChannelRequantization {
  enum class Rounding { kTflite, kHalfToEven };
  std::vector<QuantizedMultiplier> channels;
  int32_t output_zero_point = 0;
  QuantizedRange range{-128, 127};
  Rounding rounding = Rounding::kTflite;
};

// Whether `q` is present and TFLite's requantization (what the Helium kernels compute).
inline bool is_tflite_requantization(const std::optional<ChannelRequantization>& q) {
  return q && q->rounding == ChannelRequantization::Rounding::kTflite;
}

// A residual ADD fused behind an int8 convolution (its whole epilogue), as TFLite's int8 ADD
// computes it: each input less its zero point, rescaled by its multiplier (after the left
// shift of 20 the vector kernel applies), summed, requantized by the output's multiplier,
// plus the output's zero point, clamped. `other` is the operand of the output's shape;
// `convolution_first` says whether the convolution's result is the ADD's first input.
struct FusedResidualAdd {
  TensorId other = kNoTensor;
  bool convolution_first = true;
  int32_t input1_zero_point = 0, input2_zero_point = 0, output_zero_point = 0;
  QuantizedMultiplier input1, input2, output;
  QuantizedRange range{-128, 127};
};

// The leading steps of a node's fused epilogue that only clamp (a ReLU, a Clip with
// constant bounds), as one range, and how many steps that is: a kernel may clamp in
// registers and leave only the steps after them to the element-wise epilogue.
struct FusedClamp {
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
  size_t steps = 0;
};

// Where the channel axis of the activations is: NCHW (ONNX) or NHWC (TFLite).
enum class ActivationLayout { kChannelsFirst, kChannelsLast };

// How the filter is stored: [M, C / groups, K...] (ONNX), [M, K..., C / groups] (TFLite
// CONV_2D) or [1, K..., M] (TFLite DEPTHWISE_CONV_2D, one input channel per group).
enum class FilterLayout { kOIK, kOKI, kOneKO };

struct ConvGeometry {
  ActivationLayout layout = ActivationLayout::kChannelsFirst;
  FilterLayout filter_layout = FilterLayout::kOIK;
  int64_t batches = 1, in_channels = 0, out_channels = 0, groups = 1;
  std::vector<WindowAxis> axes;  // the spatial axes, outermost first

  int64_t in_per_group() const { return in_channels / groups; }
  int64_t out_per_group() const { return out_channels / groups; }
  std::vector<int64_t> output_shape() const;
};

// The quantization scheme of a convolution (or of another reduction that shares it, like
// a fully connected layer): how input and filter values enter the sum, and how the sum,
// bias included, becomes the output value. The fused epilogue is applied after output().
class ConvArithmetic {
 public:
  virtual ~ConvArithmetic() = default;
  virtual DataType accumulator() const = 0;
  // The input value as a term of the sum (an int8 value widened and centred on its zero
  // point). Also what a staged copy of the input holds.
  virtual ir::Expr input_term(const ir::Expr& x) const = 0;
  virtual ir::Expr filter_term(const ir::Expr& w, const ir::Expr& out_channel) const = 0;
  virtual ir::Expr output(const ir::Expr& sum, const ir::Expr& out_channel) const = 0;
  // `body()` inside the constant tables output() and filter_term() read.
  virtual ir::Stmt wrap(const std::function<ir::Stmt()>& body) { return body(); }
  // The type a staged copy of input terms is stored in (int16 for centred int8 values).
  virtual DataType staged_type(DataType input) const { return input; }
  // For kernels that keep the per-channel constants next to their packed weights (one
  // table and one pointer for a block of channels: channel_header.h): the constants that
  // output() reads for channel oc, in the order output_from() takes them; empty when
  // output() has no such form (then the kernel calls output()).
  virtual std::vector<int32_t> channel_constants(int64_t /*out_channel*/) const { return {}; }
  // output() with those constants given as expressions (loads from such a table).
  virtual ir::Expr output_from(const ir::Expr& sum, const std::vector<ir::Expr>& /*constants*/) const { return sum; }
};

// Float: terms as they are, output = activation(sum) (identity when none is fused).
class FloatConvArithmetic : public ConvArithmetic {
 public:
  explicit FloatConvArithmetic(std::function<ir::Expr(ir::Expr)> activation = nullptr)
      : activation_(std::move(activation)) {}
  DataType accumulator() const override { return DataType::Float32(); }
  ir::Expr input_term(const ir::Expr& x) const override { return x; }
  ir::Expr filter_term(const ir::Expr& w, const ir::Expr&) const override { return w; }
  ir::Expr output(const ir::Expr& sum, const ir::Expr&) const override { return activation_ ? activation_(sum) : sum; }

 private:
  std::function<ir::Expr(ir::Expr)> activation_;
};

// The convolution's operands: buffers from the KernelBuilder (bias may be null; its type
// is the accumulator's) and the graph tensor of the input, for the in-place decision.
struct ConvOperands {
  ir::Buffer input, filter, bias, output;
  TensorId input_tensor = kNoTensor;
};

// What each specialized (DSP) convolution builder (conv_blocked_s8.h, depthwise_s8.h,
// depthwise3_s8.h) works from: its lowering's arguments and the two spatial axes (rows,
// columns). The builders derive from it.
struct DspConvParts {
  DspConvParts(KernelBuilder& kb, const ConvGeometry& c, ConvArithmetic& a, const ConvOperands& ops,
               const FoldedConvConstants& k)
      : kb_(kb), c_(c), a_(a), ops_(ops), k_(k), y_(c.axes[0]), x_(c.axes[1]) {}
  KernelBuilder& kb_;
  const ConvGeometry& c_;
  ConvArithmetic& a_;
  const ConvOperands& ops_;
  const FoldedConvConstants& k_;
  const WindowAxis &y_, &x_;
};

// The geometry of an ONNX convolution (Conv, QLinearConv, ConvInteger): x [N, C, D1, ...]
// and w [M, C / group, K1, ...] of the same rank, channels first; the `group` attribute
// divides C and M; a kernel_shape attribute, if any, agrees with w; the window attributes
// as window.h reads them. node_error for anything that does not fit.
ConvGeometry onnx_conv_geometry(const Node& node, const Tensor& x, const Tensor& w);

// The kernel's spatial extents: the dimensions of ONNX weights w [M, C, K1, ...] (or
// ConvTranspose's [C, M, K1, ...]) after the first two, each at least 1; a kernel_shape
// attribute must agree.
std::vector<int64_t> kernel_extents(const Node& node, const Tensor& w);

// A convolution can write its output over its own input when the output has the input's
// shape and the input dies at this node: a depthwise convolution works channel by channel
// (the channel is copied to a small temporary first), a 1x1 convolution pixel by pixel
// (the pixel's channels are copied first). This is what takes models below the
// layer-by-layer memory bound. The staged kernels are correct whether or not the planner
// then places the output over the input.
enum class Staging { kNone, kPerChannel, kPerPixel };
Staging choose_staging(const Graph& g, TensorId input, const ConvGeometry& geometry);

// Builds the kernel body: output[...] = epilogue(arithmetic.output(sum + bias)). When the
// output has the input's shape and the input dies at this node, a depthwise convolution
// stages each input channel, and a 1x1 convolution each input pixel, in a small temporary
// first, and the output may then take the input's memory (kb.allow_in_place).
ir::Stmt lower_convolution(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                           const ConvOperands& operands);

}  // namespace aotc
