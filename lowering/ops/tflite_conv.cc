// TFLite CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, float32 and int8.
//
// The loops follow TFLite's reference kernels step for step — the same window order,
// the same skipping of padded positions, bias added after the sum — because float
// results then match to the last bit and int8 results must. int8 kernels accumulate
// (input - input_zero_point) * filter in int32, add the int32 bias, requantize with the
// per-channel multiplier and shift computed at compile time, add the output zero point
// and clamp to the fused activation's range: integer arithmetic only.
#include <algorithm>

#include "lowering/ops/kernel_builder.h"
#include "aot/graph/op_registry.h"
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

struct ConvGeometry {
  int64_t batches, in_h, in_w, in_c, out_h, out_w, out_c, filter_h, filter_w;
  int64_t stride_h, stride_w, dilation_h, dilation_w, pad_h, pad_w;
};

// `filter_layout_depthwise`: filter is [1, KH, KW, out_c]; otherwise [out_c, KH, KW, in_c].
ConvGeometry conv_geometry(const Graph& g, const Node& node, bool depthwise) {
  const Tensor& in = require_input(g, node, 0);
  const Tensor& filter = require_input(g, node, 1);
  if (in.shape.size() != 4 || filter.shape.size() != 4) node_error(node, "input and filter must be 4-D (NHWC)");
  ConvGeometry c;
  c.batches = in.shape[0], c.in_h = in.shape[1], c.in_w = in.shape[2], c.in_c = in.shape[3];
  c.filter_h = filter.shape[1], c.filter_w = filter.shape[2];
  c.out_c = depthwise ? filter.shape[3] : filter.shape[0];
  if (!depthwise && filter.shape[3] != c.in_c)
    node_error(node, "filter has " + std::to_string(filter.shape[3]) + " input channels but the input has " +
                         std::to_string(c.in_c) + " (grouped convolution is not supported)");
  if (depthwise && c.out_c % c.in_c != 0)
    node_error(node, "depthwise output channels " + std::to_string(c.out_c) + " are not a multiple of input channels " +
                         std::to_string(c.in_c));
  c.stride_h = node.attr_int("stride_h", 1), c.stride_w = node.attr_int("stride_w", 1);
  c.dilation_h = node.attr_int("dilation_h", 1), c.dilation_w = node.attr_int("dilation_w", 1);
  std::string padding = node.attr_string("padding", "SAME");
  auto h = tflite::compute_spatial(node, padding, c.in_h, c.filter_h, c.stride_h, c.dilation_h);
  auto w = tflite::compute_spatial(node, padding, c.in_w, c.filter_w, c.stride_w, c.dilation_w);
  c.out_h = h.out, c.pad_h = h.pad_before, c.out_w = w.out, c.pad_w = w.pad_before;
  return c;
}

void infer_conv(Graph& g, Node& node, bool depthwise) {
  ConvGeometry c = conv_geometry(g, node, depthwise);
  check_types(g, node);
  if (node.input(2) != kNoTensor && g.tensor(node.inputs[2]).num_elements() != c.out_c)
    node_error(node, "bias has " + std::to_string(g.tensor(node.inputs[2]).num_elements()) + " elements, expected " +
                         std::to_string(c.out_c));
  tflite::set_declared_output(g, node, 0, g.tensor(node.outputs[0]).dtype, {c.batches, c.out_h, c.out_w, c.out_c});
}

// Requantization of channel `oc`: constants when the filter is per-tensor, tables otherwise.
struct Requantizer {
  std::vector<QuantizedMultiplier> per_channel;
  ir::Buffer multipliers, shifts;  // set when per_channel.size() > 1

  Expr apply(Expr acc, Expr oc) const {
    if (per_channel.size() == 1)
      return ir::mul_by_quantized_multiplier(acc, per_channel[0].multiplier, per_channel[0].shift);
    return ir::mul_by_quantized_multiplier(acc, ir::load(multipliers, {oc}), ir::load(shifts, {oc}));
  }
};

// Wraps `body` in the multiplier and shift tables it reads, if any.
ir::Stmt with_requantizer(std::vector<QuantizedMultiplier> per_channel,
                          const std::function<ir::Stmt(const Requantizer&)>& body) {
  Requantizer r;
  r.per_channel = std::move(per_channel);
  if (r.per_channel.size() <= 1) return body(r);  // per-tensor, or a float kernel
  std::vector<double> mult, shift;
  for (auto& q : r.per_channel) mult.push_back(q.multiplier), shift.push_back(q.shift);
  return ir::allocate_const("multiplier", DataType::Int(32), mult, [&](const ir::Buffer& m) {
    return ir::allocate_const("shift", DataType::Int(32), shift, [&](const ir::Buffer& s) {
      r.multipliers = m;
      r.shifts = s;
      return body(r);
    });
  });
}

// The per-output-element tail shared by all three kernels: bias, then either the float
// activation or int8 requantization, offset and clamp.
struct OutputStage {
  const Graph& g;
  const Node& node;
  ir::Buffer bias;  // may be null
  bool quantized;

  Expr finish(Expr acc, Expr oc, const Requantizer* rq) const {
    if (bias) acc = acc + ir::load(bias, {oc});
    if (!quantized) return tflite::apply_float_activation(node, acc);
    TensorId out = anchor_output(node);
    Expr scaled = rq->apply(acc, oc) + tflite::zero_point_of(g, out);
    return tflite::clamp(scaled, tflite::output_range(g, node, out));
  }
};

// The input value that enters the sum: int8 values are widened and offset.
Expr input_term(const Graph& g, TensorId input, Expr value, bool quantized) {
  if (!quantized) return value;
  return ir::cast(DataType::Int(32), value) - tflite::zero_point_of(g, input);
}

Expr filter_term(const Graph& g, TensorId filter, Expr value, bool quantized) {
  if (!quantized) return value;
  Expr widened = ir::cast(DataType::Int(32), value);
  int32_t zp = tflite::zero_point_of(g, filter);
  return zp == 0 ? widened : widened - zp;
}

// The input term of the sum at (n, iy, ix, ic): read from the input tensor (and centred
// on its zero point for int8), or from a staged copy of the part of the input that the
// kernel is about to overwrite, which holds the centred values already.
using InputReader = std::function<Expr(Expr n, Expr iy, Expr ix, Expr ic)>;

// A convolution can write its output over its own input when the output has the input's
// shape and the input dies here: a depthwise convolution works channel by channel (the
// channel is copied to a small temporary first), a 1x1 convolution pixel by pixel (the
// pixel's channels are copied first). This is what takes models below the layer-by-layer
// memory bound. The staged kernels are correct whether or not the planner then places
// the output over the input.
enum class Staging { kNone, kPerChannel, kPerPixel };

Staging choose_staging(const Graph& g, const Node& node, const ConvGeometry& c, bool depthwise) {
  TensorId in = node.inputs[0];
  const Tensor& t = g.tensor(in);
  bool dies_here = !t.is_constant() && g.consumers(in).size() == 1 && !g.is_graph_output(in) &&
                   std::find(g.inputs.begin(), g.inputs.end(), in) == g.inputs.end();
  bool same_shape = c.out_h == c.in_h && c.out_w == c.in_w && c.out_c == c.in_c;
  if (!dies_here || !same_shape) return Staging::kNone;
  if (depthwise) return Staging::kPerChannel;
  bool pointwise = c.filter_h == 1 && c.filter_w == 1 && c.stride_h == 1 && c.stride_w == 1 && c.pad_h == 0 && c.pad_w == 0;
  return pointwise ? Staging::kPerPixel : Staging::kNone;
}

LoweredOp lower_conv(const LowerContext& ctx, bool depthwise) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  ConvGeometry c = conv_geometry(g, node, depthwise);
  bool quantized = tflite::is_int8(g, node.inputs[0]);
  DataType acc_type = quantized ? DataType::Int(32) : DataType::Float32();
  DataType in_type = g.tensor(node.inputs[0]).dtype;
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input"), w = kb.input(1, "filter");
  OutputStage stage{g, node, node.input(2) != kNoTensor ? kb.input(2, "bias") : nullptr, quantized};
  ir::Buffer y = kb.output(0, "output");
  int64_t multiplier = depthwise ? c.out_c / c.in_c : 1;
  std::vector<QuantizedMultiplier> rq_params;
  if (quantized) rq_params = tflite::channel_multipliers(g, node.inputs[0], node.inputs[1], anchor_output(node), c.out_c);
  Staging staging = choose_staging(g, node, c, depthwise);

  // acc = sum over the window (and input channels) of input * filter; output = finish(acc).
  auto output_element = [&](const Requantizer& rq, Expr n, Expr oy, Expr ox, Expr oc, const InputReader& read) {
    std::vector<Expr> o = {n, oy, ox, oc};
    auto sum = [&](const Accumulator& acc) {
      return ir::loop_nest({c.filter_h, c.filter_w}, {"ky", "kx"}, [&](const std::vector<Expr>& k) {
        Expr iy = oy * c.stride_h - c.pad_h + k[0] * c.dilation_h;
        Expr ix = ox * c.stride_w - c.pad_w + k[1] * c.dilation_w;
        Expr inside = ir::logical_and(ir::logical_and(iy >= 0, iy < c.in_h), ir::logical_and(ix >= 0, ix < c.in_w));
        auto term = [&](Expr ic, Expr filter_value) {
          return read(n, iy, ix, ic) * filter_term(g, node.inputs[1], filter_value, quantized);
        };
        ir::Stmt add;
        if (depthwise) {
          add = acc.set(acc.value() + term(oc / multiplier, ir::load(w, {0, k[0], k[1], oc})));
        } else {
          ir::Var ic = ir::make_var("ic");
          Expr icv = ir::var_expr(ic);
          add = ir::for_loop(ic, 0, ir::make_int(c.in_c),
                             acc.set(acc.value() + term(icv, ir::load(w, {oc, k[0], k[1], icv}))));
        }
        return ir::if_then_else(inside, add);
      });
    };
    auto write = [&](const Expr& total) { return ir::store(y, o, kb.epilogue(stage.finish(total, oc, &rq), o)); };
    return accumulate(ir::make_zero(acc_type), sum, write);
  };
  InputReader from_input = [&](Expr n, Expr iy, Expr ix, Expr ic) {
    return input_term(g, node.inputs[0], ir::load(x, {n, iy, ix, ic}), quantized);
  };
  // Staged int8 values are stored centred, as int16 (x - zero_point fits), so the
  // subtraction happens once per element instead of once per multiply.
  DataType staged_type = quantized ? DataType::Int(16) : in_type;
  auto stage_into = [&](const ir::Buffer& copy, const std::vector<Expr>& at, Expr n, Expr iy, Expr ix, Expr ic) {
    return ir::store(copy, at, ir::cast(staged_type, from_input(n, iy, ix, ic)));
  };
  auto staged = [&](const ir::Buffer& copy, const std::vector<Expr>& at) {
    Expr v = ir::load(copy, at);
    return quantized ? ir::cast(DataType::Int(32), v) : v;
  };

  ir::Stmt body = with_requantizer(rq_params, [&](const Requantizer& rq) {
    if (staging == Staging::kPerChannel) {
      return ir::loop_nest({c.batches, c.out_c}, {"n", "oc"}, [&](const std::vector<Expr>& nc) {
        ir::Buffer plane = ir::make_buffer("channel", staged_type, {c.in_h, c.in_w});
        ir::Stmt copy = ir::loop_nest({c.in_h, c.in_w}, {"y", "x"}, [&](const std::vector<Expr>& p) {
          return stage_into(plane, p, nc[0], p[0], p[1], nc[1]);
        });
        ir::Stmt compute = ir::loop_nest({c.out_h, c.out_w}, {"oy", "ox"}, [&](const std::vector<Expr>& p) {
          return output_element(rq, nc[0], p[0], p[1], nc[1], [&](Expr, Expr iy, Expr ix, Expr) { return staged(plane, {iy, ix}); });
        });
        return ir::allocate(plane, ir::seq({copy, compute}));
      });
    }
    if (staging == Staging::kPerPixel) {
      return ir::loop_nest({c.batches, c.out_h, c.out_w}, {"n", "oy", "ox"}, [&](const std::vector<Expr>& p) {
        ir::Buffer pixel = ir::make_buffer("pixel", staged_type, {c.in_c});
        ir::Stmt copy = ir::loop_nest({c.in_c}, {"ic"}, [&](const std::vector<Expr>& ic) {
          return stage_into(pixel, ic, p[0], p[1], p[2], ic[0]);
        });
        ir::Stmt compute = ir::loop_nest({c.out_c}, {"oc"}, [&](const std::vector<Expr>& oc) {
          return output_element(rq, p[0], p[1], p[2], oc[0], [&](Expr, Expr, Expr, Expr ic) { return staged(pixel, {ic}); });
        });
        return ir::allocate(pixel, ir::seq({copy, compute}));
      });
    }
    return ir::loop_nest({c.batches, c.out_h, c.out_w, c.out_c}, {"n", "oy", "ox", "oc"}, [&](const std::vector<Expr>& o) {
      return output_element(rq, o[0], o[1], o[2], o[3], from_input);
    });
  });
  if (staging != Staging::kNone) kb.allow_in_place(node.inputs[0]);
  return kb.finish(body);
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

LoweredOp lower_fc(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  FcGeometry f = fc_geometry(g, node);
  bool quantized = tflite::is_int8(g, node.inputs[0]);
  DataType acc_type = quantized ? DataType::Int(32) : DataType::Float32();
  KernelBuilder kb(ctx);
  // Parameters seen as 2-D, whatever the tensors' ranks.
  ir::Buffer x = ir::make_buffer("input", g.tensor(node.inputs[0]).dtype, {f.batches, f.depth});
  ir::Buffer w = kb.input(1, "filter");
  OutputStage stage{g, node, node.input(2) != kNoTensor ? kb.input(2, "bias") : nullptr, quantized};
  ir::Buffer y2 = ir::make_buffer("output", g.tensor(node.outputs[0]).dtype, {f.batches, f.units});
  std::vector<QuantizedMultiplier> rq_params;
  if (quantized) rq_params = tflite::channel_multipliers(g, node.inputs[0], node.inputs[1], node.outputs[0], f.units);

  ir::Stmt body = with_requantizer(rq_params, [&](const Requantizer& rq) {
    return ir::loop_nest({f.batches, f.units}, {"b", "unit"}, [&](const std::vector<Expr>& o) {
      auto sum = [&](const Accumulator& acc) {
        ir::Var d = ir::make_var("d");
        Expr dv = ir::var_expr(d);
        Expr term = input_term(g, node.inputs[0], ir::load(x, {o[0], dv}), quantized) *
                    filter_term(g, node.inputs[1], ir::load(w, {o[1], dv}), quantized);
        return ir::for_loop(d, 0, ir::make_int(f.depth), acc.set(acc.value() + term));
      };
      auto write = [&](const Expr& total) { return ir::store(y2, o, stage.finish(total, o[1], &rq)); };
      return accumulate(ir::make_zero(acc_type), sum, write);
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
