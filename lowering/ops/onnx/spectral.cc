// Signal processing (ONNX opset 17, and DFT-20): the window functions HannWindow,
// HammingWindow and BlackmanWindow, MelWeightMatrix, DFT and STFT.
//
// The windows and the mel matrix depend only on their scalar operands, which must be
// compile-time constants (the output's size is one of them): their values are computed
// here, in double precision with ONNX's formulas, and the kernel copies a constant table
// (constant folding then makes the output a constant outright).
//
//   Hann      w[n] = sin^2(pi n / N)
//   Hamming   w[n] = 25/46 - 21/46 cos(2 pi n / N)
//   Blackman  w[n] = 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)
// with N = size (periodic=1, the default) or size - 1 (periodic=0).
//
// DFT and STFT are direct O(n^2) transforms (an MCU's transform lengths are short, and
// any length works, not only powers of two) with a constant table of twiddle factors
// cos / sin(2 pi m / n), m = 0..n-1, indexed by (j k) mod n:
//   forward  Y[k] = sum_j x[j] e^{-2 pi i j k / n}
//   inverse  Y[k] = 1/n sum_j x[j] e^{+2 pi i j k / n}
// The last axis holds one (real) or two (real, imaginary) values; the output is complex.
// DFT's dft_length (a constant) zero-pads or truncates the signal along the axis;
// onesided=1 keeps the n/2 + 1 first frequencies. onesided=1 with inverse=1 is the
// inverse real transform (numpy's irfft, as ONNX specifies it for DFT-17 and DFT-20
// since onnx/onnx#7574): the input holds the first frequencies of a conjugate-symmetric
// spectrum, the others are their conjugates, and the output is the real signal
//   y[t] = 1/n sum_k w_k (Re X[k] cos(2 pi k t / n) - Im X[k] sin(2 pi k t / n))
// over the k < min(bins given, n/2 + 1), w_k = 1 for k = 0 and k = n/2 (their imaginary
// parts drop out, as numpy drops them), 2 for the others; n is dft_length, else
// 2 (bins - 1), and the output's last axis holds 1 value. STFT frames the
// signal [batch, length, 1 or 2] every frame_step samples, multiplies each frame by the
// window (input 2, a run-time tensor, or none), and returns [batch, frames, bins, 2].
// float32 and float64; sums run in the signal's type.
#include <cmath>
#include <string>
#include <vector>

#include "aot/base/element_bytes.h"
#include "aot/graph/op_registry.h"
#include "aot/import/onnx_importer.h"
#include "lowering/compute/data_movement.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"

namespace aotc {
namespace {

using ir::Expr;

constexpr double kPi = 3.14159265358979323846;

// The element type that attribute `output_datatype` names (float32 when absent).
DataType output_datatype(const Node& node, bool allow_integers) {
  int64_t code = node.attr_int("output_datatype", 1);
  std::optional<DataType> t = onnx_element_dtype(code);
  if (!t || t->is_float16() || t->is_bool() || (!allow_integers && !t->is_float()))
    node_error(node, "output_datatype " + onnx_element_type_name(code) + " is not supported" +
                         (allow_integers ? "" : " (float32 or float64)"));
  return *t;
}

// The elements of a float tensor `values` in type t (integer types: truncated toward
// zero, as numpy's astype does for the values these operators make, all in [0, 1]).
std::vector<uint8_t> table_bytes(const Node& node, DataType t, const std::vector<double>& values) {
  std::vector<uint8_t> bytes(values.size() * static_cast<size_t>(t.bytes()));
  for (size_t i = 0; i < values.size(); ++i) {
    double v = values[i];
    if (!t.is_float()) {
      if (!std::isfinite(v)) node_error(node, "a value is not a number and has no " + t.str() + " equivalent");
      v = std::trunc(v);
    }
    write_element(t, bytes.data(), static_cast<int64_t>(i), v);
  }
  return bytes;
}

// A kernel that copies `values` (computed at compile time) into output 0.
LoweredOp copy_table(KernelBuilder& kb, const std::vector<int64_t>& shape, const std::vector<double>& values) {
  ir::Buffer y = kb.output(0, "Y");
  DataType t = y->dtype;
  ir::Stmt body = ir::allocate_const("table", t, shape, table_bytes(kb.node(), t, values), [&](const ir::Buffer& table) {
    return ir::loop_nest(shape, {}, [&](const std::vector<Expr>& i) { return ir::store(y, i, ir::load(table, i)); });
  });
  return kb.finish(body);
}

// ---------------------------------------------------------------- windows

std::vector<double> window_values(const Graph& g, const Node& node) {
  int64_t size = constant_int_scalar(g, node, 0, "size (input 0)");
  if (size <= 0) node_error(node, "size must be positive, not " + std::to_string(size));
  if (size > (1 << 20)) node_error(node, "size " + std::to_string(size) + " is too large");
  bool periodic = node.attr_int("periodic", 1) != 0;
  double n_total = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> w(static_cast<size_t>(size));
  for (int64_t n = 0; n < size; ++n) {
    double x = static_cast<double>(n) / n_total;  // 0 / 0 (one symmetric point) is NaN, as in numpy
    double v;
    if (node.op == "HannWindow") {
      double s = std::sin(kPi * x);
      v = s * s;
    } else if (node.op == "HammingWindow") {
      v = 25.0 / 46.0 - 21.0 / 46.0 * std::cos(2 * kPi * x);
    } else {
      v = 0.42 - 0.5 * std::cos(2 * kPi * x) + 0.08 * std::cos(4 * kPi * x);
    }
    w[static_cast<size_t>(n)] = v;
  }
  return w;
}

void infer_window(Graph& g, Node& node) {
  DataType t = output_datatype(node, true);
  std::vector<double> w = window_values(g, node);
  if (!t.is_float()) table_bytes(node, t, w);  // rejects NaN for integer types
  set_output(g, node, 0, t, {static_cast<int64_t>(w.size())});
}

LoweredOp lower_window(const Graph& g, const Node& node, KernelBuilder& kb) {
  std::vector<double> w = window_values(g, node);
  return copy_table(kb, {static_cast<int64_t>(w.size())}, w);
}

// ---------------------------------------------------------------- MelWeightMatrix

// ONNX's definition (its reference implementation): num_mel_bins + 2 points equally
// spaced on the mel scale between the edges, each mapped to the spectrogram bin
// floor((dft_length + 1) f / sample_rate); filter i rises linearly from point i to point
// i + 1 and falls to point i + 2.
struct MelMatrix {
  int64_t bins = 0, mels = 0;
  std::vector<double> values;  // [bins, mels]
};

MelMatrix mel_matrix(const Graph& g, const Node& node) {
  int64_t mels = constant_int_scalar(g, node, 0, "num_mel_bins (input 0)");
  int64_t dft_length = constant_int_scalar(g, node, 1, "dft_length (input 1)");
  int64_t sample_rate = constant_int_scalar(g, node, 2, "sample_rate (input 2)");
  std::vector<double> lower = constant_floats(g, node, 3, "lower_edge_hertz (input 3)");
  std::vector<double> upper = constant_floats(g, node, 4, "upper_edge_hertz (input 4)");
  if (lower.size() != 1 || upper.size() != 1) node_error(node, "lower_edge_hertz and upper_edge_hertz must be scalars");
  if (mels <= 0 || dft_length <= 0 || sample_rate <= 0)
    node_error(node, "num_mel_bins, dft_length and sample_rate must be positive");
  if (mels > 4096 || dft_length > (1 << 20)) node_error(node, "the matrix would be too large");
  MelMatrix m;
  m.bins = dft_length / 2 + 1;
  m.mels = mels;
  m.values.assign(static_cast<size_t>(m.bins * m.mels), 0.0);
  auto to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  double low = to_mel(lower[0]), high = to_mel(upper[0]);
  double step = (high - low) / static_cast<double>(mels + 2);
  std::vector<int64_t> points;
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + low) / 2595.0) - 1.0);
    double bin = std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate));
    if (!(bin >= 0 && bin < static_cast<double>(m.bins)))
      node_error(node, "the edges map to spectrogram bin " + std::to_string(bin) + ", outside [0, " +
                           std::to_string(m.bins - 1) + "]: upper_edge_hertz must be at most sample_rate / 2");
    points.push_back(static_cast<int64_t>(bin));
  }
  auto at = [&](int64_t bin, int64_t mel) -> double& { return m.values[static_cast<size_t>(bin * m.mels + mel)]; };
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = points[static_cast<size_t>(i)], center = points[static_cast<size_t>(i + 1)],
            right = points[static_cast<size_t>(i + 2)];
    if (center == left) {
      at(center, i) = 1;
    } else {
      for (int64_t j = left; j <= center; ++j) at(j, i) = static_cast<double>(j - left) / static_cast<double>(center - left);
    }
    for (int64_t j = center; j < right; ++j) at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - center);
  }
  return m;
}

void infer_mel_weight_matrix(Graph& g, Node& node) {
  DataType t = output_datatype(node, true);
  MelMatrix m = mel_matrix(g, node);
  set_output(g, node, 0, t, {m.bins, m.mels});
}

LoweredOp lower_mel_weight_matrix(const Graph& g, const Node& node, KernelBuilder& kb) {
  MelMatrix m = mel_matrix(g, node);
  return copy_table(kb, {m.bins, m.mels}, m.values);
}

// ---------------------------------------------------------------- DFT, STFT

// cos and sin of 2 pi m / n for m = 0..n-1, as a [n, 2] constant of type t.
ir::Stmt with_twiddles(DataType t, int64_t n, const std::function<ir::Stmt(const ir::Buffer&)>& body) {
  std::vector<double> values;
  for (int64_t m = 0; m < n; ++m) {
    double angle = 2 * kPi * static_cast<double>(m) / static_cast<double>(n);
    values.push_back(std::cos(angle));
    values.push_back(std::sin(angle));
  }
  std::vector<uint8_t> bytes(values.size() * static_cast<size_t>(t.bytes()));
  for (size_t i = 0; i < values.size(); ++i) write_element(t, bytes.data(), static_cast<int64_t>(i), values[i]);
  return ir::allocate_const("twiddles", t, {n, 2}, bytes, body);
}

// One transform of length n: out(k, re, im) for k in [0, bins), from the samples
// sample(j) -> (re, im) for j in [0, count) (count <= n; the rest are zeros).
ir::Stmt transform(DataType t, int64_t n, int64_t bins, int64_t count, bool inverse, const ir::Buffer& twiddles,
                   const std::function<std::pair<Expr, Expr>(const Expr&)>& sample,
                   const std::function<ir::Stmt(const Expr&, const Expr&, const Expr&)>& out) {
  return ir::loop_nest({bins}, {"k"}, [&](const std::vector<Expr>& k) {
    return with_accumulator("re", ir::make_zero(t), [&](const Accumulator& re) {
      return with_accumulator("im", ir::make_zero(t), [&](const Accumulator& im) {
        ir::Stmt sum = ir::loop_nest({count}, {"j"}, [&](const std::vector<Expr>& j) {
          Expr m = (j[0] * k[0]) % ir::make_int(n);
          Expr c = ir::load(twiddles, {m, 0}), s = ir::load(twiddles, {m, 1});
          auto [xr, xi] = sample(j[0]);
          // (xr + i xi)(c -+ i s)
          Expr real = inverse ? xr * c - xi * s : xr * c + xi * s;
          Expr imag = inverse ? xi * c + xr * s : xi * c - xr * s;
          return ir::seq({re.set(re.value() + real), im.set(im.value() + imag)});
        });
        Expr scale = constant(inverse ? 1.0 / static_cast<double>(n) : 1.0, t);
        Expr y_re = inverse ? re.value() * scale : re.value();
        Expr y_im = inverse ? im.value() * scale : im.value();
        return ir::seq({sum, out(k[0], y_re, y_im)});
      });
    });
  });
}

// The inverse real transform of length n (see the top): out(t, y) for t in [0, n), from
// the frequencies sample(k) -> (re, im) for k in [0, count), count <= n / 2 + 1.
ir::Stmt inverse_real_transform(DataType t, int64_t n, int64_t count, const ir::Buffer& twiddles,
                                const std::function<std::pair<Expr, Expr>(const Expr&)>& sample,
                                const std::function<ir::Stmt(const Expr&, const Expr&)>& out) {
  std::vector<double> weights;
  for (int64_t k = 0; k < count; ++k) weights.push_back(k == 0 || 2 * k == n ? 1 : 2);
  return ir::allocate_const("weights", t, weights, [&](const ir::Buffer& weight) {
    return ir::loop_nest({n}, {"t"}, [&](const std::vector<Expr>& i) {
      return with_accumulator("y", ir::make_zero(t), [&](const Accumulator& y) {
        ir::Stmt sum = ir::loop_nest({count}, {"k"}, [&](const std::vector<Expr>& k) {
          Expr m = (k[0] * i[0]) % ir::make_int(n);
          auto [xr, xi] = sample(k[0]);
          Expr term = xr * ir::load(twiddles, {m, 0}) - xi * ir::load(twiddles, {m, 1});
          return y.set(y.value() + ir::load(weight, {k[0]}) * term);
        });
        return ir::seq({sum, out(i[0], y.value() * constant(1.0 / static_cast<double>(n), t))});
      });
    });
  });
}

void require_signal(const Node& node, const Tensor& x, size_t min_rank) {
  if (x.dtype != DataType::Float32() && x.dtype != DataType::Float64())
    node_error(node, "input '" + x.name + "' is " + x.dtype.str() + "; only float32 and float64 are supported");
  if (x.shape.size() < min_rank || (x.shape.back() != 1 && x.shape.back() != 2))
    node_error(node, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; the last axis must hold 1 (real) or "
                     "2 (complex) values and come after at least " + std::to_string(min_rank - 1) + " other axes");
}

struct DftPlan {
  size_t axis;
  int64_t length;  // n
  int64_t bins;    // output length along the axis
  bool inverse;
  bool inverse_real;  // onesided=1 with inverse=1: the output is real
  std::vector<int64_t> y_shape;
};

DftPlan plan_dft(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  require_signal(node, x, 3);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = node.attr_int("axis", 1);
  if (g.opset >= 20) axis = has_input(node, 2) ? constant_int_scalar(g, node, 2, "axis (input 2)") : -2;
  if (axis < -rank || axis > rank - 2 || axis == -1)
    node_error(node, "axis " + std::to_string(axis) + " is out of range: it must name a signal axis, not the last");
  DftPlan p;
  p.axis = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  p.inverse = node.attr_int("inverse", 0) != 0;
  bool onesided = node.attr_int("onesided", 0) != 0;
  p.inverse_real = onesided && p.inverse;
  if (p.inverse_real && x.shape.back() != 2)
    node_error(node, "onesided=1 with inverse=1 (an inverse real DFT) needs complex input, not '" + x.name +
                         "' of shape " + shape_str(x.shape));
  int64_t default_length = p.inverse_real ? 2 * (x.shape[p.axis] - 1) : x.shape[p.axis];
  p.length = has_input(node, 1) ? constant_int_scalar(g, node, 1, "dft_length (input 1)") : default_length;
  if (p.length <= 0 || p.length > 46340)
    node_error(node, "dft_length " + std::to_string(p.length) + " is out of range [1, 46340]" +
                         (has_input(node, 1) ? "" : " (it is 2 (bins - 1) for an inverse real DFT of one bin)"));
  p.bins = onesided && !p.inverse ? p.length / 2 + 1 : p.length;
  p.y_shape = x.shape;
  p.y_shape[p.axis] = p.bins;
  p.y_shape.back() = p.inverse_real ? 1 : 2;
  return p;
}

void infer_dft(Graph& g, Node& node) {
  DftPlan p = plan_dft(g, node);
  set_output(g, node, 0, require_input(g, node, 0).dtype, p.y_shape);
}

LoweredOp lower_dft(const Graph& g, const Node& node, KernelBuilder& kb) {
  DftPlan p = plan_dft(g, node);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  DataType t = x->dtype;
  bool complex = x->shape.back() == 2;
  // The samples read along the axis (the inverse real transform reads n / 2 + 1 bins).
  int64_t count = std::min(p.inverse_real ? p.length / 2 + 1 : p.length, x->shape[p.axis]);
  // Every index but the axis and the last: one transform each.
  std::vector<int64_t> outer_shape;
  for (size_t d = 0; d + 1 < x->shape.size(); ++d)
    if (d != p.axis) outer_shape.push_back(x->shape[d]);
  ir::Stmt body = with_twiddles(t, p.length, [&](const ir::Buffer& twiddles) {
    return ir::loop_nest(outer_shape, {}, [&](const std::vector<Expr>& outer) {
      auto index = [&](const Expr& along, const Expr& part) {
        std::vector<Expr> i;
        size_t next = 0;
        for (size_t d = 0; d + 1 < x->shape.size(); ++d) i.push_back(d == p.axis ? along : outer[next++]);
        i.push_back(part);
        return i;
      };
      auto sample = [&](const Expr& j) {
        return std::make_pair(ir::load(x, index(j, 0)), complex ? ir::load(x, index(j, 1)) : ir::make_zero(t));
      };
      if (p.inverse_real)
        return inverse_real_transform(t, p.length, count, twiddles, sample,
                                      [&](const Expr& i, const Expr& value) { return ir::store(y, index(i, 0), value); });
      return transform(t, p.length, p.bins, count, p.inverse, twiddles, sample, [&](const Expr& k, const Expr& re, const Expr& im) {
        return ir::seq({ir::store(y, index(k, 0), re), ir::store(y, index(k, 1), im)});
      });
    });
  });
  return kb.finish(body);
}

struct StftPlan {
  int64_t step, frame_length, frames, bins;
};

StftPlan plan_stft(const Graph& g, const Node& node) {
  const Tensor& signal = require_input(g, node, 0);
  require_signal(node, signal, 3);
  if (signal.shape.size() != 3) node_error(node, "signal must have shape [batch, length, 1 or 2], got " + shape_str(signal.shape));
  StftPlan p;
  p.step = constant_int_scalar(g, node, 1, "frame_step (input 1)");
  if (p.step <= 0) node_error(node, "frame_step must be positive, not " + std::to_string(p.step));
  int64_t window_length = -1;
  if (has_input(node, 2)) {
    const Tensor& window = require_input(g, node, 2);
    if (window.dtype != signal.dtype || window.shape.size() != 1)
      node_error(node, "window must be a 1-D tensor of the signal's type, got " + window.dtype.str() + " " + shape_str(window.shape));
    window_length = window.shape[0];
  }
  if (has_input(node, 3)) {
    p.frame_length = constant_int_scalar(g, node, 3, "frame_length (input 3)");
    if (window_length >= 0 && window_length != p.frame_length)
      node_error(node, "frame_length " + std::to_string(p.frame_length) + " differs from the window's length " +
                           std::to_string(window_length));
  } else if (window_length >= 0) {
    p.frame_length = window_length;
  } else {
    node_error(node, "STFT needs a window or a frame_length");
  }
  int64_t length = signal.shape[1];
  if (p.frame_length <= 0 || p.frame_length > length || p.frame_length > 46340)
    node_error(node, "frame_length " + std::to_string(p.frame_length) + " is out of range [1, " +
                         std::to_string(std::min<int64_t>(length, 46340)) + "]");
  p.frames = (length - p.frame_length) / p.step + 1;
  bool onesided = node.attr_int("onesided", 1) != 0;
  if (onesided && signal.shape[2] == 2) node_error(node, "onesided=1 needs a real signal");
  p.bins = onesided ? p.frame_length / 2 + 1 : p.frame_length;
  return p;
}

void infer_stft(Graph& g, Node& node) {
  StftPlan p = plan_stft(g, node);
  const Tensor& signal = require_input(g, node, 0);
  set_output(g, node, 0, signal.dtype, {signal.shape[0], p.frames, p.bins, 2});
}

LoweredOp lower_stft(const Graph& g, const Node& node, KernelBuilder& kb) {
  StftPlan p = plan_stft(g, node);
  ir::Buffer x = kb.input(0, "signal");
  ir::Buffer window = has_input(node, 2) ? kb.input(2, "window") : nullptr;
  ir::Buffer y = kb.output(0, "Y");
  DataType t = x->dtype;
  bool complex = x->shape[2] == 2;
  ir::Stmt body = with_twiddles(t, p.frame_length, [&](const ir::Buffer& twiddles) {
    return ir::loop_nest({x->shape[0], p.frames}, {"b", "frame"}, [&](const std::vector<Expr>& i) {
      Expr b = i[0], frame = i[1];
      auto sample = [&](const Expr& j) {
        Expr at = frame * ir::make_int(p.step) + j;
        Expr re = ir::load(x, {b, at, 0});
        Expr im = complex ? ir::load(x, {b, at, 1}) : ir::make_zero(t);
        if (!window) return std::make_pair(re, im);
        Expr w = ir::load(window, {j});
        return std::make_pair(re * w, complex ? im * w : im);
      };
      return transform(t, p.frame_length, p.bins, p.frame_length, false, twiddles, sample,
                       [&](const Expr& k, const Expr& re, const Expr& im) {
                         return ir::seq({ir::store(y, {b, frame, k, 0}, re), ir::store(y, {b, frame, k, 1}, im)});
                       });
    });
  });
  return kb.finish(body);
}

AOTC_REGISTER_OPS(kernel_op(infer_window, lower_window), "HannWindow", "HammingWindow", "BlackmanWindow");
AOTC_REGISTER_OP("MelWeightMatrix", kernel_op(infer_mel_weight_matrix, lower_mel_weight_matrix));
AOTC_REGISTER_OP("DFT", kernel_op(infer_dft, lower_dft));
AOTC_REGISTER_OP("STFT", kernel_op(infer_stft, lower_stft));

}  // namespace
}  // namespace aotc
