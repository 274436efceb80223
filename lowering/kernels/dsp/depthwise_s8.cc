// The int8 depthwise convolution with unrolled taps; see depthwise_s8.h.
#include "lowering/kernels/dsp/depthwise_s8.h"

#include <algorithm>

#include "lowering/kernels/conv_kernels.h"
#include "lowering/kernels/dsp/dsp.h"
#include "lowering/compute/channel_constants.h"
#include "lowering/compute/reduction.h"

namespace aotc {
namespace {

using ir::Expr;

class DepthwiseBuilder : DspConvParts {
 public:
  DepthwiseBuilder(KernelBuilder& kb, const ConvGeometry& c, ConvArithmetic& a, const ConvOperands& ops,
                   const FoldedConvConstants& k)
      : DspConvParts(kb, c, a, ops, k) {
    staged_ = choose_staging(kb_.graph(), ops_.input_tensor, c_) == Staging::kPerChannel;
  }

  ir::Stmt build() {
    if (staged_) kb_.allow_in_place(ops_.input_tensor);
    std::vector<double> plain, folded;
    for (int64_t ch = 0; ch < c_.out_channels; ++ch) {
      int64_t bias = k_.bias ? k_.bias->element_as_int(ch) : 0, sum = 0;
      for (int64_t t = 0; t < taps(); ++t) sum += weight(t, ch);
      plain.push_back(static_cast<double>(bias));
      folded.push_back(static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(bias - k_.input_zero_point * sum))));
    }
    bias_ = tables_.add("bias", DataType::Int(32), plain);
    // A staged channel holds centred values: no folding there.
    if (!staged_) folded_bias_ = tables_.add("folded_bias", DataType::Int(32), folded);
    return a_.wrap([&] { return tables_.wrap([&] { return channels(); }); });
  }

 private:
  int64_t taps() const { return y_.kernel * x_.kernel; }
  int64_t weight(int64_t tap, int64_t channel) const {
    return k_.filter->element_as_int(tap * c_.out_channels + channel);
  }

  // Per batch and channel: the weights into locals, then (staged) the channel's copy,
  // then every output position of the channel.
  ir::Stmt channels() {
    return ir::loop_nest({c_.batches, c_.out_channels}, {"n", "c"}, [&](const std::vector<Expr>& nc) {
      n_ = nc[0];
      channel_ = nc[1];
      return with_weights(0, [&] {
        if (!staged_) return positions();
        ir::Buffer plane = ir::make_buffer("channel", a_.staged_type(ops_.input->dtype), {y_.input, x_.input});
        ir::Stmt copy = ir::loop_nest({y_.input, x_.input}, {"iy", "ix"}, [&](const std::vector<Expr>& p) {
          return ir::store(plane, p, ir::cast(plane->dtype, a_.input_term(ir::load(ops_.input, {n_, p[0], p[1], channel_}))));
        });
        plane_ = plane;
        return ir::allocate(plane, ir::seq({copy, positions()}));
      });
    });
  }

  ir::Stmt with_weights(int64_t tap, const std::function<ir::Stmt()>& body) {
    if (tap == taps()) return body();
    ir::Var w = ir::make_var("w" + std::to_string(tap));
    Expr value = ir::cast(DataType::Int(32), ir::load(ops_.filter, {0, tap / x_.kernel, tap % x_.kernel, channel_}));
    weights_.push_back(ir::var_expr(w));
    return ir::let(w, value, with_weights(tap + 1, body));
  }

  // First output position whose window starts inside the input, and the last whose window
  // ends inside it, along one axis.
  static int64_t inside_first(const WindowAxis& a) { return (a.pad_begin + a.stride - 1) / a.stride; }
  static int64_t inside_last(const WindowAxis& a) {
    int64_t room = a.input - a.kernel + a.pad_begin;
    return room < 0 ? -1 : std::min(room / a.stride, a.output - 1);
  }

  // The output positions of one axis in regions: each position whose window reaches into
  // the padding on its own (its taps' validity then a compile-time fact), and the range
  // between them whose windows lie inside the input.
  struct Region {
    int64_t first, last;
    bool inside;
  };
  static std::vector<Region> regions(const WindowAxis& a) {
    int64_t first = inside_first(a), last = inside_last(a);
    std::vector<Region> r;
    if (first > last) {  // no window inside: every position on its own
      for (int64_t o = 0; o < a.output; ++o) r.push_back({o, o, false});
      return r;
    }
    for (int64_t o = 0; o < first; ++o) r.push_back({o, o, false});
    r.push_back({first, last, true});
    for (int64_t o = last + 1; o < a.output; ++o) r.push_back({o, o, false});
    return r;
  }

  // Every output position, region by region: no bounds check anywhere (the taps of an edge
  // window that fall into the padding are left out when the code is generated).
  ir::Stmt positions() {
    std::vector<ir::Stmt> parts;
    for (const Region& ry : regions(y_)) {
      for (const Region& rx : regions(x_)) {
        std::vector<int64_t> extents;
        std::vector<std::string> names;
        if (ry.first != ry.last || ry.inside) extents.push_back(ry.last - ry.first + 1), names.push_back("oy");
        if (rx.first != rx.last || rx.inside) extents.push_back(rx.last - rx.first + 1), names.push_back("ox");
        parts.push_back(ir::loop_nest(extents, names, [&](const std::vector<Expr>& v) {
          size_t next = 0;
          Expr oy = names.size() > next && names[next] == "oy" ? v[next++] + ry.first : ir::make_int(ry.first);
          Expr ox = names.size() > next && names[next] == "ox" ? v[next++] + rx.first : ir::make_int(rx.first);
          return element({oy, ox}, ry, rx);
        }));
      }
    }
    return ir::seq(parts);
  }

  // The input term at (iy, ix): a staged centred value, or a raw value (inside windows,
  // the zero point being in the folded bias) or a centred one (edge windows).
  Expr term(const Expr& iy, const Expr& ix, bool edge) {
    if (staged_) return ir::cast(DataType::Int(32), ir::load(plane_, {iy, ix}));
    Expr x = ir::load(ops_.input, {n_, iy, ix, channel_});
    return edge ? a_.input_term(x) : ir::cast(DataType::Int(32), x);
  }

  // Whether tap k of the windows of region r lies inside the input along axis a.
  static bool tap_inside(const WindowAxis& a, const Region& r, int64_t k) {
    if (r.inside) return true;
    int64_t at = r.first * a.stride - a.pad_begin + k;
    return at >= 0 && at < a.input;
  }

  ir::Stmt element(const std::vector<Expr>& o, const Region& ry, const Region& rx) {
    bool edge = !ry.inside || !rx.inside;
    Expr init = tables_.at(staged_ || edge ? bias_ : folded_bias_, channel_);
    auto sum = [&](const Accumulator& acc) {
      std::vector<ir::Stmt> steps;
      for (int64_t ky = 0; ky < y_.kernel; ++ky) {
        for (int64_t kx = 0; kx < x_.kernel; ++kx) {
          if (!tap_inside(y_, ry, ky) || !tap_inside(x_, rx, kx)) continue;
          Expr iy = tap_coordinate(y_, o[0], ir::make_int(ky)), ix = tap_coordinate(x_, o[1], ir::make_int(kx));
          steps.push_back(acc.set(acc.value() + term(iy, ix, edge) * weights_[static_cast<size_t>(ky * x_.kernel + kx)]));
        }
      }
      return ir::seq(steps);
    };
    auto write = [&](const Expr& total) {
      std::vector<Expr> index = {n_, o[0], o[1], channel_};
      return ir::store(ops_.output, index, kb_.epilogue(a_.output(total, channel_), index));
    };
    return accumulate(init, sum, write);
  }

  bool staged_ = false;
  ChannelConstants tables_;
  ChannelConstants::Handle bias_ = 0, folded_bias_ = 0;
  ir::Buffer plane_;
  Expr n_, channel_;
  std::vector<Expr> weights_;
};

}  // namespace

bool depthwise_s8_applies(const ConvGeometry& c) {
  constexpr int64_t kMaxKernel = 7;
  return c.layout == ActivationLayout::kChannelsLast && c.filter_layout == FilterLayout::kOneKO &&
         c.groups == c.in_channels && c.out_per_group() == 1 && c.axes.size() == 2 &&
         std::all_of(c.axes.begin(), c.axes.end(), [](const WindowAxis& a) {
           // Small kernels: the edge positions, each generated on its own, are then few.
           return a.dilation == 1 && a.kernel <= kMaxKernel;
         });
}

ir::Stmt lower_depthwise_s8(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                            const ConvOperands& operands, const FoldedConvConstants& constants) {
  return DepthwiseBuilder(kb, geometry, arithmetic, operands, constants).build();
}

AOTC_REGISTER_KERNEL(ConvKernels, (dsp_conv_kernel("dsp.depthwise_s8", 20, true, depthwise_s8_applies, true, lower_depthwise_s8)));

}  // namespace aotc
