// The int8 convolution in 2x2 register blocks; see conv_blocked_s8.h.
#include "lowering/kernels/dsp/conv_blocked_s8.h"

#include <optional>

#include "lowering/ir/runtime_calls.h"
#include "lowering/kernels/conv_kernels.h"
#include "lowering/kernels/dsp/dsp.h"
#include "lowering/compute/channel_header.h"

namespace aotc {
namespace {

using ir::Expr;

// aotc_dot_s8_2x2's packing of two weight rows of n values: per group of four, a word of
// row 0 then a word of row 1 (little-endian bytes = the values in order); the last
// partial group zero-padded.
void append_packed_pair(std::vector<uint8_t>& out, const std::vector<int8_t>& row0, const std::vector<int8_t>& row1) {
  for (size_t g = 0; g < row0.size(); g += 4)
    for (const std::vector<int8_t>* row : {&row0, &row1})
      for (size_t k = g; k < g + 4; ++k) out.push_back(k < row->size() ? static_cast<uint8_t>((*row)[k]) : 0);
}

int64_t packed_words(int64_t n) { return 2 * ((n + 3) / 4); }

class BlockedConvBuilder : DspConvParts {
 public:
  BlockedConvBuilder(KernelBuilder& kb, const ConvGeometry& c, ConvArithmetic& a, const ConvOperands& ops,
                     const FoldedConvConstants& k)
      : DspConvParts(kb, c, a, ops, k) {
    channels_ = c_.in_channels;
    pixels_ = y_.output * x_.output;
    channel_pairs_ = (c_.out_channels + 1) / 2;
    // Output columns whose window lies inside the input horizontally: summed by rows.
    x_inside_lo_ = (x_.pad_begin + x_.stride - 1) / x_.stride;
    x_inside_hi_ = x_.input - x_.kernel + x_.pad_begin >= 0 ? (x_.input - x_.kernel + x_.pad_begin) / x_.stride : -1;
    x_inside_hi_ = std::min(x_inside_hi_, x_.output - 1);
    any_row_runs_ = x_inside_lo_ <= x_inside_hi_;
    any_taps_ = x_inside_lo_ > 0 || x_inside_hi_ < x_.output - 1;
    staged_ = choose_staging(kb_.graph(), ops_.input_tensor, c_) == Staging::kPerPixel;
    pointwise_ = std::all_of(c_.axes.begin(), c_.axes.end(),
                             [](const WindowAxis& a) { return a.kernel == 1 && a.pad_begin == 0 && a.pad_end == 0; });
    header_.emplace(header());
  }

  ir::Stmt build() {
    if (staged_) kb_.allow_in_place(ops_.input_tensor);
    return header_->wrap(a_, [&] {
      if (gathers_windows()) {
        return with_packed(window_length(), true, [&](const ir::Buffer& windows) {
          rows_ = windows;
          return loops();
        });
      }
      return with_packed(row_length(), true, [&](const ir::Buffer& rows) {
        rows_ = rows;
        // Taps of C values need their own packing unless C is a multiple of 4 (then a
        // row's packing is its taps' packings one after the other).
        bool own_tap_table = any_taps_ && channels_ % 4 != 0 && x_.kernel > 1;
        if (!own_tap_table) {
          taps_ = rows;
          return with_zero_point_row();
        }
        return with_packed(channels_, false, [&](const ir::Buffer& taps) {
          taps_ = taps;
          return with_zero_point_row();
        });
      });
    });
  }

 private:
  int64_t row_length() const { return x_.kernel * channels_; }
  int64_t window_length() const { return y_.kernel * row_length(); }

  // With a channel count that is not a multiple of 4 (a first layer: 1 or 3 channels),
  // runs of C or KW * C values are short and unaligned: the two windows of a block are
  // gathered (im2col, the zero point in the padding) into a small aligned buffer first and
  // summed as one run each, for every channel pair.
  bool gathers_windows() const { return channels_ % 4 != 0 && !pointwise_ && window_length() <= kMaxGathered; }
  static constexpr int64_t kMaxGathered = 64;  // bytes per window
  // A 1x1 convolution's two pixels, widened, are staged in a C local up to this size (the
  // layer then needs no workspace), else in the workspace.
  static constexpr int64_t kMaxLocalStage = 128;  // bytes

  int8_t weight(int64_t oc, int64_t ky, int64_t kx, int64_t ic) const {
    return static_cast<int8_t>(k_.filter->element_as_int(((oc * y_.kernel + ky) * x_.kernel + kx) * channels_ + ic));
  }

  // Per channel pair: bias - zp * (sum of the channel's weights), wrapped to int32 like the
  // kernel's sums, and the requantization constants, in front of the pair's weights.
  ChannelHeader header() const {
    std::vector<int32_t> folded = folded_biases(k_.bias, c_.out_channels, k_.input_zero_point, [&](int64_t oc) {
      int64_t sum = 0;
      for (int64_t i = 0; i < window_length(); ++i) sum += weight(oc, i / row_length(), i / channels_ % x_.kernel, i % channels_);
      return sum;
    });
    return ChannelHeader(a_, std::move(folded), 2);
  }

  // Where channel pair `pair` starts in the main packed table, and its weights.
  Expr pair_base(const Expr& pair) const { return pair * pair_words_; }
  Expr pair_weights(const Expr& pair) const { return pair * pair_words_ + header_->words(); }

  // The weights packed for runs of `run` values (a kernel row, KW * C, or a tap, C): per
  // channel pair (behind its header in the main table), per run in (ky, kx) order. An odd
  // last channel is paired with itself.
  ir::Stmt with_packed(int64_t run, bool main, const std::function<ir::Stmt(const ir::Buffer&)>& body) {
    std::vector<uint8_t> bytes;
    int64_t runs_per_channel = y_.kernel * x_.kernel * channels_ / run;
    for (int64_t pair = 0; pair < channel_pairs_; ++pair) {
      if (main) header_->append(bytes, pair);
      int64_t oc0 = 2 * pair, oc1 = std::min(2 * pair + 1, c_.out_channels - 1);
      for (int64_t r = 0; r < runs_per_channel; ++r) {
        std::vector<int8_t> row0, row1;
        for (int64_t i = r * run; i < (r + 1) * run; ++i) {
          int64_t ky = i / (x_.kernel * channels_), kx = i / channels_ % x_.kernel, ic = i % channels_;
          row0.push_back(weight(oc0, ky, kx, ic));
          row1.push_back(weight(oc1, ky, kx, ic));
        }
        append_packed_pair(bytes, row0, row1);
      }
    }
    if (main) pair_words_ = header_->words() + runs_per_channel * packed_words(run);
    int64_t words = static_cast<int64_t>(bytes.size()) / 4;
    return ir::allocate_const(run == row_length() || run == window_length() ? "packed_weights" : "packed_taps",
                              DataType::Int(32), {words}, std::move(bytes), body);
  }

  // What a tap in the padding reads: one kernel row of the input's zero point.
  ir::Stmt with_zero_point_row() {
    bool padded = y_.can_leave_input() || x_.can_leave_input();
    if (!padded) return loops();
    // Long enough for both pixels of a block (the second read at the pixel offset).
    int64_t length = row_length() + x_.stride * channels_;
    std::vector<uint8_t> bytes(static_cast<size_t>(length), static_cast<uint8_t>(static_cast<int8_t>(k_.input_zero_point)));
    return ir::allocate_const("zero_point_row", DataType::Int(8), {length}, std::move(bytes), [&](const ir::Buffer& b) {
      zero_row_ = b;
      return loops();
    });
  }

  // A block per pair of pixels and pair of channels; a last odd pixel in a block of its own
  // (single_: its second pixel is the first again, and not stored). A 1x1 convolution pairs
  // the pixels in memory order; others pair neighbours within an output row, whose windows
  // are then the same distance apart in the input (x stride * C).
  ir::Stmt loops() {
    if (pointwise_) {
      return ir::loop_nest({c_.batches}, {"n"}, [&](const std::vector<Expr>& n) {
        n_ = n[0];
        return pairs_and_tail(pixels_, [&](const Expr& p0, const Expr& p1) {
          pixel_[0] = {p0 / x_.output, p0 % x_.output};
          pixel_[1] = {p1 / x_.output, p1 % x_.output};
          return staged_block();
        });
      });
    }
    return ir::loop_nest({c_.batches, y_.output}, {"n", "oy"}, [&](const std::vector<Expr>& ny) {
      n_ = ny[0];
      return pairs_and_tail(x_.output, [&](const Expr& x0, const Expr& x1) {
        pixel_[0] = {ny[1], x0};
        pixel_[1] = {ny[1], x1};
        return gathers_windows() ? gathered_block() : block();
      });
    });
  }

  // block(i, i + 1) for i = 0, 2, ... below count, then block(last, last) if count is odd.
  ir::Stmt pairs_and_tail(int64_t count, const std::function<ir::Stmt(const Expr&, const Expr&)>& block) {
    std::vector<ir::Stmt> parts;
    single_ = false;
    if (count >= 2) {
      parts.push_back(ir::loop_nest({count / 2}, {"pair"}, [&](const std::vector<Expr>& k) {
        return let("p0", k[0] * 2, [&](const Expr& p0) { return block(p0, p0 + 1); });
      }));
    }
    if (count % 2 != 0) {
      single_ = true;
      parts.push_back(block(ir::make_int(count - 1), ir::make_int(count - 1)));
      single_ = false;
    }
    return ir::seq(parts);
  }

  ir::Stmt let(const std::string& name, const Expr& value, const std::function<ir::Stmt(const Expr&)>& body) {
    ir::Var v = ir::make_var(name);
    return ir::let(v, value, body(ir::var_expr(v)));
  }

  // 1x1: the two input pixels are copied first, widened to int16 in the order the packed
  // weights unpack in (aotc_stage_s8x2), then the block reads the copies
  // (aotc_dot_s16_2x2): no unpacking of inputs in the loop over channel pairs. The copy is
  // also what lets the output take the input's memory.
  ir::Stmt staged_block() {
    int64_t groups = (channels_ + 3) / 4;
    bool local = 16 * groups <= kMaxLocalStage;
    ir::Buffer stage = ir::make_buffer("pixels", DataType::Int(32), {4 * groups}, local ? "local" : "global");
    Expr at = ir::address_of(stage, {0});
    ir::Stmt copy = ir::evaluate(ir::stage_s8x2(ir::address_of(ops_.input, {n_, input_y(0, 0), input_x(0, 0), 0}),
                                                ir::address_of(ops_.input, {n_, input_y(1, 0), input_x(1, 0), 0}),
                                                ir::make_int(channels_), at));
    ir::Stmt compute = channel_pairs([&](const Expr& pair, const ir::Buffer& acc) {
      Expr w = ir::address_of(rows_, {pair_weights(pair)});
      return ir::evaluate(ir::dot_s16_2x2(at, w, ir::make_int(groups), ir::address_of(acc, {0})));
    });
    return ir::allocate(stage, ir::seq({copy, compute}));
  }

  ir::Stmt gathered_block() {
    // Each window padded to whole words: the packed weights are zero there, so the block
    // sums whole groups of four (no element-by-element tail) and the second window is
    // word-aligned too.
    int64_t padded = (window_length() + 3) / 4 * 4;
    // A few dozen bytes for the layers this serves: a C local, so that the layer needs no
    // workspace (and a model without other scratch no workspace allocator).
    ir::Buffer windows = ir::make_buffer("windows", ops_.input->dtype, {2, padded}, "local");
    std::vector<ir::Stmt> gather;
    for (int i = 0; i < 2; ++i) {
      // Tap by tap: the tap's C channels from the input, or the zero point in the padding.
      gather.push_back(ir::loop_nest({y_.kernel, x_.kernel}, {"ky", "kx"}, [&](const std::vector<Expr>& k) {
        Expr iy = input_y(i, k[0]), ix = input_x(i, k[1]);
        Expr at = (k[0] * x_.kernel + k[1]) * channels_;
        auto copy = [&](bool from_input) {
          return ir::loop_nest({channels_}, {"ic"}, [&](const std::vector<Expr>& ic) {
            Expr value = from_input ? ir::load(ops_.input, {n_, iy, ix, ic[0]}) : ir::make_int(k_.input_zero_point, ops_.input->dtype);
            return ir::store(windows, {i, at + ic[0]}, value);
          });
        };
        Expr valid = inside_input(iy, ix, true);
        return valid ? ir::if_then_else(valid, copy(true), copy(false)) : copy(true);
      }));
      for (int64_t j = window_length(); j < padded; ++j) gather.push_back(ir::store(windows, {i, j}, ir::make_int(0, ops_.input->dtype)));
    }
    ir::Stmt compute = channel_pairs([&](const Expr& pair, const ir::Buffer& acc) {
      return dot(ir::address_of(windows, {0, 0}), ir::address_of(windows, {1, 0}),
                 ir::address_of(rows_, {pair_weights(pair)}), padded, acc);
    });
    return ir::allocate(windows, ir::seq({ir::seq(gather), compute}));
  }

  // Whether (iy, ix) lies inside the input (window.h), x only if check_x.
  Expr inside_input(const Expr& iy, const Expr& ix, bool check_x) const { return aotc::inside_input(y_, x_, iy, ix, check_x); }

  ir::Stmt block() {
    auto inside = [&](const Expr& x) { return ir::logical_and(x >= x_inside_lo_, x <= ir::make_int(x_inside_hi_)); };
    bool all_inside = x_inside_lo_ == 0 && x_inside_hi_ == x_.output - 1;
    if (all_inside) return channel_pairs([&](const Expr& pair, const ir::Buffer& acc) { return by_rows(pair, acc); });
    ir::Stmt taps = channel_pairs([&](const Expr& pair, const ir::Buffer& acc) { return by_taps(pair, acc); });
    if (!any_row_runs_) return taps;
    ir::Stmt rows = channel_pairs([&](const Expr& pair, const ir::Buffer& acc) { return by_rows(pair, acc); });
    return ir::if_then_else(ir::logical_and(inside(pixel_[0].x), inside(pixel_[1].x)), rows, taps);
  }

  // Input row iy (or the zero-point row when iy is in the padding) from column ix, channel 0.
  Expr row_address(const Expr& iy, const Expr& ix, bool check_x) {
    Expr at = ir::address_of(ops_.input, {n_, iy, ix, 0});
    Expr valid = inside_input(iy, ix, check_x);
    return valid ? ir::select(valid, at, ir::address_of(zero_row_, {0})) : at;
  }

  Expr input_y(int which, const Expr& ky) { return pixel_[which].y * y_.stride - y_.pad_begin + ky; }
  Expr input_x(int which, const Expr& kx) { return pixel_[which].x * x_.stride - x_.pad_begin + kx; }

  // Windows inside horizontally: one run of KW * C values per kernel row. The two pixels'
  // rows are x stride * C apart (the same input row, or both the zero-point row): with
  // whole words in a planned (word-aligned) tensor, the second is read at that offset from
  // the first (aotc_dot_s8_2x2_aligned: one pointer fewer in the loop).
  ir::Stmt by_rows(const Expr& pair, const ir::Buffer& acc) {
    ir::Var ky = ir::make_var("ky");
    Expr k = ir::var_expr(ky);
    Expr w = ir::address_of(rows_, {pair_weights(pair) + k * packed_words(row_length())});
    Expr x0 = row_address(input_y(0, k), input_x(0, 0), false);
    ir::Stmt body;
    if (aligned_rows() && !single_) {
      body = ir::evaluate(ir::dot_s8_2x2_aligned(x0, ir::make_int(x_.stride * channels_), w, ir::make_int(row_length()),
                                                 ir::address_of(acc, {0})));
    } else {
      body = dot(x0, single_ ? x0 : row_address(input_y(1, k), input_x(1, 0), false), w, row_length(), acc);
    }
    return y_.kernel == 1 ? substitute_zero(ky, body) : ir::for_loop(ky, 0, y_.kernel, body);
  }

  // Rows of whole words at word-aligned addresses: C a multiple of 4 in a tensor the
  // memory plan places (not an input the application passes, which may be unaligned).
  bool aligned_rows() const {
    const Graph& g = kb_.graph();
    bool application_input = std::find(g.inputs.begin(), g.inputs.end(), ops_.input_tensor) != g.inputs.end();
    return channels_ % 4 == 0 && !application_input;
  }

  // Windows that reach past the left or right edge: one run of C values per tap.
  ir::Stmt by_taps(const Expr& pair, const ir::Buffer& acc) {
    return ir::loop_nest({y_.kernel, x_.kernel}, {"ky", "kx"}, [&](const std::vector<Expr>& k) {
      Expr tap = (k[0] * x_.kernel + k[1]) * packed_words(channels_);
      Expr first = taps_ == rows_ ? pair_weights(pair) : pair * (y_.kernel * x_.kernel * packed_words(channels_));
      Expr w = ir::address_of(taps_, {first + tap});
      return dot(row_address(input_y(0, k[0]), input_x(0, k[1]), true), row_address(input_y(1, k[0]), input_x(1, k[1]), true), w,
                 channels_, acc);
    });
  }

  static ir::Stmt substitute_zero(const ir::Var& v, const ir::Stmt& body) {
    return ir::let(v, ir::make_int(0), body);
  }

  ir::Stmt dot(const Expr& x0, const Expr& x1, const Expr& w, int64_t n, const ir::Buffer& acc) {
    return ir::evaluate(ir::dot_s8_2x2(x0, x1, w, ir::make_int(n), ir::address_of(acc, {0})));
  }

  // For each channel pair: the four sums start from the folded bias, `sum` adds the
  // products, and each is requantized and stored (the odd second pixel or channel not);
  // bias and requantization constants from the pair's header.
  ir::Stmt channel_pairs(const std::function<ir::Stmt(const Expr&, const ir::Buffer&)>& sum) {
    return ir::loop_nest({channel_pairs_}, {"pair"}, [&](const std::vector<Expr>& pr) {
      Expr oc[2] = {pr[0] * 2, pr[0] * 2 + 1};
      Expr base = pair_base(pr[0]);
      ir::Buffer acc = ir::make_buffer("acc", DataType::Int(32), {4}, "local");
      std::vector<ir::Stmt> body;
      for (int i = 0; i < 4; ++i) body.push_back(ir::store(acc, {i}, header_->bias(rows_, base, i % 2)));
      body.push_back(sum(pr[0], acc));
      for (int p = 0; p < 2; ++p) {
        for (int j = 0; j < 2; ++j) {
          std::vector<Expr> index = {n_, pixel_[p].y, pixel_[p].x, oc[j]};
          Expr value = header_->output(rows_, base, j, ir::load(acc, {2 * p + j}), oc[j]);
          ir::Stmt store = ir::store(ops_.output, index, kb_.epilogue(value, index));
          if (p == 1 && single_) continue;
          Expr keep;
          if (j == 1 && c_.out_channels % 2 != 0) keep = keep ? ir::logical_and(keep, oc[1] < ir::make_int(c_.out_channels)) : oc[1] < ir::make_int(c_.out_channels);
          body.push_back(keep ? ir::if_then_else(keep, store) : store);
        }
      }
      return ir::allocate(acc, ir::seq(body));
    });
  }

  struct Pixel {
    Expr y, x;
  };

  int64_t channels_ = 0, pixels_ = 0, channel_pairs_ = 0, x_inside_lo_ = 0, x_inside_hi_ = 0;
  bool any_row_runs_ = false, any_taps_ = false, staged_ = false, pointwise_ = false;
  std::optional<ChannelHeader> header_;
  int64_t pair_words_ = 0;  // words per channel pair in the main packed table (rows_)
  ir::Buffer rows_, taps_, zero_row_;
  Expr n_;
  bool single_ = false;  // the block's second pixel is its first again (an odd last pixel)
  Pixel pixel_[2];
};

}  // namespace

bool blocked_conv_s8_applies(const ConvGeometry& c) {
  return c.layout == ActivationLayout::kChannelsLast && c.filter_layout == FilterLayout::kOKI && c.groups == 1 &&
         c.axes.size() == 2 && c.axes[0].dilation == 1 && c.axes[1].dilation == 1;
}

ir::Stmt lower_blocked_conv_s8(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                               const ConvOperands& operands, const FoldedConvConstants& constants) {
  return BlockedConvBuilder(kb, geometry, arithmetic, operands, constants).build();
}

AOTC_REGISTER_KERNEL(ConvKernels, (dsp_conv_kernel("dsp.blocked_conv_s8", 20, false, blocked_conv_s8_applies, false, lower_blocked_conv_s8)));

}  // namespace aotc
