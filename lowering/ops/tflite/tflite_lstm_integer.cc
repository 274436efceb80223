// TFLite UNIDIRECTIONAL_SEQUENCE_LSTM on integers, as TensorFlow Lite Micro's reference
// kernel computes it (lstm_eval.h and lstm_eval.cc, EvalLstm<ActivationType, int8_t,
// int16_t, BiasType>; lstm_eval_common.cc for the parameters): int8 activations with int8
// weights and int32 biases ("8x8->16"), or int16 activations with int8 weights and int64
// biases ("16x8->16"); both keep the cell state and the gates in int16.
//
// Each step of each batch, in TFLite Micro's order and roundings:
//   1. Each gate: two FULLY_CONNECTEDs into int16 at the scale 2^-12 (Q3.12) the integer
//      sigmoid and tanh take, the input's (x - x_zp, bias added) and the hidden state's
//      (h - h_zp, no bias), each requantized by its own multiplier (input scale * weight
//      scale / 2^-12) and clamped to int16; their sum clamped to int16; then the int16
//      sigmoid, or for the cell gate the fused activation (tanh or sigmoid), which give
//      Q0.15 (TFLite's table functions, aotc_logistic_s16 / aotc_tanh_s16, input
//      multiplier 3 at Q3.12). The FCs accumulate in the bias's type (int32, or int64 with
//      TFLite's 64-bit requantization for 16x8).
//   2. The cell: forget * c and input * cell_gate, each an int16 MUL requantized to the cell
//      state's scale (2^-15 * s_c / s_c and 2^-15 * 2^-15 / s_c) and clamped; their sum
//      clamped to int16, then to +-cell_clip / s_c (truncated) when cell_clip > 0.
//   3. The hidden state: tanh of the cell (the same int16 tanh, its input rescaled from the
//      cell's power-of-two scale 2^p to Q3.12: multiplier 3 << (12 + p), or 3 and a rounding
//      right shift by -(12 + p)), times the output gate, requantized to the hidden state's
//      scale (2^-30 / s_h) plus its zero point, clamped to its type; copied to the output.
// Every multiplier is TFLite's QuantizeMultiplier of the double product and quotient of
// the float scales, and every requantization TFLite's MultiplyByQuantizedMultiplier: the
// runtime's aotc_quant.h functions, which the interpreter evaluates as the generated C runs
// them (runtime_calls.h).
#include <algorithm>
#include <cmath>

#include "lowering/ir/quantization.h"
#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"
#include "lowering/ops/tflite/tflite_lstm.h"

namespace aotc::tflite_lstm {
namespace {

using tflite::float_scale;
using tflite::checked_log2;

const DataType kI16 = DataType::Int(16), kI32 = DataType::Int(32);
const QuantizedRange kInt16Range{-32768, 32767};
// The scales of the int16 sigmoid's and tanh's input (Q3.12) and output (Q0.15), exact
// in float as TFLite Micro writes them.
const float kGateInputScale = 1.0f / 4096, kGateOutputScale = 1.0f / 32768;

// QuantizeMultiplier(a * b / c), with the products and the quotient in double of the float
// scales, as CreateInterGateMulParams computes them.
QuantizedMultiplier effective_scale(float a, float b, float c) {
  return quantize_multiplier(static_cast<double>(a) * static_cast<double>(b) / static_cast<double>(c));
}

// A gate's input or recurrent product as CreateGateParams computes it: a fully connected
// layer into the gate's Q3.12 input (CalculateOpDataFullyConnected), whose per-tensor
// weights' scale multiplies the input's in float first (GetQuantizedConvolutionMultipler).
QuantizedMultiplier gate_scale(const Graph& g, TensorId input, TensorId weights) {
  if (!tflite::is_per_channel(g, weights))
    return tflite::per_tensor_product_multiplier(float_scale(g, input), float_scale(g, weights), kGateInputScale);
  return effective_scale(float_scale(g, input), float_scale(g, weights), kGateInputScale);
}

// Everything the kernel needs from the tensors' quantization and the node's options.
struct IntegerLstmParams {
  DataType accumulator;  // int32 (8x8) or int64 (16x8), the bias's type
  int32_t input_zero_point, hidden_zero_point;
  QuantizedMultiplier input_to_gate[4], recurrent_to_gate[4];
  QuantizedMultiplier forget_times_cell, input_times_cell_gate, hidden;
  int32_t cell_tanh_multiplier, cell_tanh_shift;  // the cell state to the tanh's Q3.12 input
  bool clip;
  int32_t quantized_clip;
  QuantizedRange hidden_range;
};

IntegerLstmParams integer_lstm_params(const Graph& g, const Node& node) {
  IntegerLstmParams q;
  TensorId x = node.inputs[kInput], h = node.inputs[kHiddenState], c = node.inputs[kCellState];
  DataType type = g.tensor(x).dtype;
  q.accumulator = type == DataType::Int(8) ? kI32 : DataType::Int(64);
  q.input_zero_point = tflite::zero_point_of(g, x);
  q.hidden_zero_point = tflite::zero_point_of(g, h);
  for (int gate = 0; gate < 4; ++gate) {
    q.input_to_gate[gate] = gate_scale(g, x, node.inputs[kInputWeights + gate]);
    q.recurrent_to_gate[gate] = gate_scale(g, h, node.inputs[kRecurrentWeights + gate]);
  }
  float cell_scale = float_scale(g, c);
  q.forget_times_cell = effective_scale(kGateOutputScale, cell_scale, cell_scale);
  q.input_times_cell_gate = effective_scale(kGateOutputScale, kGateOutputScale, cell_scale);
  q.hidden = effective_scale(kGateOutputScale, kGateOutputScale, float_scale(g, h));
  int power = 0;
  checked_log2(cell_scale, &power);  // check_integer_lstm made sure it is one
  int left_shift = 12 + power;
  q.cell_tanh_multiplier = left_shift >= 0 ? 3 << left_shift : 3;
  q.cell_tanh_shift = left_shift >= 0 ? 0 : -left_shift;
  float cell_clip = static_cast<float>(node.attr_float("cell_clip", 0.0));
  q.clip = cell_clip > 0.0f;
  q.quantized_clip = static_cast<int16_t>(
      std::min(std::max(static_cast<double>(cell_clip) / static_cast<double>(cell_scale), -32768.0), 32767.0));
  int32_t lo = type == DataType::Int(8) ? -128 : -32768;
  q.hidden_range = {lo, -lo - 1};
  return q;
}

void require_type(const Graph& g, const Node& node, TensorId id, DataType type, const std::string& what) {
  const Tensor& t = g.tensor(id);
  if (t.dtype != type) node_error(node, what + " '" + t.name + "' is " + t.dtype.str() + "; " + type.str() + " is required");
}

void require_zero_point(const Graph& g, const Node& node, TensorId id, const std::string& why) {
  if (tflite::zero_point_of(g, id) != 0)
    node_error(node, "tensor '" + g.tensor(id).name + "' has zero point " + std::to_string(tflite::zero_point_of(g, id)) +
                         "; " + why);
}

}  // namespace

void check_integer_lstm(const Graph& g, const Node& node) {
  TensorId x = node.inputs[kInput], h = node.inputs[kHiddenState], c = node.inputs[kCellState];
  DataType type = g.tensor(x).dtype;
  bool int16 = type == kI16;
  if (g.tensor(node.inputs[kInputWeights + kForgetGate]).dtype.is_float())
    node_error(node, "integer activations need integer weights");
  for (size_t i = kInputWeights; i < kRecurrentWeights + 4; ++i) {
    require_type(g, node, node.inputs[i], DataType::Int(8), "weights");
    tflite::require_per_tensor_quantized(g, node, node.inputs[i]);
    require_zero_point(g, node, node.inputs[i], "TFLite Micro's integer LSTM takes symmetric weights (zero point 0)");
  }
  for (size_t i = kGateBias; i < kGateBias + 4; ++i)
    require_type(g, node, node.inputs[i], int16 ? DataType::Int(64) : kI32, std::string(int16 ? "16x8" : "8x8") + " gate bias");
  require_type(g, node, h, type, "output state");
  require_type(g, node, c, kI16, "cell state");
  for (TensorId id : {x, h, c}) tflite::require_per_tensor_quantized(g, node, id);
  require_zero_point(g, node, c, "the cell state is symmetric (TFLite Micro ignores its zero point)");
  if (int16) {
    require_zero_point(g, node, x, "int16 activations are symmetric (TFLite's 16x8 scheme)");
    require_zero_point(g, node, h, "int16 activations are symmetric (TFLite's 16x8 scheme)");
  }
  int power = 0;
  if (!checked_log2(float_scale(g, c), &power))
    node_error(node, "cell state '" + g.tensor(c).name + "' has scale " + std::to_string(float_scale(g, c)) +
                         ", not a power of two (TFLite's integer tanh of the cell needs one)");
  if (power > 0 || power < -31)
    node_error(node, "cell state '" + g.tensor(c).name + "' has scale 2^" + std::to_string(power) +
                         "; supported: 2^-31 to 2^0");
  if (int16) {
    // TFLite's 64-bit requantization takes shifts in [-31, 7].
    IntegerLstmParams q = integer_lstm_params(g, node);
    for (int gate = 0; gate < 4; ++gate)
      for (const QuantizedMultiplier& m : {q.input_to_gate[gate], q.recurrent_to_gate[gate]})
        if (m.shift > 7 || m.shift < -31)
          node_error(node, std::string("the ") + kGateNames[gate] +
                               " gate's input or state scale times its weight scale is out of the range of TFLite's "
                               "16x8 requantization (2^-31 to 2^7 times 2^-12)");
  }
}

LoweredOp lower_integer_lstm(const LowerContext& ctx) {
  LstmGeometry s = lstm_geometry(ctx.graph, ctx.node);
  IntegerLstmParams q = integer_lstm_params(ctx.graph, ctx.node);
  KernelBuilder kb(ctx);
  LstmBuffers p = lstm_buffers(kb);
  bool sigmoid_cell_gate = ctx.node.attr_string("fused_activation", "NONE") == "SIGMOID";
  auto i32 = [](const Expr& v) { return ir::cast(kI32, v); };
  // The FCs requantize their sums in the accumulator's type; the MULs of the cell and hidden
  // states requantize an int32 product.
  auto requantize_sum = [&](const Expr& sum, const QuantizedMultiplier& m) {
    if (q.accumulator == kI32) return ir::requantize(sum, m.multiplier, m.shift);
    return ir::mul_by_quantized_multiplier_i64(sum, m.multiplier, m.shift);
  };
  auto requantize = [](const Expr& product, const QuantizedMultiplier& m) {
    return ir::requantize(product, m.multiplier, m.shift);
  };
  // (weight) * (value - zero point) as int32, summed in the accumulator's type.
  auto fc_term = [&](const Expr& weight, const Expr& value, int32_t zero_point) {
    return ir::cast(q.accumulator, i32(weight) * (i32(value) - zero_point));
  };
  Expr zero = ir::make_zero(q.accumulator);

  // 1. Each gate: the two FCs into int16, their saturated sum, the activation.
  auto gate = [&](const std::vector<Expr>& bt, Gate g, const Expr& cell, const StoreFn& store) {
    auto input_term = [&](const Expr& i) {
      return fc_term(ir::load(p.w[g], {cell, i}), ir::load(p.x, s.at_step(bt, i)), q.input_zero_point);
    };
    auto recurrent_term = [&](const Expr& j) {
      return fc_term(ir::load(p.r[g], {cell, j}), ir::load(p.h, {bt[0], j}), q.hidden_zero_point);
    };
    return dot_product("input_fc", "i", zero, s.n_input, input_term, [&](const Expr& in) {
      return dot_product("recurrent_fc", "j", zero, s.n_cell, recurrent_term, [&](const Expr& rec) {
        Expr in16 = tflite::clamp(requantize_sum(in + ir::load(p.bias[g], {cell}), q.input_to_gate[g]), kInt16Range);
        Expr rec16 = tflite::clamp(requantize_sum(rec, q.recurrent_to_gate[g]), kInt16Range);
        Expr pre = tflite::clamp(in16 + rec16, kInt16Range);
        bool tanh = g == kCellGate && !sigmoid_cell_gate;
        return store(ir::cast(kI16, tanh ? ir::tanh_s16(pre, 3, 0) : ir::logistic_s16(pre, 3, 0)));
      });
    });
  };
  // 2. and 3. The new cell and hidden states, and the step's output.
  auto update = [&](const std::vector<Expr>& bt, const Expr& cell, const Expr* gate_value) {
    std::vector<Expr> state_at = {bt[0], cell};
    Expr forget = tflite::clamp(requantize(i32(gate_value[kForgetGate]) * i32(ir::load(p.c, state_at)), q.forget_times_cell),
                                kInt16Range);
    Expr input = tflite::clamp(requantize(i32(gate_value[kInputGate]) * i32(gate_value[kCellGate]), q.input_times_cell_gate),
                               kInt16Range);
    Expr updated = tflite::clamp(forget + input, kInt16Range);
    if (q.clip) updated = tflite::clamp(updated, {-q.quantized_clip, q.quantized_clip});
    Expr tanh = ir::tanh_s16(i32(ir::load(p.c, state_at)), q.cell_tanh_multiplier, q.cell_tanh_shift);
    Expr hidden = tflite::clamp(requantize(tanh * i32(gate_value[kOutputGate]), q.hidden) + q.hidden_zero_point, q.hidden_range);
    return ir::seq({ir::store(p.c, state_at, ir::cast(kI16, updated)), ir::store(p.h, state_at, ir::cast(p.h->dtype, hidden)),
                    ir::store(p.y, s.at_step(bt, cell), ir::load(p.h, state_at))});
  };
  return kb.finish(lstm_steps(s, kI16, gate, update));
}

}  // namespace aotc::tflite_lstm
