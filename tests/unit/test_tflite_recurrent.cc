// TFLite SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM (lowering/ops/tflite/tflite_svdf.cc,
// tflite_lstm.cc): layers whose state lives in variable tensors that each run updates.
//
// Each case runs the kernel in the IR interpreter several times in a row, handing each run
// the state the previous one left, against TFLite Micro's reference kernels written out
// as plain loops (svdf_common.cc and the float lstm_eval.h here, the integer LSTM in
// tests/tflite_lstm_reference.h) that carry their state the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "lowering/ir/quantization.h"
#include "runtime-c/aotc_quant.h"
#include "tests/tflite_lstm_reference.h"
#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

// A graph of one stateful TFLite node: state tensors are variables whose run-time value
// the test keeps from one run to the next.
struct StatefulNode {
  GraphBuilder b;
  TensorId out = kNoTensor;

  StatefulNode() { b.graph.source_format = "tflite"; }

  template <typename T>
  TensorId state(const std::string& name, const Shape& shape, Quant quant = {}, T initial = T(0)) {
    TensorId id = add_tensor(b.graph, name, dtype_of<T>(), shape, quant);
    b.graph.tensor(id).is_variable = true;
    b.input_values[id] = to_bytes(std::vector<T>(static_cast<size_t>(element_count(shape)), initial));
    return id;
  }
  template <typename T>
  TensorId input(const std::string& name, const Shape& shape, const std::vector<T>& values, Quant quant = {}) {
    TensorId id = b.input(name, shape, values);
    if (quant.scale != 0) b.graph.tensor(id).quant = {{quant.scale}, {quant.zero_point}, -1};
    return id;
  }
  template <typename T>
  TensorId constant(const std::string& name, const Shape& shape, const std::vector<T>& values, Quant quant = {}) {
    TensorId id = b.constant(name, shape, values);
    if (quant.scale != 0) b.graph.tensor(id).quant = {{quant.scale}, {quant.zero_point}, -1};
    return id;
  }
  void add(const std::string& op, const std::vector<TensorId>& inputs, const std::map<std::string, AttrValue>& attrs,
           DataType out_type, Quant out_quant = {}) {
    out = b.node(op, inputs, attrs);
    b.graph.tensor(out).dtype = out_type;
    if (out_quant.scale != 0) b.graph.tensor(out).quant = {{out_quant.scale}, {out_quant.zero_point}, -1};
    b.graph.outputs = {out};
  }
  Node& node() { return b.graph.nodes.back(); }
  std::string error() { return b.error(out); }
  // One run (as lowered and after Simplify, which must agree): returns the output; the
  // state tensors keep what the kernel wrote.
  template <typename T>
  std::vector<T> run() {
    if (!inferred_) infer_shapes(b.graph), inferred_ = true;
    LoweredOp op = lower_node(b.graph, node());
    Memory memory = interpret_kernel(b.graph, op, b.input_values);
    op.func.body = ir::simplify(op.func.body);
    EXPECT_TRUE(interpret_kernel(b.graph, op, b.input_values) == memory) << "Simplify changed what the kernel writes";
    for (TensorId id : node().inputs)
      if (id != kNoTensor && b.graph.tensor(id).is_variable) b.input_values[id] = memory.at(id);
    return from_bytes<T>(memory.at(out));
  }
  template <typename T>
  std::vector<T> state_values(TensorId id) const {
    return from_bytes<T>(b.input_values.at(id));
  }

 private:
  bool inferred_ = false;
};

int32_t multiply_by_quantized_multiplier(int32_t x, QuantizedMultiplier m) {
  int left = m.shift > 0 ? m.shift : 0, right = m.shift > 0 ? 0 : -m.shift;
  return aotc_rounding_divide_by_pot(aotc_sat_rounding_doubling_high_mul(x * (1 << left), m.multiplier), right);
}

// ---------------------------------------------------------------- SVDF

struct SvdfSizes {
  int batches, input_size, filters, rank, memory;
  int units() const { return filters / rank; }
};

// The state moved one step to the front, the last element kept, as both references begin.
template <typename T>
void shift_state(std::vector<T>& state) {
  std::vector<T> shifted(state.size());
  for (size_t i = 0; i + 1 < state.size(); ++i) shifted[i] = state[i + 1];
  shifted.back() = state.back();
  state = shifted;
}

// TFLite Micro's EvalIntegerSvdfReference with a state of type T (int16 or int8).
template <typename T>
std::vector<int8_t> svdf_int8_reference(const SvdfSizes& s, const std::vector<int8_t>& x, Quant qx,
                                        const std::vector<int8_t>& wf, Quant qwf, const std::vector<T>& wt, Quant qwt,
                                        const std::vector<int32_t>& bias, std::vector<T>& state, Quant qs, Quant qy) {
  QuantizedMultiplier scale1 = quantize_multiplier(static_cast<double>(qx.scale * qwf.scale / qs.scale));
  QuantizedMultiplier scale2 = quantize_multiplier(static_cast<double>(qs.scale * qwt.scale / qy.scale));
  int zs = static_cast<int>(qs.zero_point);
  shift_state(state);
  for (int b = 0; b < s.batches; ++b) {
    for (int f = 0; f < s.filters; ++f) {
      int32_t dot = 0;
      for (int c = 0; c < s.input_size; ++c)
        dot += wf[f * s.input_size + c] * (x[b * s.input_size + c] - static_cast<int32_t>(qx.zero_point));
      int32_t v = multiply_by_quantized_multiplier(dot, scale1) + zs;
      state[(b * s.filters + f) * s.memory + s.memory - 1] = static_cast<T>(
          std::min<int32_t>(std::numeric_limits<T>::max(), std::max<int32_t>(std::numeric_limits<T>::min(), v)));
    }
  }
  std::vector<int8_t> y(static_cast<size_t>(s.batches * s.units()));
  for (int b = 0; b < s.batches; ++b) {
    for (int u = 0; u < s.units(); ++u) {
      int32_t total = bias.empty() ? 0 : bias[u];
      for (int r = 0; r < s.rank; ++r) {
        int f = u * s.rank + r;
        int32_t dot = 0;
        for (int j = 0; j < s.memory; ++j)
          dot += wt[f * s.memory + j] * (state[(b * s.filters + f) * s.memory + j] - zs);
        total += dot;
      }
      int32_t q = multiply_by_quantized_multiplier(total, scale2) + static_cast<int32_t>(qy.zero_point);
      y[b * s.units() + u] = static_cast<int8_t>(std::min(127, std::max(-128, q)));
    }
  }
  return y;
}

// EvalFloatSvdfReference, with TFLite's ActivationValFloat.
std::vector<float> svdf_float_reference(const SvdfSizes& s, const std::vector<float>& x, const std::vector<float>& wf,
                                        const std::vector<float>& wt, const std::vector<float>& bias,
                                        std::vector<float>& state, const std::string& activation) {
  shift_state(state);
  for (int b = 0; b < s.batches; ++b) {
    for (int f = 0; f < s.filters; ++f) {
      float dot = 0.0f;
      for (int c = 0; c < s.input_size; ++c) dot += wf[f * s.input_size + c] * x[b * s.input_size + c];
      state[(b * s.filters + f) * s.memory + s.memory - 1] = dot;
    }
  }
  std::vector<float> y(static_cast<size_t>(s.batches * s.units()));
  for (int b = 0; b < s.batches; ++b) {
    for (int u = 0; u < s.units(); ++u) {
      float total = bias[u];
      for (int r = 0; r < s.rank; ++r) {
        int f = u * s.rank + r;
        float dot = 0.0f;
        for (int j = 0; j < s.memory; ++j) dot += wt[f * s.memory + j] * state[(b * s.filters + f) * s.memory + j];
        total += dot;
      }
      if (activation == "RELU") total = std::max(0.0f, total);
      if (activation == "TANH") total = std::tanh(total);
      y[b * s.units() + u] = total;
    }
  }
  return y;
}

template <typename T>
void check_int8_svdf(const SvdfSizes& s, Quant qs, uint32_t seed) {
  Quant qx{0.031f, 7}, qwf{0.0042f, 0}, qwt{qs.scale > 0.01f ? 0.011f : 0.00093f, 0}, qy{0.047f, -12};
  std::vector<int8_t> wf = random_ints<int8_t>(static_cast<size_t>(s.filters * s.input_size), -127, 127, seed);
  std::vector<T> wt = random_ints<T>(static_cast<size_t>(s.filters * s.memory), std::numeric_limits<T>::min() + 1,
                                     std::numeric_limits<T>::max(), seed + 1);
  std::vector<int32_t> bias = random_ints<int32_t>(static_cast<size_t>(s.units()), -3000, 3000, seed + 2);
  StatefulNode n;
  TensorId x = n.input("x", {s.batches, s.input_size}, std::vector<int8_t>(static_cast<size_t>(s.batches * s.input_size)), qx);
  TensorId state = n.state<T>("state", {s.batches, s.filters * s.memory}, qs, static_cast<T>(qs.zero_point));
  n.add("tfl.SVDF",
        {x, n.constant("wf", {s.filters, s.input_size}, wf, qwf), n.constant("wt", {s.filters, s.memory}, wt, qwt),
         n.constant("bias", {s.units()}, bias, {qs.scale * qwt.scale, 0}), state},
        {{"rank", int64_t{s.rank}}}, DataType::Int(8), qy);
  std::vector<T> want_state(static_cast<size_t>(s.batches * s.filters * s.memory), static_cast<T>(qs.zero_point));
  for (int step = 0; step < s.memory + 2; ++step) {  // past the point where the first input leaves the memory
    std::vector<int8_t> input = random_ints<int8_t>(static_cast<size_t>(s.batches * s.input_size), -128, 127, seed + 10 + step);
    n.b.input_values[x] = to_bytes(input);
    std::vector<int8_t> want =
        svdf_int8_reference<T>(s, input, qx, wf, qwf, wt, qwt, bias, want_state, qs, qy);
    ASSERT_EQ(n.run<int8_t>(), want) << "run " << step;
    ASSERT_EQ(n.state_values<T>(state), want_state) << "state after run " << step;
  }
}

TEST(TfliteSvdf, Int8WithInt16StateFollowsTfliteRunAfterRun) {
  check_int8_svdf<int16_t>({1, 12, 8, 1, 5}, {0.00073f, 0}, 1);
  check_int8_svdf<int16_t>({2, 7, 6, 2, 4}, {0.0012f, 0}, 2);
}

// An int8 state has a zero point: it starts there (TFLite Micro's ResetVariableTensors),
// the new feature is shifted by it before the clamp, and the time weights see state - zp.
TEST(TfliteSvdf, Int8WithInt8StateAndZeroPoint) { check_int8_svdf<int8_t>({2, 9, 4, 2, 3}, {0.021f, -5}, 3); }

TEST(TfliteSvdf, FloatFollowsTfliteRunAfterRun) {
  SvdfSizes s{2, 5, 6, 3, 4};
  std::vector<float> wf = random_floats(static_cast<size_t>(s.filters * s.input_size), 4);
  std::vector<float> wt = random_floats(static_cast<size_t>(s.filters * s.memory), 5);
  std::vector<float> bias = random_floats(static_cast<size_t>(s.units()), 6);
  for (const char* activation : {"NONE", "RELU", "TANH"}) {
    StatefulNode n;
    TensorId x = n.input("x", {s.batches, s.input_size}, std::vector<float>(static_cast<size_t>(s.batches * s.input_size)));
    TensorId state = n.state<float>("state", {s.batches, s.filters * s.memory});
    n.add("tfl.SVDF",
          {x, n.constant("wf", {s.filters, s.input_size}, wf), n.constant("wt", {s.filters, s.memory}, wt),
           n.constant("bias", {s.units()}, bias), state},
          {{"rank", int64_t{s.rank}}, {"fused_activation", std::string(activation)}}, DataType::Float32());
    std::vector<float> want_state(static_cast<size_t>(s.batches * s.filters * s.memory), 0.0f);
    for (int step = 0; step < 6; ++step) {
      std::vector<float> input = random_floats(static_cast<size_t>(s.batches * s.input_size), 20 + step);
      n.b.input_values[x] = to_bytes(input);
      std::vector<float> want = svdf_float_reference(s, input, wf, wt, bias, want_state, activation);
      ASSERT_EQ(n.run<float>(), want) << activation << " run " << step;
      ASSERT_EQ(n.state_values<float>(state), want_state) << activation << " run " << step;
    }
  }
}

TEST(TfliteSvdf, RejectsWhatTfliteMicroRejects) {
  auto error = [](bool variable, int rank, Shape state_shape) {
    StatefulNode n;
    TensorId x = n.input("x", {1, 4}, std::vector<float>(4));
    TensorId state = n.state<float>("state", state_shape);
    n.b.graph.tensor(state).is_variable = variable;
    n.add("tfl.SVDF",
          {x, n.constant("wf", {4, 4}, random_floats(16, 1)), n.constant("wt", {4, 3}, random_floats(12, 2)),
           n.constant("bias", {4 / rank}, random_floats(static_cast<size_t>(4 / rank), 3)), state},
          {{"rank", int64_t{rank}}}, DataType::Float32());
    return n.error();
  };
  EXPECT_EQ(error(true, 1, {1, 12}), "");
  EXPECT_NE(error(false, 1, {1, 12}).find("must be a variable tensor"), std::string::npos);
  EXPECT_NE(error(true, 3, {1, 12}).find("4 filters do not divide by rank 3"), std::string::npos);
  EXPECT_NE(error(true, 1, {1, 11}).find("state 'state' is [1, 11], expected [1, 12]"), std::string::npos)
      << error(true, 1, {1, 11});
}

// ---------------------------------------------------------------- UNIDIRECTIONAL_SEQUENCE_LSTM

struct LstmSizes {
  int batches, steps, n_input, n_cell;
  bool time_major;
};

// How gtest (and so ctest) names a case: its fields, not its bytes (which include padding).
void PrintTo(const LstmSizes& s, std::ostream* os) {
  *os << s.batches << "x" << s.steps << "x" << s.n_input << "->" << s.n_cell << (s.time_major ? " time-major" : " batch-major");
}

float tflite_logistic(float x) {
  if (x > 16.619047164916992188f) return 1.0f;
  if (x < -9.0f) return std::exp(x);
  return 1.0f / (1.0f + std::exp(-x));
}

// The weights of the four gates (input, forget, cell, output), as TFLite orders them.
struct LstmWeights {
  std::vector<float> w[4], r[4], bias[4];
};

// TFLite Micro's float LstmStep over the sequence: gates from FC(x) + FC(h), then the cell
// and hidden states, h copied to the output at each step.
std::vector<float> lstm_reference(const LstmSizes& s, const std::vector<float>& x, const LstmWeights& p,
                                  std::vector<float>& h, std::vector<float>& c, float cell_clip, bool sigmoid_cell_gate) {
  std::vector<float> y(static_cast<size_t>(s.batches * s.steps * s.n_cell));
  for (int b = 0; b < s.batches; ++b) {
    for (int t = 0; t < s.steps; ++t) {
      int row = s.time_major ? t * s.batches + b : b * s.steps + t;
      std::vector<float> gate[4];
      for (int g = 0; g < 4; ++g) {
        gate[g].resize(static_cast<size_t>(s.n_cell));
        for (int k = 0; k < s.n_cell; ++k) {
          float in = 0.0f, rec = 0.0f;
          for (int i = 0; i < s.n_input; ++i) in += x[row * s.n_input + i] * p.w[g][k * s.n_input + i];
          in = in + p.bias[g][k];
          for (int j = 0; j < s.n_cell; ++j) rec += h[b * s.n_cell + j] * p.r[g][k * s.n_cell + j];
          float pre = in + rec;
          gate[g][k] = g == 2 && !sigmoid_cell_gate ? std::tanh(pre) : tflite_logistic(pre);
        }
      }
      for (int k = 0; k < s.n_cell; ++k) {
        float& cell = c[b * s.n_cell + k];
        float forget = gate[1][k] * cell, update = gate[0][k] * gate[2][k];
        cell = forget + update;
        if (cell_clip > 0) cell = std::max(std::min(cell_clip, cell), -cell_clip);
        h[b * s.n_cell + k] = std::tanh(cell) * gate[3][k];
        y[row * s.n_cell + k] = h[b * s.n_cell + k];
      }
    }
  }
  return y;
}

struct Lstm {
  StatefulNode n;
  TensorId x, h, c;
  LstmWeights p;

  Lstm(const LstmSizes& s, float cell_clip, const std::string& activation, uint32_t seed) {
    Shape x_shape = s.time_major ? Shape{s.steps, s.batches, s.n_input} : Shape{s.batches, s.steps, s.n_input};
    x = n.input("x", x_shape, std::vector<float>(static_cast<size_t>(element_count(x_shape))));
    std::vector<TensorId> inputs = {x};
    for (int g = 0; g < 4; ++g) {
      p.w[g] = random_floats(static_cast<size_t>(s.n_cell * s.n_input), seed + g, 0.6f);
      inputs.push_back(n.constant("w" + std::to_string(g), {s.n_cell, s.n_input}, p.w[g]));
    }
    for (int g = 0; g < 4; ++g) {
      p.r[g] = random_floats(static_cast<size_t>(s.n_cell * s.n_cell), seed + 10 + g, 0.6f);
      inputs.push_back(n.constant("r" + std::to_string(g), {s.n_cell, s.n_cell}, p.r[g]));
    }
    for (int i = 0; i < 3; ++i) inputs.push_back(kNoTensor);  // no peephole
    for (int g = 0; g < 4; ++g) {
      p.bias[g] = random_floats(static_cast<size_t>(s.n_cell), seed + 20 + g, 0.3f);
      inputs.push_back(n.constant("bias" + std::to_string(g), {s.n_cell}, p.bias[g]));
    }
    inputs.push_back(kNoTensor);  // no projection
    inputs.push_back(kNoTensor);
    h = n.state<float>("output_state", {s.batches, s.n_cell});
    c = n.state<float>("cell_state", {s.batches, s.n_cell});
    inputs.push_back(h);
    inputs.push_back(c);
    for (int i = 0; i < 4; ++i) inputs.push_back(kNoTensor);  // no layer normalization
    n.add("tfl.UNIDIRECTIONAL_SEQUENCE_LSTM", inputs,
          {{"fused_activation", activation}, {"cell_clip", static_cast<double>(cell_clip)},
           {"time_major", int64_t{s.time_major ? 1 : 0}}},
          DataType::Float32());
  }
};

class TfliteLstm : public ::testing::TestWithParam<LstmSizes> {};

TEST_P(TfliteLstm, FloatFollowsTfliteRunAfterRun) {
  const LstmSizes& s = GetParam();
  for (float cell_clip : {0.0f, 0.8f}) {
    for (const char* activation : {"TANH", "SIGMOID"}) {
      Lstm lstm(s, cell_clip, activation, 7);
      std::vector<float> h(static_cast<size_t>(s.batches * s.n_cell)), c(h.size());
      for (int run = 0; run < 3; ++run) {
        std::vector<float> x = random_floats(static_cast<size_t>(s.batches * s.steps * s.n_input), 40 + run, 2.0f);
        lstm.n.b.input_values[lstm.x] = to_bytes(x);
        std::vector<float> want = lstm_reference(s, x, lstm.p, h, c, cell_clip, activation == std::string("SIGMOID"));
        ASSERT_EQ(lstm.n.run<float>(), want) << "clip " << cell_clip << " " << activation << " run " << run;
        ASSERT_EQ(lstm.n.state_values<float>(lstm.h), h) << "run " << run;
        ASSERT_EQ(lstm.n.state_values<float>(lstm.c), c) << "run " << run;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, TfliteLstm,
                         ::testing::Values(LstmSizes{1, 5, 3, 4, false}, LstmSizes{3, 4, 6, 2, false},
                                           LstmSizes{2, 3, 5, 3, true}),
                         [](const auto& info) {
                           const LstmSizes& s = info.param;
                           return "b" + std::to_string(s.batches) + "_t" + std::to_string(s.steps) +
                                  (s.time_major ? "_time_major" : "_batch_major");
                         });

// ---------------------------------------------------------------- integer LSTM

// The integer layer `l` as a graph node, its states starting where TFLite Micro's
// ResetVariableTensors puts them.
template <typename T, typename Bias>
struct IntegerLstmNode {
  StatefulNode n;
  TensorId x, h, c;

  explicit IntegerLstmNode(const IntegerLstm<T, Bias>& l) {
    Shape x_shape = l.time_major ? Shape{l.steps, l.batches, l.n_input} : Shape{l.batches, l.steps, l.n_input};
    x = n.input("x", x_shape, std::vector<T>(static_cast<size_t>(element_count(x_shape))),
                {l.input.scale, l.input.zero_point});
    std::vector<TensorId> inputs = {x};
    for (int g = 0; g < 4; ++g)
      inputs.push_back(n.constant("w" + std::to_string(g), {l.n_cell, l.n_input}, l.input_weights[g], {l.input_weight_scale[g], 0}));
    for (int g = 0; g < 4; ++g)
      inputs.push_back(
          n.constant("r" + std::to_string(g), {l.n_cell, l.n_cell}, l.recurrent_weights[g], {l.recurrent_weight_scale[g], 0}));
    for (int i = 0; i < 3; ++i) inputs.push_back(kNoTensor);
    for (int g = 0; g < 4; ++g)
      inputs.push_back(n.constant("bias" + std::to_string(g), {l.n_cell}, l.bias[g], {l.input.scale * l.input_weight_scale[g], 0}));
    inputs.push_back(kNoTensor);
    inputs.push_back(kNoTensor);
    h = n.state<T>("output_state", {l.batches, l.n_cell}, {l.hidden.scale, l.hidden.zero_point},
                   static_cast<T>(l.hidden.zero_point));
    c = n.state<int16_t>("cell_state", {l.batches, l.n_cell}, {l.cell.scale, 0});
    inputs.push_back(h);
    inputs.push_back(c);
    for (int i = 0; i < 4; ++i) inputs.push_back(kNoTensor);
    n.add("tfl.UNIDIRECTIONAL_SEQUENCE_LSTM", inputs,
          {{"fused_activation", std::string(l.sigmoid_cell_gate ? "SIGMOID" : "TANH")},
           {"cell_clip", static_cast<double>(l.cell_clip)},
           {"time_major", int64_t{l.time_major ? 1 : 0}}},
          dtype_of<T>(), {l.hidden.scale, l.hidden.zero_point});
  }
};

template <typename T, typename Bias>
IntegerLstm<T, Bias> integer_layer(const LstmSizes& s, LstmQuant in, LstmQuant hidden, int cell_power, float clip,
                                   uint32_t seed) {
  IntegerLstm<T, Bias> l = random_integer_lstm<T, Bias>(s.batches, s.steps, s.n_input, s.n_cell, s.time_major, seed);
  l.input = in;
  l.hidden = hidden;
  l.cell = {std::ldexp(1.0f, cell_power), 0};
  l.cell_clip = clip;
  set_random_biases(l, 1.5, seed + 1);
  return l;
}

// Four runs in the interpreter against the reference: outputs and both states after each.
template <typename T, typename Bias>
void check_integer_lstm(const IntegerLstm<T, Bias>& l) {
  IntegerLstmNode<T, Bias> node(l);
  std::vector<T> h(static_cast<size_t>(l.batches * l.n_cell), static_cast<T>(l.hidden.zero_point));
  std::vector<int16_t> c(h.size(), 0);
  for (int run = 0; run < 4; ++run) {
    std::vector<T> x = random_ints<T>(static_cast<size_t>(l.batches * l.steps * l.n_input), std::numeric_limits<T>::min(),
                                      std::numeric_limits<T>::max(), 90 + static_cast<uint32_t>(run));
    node.n.b.input_values[node.x] = to_bytes(x);
    std::vector<T> want = l.run(x, h, c);
    ASSERT_EQ(node.n.template run<T>(), want) << "run " << run;
    ASSERT_EQ(node.n.template state_values<T>(node.h), h) << "hidden state after run " << run;
    ASSERT_EQ(node.n.template state_values<int16_t>(node.c), c) << "cell state after run " << run;
  }
}

TEST_P(TfliteLstm, Int8FollowsTfliteMicroRunAfterRun) {
  check_integer_lstm(integer_layer<int8_t, int32_t>(GetParam(), {0.045f, -9}, {1.0f / 128, 4}, -11, 0.5f, 3));
  check_integer_lstm(integer_layer<int8_t, int32_t>(GetParam(), {0.06f, 17}, {0.009f, -20}, -14, 0.0f, 4));
}

TEST_P(TfliteLstm, Int16FollowsTfliteMicroRunAfterRun) {
  check_integer_lstm(integer_layer<int16_t, int64_t>(GetParam(), {0.00025f, 0}, {1.0f / 32768, 0}, -12, 1.0f, 5));
}

TEST(TfliteLstmErrors, RejectsWhatTheKernelDoesNotCompute) {
  LstmSizes s{1, 2, 3, 2, false};
  {
    Lstm lstm(s, 0.0f, "RELU", 1);
    EXPECT_NE(lstm.n.error().find("fused activation RELU is not supported"), std::string::npos) << lstm.n.error();
  }
  {
    Lstm lstm(s, 0.0f, "TANH", 1);
    lstm.n.node().inputs[9] = lstm.n.constant("peephole", {2}, std::vector<float>{1, 1});
    EXPECT_NE(lstm.n.error().find("peephole connections are not supported"), std::string::npos) << lstm.n.error();
  }
  {
    Lstm lstm(s, 0.0f, "TANH", 1);
    lstm.n.node().inputs[1] = kNoTensor;
    EXPECT_NE(lstm.n.error().find("CIFG"), std::string::npos) << lstm.n.error();
  }
  {
    Lstm lstm(s, 0.0f, "TANH", 1);
    lstm.n.b.graph.tensor(lstm.c).is_variable = false;
    EXPECT_NE(lstm.n.error().find("state 'cell_state' must be a variable tensor"), std::string::npos) << lstm.n.error();
  }
  {
    Lstm lstm(s, 0.0f, "TANH", 1);
    lstm.n.b.graph.tensor(lstm.n.node().inputs[6]).shape = {2, 3};
    EXPECT_NE(lstm.n.error().find("recurrent-to-forget weights 'r1' is [2, 3], expected [2, 2]"), std::string::npos)
        << lstm.n.error();
  }
}

// What TFLite Micro's integer kernel does not compute, or computes only with parameters
// aotc does not take, is an error naming the node and the problem.
TEST(TfliteLstmErrors, RejectsIntegerLayersTfliteMicroDoesNotRun) {
  LstmSizes s{1, 2, 3, 2, false};
  auto error = [&](const std::function<void(IntegerLstm<int8_t, int32_t>&)>& change_layer,
                   const std::function<void(IntegerLstmNode<int8_t, int32_t>&)>& change_node) {
    IntegerLstm<int8_t, int32_t> l = integer_layer<int8_t, int32_t>(s, {0.05f, 0}, {1.0f / 128, 0}, -11, 0.0f, 1);
    if (change_layer) change_layer(l);
    IntegerLstmNode<int8_t, int32_t> node(l);
    if (change_node) change_node(node);
    return node.n.error();
  };
  EXPECT_EQ(error(nullptr, nullptr), "");
  EXPECT_NE(error([](auto& l) { l.cell.scale = 0.0003f; }, nullptr).find("not a power of two"), std::string::npos);
  std::string e = error(nullptr, [](auto& node) { node.n.b.graph.tensor(node.c).dtype = DataType::Int(8); });
  EXPECT_NE(e.find("cell state 'cell_state' is int8; int16 is required"), std::string::npos) << e;
  e = error(nullptr, [](auto& node) { node.n.b.graph.tensor(node.n.node().inputs[13]).dtype = DataType::Int(64); });
  EXPECT_NE(e.find("8x8 gate bias 'bias1' is int64; int32 is required"), std::string::npos) << e;
  e = error(nullptr, [](auto& node) { node.n.b.graph.tensor(node.n.node().inputs[2]).quant.zero_point = {3}; });
  EXPECT_NE(e.find("'w1' has zero point 3"), std::string::npos) << e;
  e = error(nullptr, [](auto& node) {
    Tensor& w = node.n.b.graph.tensor(node.n.node().inputs[5]);
    w.quant.scale = {0.01f, 0.02f};
    w.quant.zero_point = {0, 0};
  });
  EXPECT_NE(e.find("quantized per channel"), std::string::npos) << e;
  e = error(nullptr, [](auto& node) { node.n.node().inputs[9] = node.n.constant("peephole", {2}, std::vector<int16_t>{1, 1}); });
  EXPECT_NE(e.find("peephole connections are not supported"), std::string::npos) << e;
  e = error(nullptr, [](auto& node) { node.n.node().inputs[20] = node.n.constant("norm", {2}, std::vector<int16_t>{1, 1}); });
  EXPECT_NE(e.find("layer normalization is not supported"), std::string::npos) << e;
  e = error(nullptr, [](auto& node) { node.n.node().inputs[16] = node.n.constant("proj", {2, 2}, std::vector<int8_t>{1, 1, 1, 1}); });
  EXPECT_NE(e.find("a projection layer is not supported"), std::string::npos) << e;
  e = error(nullptr, [](auto& node) { node.n.node().inputs[1] = kNoTensor; });
  EXPECT_NE(e.find("CIFG"), std::string::npos) << e;
}

TEST(TfliteLstmErrors, RejectsInt16WithZeroPoints) {
  LstmSizes s{1, 2, 3, 2, false};
  IntegerLstm<int16_t, int64_t> l = integer_layer<int16_t, int64_t>(s, {0.0003f, 5}, {1.0f / 32768, 0}, -12, 0.0f, 1);
  IntegerLstmNode<int16_t, int64_t> node(l);
  EXPECT_NE(node.n.error().find("'x' has zero point 5; int16 activations are symmetric"), std::string::npos) << node.n.error();
}

}  // namespace
}  // namespace aotc::test
