// float32 convolutions, depthwise convolutions and fully connected layers in register
// blocks; see blocked_f32.h.
#include "lowering/kernels/fpu/blocked_f32.h"

#include <algorithm>
#include <cstring>

#include "lowering/ir/runtime_calls.h"
#include "lowering/kernels/conv_kernels.h"

namespace aotc {
namespace {

using ir::Expr;

constexpr int64_t kBlock = 4;  // pixels per block, channels (units) per block

std::vector<uint8_t> float_bytes(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

ir::Stmt let(const std::string& name, const Expr& value, const std::function<ir::Stmt(const Expr&)>& body) {
  ir::Var v = ir::make_var(name);
  return ir::let(v, value, body(ir::var_expr(v)));
}

// The block's sums, zeroed: `count` floats of a C local (registers inside the call).
ir::Stmt with_zeroed_acc(int64_t count, const std::function<ir::Stmt(const ir::Buffer&)>& body) {
  ir::Buffer acc = ir::make_buffer("acc", DataType::Float32(), {count}, "local");
  std::vector<ir::Stmt> parts;
  for (int64_t i = 0; i < count; ++i) parts.push_back(ir::store(acc, {i}, ir::make_float(0.0)));
  parts.push_back(body(acc));
  return ir::allocate(acc, ir::seq(parts));
}

// sum + bias[oc] (when there is a bias), then the arithmetic's output (the activation).
Expr biased_output(ConvArithmetic& a, const ir::Buffer& bias, const Expr& sum, const Expr& oc) {
  return a.output(bias ? sum + ir::load(bias, {oc}) : sum, oc);
}

class BlockedConvF32 {
 public:
  BlockedConvF32(KernelBuilder& kb, const ConvGeometry& c, ConvArithmetic& a, const ConvOperands& ops, const Tensor& filter)
      : kb_(kb), c_(c), a_(a), ops_(ops), filter_(filter), y_(c.axes[0]), x_(c.axes[1]) {
    channels_ = c_.in_channels;
    quads_ = (c_.out_channels + kBlock - 1) / kBlock;
    x_inside_lo_ = (x_.pad_begin + x_.stride - 1) / x_.stride;
    x_inside_hi_ = x_.input - x_.kernel + x_.pad_begin >= 0 ? (x_.input - x_.kernel + x_.pad_begin) / x_.stride : -1;
    x_inside_hi_ = std::min(x_inside_hi_, x_.output - 1);
    pointwise_ = std::all_of(c_.axes.begin(), c_.axes.end(),
                             [](const WindowAxis& a) { return a.kernel == 1 && a.pad_begin == 0 && a.pad_end == 0; });
    staged_ = choose_staging(kb_.graph(), ops_.input_tensor, c_) == Staging::kPerPixel;
  }

  ir::Stmt build() {
    if (staged_) kb_.allow_in_place(ops_.input_tensor);
    return a_.wrap([&] {
      return ir::allocate_const("packed_weights", DataType::Float32(), {quads_ * window_length() * kBlock},
                                float_bytes(packed()), [&](const ir::Buffer& packed) {
                                  packed_ = packed;
                                  if (!y_.can_leave_input() && !x_.can_leave_input()) return loops();
                                  std::vector<float> zeros(static_cast<size_t>(row_length()), 0.0f);
                                  return ir::allocate_const("zero_row", DataType::Float32(), {row_length()}, float_bytes(zeros),
                                                            [&](const ir::Buffer& zero_row) {
                                                              zero_row_ = zero_row;
                                                              return loops();
                                                            });
                                });
    });
  }

 private:
  int64_t row_length() const { return x_.kernel * channels_; }
  int64_t window_length() const { return y_.kernel * row_length(); }

  // Per quad of output channels, per element of the window in (ky, kx, ic) order, the
  // four channels' weights (zero past the last channel).
  std::vector<float> packed() const {
    std::vector<float> out;
    out.reserve(static_cast<size_t>(quads_ * window_length() * kBlock));
    for (int64_t q = 0; q < quads_; ++q)
      for (int64_t e = 0; e < window_length(); ++e)
        for (int64_t j = 0; j < kBlock; ++j) {
          int64_t oc = q * kBlock + j;
          out.push_back(oc < c_.out_channels ? static_cast<float>(filter_.element_as_double(oc * window_length() + e)) : 0.0f);
        }
    return out;
  }

  // Blocks of four pixels: 1x1 in memory order, others along each output row; a last
  // partial block repeats its last pixel (`stored_` pixels are written).
  ir::Stmt loops() {
    int64_t count = pointwise_ ? y_.output * x_.output : x_.output;
    auto blocks = [&](const std::function<ir::Stmt()>& block, const std::function<void(const Expr&, int64_t)>& set_pixels) {
      std::vector<ir::Stmt> parts;
      if (count >= kBlock) {
        parts.push_back(ir::loop_nest({count / kBlock}, {"block"}, [&](const std::vector<Expr>& k) {
          return let("p0", k[0] * kBlock, [&](const Expr& p0) {
            set_pixels(p0, kBlock);
            return block();
          });
        }));
      }
      if (count % kBlock != 0) {
        set_pixels(ir::make_int(count - count % kBlock), count % kBlock);
        parts.push_back(block());
      }
      return ir::seq(parts);
    };
    if (pointwise_) {
      return ir::loop_nest({c_.batches}, {"n"}, [&](const std::vector<Expr>& n) {
        n_ = n[0];
        return blocks([&] { return pointwise_block(); }, [&](const Expr& p0, int64_t stored) {
          stored_ = stored;
          for (int64_t i = 0; i < kBlock; ++i) {
            Expr p = p0 + std::min(i, stored - 1);
            pixel_[i] = {p / x_.output, p % x_.output};
          }
        });
      });
    }
    return ir::loop_nest({c_.batches, y_.output}, {"n", "oy"}, [&](const std::vector<Expr>& ny) {
      n_ = ny[0];
      return blocks([&] { return window_block(); }, [&](const Expr& x0, int64_t stored) {
        stored_ = stored;
        for (int64_t i = 0; i < kBlock; ++i) pixel_[i] = {ny[1], x0 + std::min(i, stored - 1)};
      });
    });
  }

  Expr input_y(int i, const Expr& ky) const { return pixel_[i].y * y_.stride - y_.pad_begin + ky; }
  Expr input_x(int i, const Expr& kx) const { return pixel_[i].x * x_.stride - x_.pad_begin + kx; }

  // 1x1: the four pixels' C values, read in place or from a copy made first.
  ir::Stmt pointwise_block() {
    if (!staged_) {
      return quads([&](const Expr& q, const ir::Buffer& acc) {
        return dot({pixel_address(0), pixel_address(1), pixel_address(2), pixel_address(3)}, weights(q, 0), channels_, acc);
      });
    }
    ir::Buffer stage = ir::make_buffer("pixels", DataType::Float32(), {kBlock, channels_}, "global");
    std::vector<ir::Stmt> copy;
    for (int i = 0; i < kBlock; ++i) {
      copy.push_back(ir::loop_nest({channels_}, {"ic"}, [&](const std::vector<Expr>& ic) {
        return ir::store(stage, {i, ic[0]}, ir::load(ops_.input, {n_, input_y(i, 0), input_x(i, 0), ic[0]}));
      }));
    }
    ir::Stmt compute = quads([&](const Expr& q, const ir::Buffer& acc) {
      return dot({ir::address_of(stage, {0, 0}), ir::address_of(stage, {1, 0}), ir::address_of(stage, {2, 0}),
                  ir::address_of(stage, {3, 0})},
                 weights(q, 0), channels_, acc);
    });
    return ir::allocate(stage, ir::seq({ir::seq(copy), compute}));
  }

  Expr pixel_address(int i) const { return ir::address_of(ops_.input, {n_, input_y(i, 0), input_x(i, 0), 0}); }

  // Whether (iy, ix) lies inside the input (window.h), x only if check_x.
  Expr inside_input(const Expr& iy, const Expr& ix, bool check_x) const { return aotc::inside_input(y_, x_, iy, ix, check_x); }

  // Input row iy from column ix, channel 0, or the zero row where (iy, ix) is padding.
  Expr run_address(const Expr& iy, const Expr& ix, bool check_x) const {
    Expr at = ir::address_of(ops_.input, {n_, iy, ix, 0});
    Expr valid = inside_input(iy, ix, check_x);
    return valid ? ir::select(valid, at, ir::address_of(zero_row_, {0})) : at;
  }

  // Windows inside the input horizontally: KH runs of KW * C; others: a run per tap.
  ir::Stmt window_block() {
    bool all_inside = x_inside_lo_ == 0 && x_inside_hi_ == x_.output - 1;
    auto by_rows = [&] {
      return quads([&](const Expr& q, const ir::Buffer& acc) {
        ir::Var ky = ir::make_var("ky");
        Expr k = ir::var_expr(ky);
        std::vector<Expr> x;
        for (int i = 0; i < kBlock; ++i) x.push_back(run_address(input_y(i, k), input_x(i, 0), false));
        return ir::for_loop(ky, 0, ir::make_int(y_.kernel), dot(x, weights(q, k * row_length()), row_length(), acc));
      });
    };
    auto by_taps = [&] {
      return quads([&](const Expr& q, const ir::Buffer& acc) {
        return ir::loop_nest({y_.kernel, x_.kernel}, {"ky", "kx"}, [&](const std::vector<Expr>& k) {
          std::vector<Expr> x;
          for (int i = 0; i < kBlock; ++i) x.push_back(run_address(input_y(i, k[0]), input_x(i, k[1]), true));
          return dot(x, weights(q, (k[0] * x_.kernel + k[1]) * channels_), channels_, acc);
        });
      });
    };
    if (all_inside) return by_rows();
    if (x_inside_lo_ > x_inside_hi_) return by_taps();
    auto inside = [&](const Expr& x) { return ir::logical_and(x >= x_inside_lo_, x <= ir::make_int(x_inside_hi_)); };
    return ir::if_then_else(ir::logical_and(inside(pixel_[0].x), inside(pixel_[kBlock - 1].x)), by_rows(), by_taps());
  }

  // The packed weights of quad q from window element `element`.
  Expr weights(const Expr& q, const Expr& element) const {
    return ir::address_of(packed_, {(q * window_length() + element) * kBlock});
  }

  ir::Stmt dot(const std::vector<Expr>& x, const Expr& w, int64_t n, const ir::Buffer& acc) const {
    return ir::evaluate(ir::dot_f32_4x4(x[0], x[1], x[2], x[3], w, ir::make_int(n), ir::address_of(acc, {0})));
  }

  // For each quad of output channels: sixteen sums from zero, `sum` adds the products,
  // then bias, activation and epilogue per stored output.
  ir::Stmt quads(const std::function<ir::Stmt(const Expr&, const ir::Buffer&)>& sum) {
    return ir::loop_nest({quads_}, {"quad"}, [&](const std::vector<Expr>& q) {
      return with_zeroed_acc(kBlock * kBlock, [&](const ir::Buffer& acc) {
        std::vector<ir::Stmt> body = {sum(q[0], acc)};
        for (int64_t p = 0; p < stored_; ++p) {
          for (int64_t j = 0; j < kBlock; ++j) {
            Expr oc = q[0] * kBlock + j;
            std::vector<Expr> index = {n_, pixel_[p].y, pixel_[p].x, oc};
            Expr value = biased_output(a_, ops_.bias, ir::load(acc, {p * kBlock + j}), oc);
            ir::Stmt store = ir::store(ops_.output, index, kb_.epilogue(value, index));
            bool partial = c_.out_channels % kBlock != 0 && j >= c_.out_channels % kBlock;
            body.push_back(partial ? ir::if_then_else(oc < ir::make_int(c_.out_channels), store) : store);
          }
        }
        return ir::seq(body);
      });
    });
  }

  struct Pixel {
    Expr y, x;
  };

  KernelBuilder& kb_;
  const ConvGeometry& c_;
  ConvArithmetic& a_;
  const ConvOperands& ops_;
  const Tensor& filter_;
  const WindowAxis &y_, &x_;
  int64_t channels_ = 0, quads_ = 0, x_inside_lo_ = 0, x_inside_hi_ = 0, stored_ = kBlock;
  bool pointwise_ = false, staged_ = false;
  ir::Buffer packed_, zero_row_;
  Expr n_;
  Pixel pixel_[kBlock];
};

}  // namespace

bool blocked_conv_f32_applies(const ConvGeometry& c) {
  return c.layout == ActivationLayout::kChannelsLast && c.filter_layout == FilterLayout::kOKI && c.groups == 1 &&
         c.axes.size() == 2 && c.axes[0].dilation == 1 && c.axes[1].dilation == 1;
}

bool depthwise_f32_applies(const ConvGeometry& c) {
  return c.layout == ActivationLayout::kChannelsLast && c.filter_layout == FilterLayout::kOneKO &&
         c.groups == c.in_channels && c.out_channels == c.in_channels && c.in_channels % kBlock == 0 &&
         c.axes.size() == 2 && c.axes[0].dilation == 1 && c.axes[1].dilation == 1;
}

ir::Stmt lower_blocked_conv_f32(KernelBuilder& kb, const ConvGeometry& geometry, ConvArithmetic& arithmetic,
                                const ConvOperands& operands, const Tensor& filter) {
  return BlockedConvF32(kb, geometry, arithmetic, operands, filter).build();
}

// Per output pixel the part of the window inside the input (rows ky_lo..ky_hi, taps
// kx_lo..kx_hi, computed once per pixel), then per group of four channels one call over
// it. When the output may take the input's memory, each group is first copied as a plane
// [H][W][4], which the group's calls then read.
ir::Stmt lower_depthwise_f32(KernelBuilder& kb, const ConvGeometry& c, ConvArithmetic& a, const ConvOperands& ops,
                             const Tensor& filter) {
  const WindowAxis &y = c.axes[0], &x = c.axes[1];
  const int64_t channels = c.in_channels, groups = channels / kBlock, taps = y.kernel * x.kernel;
  // Per group, per tap (ky, kx), the four channels' weights; filter [1, KH, KW, C].
  std::vector<float> packed;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t j = 0; j < kBlock; ++j)
        packed.push_back(static_cast<float>(filter.element_as_double(t * channels + g * kBlock + j)));
  const bool staged = choose_staging(kb.graph(), ops.input_tensor, c) == Staging::kPerChannel;
  if (staged) kb.allow_in_place(ops.input_tensor);

  // The window's part inside the input along one axis: its first input coordinate, first
  // tap and end tap.
  struct Clip {
    Expr start, lo, hi;
  };
  auto clip = [](const WindowAxis& w, const Expr& o) {
    Expr start = o * w.stride - w.pad_begin;
    Expr lo = w.pad_begin > 0 ? ir::max(ir::make_int(0), ir::make_int(0) - start) : ir::make_int(0);
    Expr hi = w.can_leave_input() ? ir::min(ir::make_int(w.kernel), ir::make_int(w.input) - start) : ir::make_int(w.kernel);
    return Clip{start, lo, hi};
  };

  return a.wrap([&] {
    return ir::allocate_const("packed_taps", DataType::Float32(), {groups * taps * kBlock}, float_bytes(packed), [&](const ir::Buffer& w) {
      return ir::loop_nest({c.batches, groups}, {"n", "group"}, [&](const std::vector<Expr>& ng) {
        const Expr &n = ng[0], &g = ng[1];
        ir::Buffer plane = staged ? ir::make_buffer("plane", DataType::Float32(), {y.input, x.input, kBlock}, "global") : nullptr;
        ir::Stmt pixels = ir::loop_nest({y.output}, {"oy"}, [&](const std::vector<Expr>& oy) {
          Clip cy = clip(y, oy[0]);
          return let("ky_lo", cy.lo, [&](const Expr& ky_lo) {
            return let("rows", cy.hi - ky_lo, [&](const Expr& rows) {
              return ir::loop_nest({x.output}, {"ox"}, [&](const std::vector<Expr>& ox) {
                Clip cx = clip(x, ox[0]);
                return let("kx_lo", cx.lo, [&](const Expr& kx_lo) {
                  return let("taps", cx.hi - kx_lo, [&](const Expr& tap_count) {
                    Expr iy = cy.start + ky_lo, ix = cx.start + kx_lo;
                    Expr at = staged ? ir::address_of(plane, {iy, ix, 0}) : ir::address_of(ops.input, {n, iy, ix, g * kBlock});
                    int64_t step = staged ? kBlock : channels;
                    Expr taps_at = ir::address_of(w, {((g * y.kernel + ky_lo) * x.kernel + kx_lo) * kBlock});
                    return with_zeroed_acc(kBlock, [&](const ir::Buffer& acc) {
                      std::vector<ir::Stmt> body = {ir::evaluate(ir::dw_f32_4ch(
                          at, ir::make_int(step), ir::make_int(step * x.input), taps_at,
                          (ir::make_int(x.kernel) - tap_count) * kBlock, rows, tap_count, ir::address_of(acc, {0})))};
                      for (int64_t j = 0; j < kBlock; ++j) {
                        Expr oc = g * kBlock + j;
                        std::vector<Expr> index = {n, oy[0], ox[0], oc};
                        Expr value = biased_output(a, ops.bias, ir::load(acc, {j}), oc);
                        body.push_back(ir::store(ops.output, index, kb.epilogue(value, index)));
                      }
                      return ir::seq(body);
                    });
                  });
                });
              });
            });
          });
        });
        if (!staged) return pixels;
        ir::Stmt copy = ir::loop_nest({y.input, x.input, kBlock}, {"iy", "ix", "j"}, [&](const std::vector<Expr>& i) {
          return ir::store(plane, i, ir::load(ops.input, {n, i[0], i[1], g * kBlock + i[2]}));
        });
        return ir::allocate(plane, ir::seq({copy, pixels}));
      });
    });
  });
}

// Per batch row, per block of four units (or four blocks at once): one call over the row,
// then bias and activation.
ir::Stmt lower_fully_connected_f32(KernelBuilder& kb, const FcProblem& p, const FcViews& views, const ir::Buffer& bias,
                                   bool sixteen_units) {
  const FcGeometry& f = p.geometry;
  ConvArithmetic& a = *p.arithmetic;
  const Tensor& filter = kb.graph().tensor(p.filter);
  const ir::Buffer &input = views.input, &output = views.output;
  const int64_t blocks = (f.units + kBlock - 1) / kBlock, block_floats = f.depth * kBlock;
  const int64_t quads = sixteen_units ? blocks / 4 : 0;  // calls of four blocks
  std::vector<float> packed;
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t d = 0; d < f.depth; ++d)
      for (int64_t j = 0; j < kBlock; ++j) {
        int64_t unit = b * kBlock + j;
        packed.push_back(unit < f.units ? static_cast<float>(filter.element_as_double(p.filter_index(unit, d))) : 0.0f);
      }
  return a.wrap([&] {
    return ir::allocate_const("packed_weights", DataType::Float32(), {blocks * block_floats}, float_bytes(packed),
                              [&](const ir::Buffer& w) {
      // `count` sums from block `first` on: the call, then each stored unit's output.
      auto call_and_store = [&](const Expr& row, const Expr& first, int64_t count, bool sixteen) {
        return with_zeroed_acc(count, [&](const ir::Buffer& acc) {
          Expr x = ir::address_of(input, {row, 0}), weights = ir::address_of(w, {first * block_floats});
          std::vector<ir::Stmt> body = {ir::evaluate(
              sixteen ? ir::dot_f32_1x16(x, weights, ir::make_int(block_floats), ir::make_int(f.depth), ir::address_of(acc, {0}))
                      : ir::dot_f32_1x4(x, weights, ir::make_int(f.depth), ir::address_of(acc, {0})))};
          // Units past the last are zero weights, not stored; only the last block has them.
          const bool last_block_here = !sixteen || blocks == 4 * quads;
          for (int64_t j = 0; j < count; ++j) {
            Expr unit = first * kBlock + j;
            Expr sum = ir::load(acc, {j});
            Expr value = a.output(p.float_biased(sum, bias, unit), unit);
            ir::Stmt store = ir::store(output, {row, unit}, kb.epilogue(value, p.output_index(row, unit)));
            bool partial = last_block_here && f.units % kBlock != 0 && j >= count - kBlock + f.units % kBlock;
            body.push_back(partial ? ir::if_then_else(unit < ir::make_int(f.units), store) : store);
          }
          return ir::seq(body);
        });
      };
      return ir::loop_nest({f.batches}, {"b"}, [&](const std::vector<Expr>& o) {
        std::vector<ir::Stmt> parts;
        if (quads > 0)
          parts.push_back(ir::loop_nest({quads}, {"quad"}, [&](const std::vector<Expr>& q) {
            return call_and_store(o[0], q[0] * 4, 4 * kBlock, true);
          }));
        if (blocks > 4 * quads)
          parts.push_back(ir::loop_nest({blocks - 4 * quads}, {"block"}, [&](const std::vector<Expr>& k) {
            return call_and_store(o[0], k[0] + 4 * quads, kBlock, false);
          }));
        return ir::seq(parts);
      });
    });
  });
}

namespace {

// On a core with an FPU: float32 with a constant filter, in register blocks over weights
// packed at compile time.
ir::Stmt build_conv_f32(KernelBuilder& kb, const ConvProblem& p, ConvOperands& ops) {
  ops.bias = p.bias != kNoTensor ? kb.tensor_param(p.bias, p.bias_name) : nullptr;
  ops.output = kb.tensor_param(p.output, p.output_name);
  return p.depthwise ? lower_depthwise_f32(kb, p.geometry, *p.arithmetic, ops, *p.constants.filter)
                     : lower_blocked_conv_f32(kb, p.geometry, *p.arithmetic, ops, *p.constants.filter);
}

}  // namespace

AOTC_REGISTER_KERNEL(ConvKernels, ({"fpu.depthwise_f32", 10,
                                      [](const ConvProblem& p, const TargetFacts& target) {
                                        return target.has("fpu") && p.float32_constant_filter && p.depthwise &&
                                               depthwise_f32_applies(p.geometry);
                                      },
                                      // Four channels at a time over all pixels, then the next four.
                                      build_conv_f32, /*pixels_in_flight=*/0}));
AOTC_REGISTER_KERNEL(ConvKernels, ({"fpu.blocked_conv_f32", 10,
                                      [](const ConvProblem& p, const TargetFacts& target) {
                                        return target.has("fpu") && p.float32_constant_filter && !p.depthwise &&
                                               blocked_conv_f32_applies(p.geometry);
                                      },
                                      // Four pixels by four channels a block.
                                      build_conv_f32, /*pixels_in_flight=*/4}));

// On a core with an FPU: four units per call over weights packed at compile time, sixteen
// with Helium's float vectors (`mve.fp`).
AOTC_REGISTER_KERNEL(FcKernels, ({
    "fpu.fully_connected_f32", 10,
    [](const FcProblem& p, const TargetFacts& target) {
      return target.has("fpu") && p.float32_constant_filter;
    },
    [](KernelBuilder& kb, const FcProblem& p, FcViews& views) {
      ir::Buffer bias = p.bias != kNoTensor ? kb.tensor_param(p.bias, "bias") : nullptr;
      return lower_fully_connected_f32(kb, p, views, bias, kb.target().has("mve.fp"));
    }}));

}  // namespace aotc
