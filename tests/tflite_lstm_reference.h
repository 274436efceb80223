// TensorFlow Lite Micro's integer UNIDIRECTIONAL_SEQUENCE_LSTM written out as loops, the
// oracle of aotc's integer LSTM tests (tests/unit/test_tflite_recurrent.cc runs the IR
// interpreter against it, tests/e2e/test_tflite_lstm.cc the generated C). Followed step for
// step from tflite-micro's kernels as of 2023-2024:
//   - lstm_eval_common.cc, PrepareGateParametersInteger and CreateLstmCellStateInfo: each
//     gate's two FULLY_CONNECTEDs output int16 at the scale 2^-12 with multipliers
//     QuantizeMultiplier(input scale * weight scale / 2^-12) (double of the float scales);
//     the MULs of the cell and hidden updates take gate outputs at 2^-15;
//   - lstm_eval.h, EvalLstm and LstmStep: time-major inputs run each step for all batches
//     at once, batch-major ones each batch's steps in turn; forget, input and cell gates,
//     the cell update, the output gate, the hidden update, the hidden state copied out;
//   - lstm_eval.cc: FullyConnected (reference_integer_ops, summing in the bias's type),
//     AddElementWise (saturating), Sigmoid and Tanh (reference_integer_ops on int16), Mul
//     (MulElementwise), Clipping.
// The fixed point underneath is tests/tflite_reference.h, not aotc's runtime.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "tests/tflite_reference.h"

namespace aotc::test {

struct LstmQuant {
  float scale = 0;
  int32_t zero_point = 0;
};

// One layer: T is the activations' type (int8 or int16), Bias the biases' (int32 or
// int64). Gates in TFLite's order: input, forget, cell, output.
template <typename T, typename Bias>
struct IntegerLstm {
  int batches = 1, steps = 1, n_input = 1, n_cell = 1;
  bool time_major = false;
  LstmQuant input, hidden, cell;
  float input_weight_scale[4] = {}, recurrent_weight_scale[4] = {};
  std::vector<int8_t> input_weights[4], recurrent_weights[4];  // [n_cell, n_input], [n_cell, n_cell]
  std::vector<Bias> bias[4];                                   // [n_cell]
  float cell_clip = 0;
  bool sigmoid_cell_gate = false;  // the fused activation: TANH, or SIGMOID

  // One run over the whole sequence x (in the model's layout); h and c, [batches, n_cell],
  // are the state the run starts from and are left as the run leaves them. Returns the
  // output, the hidden state at every step.
  std::vector<T> run(const std::vector<T>& x, std::vector<T>& h, std::vector<int16_t>& c) const;
};

namespace lstm_reference {

// FullyConnectedParams and ArithmeticParams, the parts these kernels read.
struct FcParams {
  Multiplier scale;
  int32_t input_offset;
};
struct MulParams {
  Multiplier scale;
  int32_t output_offset, min, max;
};

// reference_integer_ops::FullyConnected into int16 (output offset 0), `rows` rows.
template <typename Bias, typename T>
std::vector<int16_t> fully_connected(const FcParams& p, const T* input, int rows, int depth, const std::vector<int8_t>& weights,
                                     const Bias* bias, int outputs) {
  std::vector<int16_t> out(static_cast<size_t>(rows * outputs));
  for (int b = 0; b < rows; ++b) {
    for (int o = 0; o < outputs; ++o) {
      Bias acc = 0;
      for (int d = 0; d < depth; ++d) {
        int32_t input_val = input[b * depth + d];
        int32_t filter_val = weights[static_cast<size_t>(o * depth + d)];
        acc += filter_val * (input_val + p.input_offset);  // filter offset 0: symmetric weights
      }
      if (bias) acc += bias[o];
      out[static_cast<size_t>(b * outputs + o)] = saturate<int16_t>(mbqm(acc, p.scale.multiplier, p.scale.shift));
    }
  }
  return out;
}

// reference_integer_ops::MulElementwise of two int16 values (input offsets 0).
inline int32_t mul(const MulParams& p, int32_t a, int32_t b) {
  return clamp_to(p.output_offset + mbqm(a * b, p.scale.multiplier, p.scale.shift), p.min, p.max);
}

template <typename T>
MulParams inter_gate_mul(float scale1, float scale2, float output_scale, int32_t output_zero_point) {
  return {quantize(static_cast<double>(scale1) * static_cast<double>(scale2) / static_cast<double>(output_scale)),
          output_zero_point, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
}

}  // namespace lstm_reference

template <typename T, typename Bias>
std::vector<T> IntegerLstm<T, Bias>::run(const std::vector<T>& x, std::vector<T>& h, std::vector<int16_t>& c) const {
  using namespace lstm_reference;
  // PrepareGateParametersInteger.
  const float kNonlinearInputScale = 0.000244140625f;     // 2^-12
  const float kNonlinearOutputScale = 0.000030517578125f;  // 2^-15
  FcParams input_fc[4], recurrent_fc[4];
  for (int g = 0; g < 4; ++g) {
    input_fc[g] = {quantize(static_cast<double>(input.scale) * static_cast<double>(input_weight_scale[g]) /
                            static_cast<double>(kNonlinearInputScale)),
                   -input.zero_point};
    recurrent_fc[g] = {quantize(static_cast<double>(hidden.scale) * static_cast<double>(recurrent_weight_scale[g]) /
                                static_cast<double>(kNonlinearInputScale)),
                       -hidden.zero_point};
  }
  MulParams forget_cell = inter_gate_mul<int16_t>(kNonlinearOutputScale, cell.scale, cell.scale, 0);
  MulParams input_mul = inter_gate_mul<int16_t>(kNonlinearOutputScale, kNonlinearOutputScale, cell.scale, 0);
  MulParams output_mul = inter_gate_mul<T>(kNonlinearOutputScale, kNonlinearOutputScale, hidden.scale, hidden.zero_point);
  // CreateLstmCellStateInfo.
  int cell_state_scale_power = 0;
  checked_log2(cell.scale, &cell_state_scale_power);
  const int16_t quantized_cell_clip = static_cast<int16_t>(
      std::min(std::max(static_cast<double>(cell_clip) / static_cast<double>(cell.scale), -32768.0), 32767.0));

  std::vector<T> y(static_cast<size_t>(batches * steps * n_cell));
  // LstmStep over `rows` rows of input (from input_at), state (from state_at) and output.
  auto step = [&](int rows, size_t input_at, size_t state_at, size_t output_at) {
    const size_t size = static_cast<size_t>(rows * n_cell);
    auto gate = [&](int g, bool tanh) {  // CalculateLstmGate
      std::vector<int16_t> out = fully_connected<Bias>(input_fc[g], x.data() + input_at, rows, n_input, input_weights[g],
                                                       bias[g].data(), n_cell);
      std::vector<int16_t> rec =
          fully_connected<Bias>(recurrent_fc[g], h.data() + state_at, rows, n_cell, recurrent_weights[g], nullptr, n_cell);
      for (size_t i = 0; i < size; ++i) {
        int16_t sum = saturate<int16_t>(out[i] + rec[i]);
        // Sigmoid: Logistic(0, 0, ...); Tanh with cell_state_scale_power -12: Tanh(0, 0, ...).
        out[i] = int16_logistic_or_tanh(sum, Multiplier{0, 0}, tanh);
      }
      return out;
    };
    std::vector<int16_t> forget = gate(1, false), input_gate = gate(0, false), cell_gate = gate(2, !sigmoid_cell_gate);
    int16_t* cell_state = c.data() + state_at;
    for (size_t i = 0; i < size; ++i) {  // UpdateLstmCell
      int16_t kept = static_cast<int16_t>(mul(forget_cell, forget[i], cell_state[i]));
      int16_t added = static_cast<int16_t>(mul(input_mul, input_gate[i], cell_gate[i]));
      cell_state[i] = saturate<int16_t>(kept + added);
      if (cell_clip > 0)
        cell_state[i] = std::max(std::min(quantized_cell_clip, cell_state[i]), static_cast<int16_t>(-quantized_cell_clip));
    }
    std::vector<int16_t> output_gate = gate(3, false);
    int32_t tanh_input_left_shift = (15 + cell_state_scale_power) - 3, tanh_input_multiplier = 0;
    if (tanh_input_left_shift < 0) {
      tanh_input_left_shift = -tanh_input_left_shift;
      tanh_input_multiplier = 3;
    }
    for (size_t i = 0; i < size; ++i) {  // UpdateLstmHidden
      int16_t tanh = int16_logistic_or_tanh(cell_state[i], Multiplier{tanh_input_multiplier, tanh_input_left_shift}, true);
      h[state_at + i] = static_cast<T>(mul(output_mul, tanh, output_gate[i]));
      y[output_at + i] = h[state_at + i];
    }
  };
  const size_t in_row = static_cast<size_t>(n_input), out_row = static_cast<size_t>(n_cell);
  if (time_major) {
    for (int t = 0; t < steps; ++t)
      step(batches, static_cast<size_t>(t * batches) * in_row, 0, static_cast<size_t>(t * batches) * out_row);
  } else {
    for (int b = 0; b < batches; ++b)
      for (int t = 0; t < steps; ++t)
        step(1, static_cast<size_t>(b * steps + t) * in_row, static_cast<size_t>(b) * out_row,
             static_cast<size_t>(b * steps + t) * out_row);
  }
  return y;
}

// A layer with weights, biases and scales drawn from `seed`: weight scales ~0.004-0.006,
// which with inputs of a few units put the gates' pre-activations across the sigmoid's and
// tanh's curved part rather than only at their saturated ends.
template <typename T, typename Bias>
IntegerLstm<T, Bias> random_integer_lstm(int batches, int steps, int n_input, int n_cell, bool time_major, uint32_t seed) {
  IntegerLstm<T, Bias> l;
  l.batches = batches, l.steps = steps, l.n_input = n_input, l.n_cell = n_cell, l.time_major = time_major;
  std::mt19937 rng(seed);
  auto ints = [&](size_t n, int64_t lo, int64_t hi) {
    std::uniform_int_distribution<int64_t> d(lo, hi);
    std::vector<int64_t> v(n);
    for (int64_t& e : v) e = d(rng);
    return v;
  };
  for (int g = 0; g < 4; ++g) {
    l.input_weight_scale[g] = 0.004f + 0.0005f * static_cast<float>(g);
    l.recurrent_weight_scale[g] = 0.0061f - 0.0004f * static_cast<float>(g);
    for (int64_t v : ints(static_cast<size_t>(n_cell * n_input), -127, 127)) l.input_weights[g].push_back(static_cast<int8_t>(v));
    for (int64_t v : ints(static_cast<size_t>(n_cell * n_cell), -127, 127)) l.recurrent_weights[g].push_back(static_cast<int8_t>(v));
  }
  return l;
}

// Biases of about +-`real` in the units of input scale * weight scale, as converters write
// them.
template <typename T, typename Bias>
void set_random_biases(IntegerLstm<T, Bias>& l, double real, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int g = 0; g < 4; ++g) {
    double unit = static_cast<double>(l.input.scale) * static_cast<double>(l.input_weight_scale[g]);
    std::uniform_real_distribution<double> d(-real, real);
    l.bias[g].clear();
    for (int k = 0; k < l.n_cell; ++k) l.bias[g].push_back(static_cast<Bias>(std::llround(d(rng) / unit)));
  }
}

}  // namespace aotc::test
