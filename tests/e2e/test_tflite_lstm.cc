// TFLite's integer UNIDIRECTIONAL_SEQUENCE_LSTM end to end: a single-operator .tflite
// (int8 activations with int16 cell state, or int16 activations; int8 weights), compiled
// by aotc, its C built into a program that runs the model several times (the hidden and
// cell states carrying over from run to run), then <name>_reset() and once more. Every
// output byte must be what TensorFlow Lite Micro's integer kernel computes: the loops of
// tests/tflite_lstm_reference.h, written from tflite-micro's lstm_eval, run the same
// sequence of runs. The program is built with -Wall -Wextra -Werror -pedantic and runs
// under ASan and UBSan; the generated C also builds for the Cortex-M4 with the target's
// flags, with arm-none-eabi-gcc and clang.
#include <algorithm>
#include <type_traits>

#include "tests/e2e/e2e_util.h"
#include "tests/tflite_lstm_reference.h"
#include "tests/tflite_model_builder.h"

namespace aotc::e2e {
namespace {

using test::IntegerLstm;
using test::TfliteModelBuilder;
using FBB = flatbuffers::FlatBufferBuilder;

// One layer and how it is quantized and configured; names starting "int16" are 16x8
// layers, the others 8x8.
struct LstmCase {
  std::string name;
  int batches, steps, n_input, n_cell;
  bool time_major;
  float input_scale;
  int32_t input_zero_point;
  float hidden_scale;
  int32_t hidden_zero_point;
  int cell_scale_power;  // the cell state's scale is 2^power
  float cell_clip;
};

std::ostream& operator<<(std::ostream& os, const LstmCase& c) { return os << c.name; }

template <typename T>
tfl::TensorType tensor_type() {
  if (std::is_same_v<T, int8_t>) return tfl::TensorType_INT8;
  if (std::is_same_v<T, int16_t>) return tfl::TensorType_INT16;
  if (std::is_same_v<T, int32_t>) return tfl::TensorType_INT32;
  return tfl::TensorType_INT64;
}

template <typename T, typename Bias>
IntegerLstm<T, Bias> make_layer(const LstmCase& c, uint32_t seed) {
  IntegerLstm<T, Bias> l = test::random_integer_lstm<T, Bias>(c.batches, c.steps, c.n_input, c.n_cell, c.time_major, seed);
  l.input = {c.input_scale, c.input_zero_point};
  l.hidden = {c.hidden_scale, c.hidden_zero_point};
  l.cell = {std::ldexp(1.0f, c.cell_scale_power), 0};
  l.cell_clip = c.cell_clip;
  test::set_random_biases(l, 1.5, seed + 1);
  return l;
}

template <typename T, typename Bias>
std::vector<int32_t> x_shape(const IntegerLstm<T, Bias>& l, int last) {
  return l.time_major ? std::vector<int32_t>{l.steps, l.batches, last} : std::vector<int32_t>{l.batches, l.steps, last};
}

// The layer as a .tflite operator: the 24 inputs with peephole, projection and layer
// normalization left out, the states as variable tensors, the output quantized as the
// hidden state (TFLite Micro copies the hidden state's bytes to it).
template <typename T, typename Bias>
TfliteModelBuilder lstm_model(const IntegerLstm<T, Bias>& l) {
  static const char* const kGates[] = {"input", "forget", "cell", "output"};
  TfliteModelBuilder b;
  std::vector<int32_t> inputs = {b.input("x", tensor_type<T>(), x_shape(l, l.n_input), l.input.scale, l.input.zero_point)};
  for (int g = 0; g < 4; ++g)
    inputs.push_back(b.constant(std::string("input_to_") + kGates[g], tfl::TensorType_INT8, {l.n_cell, l.n_input},
                                l.input_weights[g], l.input_weight_scale[g], 0));
  for (int g = 0; g < 4; ++g)
    inputs.push_back(b.constant(std::string("recurrent_to_") + kGates[g], tfl::TensorType_INT8, {l.n_cell, l.n_cell},
                                l.recurrent_weights[g], l.recurrent_weight_scale[g], 0));
  inputs.insert(inputs.end(), {-1, -1, -1});
  for (int g = 0; g < 4; ++g)
    inputs.push_back(b.constant(std::string(kGates[g]) + "_bias", tensor_type<Bias>(), {l.n_cell}, l.bias[g],
                                l.input.scale * l.input_weight_scale[g], 0));
  inputs.insert(inputs.end(), {-1, -1});
  for (const char* state : {"output_state", "cell_state"}) {
    bool hidden = state == std::string("output_state");
    auto spec = TfliteModelBuilder::spec(state, hidden ? tensor_type<T>() : tfl::TensorType_INT16, {l.batches, l.n_cell},
                                         hidden ? l.hidden.scale : l.cell.scale, hidden ? l.hidden.zero_point : 0);
    spec.is_variable = true;
    inputs.push_back(b.tensor(spec));
  }
  inputs.insert(inputs.end(), {-1, -1, -1, -1});
  int32_t y = b.output("y", tensor_type<T>(), x_shape(l, l.n_cell), l.hidden.scale, l.hidden.zero_point);
  // (TFLite's schema has no SIGMOID activation: a .tflite cell gate is always TANH.)
  auto activation = tfl::ActivationFunctionType_TANH;
  float clip = l.cell_clip;
  bool time_major = l.time_major;
  b.op(tfl::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, inputs, {y}, tfl::BuiltinOptions_UnidirectionalSequenceLSTMOptions,
       [=](FBB& f) { return tfl::CreateUnidirectionalSequenceLSTMOptions(f, activation, clip, 0.0f, time_major).Union(); });
  return b;
}

// Runs the model (one input, one output) once per input in argv[1] (argv[2] bytes each),
// calling model_reset() before run argv[5]; writes the outputs (argv[3] bytes each) one
// after the other to argv[6].
const char* const kRunsHarness = R"(#include <stdio.h>
#include <stdlib.h>
#include "model.h"

static unsigned char input[1 << 16];
static unsigned char output[1 << 16];

int main(int argc, char** argv) {
  struct model_inputs in;
  struct model_outputs out;
  size_t in_bytes, out_bytes;
  long runs, reset_before, k;
  FILE *inputs, *outputs;
  if (argc != 7) return 64;
  in_bytes = (size_t)atol(argv[2]);
  out_bytes = (size_t)atol(argv[3]);
  runs = atol(argv[4]);
  reset_before = atol(argv[5]);
  inputs = fopen(argv[1], "rb");
  outputs = fopen(argv[6], "wb");
  if (!inputs || !outputs || in_bytes > sizeof input || out_bytes > sizeof output) return 65;
  in.x = (void*)input;
  out.y = (void*)output;
  for (k = 0; k < runs; ++k) {
    if (fread(input, 1, in_bytes, inputs) != in_bytes) return 66;
    if (k == reset_before) model_reset();
    if (model_run(&in, &out) != 0) return 2;
    if (fwrite(output, 1, out_bytes, outputs) != out_bytes) return 67;
  }
  fclose(inputs);
  return fclose(outputs) == 0 ? 0 : 67;
}
)";

class TfliteIntegerLstm : public TempDirTest<::testing::TestWithParam<LstmCase>> {
 protected:
  TfliteIntegerLstm() : TempDirTest("aotc-tflite-lstm") {}

  template <typename T, typename Bias>
  void check(const LstmCase& c) {
    IntegerLstm<T, Bias> l = make_layer<T, Bias>(c, 11);
    lstm_model(l).write(tmp("model.tflite"));
    Result r = run({"compile", tmp("model.tflite"), "-o", tmp("out")});
    ASSERT_EQ(r.status, 0) << r.output;
    std::string log;
    ASSERT_EQ(build_harness(kRunsHarness, tmp("out"), tmp("harness"),
                            {"-Wall", "-Wextra", "-Werror", "-pedantic", "-g", "-fsanitize=address,undefined",
                             "-fno-sanitize-recover=all"},
                            &log),
              0)
        << log;

    // Inputs a, a, b, then after the reset a again: the second run shows the state the first
    // left, the last must be the first again. Inputs span the type around the zero point.
    const size_t x_size = static_cast<size_t>(l.batches * l.steps * l.n_input);
    std::mt19937 rng(77);
    auto random_input = [&] {
      std::uniform_int_distribution<int32_t> d(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
      std::vector<T> x(x_size);
      for (T& v : x) v = static_cast<T>(d(rng));
      return x;
    };
    std::vector<T> a = random_input(), b = random_input();
    const std::vector<std::vector<T>> inputs = {a, a, b, a};
    const int kResetBefore = 3;
    std::string input_bytes;
    for (const std::vector<T>& x : inputs) input_bytes += bytes_of(x);
    std::ofstream(tmp("inputs.bin"), std::ios::binary) << input_bytes;
    const size_t y_size = static_cast<size_t>(l.batches * l.steps * l.n_cell);
    ASSERT_EQ(run_process({tmp("harness"), tmp("inputs.bin"), std::to_string(x_size * sizeof(T)),
                           std::to_string(y_size * sizeof(T)), std::to_string(inputs.size()), std::to_string(kResetBefore),
                           tmp("outputs.bin")},
                          &log),
              0)
        << log;
    std::vector<T> got = values_of<T>(read_bytes(tmp("outputs.bin")));
    ASSERT_EQ(got.size(), y_size * inputs.size());

    std::vector<T> h(static_cast<size_t>(l.batches * l.n_cell), static_cast<T>(l.hidden.zero_point));
    std::vector<int16_t> cell(h.size(), 0);
    std::vector<std::vector<T>> want;
    bool clipped = false;
    int16_t quantized_clip = static_cast<int16_t>(c.cell_clip / l.cell.scale);
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (static_cast<int>(k) == kResetBefore) {  // TFLite Micro's ResetVariableTensors
        std::fill(h.begin(), h.end(), static_cast<T>(l.hidden.zero_point));
        std::fill(cell.begin(), cell.end(), 0);
      }
      want.push_back(l.run(inputs[k], h, cell));
      for (int16_t v : cell) clipped = clipped || (c.cell_clip > 0 && std::abs(v) == quantized_clip);
      std::vector<T> run_output(got.begin() + static_cast<std::ptrdiff_t>(k * y_size),
                                got.begin() + static_cast<std::ptrdiff_t>((k + 1) * y_size));
      for (size_t i = 0; i < y_size; ++i)
        ASSERT_EQ(int{run_output[i]}, int{want[k][i]}) << "run " << k << ", output element " << i;
    }
    // What the case is there for: the state shows at the output, the reset restores it, the
    // clip (when set) is reached, and the output is not one saturated value.
    EXPECT_NE(want[1], want[0]);
    EXPECT_EQ(want[3], want[0]);
    if (c.cell_clip > 0) EXPECT_TRUE(clipped) << "the cell state never reached the clip";
    auto [lo, hi] = std::minmax_element(want[2].begin(), want[2].end());
    const int kMinimumSpread = std::is_same_v<T, int8_t> ? 40 : 5000;
    EXPECT_GT(int{*hi} - int{*lo}, kMinimumSpread) << "too little of the output range is used";

    // The same C for the Cortex-M4, with its flags, under gcc and clang.
    r = run({"compile", tmp("model.tflite"), "-o", tmp("m4"), "--target", "cortex-m4"});
    ASSERT_EQ(r.status, 0) << r.output;
    for (const char* file : {"model.c", "model_constants.c", "aotc_runtime.c"}) {
      std::string source = tmp("m4/") + file, cflags = tmp("m4/model.cflags");
      EXPECT_EQ(cross_compile_strict_c99(cflags, source, tmp("m4"), tmp("gcc.o"), &log), 0) << file << ":\n" << log;
      EXPECT_EQ(clang_cross_compile_strict_c99("thumbv7em-none-eabi", cflags, source, tmp("m4"), tmp("clang.o"), &log), 0)
          << file << ":\n" << log;
    }
  }
};

TEST_P(TfliteIntegerLstm, MatchesTfliteMicroRunAfterRun) {
  const LstmCase& c = GetParam();
  if (c.name.rfind("int16", 0) == 0) {
    check<int16_t, int64_t>(c);
  } else {
    check<int8_t, int32_t>(c);
  }
}

// int8: the cell at 2^-11 (the tanh's input multiplier 3 << 1) and 2^-15 (multiplier 3 and a
// right shift by 3), batch-major and time-major, one and two batches, zero points away from
// 0, the clip on and off. int16 (16x8): the cell at
// 2^-12 (the tanh's input as it is) and 2^-10, the hidden state at 2^-15.
INSTANTIATE_TEST_SUITE_P(
    Cases, TfliteIntegerLstm,
    ::testing::Values(LstmCase{"int8_b1_batch_major_clip", 1, 5, 6, 4, false, 0.05f, -3, 1.0f / 128, 7, -11, 0.6f},
                      LstmCase{"int8_b2_batch_major", 2, 3, 5, 6, false, 0.031f, 20, 0.0087f, -11, -11, 0.0f},
                      LstmCase{"int8_b2_time_major_clip", 2, 4, 3, 5, true, 0.07f, -100, 1.0f / 128, 0, -15, 0.45f},
                      LstmCase{"int16_b2_time_major_clip", 2, 4, 5, 3, true, 0.0003f, 0, 1.0f / 32768, 0, -12, 1.5f},
                      LstmCase{"int16_b1_batch_major", 1, 6, 4, 5, false, 0.00021f, 0, 1.0f / 32768, 0, -10, 0.0f}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace aotc::e2e
