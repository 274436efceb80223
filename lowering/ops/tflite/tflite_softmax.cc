// TFLite SOFTMAX over the last axis: float32, int8 input with int8 or int16 output, and
// int16 (16x8 models).
//
// The float kernel is TFLite's: e = exp((x - max) * beta) for each element, the float sum
// of the e in order, then e / sum. The int8 kernel is TensorFlow Lite Micro's integer
// softmax (reference/softmax.h), reproduced bit for bit: each difference x - max is
// rescaled by beta * input_scale into Q5.26, exponentiated in fixed point
// (runtime-c/aotc_quant_softmax.h), the exponentials are summed in Q12.19, and each one is
// multiplied by the fixed-point reciprocal of the sum. Differences below diff_min would
// not fit in Q5.26 after rescaling; their exponentials count as zero and their outputs
// are the output type's minimum. Only integer arithmetic runs in the int8 kernel.
//
// The int16 kernel is TensorFlow Lite Micro's SoftmaxInt16: each difference x - max is
// rescaled so that [-65535, 0] stands for [-10, 0], looked up in a 513-entry table of exp
// with linear interpolation, the int16 exponentials are summed in int32 and the sum's
// reciprocal is looked up in a table of 1 / (1 + x) after normalizing it by its leading
// zeros. The tables are TFLite's LUTPopulate<int16_t>, computed at compile time in the same
// float arithmetic (and the host's expf) and emitted as constants.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"
#include "lowering/compute/reduction.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;

// Fixed-point formats of the int8 kernel: differences in Q5.26 (a difference may reach
// -32 before the exponential makes it negligible), the sum of exponentials in Q12.19
// (up to 4096 terms of at most 1).
constexpr int kScaledDiffIntegerBits = 5;
constexpr int kAccumulationIntegerBits = 12;
constexpr int64_t kMaxQuantizedDepth = (int64_t{1} << kAccumulationIntegerBits) - 1;

// What TFLite Micro's SoftmaxPrepare computes for an int8 input.
struct SoftmaxScaling {
  QuantizedMultiplier input;  // beta * input_scale * 2^26 (shift >= 0)
  int32_t diff_min;           // differences below this are dropped
};

double beta_of(const Node& node) { return static_cast<double>(static_cast<float>(node.attr_float("beta", 1.0))); }

// TFLite's PreprocessSoftmaxScaling and CalculateInputRadius, in the same double arithmetic.
SoftmaxScaling softmax_scaling(const Graph& g, const Node& node) {
  const double max_real_multiplier = static_cast<double>((int64_t{1} << 31) - 1);
  double real = std::min(
      beta_of(node) * tflite::scale_of(g, node.inputs[0]) * static_cast<double>(1 << (31 - kScaledDiffIntegerBits)),
      max_real_multiplier);
  if (!(real > 1.0))
    node_error(node, "beta * input scale * 2^26 is " + std::to_string(real) +
                         "; TFLite's int8 softmax requires it to exceed 1");
  SoftmaxScaling s;
  s.input = quantize_multiplier(real);
  // The largest |difference| whose rescaled value still fits in Q5.26, rounded down.
  double radius = 1.0 * ((1 << kScaledDiffIntegerBits) - 1) *
                  static_cast<double>(int64_t{1} << (31 - kScaledDiffIntegerBits)) /
                  static_cast<double>(int64_t{1} << s.input.shift);
  s.diff_min = -static_cast<int32_t>(std::floor(radius));
  return s;
}

// TFLite Micro's CalculateSoftmaxParams: the output of an int8 softmax is a probability
// with a fixed quantization, int8 (scale 1/256, zero point -128) or int16 (scale 1/65536,
// zero point -32768).
void require_probability_output(const Graph& g, const Node& node) {
  TensorId out = node.outputs[0];
  const Tensor& y = g.tensor(out);
  tflite::require_per_tensor_quantized(g, node, out);
  float scale = static_cast<float>(tflite::scale_of(g, out));
  int32_t zero_point = tflite::zero_point_of(g, out);
  bool ok = y.dtype == DataType::Int(8) ? zero_point == -128 && scale == 1.f / 256
                                        : zero_point == -32768 && std::fabs(scale - 1.f / 65536) <= 0.001f / 65536;
  if (!ok)
    node_error(node, "output '" + y.name + "' has scale " + std::to_string(scale) + " and zero point " +
                         std::to_string(zero_point) + "; TFLite's int8 softmax needs " +
                         (y.dtype == DataType::Int(8) ? "1/256 and -128" : "1/65536 and -32768"));
}

// ---------------------------------------------------------------- int16

// The int16 kernel's limits: a depth whose sum of exponentials (each at most 32767) stays
// below 2^31, which the normalization by leading zeros needs.
constexpr int64_t kMaxInt16Depth = 65536;

// TFLite Micro's CalculateSoftmaxParams for int16: zero points 0, output scale 1/32768, and
// the multiplier that maps input differences onto the exp table's [-65535, 0] = [-10, 0].
QuantizedMultiplier int16_input_multiplier(const Graph& g, const Node& node) {
  return quantize_multiplier(tflite::scale_of(g, node.inputs[0]) * beta_of(node) / (10.0 / 65535.0));
}

void infer_int16_softmax(Graph& g, Node& node) {
  const Tensor& x = g.tensor(node.inputs[0]);
  const Tensor& y = g.tensor(node.outputs.at(0));
  if (y.dtype != DataType::Int(16))
    node_error(node, "output '" + y.name + "' is " + y.dtype.str() + "; an int16 softmax writes int16");
  tflite::set_declared_output(g, node, 0, y.dtype, x.shape);
  for (TensorId id : {node.inputs[0], node.outputs[0]}) {
    tflite::require_per_tensor_quantized(g, node, id);
    if (tflite::zero_point_of(g, id) != 0)
      node_error(node, "tensor '" + g.tensor(id).name + "' has zero point " + std::to_string(tflite::zero_point_of(g, id)) +
                           "; TFLite's int16 softmax needs 0");
  }
  float scale = static_cast<float>(tflite::scale_of(g, node.outputs[0]));
  if (std::fabs(scale - 1.f / 32768) > 0.001f / 32768)
    node_error(node, "output '" + y.name + "' has scale " + std::to_string(scale) + "; TFLite's int16 softmax needs 1/32768");
  if (x.shape.back() > kMaxInt16Depth)
    node_error(node, "softmax over " + std::to_string(x.shape.back()) + " values: the int16 kernel's int32 sum of " +
                         "exponentials holds at most " + std::to_string(kMaxInt16Depth));
}

void infer_softmax(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.shape.empty()) node_error(node, "input '" + x.name + "' must have at least one dimension");
  const Tensor& y = g.tensor(node.outputs.at(0));
  if (x.dtype == DataType::Float32()) {
    tflite::set_declared_output(g, node, 0, x.dtype, x.shape);
    return;
  }
  if (x.dtype == DataType::Int(16)) {
    infer_int16_softmax(g, node);
    return;
  }
  if (x.dtype != DataType::Int(8))
    node_error(node, "input '" + x.name + "' is " + x.dtype.str() + "; only float32, int8 and int16 are supported");
  if (y.dtype != DataType::Int(8) && y.dtype != DataType::Int(16))
    node_error(node, "output '" + y.name + "' is " + y.dtype.str() + "; an int8 softmax writes int8 or int16");
  tflite::set_declared_output(g, node, 0, y.dtype, x.shape);
  tflite::require_per_tensor_quantized(g, node, node.inputs[0]);
  require_probability_output(g, node);
  if (x.shape.back() > kMaxQuantizedDepth)
    node_error(node, "softmax over " + std::to_string(x.shape.back()) + " values: the int8 kernel's Q12.19 sum of " +
                         "exponentials holds at most " + std::to_string(kMaxQuantizedDepth));
  softmax_scaling(g, node);  // rejects a scaling TFLite rejects, now rather than at lowering
}

// ---------------------------------------------------------------- kernels

// for c in [0, depth): body(c)
ir::Stmt for_each_class(int64_t depth, const std::function<ir::Stmt(Expr)>& body) {
  ir::Var c = ir::make_var("c");
  return ir::for_loop(c, 0, ir::make_int(depth), body(ir::var_expr(c)));
}

// Binds `value` to a fresh variable named `name` around `body`.
ir::Stmt bind(const std::string& name, Expr value, const std::function<ir::Stmt(Expr)>& body) {
  ir::Var v = ir::make_var(name, value.dtype());
  return ir::let(v, value, body(ir::var_expr(v)));
}

// The row of an [..., depth] tensor at `outer` (indices of the leading axes) and class c.
std::vector<Expr> at(std::vector<Expr> outer, Expr c) {
  outer.push_back(std::move(c));
  return outer;
}

// The largest element of the row as TFLite finds it (std::max: acc stays unless acc < x),
// in lowest's type, starting from `lowest`; `body` gets it.
ir::Stmt with_row_max(Expr lowest, const ir::Buffer& x, const std::vector<Expr>& row, int64_t depth,
                      const std::function<ir::Stmt(Expr)>& body) {
  DataType t = lowest.dtype();
  return with_accumulator("row_max", std::move(lowest), [&](const Accumulator& m) {
    Expr acc = m.value();
    ir::Stmt scan = for_each_class(depth, [&](Expr c) {
      Expr v = ir::cast(t, ir::load(x, at(row, c)));
      return m.set(ir::select(acc < v, v, acc));
    });
    return ir::seq({scan, body(acc)});
  });
}

ir::Stmt float_softmax_row(const ir::Buffer& x, const ir::Buffer& y, const std::vector<Expr>& row, int64_t depth,
                           float beta) {
  return with_row_max(
      ir::make_float(std::numeric_limits<float>::lowest()), x, row, depth, [&](Expr max) {
        return with_accumulator("sum", ir::make_float(0.0), [&](const Accumulator& sum) {
          ir::Stmt exponentials = for_each_class(depth, [&](Expr c) {
            Expr e = ir::call("expf", {(ir::load(x, at(row, c)) - max) * ir::make_float(beta)}, DataType::Float32());
            return bind("e", e, [&](Expr ev) {
              return ir::seq({ir::store(y, at(row, c), ev), sum.set(sum.value() + ev)});
            });
          });
          ir::Stmt normalize = for_each_class(
              depth, [&](Expr c) { return ir::store(y, at(row, c), ir::load(y, at(row, c)) / sum.value()); });
          return ir::seq({exponentials, normalize});
        });
      });
}

// The int8 kernel's arithmetic on one row.
class QuantizedSoftmaxRow {
 public:
  QuantizedSoftmaxRow(const Graph& g, const Node& node, int64_t depth)
      : scaling_(softmax_scaling(g, node)),
        out_bits_(g.tensor(node.outputs[0]).dtype.bits),
        out_min_(-(1 << (out_bits_ - 1))),
        out_max_((1 << (out_bits_ - 1)) - 1),
        depth_(depth) {}

  ir::Stmt build(const ir::Buffer& x, const ir::Buffer& y, const std::vector<Expr>& row) const {
    Expr lowest = ir::make_int(std::numeric_limits<int8_t>::min());
    return with_row_max(lowest, x, row, depth_, [&](Expr max) {  // int32
      auto difference = [&](Expr c) { return ir::cast(DataType::Int(32), ir::load(x, at(row, c))) - max; };
      return with_accumulator("sum_of_exps", ir::make_int(0), [&](const Accumulator& sum) {
        ir::Stmt accumulate = for_each_class(depth_, [&](Expr c) {
          return bind("diff", difference(c), [&](Expr diff) {
            Expr term = ir::rounding_divide_by_pot(exponential(diff), kAccumulationIntegerBits);  // Q0.31 -> Q12.19
            return ir::if_then_else(diff >= scaling_.diff_min, sum.set(sum.value() + term));
          });
        });
        ir::Stmt outputs = with_reciprocal(sum.value(), [&](Expr reciprocal, Expr exponent) {
          return for_each_class(depth_, [&](Expr c) {
            return bind("diff", difference(c), [&](Expr diff) {
              Expr probability = ir::sat_rounding_doubling_high_mul(reciprocal, exponential(diff));
              Expr value = tflite::clamp(scaled_down(probability, exponent) + out_min_, {out_min_, out_max_});
              return ir::if_then_else(diff >= scaling_.diff_min, ir::store(y, at(row, c), value),
                                      ir::store(y, at(row, c), ir::make_int(out_min_)));
            });
          });
        });
        return ir::seq({accumulate, outputs});
      });
    });
  }

 private:
  // exp(beta * input_scale * diff) in Q0.31, for diff_min <= diff <= 0: the rescaled
  // difference is Q5.26.
  Expr exponential(Expr diff) const {
    return ir::exp_on_negative_values_q5_26(
        ir::mul_by_quantized_multiplier(std::move(diff), scaling_.input.multiplier, scaling_.input.shift));
  }

  // TFLite's GetReciprocal of the Q12.19 sum: the Q0.31 reciprocal of its mantissa, and
  // the exponent that turns (reciprocal * exponential) into the output's units,
  // num_bits_over_unit + 31 - out_bits.
  ir::Stmt with_reciprocal(Expr sum, const std::function<ir::Stmt(Expr, Expr)>& body) const {
    return bind("reciprocal", ir::get_reciprocal(sum), [&](Expr reciprocal) {
      Expr num_bits_over_unit = kAccumulationIntegerBits - ir::count_leading_zeros(sum);
      return bind("exponent", num_bits_over_unit + (31 - out_bits_),
                  [&](Expr exponent) { return body(reciprocal, exponent); });
    });
  }

  // probability / 2^exponent, rounded. TFLite Micro stops with a failed check when the
  // exponent exceeds 31; every output is then below half a unit, and 0 is what the
  // division would give. (min() keeps the shift defined should the select be evaluated
  // eagerly.)
  Expr scaled_down(Expr probability, Expr exponent) const {
    if (!exponent_can_exceed_31()) return ir::rounding_divide_by_pot(probability, exponent);
    return ir::select(exponent > 31, ir::make_int(0), ir::rounding_divide_by_pot(probability, ir::min(exponent, 31)));
  }

  // The sum is at most depth * 2^19 (exp(0) in Q12.19), so the exponent
  // 12 - clz(sum) + 31 - out_bits passes 31 only if the sum reaches 2^(20 + out_bits):
  // from 512 classes with int8 output, never with int16 (kMaxQuantizedDepth).
  bool exponent_can_exceed_31() const { return depth_ >= (int64_t{1} << (out_bits_ + 1)); }

  SoftmaxScaling scaling_;
  int out_bits_;
  int32_t out_min_, out_max_;
  int64_t depth_;
};

// TFLite's LUTPopulate<int16_t> (kernels/internal/common.h, the float variant): 512 samples
// of `transform` over the int16 input range, each corrected by half the error of the linear
// interpolation at its step's midpoint, and the value at the range's end. Every operation
// is float, in TFLite's order, so that the table is TFLite's bit for bit.
std::vector<double> int16_table(float input_scale, int32_t input_zero_point, float output_scale, int32_t output_zero_point,
                                float (*transform)(float)) {
  const float input_min = input_scale * static_cast<float>(std::numeric_limits<int16_t>::min() - input_zero_point);
  const float input_max = input_scale * static_cast<float>(std::numeric_limits<int16_t>::max() - input_zero_point);
  const float output_min = output_scale * static_cast<float>(std::numeric_limits<int16_t>::min() - output_zero_point);
  const float output_max = output_scale * static_cast<float>(std::numeric_limits<int16_t>::max() - output_zero_point);
  const int steps = 512;
  const float step = (input_max - input_min) / static_cast<float>(steps);
  const float half_step = step / 2;
  const float output_scaling_inv = 65536.0f / (output_max - output_min);
  auto clamped = [](float v) {
    return static_cast<double>(static_cast<int16_t>(std::min(std::max(v, -32768.0f), 32767.0f)));
  };
  std::vector<double> table;
  for (int i = 0; i < steps; ++i) {
    const float value = transform(input_min + static_cast<float>(i) * step);
    const float midpoint = transform(input_min + static_cast<float>(i) * step + half_step);
    const float next = transform(input_min + static_cast<float>(i + 1) * step);
    const float sample = std::round(value * output_scaling_inv);
    const float midpoint_interpolated = std::round((next * output_scaling_inv + std::round(value * output_scaling_inv)) / 2);
    const float midpoint_sampled = std::round(midpoint * output_scaling_inv);
    const float bias = std::round((midpoint_interpolated - midpoint_sampled) / 2);
    table.push_back(clamped(sample - bias));
  }
  table.push_back(clamped(std::round(transform(input_max) * output_scaling_inv)));
  return table;
}

float exp_of(float v) { return std::exp(v); }
float one_over_one_plus(float v) { return 1.0f / (1.0f + v); }

// a mod m and a / m rounded down (m > 0): C's % and / truncate toward zero, TFLite's >> and &
// on negative values round down.
Expr floor_mod(const Expr& a, const Expr& m) { return ((a % m) + m) % m; }
Expr floor_div(const Expr& a, const Expr& m) { return (a - floor_mod(a, m)) / m; }

// TFLite's LUTLookup of an int16 value (here an int32 in [-32768, 32767]): the table entry
// at its top 9 bits, interpolated by its low 7 bits.
Expr table_lookup(const ir::Buffer& table, const Expr& value) {
  Expr offset = floor_mod(value, ir::make_int(128));
  Expr index = (value - offset) / ir::make_int(128) + ir::make_int(256);
  Expr base = ir::cast(DataType::Int(32), ir::load(table, {index}));
  Expr slope = ir::cast(DataType::Int(32), ir::load(table, {index + ir::make_int(1)})) - base;
  return ir::cast(DataType::Int(32), ir::cast(DataType::Int(16), base + floor_div(slope * offset + ir::make_int(64), ir::make_int(128))));
}

Expr saturate_int16(const Expr& v) { return ir::min(ir::max(v, ir::make_int(-32768)), ir::make_int(32767)); }

// The int16 kernel on one row; `powers` holds 2^k as int64 for k in [0, 32].
ir::Stmt int16_softmax_row(const QuantizedMultiplier& input, const ir::Buffer& exp_table, const ir::Buffer& reciprocal_table,
                           const ir::Buffer& powers, const ir::Buffer& x, const ir::Buffer& y,
                           const std::vector<Expr>& row, int64_t depth) {
  const DataType i32 = DataType::Int(32), i64 = DataType::Int(64);
  return with_row_max(ir::make_int(std::numeric_limits<int16_t>::min()), x, row, depth, [&](Expr max) {
    return with_accumulator("sum_of_exps", ir::make_int(0), [&](const Accumulator& sum) {
      // The exponentials, cached in the output row (as TFLite does), and their sum.
      ir::Stmt exponentials = for_each_class(depth, [&](Expr c) {
        Expr scaled = ir::mul_by_quantized_multiplier(ir::cast(i32, ir::load(x, at(row, c))) - max, input.multiplier, input.shift);
        return bind("e", table_lookup(exp_table, saturate_int16(scaled + ir::make_int(32767))), [&](Expr e) {
          return ir::seq({ir::store(y, at(row, c), ir::cast(DataType::Int(16), e)), sum.set(sum.value() + e)});
        });
      });
      ir::Stmt outputs = bind("headroom_plus_one", ir::count_leading_zeros(sum.value()), [&](Expr headroom) {
        Expr shifted_sum = ir::cast(i32, (ir::cast(i64, sum.value()) * ir::load(powers, {headroom - ir::make_int(1)}) +
                                          ir::make_int(1 << 13, i64)) / ir::make_int(1 << 14, i64));
        Expr reciprocal = table_lookup(reciprocal_table, saturate_int16(shifted_sum - ir::make_int((1 << 15) + (1 << 16))));
        return bind("reciprocal", reciprocal, [&](Expr r) {
          Expr right_shift = ir::make_int(31) - headroom;
          return for_each_class(depth, [&](Expr c) {
            Expr product = ir::cast(i64, ir::load(y, at(row, c))) * ir::cast(i64, r) + ir::load(powers, {right_shift - ir::make_int(1)});
            Expr result = ir::cast(i32, floor_div(product, ir::load(powers, {right_shift})));
            return ir::store(y, at(row, c), ir::cast(DataType::Int(16), ir::min(ir::max(result, ir::make_int(0)), ir::make_int(32767))));
          });
        });
      });
      return ir::seq({exponentials, outputs});
    });
  });
}

LoweredOp lower_int16_softmax(const Graph& g, const Node& node, KernelBuilder& kb, const ir::Buffer& x, const ir::Buffer& y) {
  const float range = 65535.0f;
  std::vector<double> exp_values = int16_table(10.0f / range, 32767, 2.0f / range, 0, exp_of);
  std::vector<double> reciprocal_values = int16_table(1.0f / range, -32768, 2.0f / range, 0, one_over_one_plus);
  std::vector<double> powers;
  for (int k = 0; k <= 32; ++k) powers.push_back(static_cast<double>(int64_t{1} << k));
  QuantizedMultiplier input = int16_input_multiplier(g, node);
  std::vector<int64_t> rows(x->shape.begin(), x->shape.end() - 1);
  int64_t depth = x->shape.back();
  ir::Stmt body = ir::allocate_const("exp_table", DataType::Int(16), exp_values, [&](const ir::Buffer& exp_table) {
    return ir::allocate_const("reciprocal_table", DataType::Int(16), reciprocal_values, [&](const ir::Buffer& reciprocal_table) {
      return ir::allocate_const("powers_of_two", DataType::Int(64), powers, [&](const ir::Buffer& power_table) {
        return ir::loop_nest(rows, {}, [&](const std::vector<Expr>& row) {
          return int16_softmax_row(input, exp_table, reciprocal_table, power_table, x, y, row, depth);
        });
      });
    });
  });
  return kb.finish(body);
}

LoweredOp lower_softmax(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input"), y = kb.output(0, "output");
  if (x->dtype == DataType::Int(16)) return lower_int16_softmax(g, node, kb, x, y);
  std::vector<int64_t> rows(x->shape.begin(), x->shape.end() - 1);
  int64_t depth = x->shape.back();
  float beta = static_cast<float>(beta_of(node));
  std::optional<QuantizedSoftmaxRow> quantized;
  if (x->dtype == DataType::Int(8)) quantized.emplace(g, node, depth);
  ir::Stmt body = ir::loop_nest(rows, {}, [&](const std::vector<Expr>& row) {
    return quantized ? quantized->build(x, y, row) : float_softmax_row(x, y, row, depth, beta);
  });
  return kb.finish(body);
}

// In place: each row is read whole before its first output is written, and the last pass
// writes class c after reading input c (the float kernel reads only its output there).
AOTC_REGISTER_OP("tfl.SOFTMAX", kernel_op(infer_softmax, lower_softmax).with({Role::kInPlace}));

}  // namespace
}  // namespace aotc
