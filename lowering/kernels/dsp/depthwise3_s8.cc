// The int8 depthwise convolution with kernels three wide over a padded plane per channel;
// see depthwise3_s8.h.
#include "lowering/kernels/dsp/depthwise3_s8.h"

#include <algorithm>

#include "lowering/ir/runtime_calls.h"
#include "lowering/kernels/conv_kernels.h"
#include "lowering/kernels/dsp/dsp.h"
#include "lowering/compute/channel_header.h"

namespace aotc {
namespace {

using ir::Expr;

class Depthwise3Builder : DspConvParts {
 public:
  Depthwise3Builder(KernelBuilder& kb, const ConvGeometry& c, ConvArithmetic& a, const ConvOperands& ops,
                    const FoldedConvConstants& k)
      : DspConvParts(kb, c, a, ops, k) {
    staged_ = choose_staging(kb_.graph(), ops_.input_tensor, c_) == Staging::kPerChannel;
    group_ = x_.stride == 1 ? 4 : 2;
    // Rows and columns the windows read, padding included; a row rounded up to whole words.
    rows_ = std::max(y_.pad_begin + y_.input, (y_.output - 1) * y_.stride + y_.kernel);
    row_bytes_ = (std::max(x_.pad_begin + x_.input, (x_.output - 1) * x_.stride + 3) + 3) / 4 * 4;
  }

  // Per channel: the header (bias with the zero point folded in, requantization constants)
  // and aotc_dw3_s8's taps per kernel row, (w0, w2) as two halfwords then w1.
  ir::Stmt build() {
    if (staged_) kb_.allow_in_place(ops_.input_tensor);
    ChannelHeader header(a_, folded_biases(k_.bias, c_.out_channels, k_.input_zero_point, [&](int64_t ch) {
      int64_t sum = 0;
      for (int64_t t = 0; t < y_.kernel * 3; ++t) sum += weight(t / 3, t % 3, ch);
      return sum;
    }), 1);
    header_ = &header;
    channel_words_ = header.words() + 2 * y_.kernel;
    std::vector<uint8_t> bytes;
    for (int64_t ch = 0; ch < c_.out_channels; ++ch) {
      header.append(bytes, ch);
      for (int64_t ky = 0; ky < y_.kernel; ++ky) {
        uint32_t w02 = static_cast<uint16_t>(weight(ky, 0, ch)) | static_cast<uint32_t>(static_cast<uint16_t>(weight(ky, 2, ch))) << 16;
        uint32_t w1 = static_cast<uint32_t>(static_cast<int32_t>(weight(ky, 1, ch)));
        for (uint32_t word : {w02, w1})
          for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<uint8_t>(word >> (8 * b)));
      }
    }
    return header.wrap(a_, [&] {
      return ir::allocate_const("packed_taps", DataType::Int(32), {c_.out_channels * channel_words_}, std::move(bytes),
                                [&](const ir::Buffer& packed) {
                                  taps_ = packed;
                                  return with_plane();
                                });
    });
  }

 private:
  int16_t weight(int64_t ky, int64_t kx, int64_t channel) const {
    return static_cast<int16_t>(k_.filter->element_as_int((ky * 3 + kx) * c_.out_channels + channel));
  }

  // The plane, filled with the zero point once (the padding keeps it), then the channels.
  // Eight bytes beyond the last row: a call's words may reach past the columns it uses.
  ir::Stmt with_plane() {
    int64_t bytes = rows_ * row_bytes_ + 8;
    plane_ = ir::make_buffer("plane", ops_.input->dtype, {bytes});
    ir::Stmt fill = ir::loop_nest({bytes}, {"i"}, [&](const std::vector<Expr>& i) {
      return ir::store(plane_, i, ir::make_int(k_.input_zero_point, ops_.input->dtype));
    });
    return ir::allocate(plane_, ir::seq({fill, channels()}));
  }

  // Per batch and channel: the channel into the plane, its taps into locals, every output.
  ir::Stmt channels() {
    return ir::loop_nest({c_.batches, c_.out_channels}, {"n", "c"}, [&](const std::vector<Expr>& nc) {
      n_ = nc[0];
      channel_ = nc[1];
      ir::Stmt copy = ir::loop_nest({y_.input, x_.input}, {"iy", "ix"}, [&](const std::vector<Expr>& p) {
        Expr at = (p[0] + y_.pad_begin) * row_bytes_ + p[1] + x_.pad_begin;
        return ir::store(plane_, {at}, ir::load(ops_.input, {n_, p[0], p[1], channel_}));
      });
      return ir::seq({copy, with_taps(0, [&] { return rows(); })});
    });
  }

  // Locals w02_<ky>, w1_<ky> for kernel row ky and the ones after it, around body().
  ir::Stmt with_taps(int64_t ky, const std::function<ir::Stmt()>& body) {
    if (ky == y_.kernel) return body();
    ir::Var w02 = ir::make_var("w02_" + std::to_string(ky)), w1 = ir::make_var("w1_" + std::to_string(ky));
    Expr at = channel_ * channel_words_ + (header_->words() + 2 * ky);
    taps_w02_.push_back(ir::var_expr(w02));
    taps_w1_.push_back(ir::var_expr(w1));
    return ir::let(w02, ir::load(taps_, {at}), ir::let(w1, ir::load(taps_, {at + 1}), with_taps(ky + 1, body)));
  }

  // Each output row: whole groups of outputs, then the row's last few.
  ir::Stmt rows() {
    int64_t groups = x_.output / group_, rest = x_.output % group_;
    return ir::loop_nest({y_.output}, {"oy"}, [&](const std::vector<Expr>& oy) {
      std::vector<ir::Stmt> parts;
      if (groups > 0)
        parts.push_back(ir::loop_nest({groups}, {"g"}, [&](const std::vector<Expr>& g) { return outputs(oy[0], g[0] * group_, group_, group_); }));
      // The rest at a word boundary: one or two outputs from one word (four computed for
      // three: a second call would start mid-word).
      if (rest > 0) parts.push_back(outputs(oy[0], ir::make_int(groups * group_), rest == 3 ? 4 : rest, rest));
      return ir::seq(parts);
    });
  }

  // Outputs ox0 .. ox0 + stored - 1 of row oy from one call per kernel row for `computed`.
  ir::Stmt outputs(const Expr& oy, const Expr& ox0, int64_t computed, int64_t stored) {
    ir::Buffer acc = ir::make_buffer("acc", DataType::Int(32), {computed}, "local");
    std::vector<ir::Stmt> body;
    Expr base = channel_ * channel_words_;
    for (int64_t j = 0; j < computed; ++j) body.push_back(ir::store(acc, {j}, header_->bias(taps_, base, 0)));
    for (int64_t ky = 0; ky < y_.kernel; ++ky) {
      Expr row = ir::address_of(plane_, {(oy * y_.stride + ky) * row_bytes_ + ox0 * x_.stride});
      body.push_back(ir::evaluate(ir::dw3_s8(row, ir::make_int(x_.stride), ir::make_int(computed), taps_w02_[static_cast<size_t>(ky)],
                                             taps_w1_[static_cast<size_t>(ky)], ir::address_of(acc, {0}))));
    }
    for (int64_t j = 0; j < stored; ++j) {
      std::vector<Expr> index = {n_, oy, ox0 + j, channel_};
      Expr value = header_->output(taps_, base, 0, ir::load(acc, {j}), channel_);
      body.push_back(ir::store(ops_.output, index, kb_.epilogue(value, index)));
    }
    return ir::allocate(acc, ir::seq(body));
  }

  bool staged_ = false;
  int64_t group_ = 4, rows_ = 0, row_bytes_ = 0, channel_words_ = 0;
  const ChannelHeader* header_ = nullptr;  // during build()
  ir::Buffer taps_, plane_;
  Expr n_, channel_;
  std::vector<Expr> taps_w02_, taps_w1_;
};

}  // namespace

bool depthwise3_s8_applies(const ConvGeometry& c) {
  return c.layout == ActivationLayout::kChannelsLast && c.filter_layout == FilterLayout::kOneKO &&
         c.groups == c.in_channels && c.out_per_group() == 1 && c.axes.size() == 2 && c.axes[0].dilation == 1 &&
         c.axes[1].dilation == 1 && c.axes[1].kernel == 3 && (c.axes[1].stride == 1 || c.axes[1].stride == 2);
}

ir::Stmt lower_depthwise3_s8(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                             const ConvOperands& operands, const FoldedConvConstants& constants) {
  return Depthwise3Builder(kb, geometry, arithmetic, operands, constants).build();
}

// Preferred over depthwise_s8 where both apply: its own packed taps, a padded plane per channel.
// Each channel is copied into the plane before any of its outputs is written: its output
// may begin where its input does (Kernel::channel_planes).
static ConvKernels::Entry depthwise3_s8_kernel() {
  ConvKernels::Entry kernel = dsp_conv_kernel("dsp.depthwise3_s8", 30, true, depthwise3_s8_applies, false, lower_depthwise3_s8);
  kernel.channel_planes = true;
  return kernel;
}
AOTC_REGISTER_KERNEL(ConvKernels, (depthwise3_s8_kernel()));

}  // namespace aotc
