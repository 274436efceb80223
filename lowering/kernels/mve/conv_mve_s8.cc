// The int8 convolutions and fully connected layer on Helium; see conv_mve_s8.h.
#include "lowering/kernels/mve/conv_mve_s8.h"

#include "lowering/ir/runtime_calls.h"
#include "lowering/kernels/conv_kernels.h"
#include "lowering/kernels/fc_kernels.h"

namespace aotc {
namespace {

using ir::Expr;

constexpr int64_t kBlock = 4;   // output channels per block (AOTC_MVE_CHANNELS)
constexpr int64_t kChunk = 16;  // int8 values per vector (AOTC_MVE_CHUNK)

int64_t round_up(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

// aotc_mve_conv_s8's packing: per block of four output channels, per run of row_length
// values (`rows` of them, the window's values in their flat order), per chunk of sixteen,
// the chunk of each of the four channels; zeros past a run's end and for the channels of
// the last block past out_channels.
std::vector<uint8_t> pack_weights(int64_t out_channels, int64_t rows, int64_t row_length,
                                  const std::function<int64_t(int64_t oc, int64_t i)>& weight) {
  std::vector<uint8_t> bytes;
  for (int64_t block = 0; block < out_channels; block += kBlock)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t chunk = 0; chunk < row_length; chunk += kChunk)
        for (int64_t oc = block; oc < block + kBlock; ++oc)
          for (int64_t j = chunk; j < chunk + kChunk; ++j) {
            bool present = oc < out_channels && j < row_length;
            bytes.push_back(present ? static_cast<uint8_t>(static_cast<int8_t>(weight(oc, r * row_length + j))) : 0);
          }
  return bytes;
}

// The per-channel tables the runtime's requantization reads, a multiple of four entries
// each, as the addresses of their first entries; left is 0 (a null pointer) when no
// channel shifts left and every channel shifts right by at least one bit (the runtime's
// cheaper rounding then applies).
struct RequantTables {
  Expr bias, multiplier, left, right;
  bool per_channel;
};

ir::Stmt with_requant_tables(const std::vector<int32_t>& folded_bias, const ChannelRequantization& q,
                             const std::function<ir::Stmt(const RequantTables&)>& body) {
  size_t padded = static_cast<size_t>(round_up(static_cast<int64_t>(folded_bias.size()), kBlock));
  bool per_channel = false;
  for (const QuantizedMultiplier& m : q.channels)
    per_channel = per_channel || m.multiplier != q.channels[0].multiplier || m.shift != q.channels[0].shift;
  // One value for every channel (a layer quantized per tensor): four copies of it.
  size_t entries = per_channel ? padded : static_cast<size_t>(kBlock);
  std::vector<double> bias(padded, 0), multiplier(entries, 0), left(entries, 0), right(entries, 0);
  bool any_left = false;
  for (size_t c = 0; c < folded_bias.size(); ++c) bias[c] = folded_bias[c];
  for (size_t c = 0; c < entries; ++c) {
    if (per_channel && c >= folded_bias.size()) break;
    const QuantizedMultiplier& m = q.channels.at(per_channel ? c : 0);
    multiplier[c] = m.multiplier;
    left[c] = std::max(m.shift, 0);
    right[c] = std::min(m.shift, 0);
    any_left = any_left || m.shift >= 0;
  }
  auto table = [&](const char* name, const std::vector<double>& values, const std::function<ir::Stmt(Expr)>& inner) {
    return ir::allocate_const(name, DataType::Int(32), values,
                              [&](const ir::Buffer& b) { return inner(ir::address_of(b, {0})); });
  };
  return table("bias", bias, [&](Expr b) {
    return table("multiplier", multiplier, [&](Expr m) {
      return table("right_shift", right, [&](Expr r) {
        if (!any_left) return body({b, m, ir::make_int(0), r, per_channel});
        return table("left_shift", left, [&](Expr l) { return body({b, m, l, r, per_channel}); });
      });
    });
  });
}

// The runtime's trailing arguments: tables, output zero point, activation range, output.
std::vector<Expr> requant_args(const RequantTables& t, const ChannelRequantization& q, const Expr& y) {
  return {t.bias,
          t.multiplier,
          t.left,
          t.right,
          ir::make_int(t.per_channel ? 1 : 0),
          ir::make_int(q.output_zero_point),
          ir::make_int(q.range.min),
          ir::make_int(q.range.max),
          y};
}

Expr conv_call(const Expr& x, int64_t row_stride, int64_t rows, int64_t row_length, const Expr& packed,
               int64_t out_channels, const RequantTables& t, const ChannelRequantization& q, const Expr& y) {
  std::vector<Expr> args = {x, ir::make_int(row_stride), ir::make_int(rows), ir::make_int(row_length), packed,
                            ir::make_int(out_channels)};
  for (const Expr& e : requant_args(t, q, y)) args.push_back(e);
  return ir::mve_conv_s8(args);
}

class MveConvBuilder {
 public:
  MveConvBuilder(KernelBuilder& kb, const ConvGeometry& c, const ChannelRequantization& q, const ConvOperands& ops,
                 const FoldedConvConstants& k, const std::optional<FusedResidualAdd>& residual_add)
      : kb_(kb), c_(c), q_(q), ops_(ops), k_(k), residual_add_(residual_add), y_(c.axes[0]), x_(c.axes[1]) {
    depthwise_ = c_.groups != 1;
    channels_ = c_.in_channels;
    pad_left_ = x_.pad_begin;
    pad_right_ = std::max<int64_t>(0, (x_.output - 1) * x_.stride - x_.pad_begin + x_.kernel - x_.input);
    band_width_ = pad_left_ + x_.input + pad_right_;
    pointwise_ = !depthwise_ && y_.kernel == 1 && x_.kernel == 1 && y_.pad_begin == 0 && x_.pad_begin == 0;
    // Runs of KW * C values straight from the band, unless they are short and ragged.
    int64_t run = x_.kernel * channels_;
    gathered_ = !depthwise_ && y_.kernel > 1 && run % kChunk != 0 && run < 64;
    Staging staging = choose_staging(kb_.graph(), ops_.input_tensor, c_);
    staged_pixel_ = staging == Staging::kPerPixel;
    // The band keeps what a depthwise convolution of stride 1 overwrites (see conv_mve_s8.h).
    in_place_ = staged_pixel_ || (staging == Staging::kPerChannel && y_.stride == 1);
  }

  ir::Stmt build() {
    if (in_place_) kb_.allow_in_place(ops_.input_tensor);
    return with_requant_tables(folded_bias(), q_, [&](const RequantTables& t) {
      tables_ = t;
      if (depthwise_) return depthwise();
      int64_t rows = gathered_ ? 1 : y_.kernel, run = gathered_ ? window_length() : x_.kernel * channels_;
      std::vector<uint8_t> packed = pack_weights(c_.out_channels, rows, run, [&](int64_t oc, int64_t i) { return weight(oc, i); });
      int64_t bytes = static_cast<int64_t>(packed.size());
      return ir::allocate_const("packed_weights", DataType::Int(8), {bytes}, std::move(packed), [&](const ir::Buffer& w) {
        packed_ = ir::address_of(w, {0});
        return pointwise_ ? pointwise() : convolution();
      });
    });
  }

 private:
  int64_t window_length() const { return y_.kernel * x_.kernel * channels_; }
  int64_t taps() const { return y_.kernel * x_.kernel; }
  int64_t band_row_bytes() const { return band_width_ * channels_; }

  // Weight i of output channel oc in the window's flat (ky, kx, ic) order; depthwise: tap i.
  int64_t weight(int64_t oc, int64_t i) const {
    return depthwise_ ? k_.filter->element_as_int(i * c_.out_channels + oc)
                      : k_.filter->element_as_int(oc * window_length() + i);
  }

  // bias - zp * (sum of the channel's weights), wrapped to int32 like the kernel's sums.
  std::vector<int32_t> folded_bias() const {
    std::vector<int32_t> folded;
    int64_t per_channel = depthwise_ ? taps() : window_length();
    for (int64_t oc = 0; oc < c_.out_channels; ++oc) {
      int64_t sum = k_.bias ? k_.bias->element_as_int(oc) : 0;
      for (int64_t i = 0; i < per_channel; ++i) sum -= int64_t{k_.input_zero_point} * weight(oc, i);
      folded.push_back(static_cast<int32_t>(static_cast<uint32_t>(sum)));
    }
    return folded;
  }

  // Where the kernel writes `pixels` output pixels at `index`: the output, or with a fused
  // epilogue a scratch buffer that `finish` then reads through the epilogue: a residual ADD
  // four elements per vector (aotc_mve_add_s8), any other element by element.
  struct Destination {
    Expr address;
    std::function<ir::Stmt()> finish;
  };
  Destination destination(const ir::Buffer& scratch, const std::vector<Expr>& index, int64_t pixels) {
    if (kb_.node().body.empty()) return {ir::address_of(ops_.output, index), [] { return ir::Stmt(); }};
    if (residual_add_) {
      return {ir::address_of(scratch, {0}), [this, scratch, index, pixels] {
                return ir::evaluate(vector_add(*residual_add_, ir::address_of(scratch, {0}), index, pixels * c_.out_channels));
              }};
    }
    return {ir::address_of(scratch, {0}), [this, scratch, index, pixels] {
              return ir::loop_nest({pixels, c_.out_channels}, {"p", "oc"}, [&](const std::vector<Expr>& pc) {
                std::vector<Expr> at = {index[0], index[1], index[2] + pc[0], pc[1]};
                Expr value = ir::cast(DataType::Int(32), ir::load(scratch, {pc[0] * c_.out_channels + pc[1]}));
                return ir::store(ops_.output, at, kb_.epilogue(value, at));
              });
            }};
  }

  // The residual ADD of the convolution's results at `results` and the other operand at
  // `index`, n elements, into the output.
  Expr vector_add(const FusedResidualAdd& add, const Expr& results, const std::vector<Expr>& index, int64_t n) {
    Expr other_at = ir::address_of(kb_.epilogue_operand(add.other), index);
    Expr a = add.convolution_first ? results : other_at, b = add.convolution_first ? other_at : results;
    return ir::mve_add_s8({a, b, ir::make_int(n), ir::make_int(-add.input1_zero_point), ir::make_int(add.input1.multiplier),
                           ir::make_int(add.input1.shift), ir::make_int(-add.input2_zero_point),
                           ir::make_int(add.input2.multiplier), ir::make_int(add.input2.shift),
                           ir::make_int(add.output.multiplier), ir::make_int(add.output.shift),
                           ir::make_int(add.output_zero_point), ir::make_int(add.range.min), ir::make_int(add.range.max),
                           ir::address_of(ops_.output, index)});
  }

  ir::Buffer scratch(int64_t pixels) const {
    return ir::make_buffer("results", DataType::Int(8), {pixels * c_.out_channels});
  }

  // The pixels of one output row, `pixel` computing pixel ox into the address it is given:
  // the output, or with a fused epilogue a row of results, which the epilogue then reads.
  ir::Stmt output_row(const Expr& n, const Expr& oy, const ir::Buffer& results,
                      const std::function<std::vector<ir::Stmt>(const Expr& ox, const Expr& y)>& pixel) {
    Destination d = destination(results, {n, oy, ir::make_int(0), 0}, x_.output);
    bool fused = !kb_.node().body.empty();
    ir::Stmt pixels = ir::loop_nest({x_.output}, {"ox"}, [&](const std::vector<Expr>& o) {
      Expr y = fused ? ir::address_of(results, {o[0] * c_.out_channels}) : ir::address_of(ops_.output, {n, oy, o[0], 0});
      return ir::seq(pixel(o[0], y));
    });
    return ir::seq({pixels, d.finish()});
  }

  // Allocates the results row (with a fused epilogue) around `body`.
  ir::Stmt with_results(const ir::Buffer& results, ir::Stmt body) const {
    return kb_.node().body.empty() ? body : ir::allocate(results, std::move(body));
  }

  // 1x1, no padding: each output pixel from its input pixel (copied first when in place).
  ir::Stmt pointwise() {
    ir::Buffer stage = ir::make_buffer("pixel", DataType::Int(8), {channels_});
    ir::Buffer results = scratch(x_.output);
    ir::Stmt body = ir::loop_nest({c_.batches, y_.output}, {"n", "oy"}, [&](const std::vector<Expr>& no) {
      return output_row(no[0], no[1], results, [&](const Expr& ox, const Expr& y) {
        Expr x = ir::address_of(ops_.input, {no[0], no[1] * y_.stride, ox * x_.stride, 0});
        std::vector<ir::Stmt> steps;
        if (staged_pixel_) {
          steps.push_back(ir::evaluate(ir::mve_copy_s8(ir::address_of(stage, {0}), x, ir::make_int(channels_))));
          x = ir::address_of(stage, {0});
        }
        steps.push_back(ir::evaluate(conv_call(x, 0, 1, channels_, packed_, c_.out_channels, tables_, q_, y)));
        return steps;
      });
    });
    body = with_results(results, body);
    return staged_pixel_ ? ir::allocate(stage, body) : body;
  }

  // Any other window: per output row, the band, then each pixel's window from it; a
  // gathered window is padded to whole chunks (zeros once: the packed weights are zero
  // there, and the kernel then reads no partial chunk).
  ir::Stmt convolution() {
    int64_t gathered_length = round_up(window_length(), kChunk);
    ir::Buffer window = ir::make_buffer("window", DataType::Int(8), {gathered_length});
    ir::Buffer results = scratch(x_.output);
    ir::Stmt body = rows([&](const Expr& n, const Expr& oy) {
      return output_row(n, oy, results, [&](const Expr& ox, const Expr& y) {
        Expr x = ir::address_of(band_, {0, ox * (x_.stride * channels_)});
        if (!gathered_)
          return std::vector<ir::Stmt>{
              ir::evaluate(conv_call(x, band_row_bytes(), y_.kernel, x_.kernel * channels_, packed_, c_.out_channels, tables_, q_, y))};
        Expr w = ir::address_of(window, {0});
        return std::vector<ir::Stmt>{
            ir::evaluate(ir::mve_gather_s8(w, x, ir::make_int(band_row_bytes()), ir::make_int(y_.kernel),
                                           ir::make_int(x_.kernel * channels_))),
            ir::evaluate(conv_call(w, 0, 1, gathered_length, packed_, c_.out_channels, tables_, q_, y))};
      });
    });
    body = with_results(results, body);
    if (!gathered_) return body;
    ir::Stmt zeros = ir::evaluate(ir::mve_fill_s8(ir::address_of(window, {window_length()}), ir::make_int(0),
                                                  ir::make_int(gathered_length - window_length())));
    return ir::allocate(window, gathered_length > window_length() ? ir::seq({zeros, body}) : body);
  }

  // aotc_mve_depthwise_s8's filter: blocks of four channels, tap by tap
  // (AOTC_MVE_DEPTHWISE_WEIGHT), zeros past the channel count.
  std::vector<uint8_t> packed_depthwise() const {
    std::vector<uint8_t> bytes;
    for (int64_t block = 0; block < c_.out_channels; block += kBlock)
      for (int64_t t = 0; t < taps(); ++t)
        for (int64_t ch = block; ch < block + kBlock; ++ch)
          bytes.push_back(ch < c_.out_channels ? static_cast<uint8_t>(static_cast<int8_t>(weight(ch, t))) : 0);
    return bytes;
  }

  // Per output row, the band, then the whole row in one call.
  ir::Stmt depthwise() {
    std::vector<uint8_t> packed = packed_depthwise();
    int64_t bytes = static_cast<int64_t>(packed.size());
    return ir::allocate_const("packed_weights", DataType::Int(8), {bytes}, std::move(packed),
                              [&](const ir::Buffer& w) { return depthwise_rows(ir::address_of(w, {0})); });
  }

  ir::Stmt depthwise_rows(const Expr& filter) {
    ir::Buffer results = scratch(x_.output);
    ir::Stmt body = rows([&](const Expr& n, const Expr& oy) {
      Destination d = destination(results, {n, oy, ir::make_int(0), 0}, x_.output);
      std::vector<Expr> args = {ir::address_of(band_, {0, 0}), ir::make_int(band_row_bytes()), ir::make_int(channels_),
                                ir::make_int(y_.kernel), ir::make_int(x_.kernel), ir::make_int(x_.stride),
                                ir::make_int(x_.output), filter};
      for (const Expr& e : requant_args(tables_, q_, d.address)) args.push_back(e);
      return ir::seq({ir::evaluate(ir::mve_depthwise_s8(args)), d.finish()});
    });
    return with_results(results, body);
  }

  // For each batch and output row: the band of that row's windows, then `row`.
  ir::Stmt rows(const std::function<ir::Stmt(const Expr& n, const Expr& oy)>& row) {
    band_ = ir::make_buffer("band", DataType::Int(8), {y_.kernel, band_row_bytes()});
    ir::Stmt loops = ir::loop_nest({c_.batches, y_.output}, {"n", "oy"}, [&](const std::vector<Expr>& no) {
      return ir::seq({band_update(no[0], no[1]), row(no[0], no[1])});
    });
    return ir::allocate(band_, loops);
  }

  // Band row ky for output row oy: input row oy * stride - pad + ky, or zero points.
  ir::Stmt band_row(const Expr& n, const Expr& oy, const Expr& ky) {
    Expr iy = oy * y_.stride - y_.pad_begin + ky;
    Expr valid = ir::make_int(1);
    Expr row = iy;
    if (y_.can_leave_input()) {
      valid = ir::cast(DataType::Int(32), ir::logical_and(iy >= 0, iy < ir::make_int(y_.input)));
      row = ir::min(ir::max(iy, ir::make_int(0)), ir::make_int(y_.input - 1));
    }
    return ir::evaluate(ir::mve_band_row_s8(ir::address_of(band_, {ky, 0}), ir::address_of(ops_.input, {n, row, 0, 0}), valid,
                                            ir::make_int(x_.input), ir::make_int(pad_left_), ir::make_int(pad_right_),
                                            ir::make_int(channels_), ir::make_int(k_.input_zero_point)));
  }

  ir::Stmt band_rows(const Expr& n, const Expr& oy, int64_t first) {
    return ir::loop_nest({y_.kernel - first}, {"ky"}, [&](const std::vector<Expr>& k) { return band_row(n, oy, k[0] + first); });
  }

  // The first output row fills the whole band; each next one moves the rows it shares with
  // the previous one up and reads the rest.
  ir::Stmt band_update(const Expr& n, const Expr& oy) {
    if (y_.stride >= y_.kernel) return band_rows(n, oy, 0);
    int64_t kept = y_.kernel - y_.stride;
    ir::Stmt move = ir::evaluate(ir::mve_copy_s8(ir::address_of(band_, {0, 0}), ir::address_of(band_, {y_.stride, 0}),
                                                 ir::make_int(kept * band_row_bytes())));
    return ir::if_then_else(oy == 0, band_rows(n, oy, 0), ir::seq({move, band_rows(n, oy, kept)}));
  }

  KernelBuilder& kb_;
  const ConvGeometry& c_;
  const ChannelRequantization& q_;
  const ConvOperands& ops_;
  const FoldedConvConstants& k_;
  // Set when the fused epilogue is a residual ADD: added four elements per vector.
  const std::optional<FusedResidualAdd>& residual_add_;
  const WindowAxis &y_, &x_;
  bool depthwise_ = false, pointwise_ = false, gathered_ = false, staged_pixel_ = false, in_place_ = false;
  int64_t channels_ = 0, pad_left_ = 0, pad_right_ = 0, band_width_ = 0;
  RequantTables tables_;
  Expr packed_;
  ir::Buffer band_;
};

}  // namespace

bool mve_conv_s8_applies(const ConvGeometry& c) {
  bool shape = c.layout == ActivationLayout::kChannelsLast && c.axes.size() == 2 && c.axes[0].dilation == 1 &&
               c.axes[1].dilation == 1;
  bool plain = c.groups == 1 && c.filter_layout == FilterLayout::kOKI;
  bool depthwise = c.filter_layout == FilterLayout::kOneKO && c.groups == c.in_channels && c.out_per_group() == 1;
  return shape && (plain || depthwise);
}

ir::Stmt lower_mve_conv_s8(KernelBuilder& kb, const ConvGeometry& geometry, const ChannelRequantization& requantization,
                           const ConvOperands& operands, const FoldedConvConstants& constants,
                           const std::optional<FusedResidualAdd>& residual_add) {
  return MveConvBuilder(kb, geometry, requantization, operands, constants, residual_add).build();
}

ir::Stmt lower_mve_fully_connected_s8(const ir::Buffer& x, const ir::Buffer& y, const Tensor& filter,
                                      const std::vector<int32_t>& folded_bias, const ChannelRequantization& requantization) {
  int64_t batches = x->shape.at(0), depth = x->shape.at(1), units = y->shape.at(1);
  std::vector<uint8_t> packed =
      pack_weights(units, 1, depth, [&](int64_t unit, int64_t i) { return filter.element_as_int(unit * depth + i); });
  int64_t bytes = static_cast<int64_t>(packed.size());
  return with_requant_tables(folded_bias, requantization, [&](const RequantTables& t) {
    return ir::allocate_const("packed_weights", DataType::Int(8), {bytes}, std::move(packed), [&](const ir::Buffer& w) {
      return ir::loop_nest({batches}, {"b"}, [&](const std::vector<Expr>& b) {
        return ir::evaluate(conv_call(ir::address_of(x, {b[0], 0}), 0, 1, depth, ir::address_of(w, {0}), units, t,
                                      requantization, ir::address_of(y, {b[0], 0})));
      });
    });
  });
}

// On a core with Helium: an int8 convolution, or depthwise convolution of depth multiplier 1,
// with constant symmetric weights and TFLite's per-channel requantization.
AOTC_REGISTER_KERNEL(ConvKernels, ({
    "mve.conv_s8", 40,
    [](const ConvProblem& p, const TargetFacts& target) {
      return target.has("mve") && p.int8_constant_symmetric && is_tflite_requantization(p.requantization) && mve_conv_s8_applies(p.geometry);
    },
    [](KernelBuilder& kb, const ConvProblem& p, ConvOperands& ops) {
      ops.output = kb.tensor_param(p.output, p.output_name);
      return lower_mve_conv_s8(kb, p.geometry, *p.requantization, ops, p.constants, p.residual_add);
    },
    /*pixels_in_flight=*/1}));

// On a core with Helium: int8 with the input's zero point folded into the bias and TFLite's
// per-unit requantization, sixteen products per instruction, four units per input vector.
AOTC_REGISTER_KERNEL(FcKernels, ({
    "mve.fully_connected_s8", 40,
    [](const FcProblem& p, const TargetFacts& target) {
      return target.has("mve") && !p.folded_bias.empty() && is_tflite_requantization(p.requantization) && !p.filter_depth_major;
    },
    [](KernelBuilder& kb, const FcProblem& p, FcViews& views) {
      return lower_mve_fully_connected_s8(views.input, views.output, kb.graph().tensor(p.filter), p.folded_bias,
                                          *p.requantization);
    }}));

}  // namespace aotc
