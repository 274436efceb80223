// The float32 host convolution kernels; see conv_host_f32.h.
#include "lowering/kernels/host_simd/conv_host_f32.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

#include "lowering/ir/runtime_calls.h"
#include "runtime-c/aotc_host_f32.h"

namespace aotc {
namespace {

using ir::Expr;

std::vector<uint8_t> float_bytes(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Weight k (in im2col order: input channel, tap row, tap column) of output channel oc.
using WeightFn = std::function<float(int64_t oc, int64_t k)>;
using BiasFn = std::function<float(int64_t oc)>;

class HostConvBuilder {
 public:
  HostConvBuilder(KernelBuilder& kb, const ConvGeometry& c, const ConvOperands& ops, WeightFn weight, BiasFn bias,
                  const FusedClamp& clamp)
      : kb_(kb), c_(c), ops_(ops), y_(c.axes[0]), x_(c.axes[1]), weight_(std::move(weight)), bias_(std::move(bias)),
        clamp_(clamp) {
    depthwise_ = c_.groups != 1;
  }

  ir::Stmt build() {
    std::vector<float> packed = depthwise_ ? packed_depthwise() : packed_conv();
    int64_t size = static_cast<int64_t>(packed.size());
    return ir::allocate_const("packed_weights", DataType::Float32(), {size}, float_bytes(packed),
                              [&](const ir::Buffer& table) {
                                table_ = table;
                                return with_scratch();
                              });
  }

 private:
  int64_t pixels() const { return y_.output * x_.output; }
  int64_t terms() const { return c_.in_per_group() * y_.kernel * x_.kernel; }  // k of the product
  bool reads_input_directly() const {
    return y_.kernel == 1 && x_.kernel == 1 && y_.stride == 1 && x_.stride == 1 && y_.pad_begin == 0 &&
           x_.pad_begin == 0 && y_.output == y_.input && x_.output == x_.input;
  }

  // lo, hi, zeros to AOTC_F32_HEADER; the bias, padded to a multiple of 16.
  std::vector<float> header() const {
    std::vector<float> t(AOTC_F32_HEADER, 0.0f);
    t[0] = clamp_.lo;
    t[1] = clamp_.hi;
    int64_t m = c_.out_channels;
    for (int64_t oc = 0; oc < (m + 15) / 16 * 16; ++oc) t.push_back(oc < m ? bias_(oc) : 0.0f);
    return t;
  }

  // Per block of channels (aotc_f32_channel_block), for each term k = (ic, ky, kx), the
  // block's weights.
  std::vector<float> packed_conv() const {
    std::vector<float> t = header();
    int64_t m = c_.out_channels, k = terms(), block = aotc_f32_channel_block(pixels());
    for (int64_t mb = 0; mb < m; mb += block)
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < block; ++j) t.push_back(mb + j < m ? weight_(mb + j, i) : 0.0f);
    if (static_cast<int64_t>(t.size()) != aotc_f32_packed_size(m, k, pixels()))
      throw std::logic_error("host float conv: packed table size disagrees with aotc_f32_packed_size");
    return t;
  }

  // The weights [C][KH][KW].
  std::vector<float> packed_depthwise() const {
    std::vector<float> t = header();
    for (int64_t oc = 0; oc < c_.out_channels; ++oc)
      for (int64_t k = 0; k < y_.kernel * x_.kernel; ++k) t.push_back(weight_(oc, k));
    return t;
  }

  // The im2col band buffer, for a convolution that is not read in place; a depthwise
  // convolution's padded plane.
  ir::Stmt with_scratch() {
    int64_t size = 0;
    auto i32 = [](int64_t v) { return static_cast<int32_t>(v); };
    if (depthwise_) {
      size = aotc_depthwise_f32_scratch(i32(y_.output), i32(x_.output), i32(y_.kernel), i32(x_.kernel),
                                        i32(y_.stride), i32(x_.stride));
    } else if (!reads_input_directly()) {
      size = aotc_f32_band_rows(i32(terms()), i32(y_.output), i32(x_.output)) * x_.output * terms();
    }
    if (size == 0) return with_destination();
    ir::Buffer scratch = ir::make_buffer(depthwise_ ? "padded" : "im2col", DataType::Float32(), {size});
    scratch_ = scratch;
    return ir::allocate(scratch, with_destination());
  }

  // Where the kernel writes: the output, or, when fused steps other than the clamp follow,
  // a workspace copy that the whole epilogue then reads element by element into the
  // output (its leading ReLU or Clip again: clamping twice is clamping once).
  ir::Stmt with_destination() {
    if (clamp_.steps == kb_.node().body.size()) return calls(ops_.output);
    std::vector<int64_t> shape = ops_.output->shape;
    ir::Buffer raw = ir::make_buffer("conv_out", DataType::Float32(), shape);
    ir::Stmt rest = ir::loop_nest(shape, {}, [&](const std::vector<Expr>& i) {
      return ir::store(ops_.output, i, kb_.epilogue(ir::load(raw, i), i));
    });
    return ir::allocate(raw, ir::seq({calls(raw), rest}));
  }

  // One kernel call per image (or row of a fully connected layer's input).
  ir::Stmt calls(const ir::Buffer& out) {
    return ir::loop_nest({c_.batches}, {"n"}, [&](const std::vector<Expr>& n) {
      Expr in = ir::address_of(ops_.input, first_of_image(ops_.input, n[0]));
      Expr dst = ir::address_of(out, first_of_image(out, n[0]));
      Expr table = ir::address_of(table_, {0});
      // Without scratch (a 1x1 convolution read in place, a depthwise kernel other than
      // 3x3) the kernel never touches the pointer, so any valid address does.
      Expr scratch = scratch_ ? ir::address_of(scratch_, {0}) : dst;
      if (depthwise_) {
        return ir::evaluate(ir::depthwise_f32(in, dst, table, c_.in_channels, y_.input, x_.input, y_.output,
                                              x_.output, y_.kernel, x_.kernel, y_.stride, x_.stride, y_.pad_begin,
                                              x_.pad_begin, scratch));
      }
      return ir::evaluate(ir::conv_f32(in, dst, table, c_.in_channels, y_.input, x_.input, c_.out_channels,
                                       y_.output, x_.output, y_.kernel, x_.kernel, y_.stride, x_.stride,
                                       y_.pad_begin, x_.pad_begin, scratch));
    });
  }

  static std::vector<Expr> first_of_image(const ir::Buffer& b, const Expr& n) {
    std::vector<Expr> index(b->shape.size(), ir::make_int(0));
    index[0] = n;
    return index;
  }

  KernelBuilder& kb_;
  const ConvGeometry& c_;
  const ConvOperands& ops_;
  const WindowAxis &y_, &x_;
  WeightFn weight_;
  BiasFn bias_;
  FusedClamp clamp_;
  bool depthwise_ = false;
  ir::Buffer table_, scratch_;
};

}  // namespace

bool host_f32_conv_applies(const ConvProblem& p, const TargetFacts& target) {
  const ConvGeometry& c = p.geometry;
  if (!target.has("simd") || c.axes.size() != 2 || c.layout != ActivationLayout::kChannelsFirst) return false;
  if (!p.float32_constant_filter || (p.bias != kNoTensor && !p.constants.bias)) return false;
  for (const WindowAxis& a : c.axes)
    if (a.dilation != 1) return false;
  bool depthwise = c.groups == c.in_channels && c.out_channels == c.in_channels;
  if (c.groups != 1 && !depthwise) return false;
  // The kernels index with int32.
  int64_t largest = std::max({c.in_channels * c.axes[0].input * c.axes[1].input,
                              c.out_channels * c.axes[0].output * c.axes[1].output,
                              c.out_channels * c.in_per_group() * c.axes[0].kernel * c.axes[1].kernel});
  return largest < (int64_t{1} << 31);
}

ir::Stmt lower_host_f32_conv(KernelBuilder& kb, const ConvProblem& p, ConvOperands& ops) {
  ops.output = kb.tensor_param(p.output, p.output_name);
  const Tensor& w = *p.constants.filter;
  const Tensor* bias = p.constants.bias;
  int64_t terms = p.geometry.in_per_group() * p.geometry.axes[0].kernel * p.geometry.axes[1].kernel;
  return HostConvBuilder(
             kb, p.geometry, ops, [&](int64_t oc, int64_t k) { return static_cast<float>(w.element_as_double(oc * terms + k)); },
             [&](int64_t oc) { return bias ? static_cast<float>(bias->element_as_double(oc)) : 0.0f; }, p.clamp)
      .build();
}

namespace {

// A fully connected layer of one row, float32, over constant weights and a constant bias
// (or none), whose output is [1, N]: the convolution kernel as a 1x1 convolution of K
// channels to N on a 1x1 image, the sum and bias scales folded into the packed values.
bool host_f32_fc_applies(const FcProblem& p, const TargetFacts& target) {
  if (!target.has("simd") || !p.float32_constant_filter || p.geometry.batches != 1 || !p.output_shape.empty()) return false;
  return p.bias == kNoTensor || p.bias_constant;
}

ir::Stmt lower_host_f32_fc(KernelBuilder& kb, const FcProblem& p, FcViews& views) {
  const Graph& g = kb.graph();
  const Tensor& w = g.tensor(p.filter);
  const Tensor* bias = p.bias != kNoTensor ? &g.tensor(p.bias) : nullptr;
  ConvGeometry geometry;
  geometry.in_channels = p.geometry.depth;
  geometry.out_channels = p.geometry.units;
  geometry.axes = {WindowAxis{}, WindowAxis{}};
  for (WindowAxis& axis : geometry.axes) axis.input = axis.output = 1;
  ConvOperands operands;
  operands.input = views.input;
  operands.output = views.output;
  return HostConvBuilder(
             kb, geometry, operands,
             [&](int64_t unit, int64_t d) {
               return static_cast<float>(p.sum_scale * w.element_as_double(p.filter_index(unit, d)));
             },
             [&](int64_t unit) {
               return bias ? static_cast<float>(p.bias_scale * bias->element_as_double(p.bias_scalar ? 0 : unit)) : 0.0f;
             },
             p.clamp)
      .build();
}

}  // namespace

// On a host with wide vectors: a classifier's fully connected layer (one row by constant
// weights), packed as the convolutions are.
AOTC_REGISTER_KERNEL(FcKernels, ({"host_simd.fc_f32", 15, host_f32_fc_applies, lower_host_f32_fc}));

// On a host with wide vectors (`simd`): float32 NCHW convolutions with constant weights as
// register-blocked products over packed weights (runtime-c/aotc_host_f32.h).
AOTC_REGISTER_KERNEL(ConvKernels, ({"host_simd.conv_f32", 15, host_f32_conv_applies, lower_host_f32_conv}));

}  // namespace aotc
