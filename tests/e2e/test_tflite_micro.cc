// TensorFlow Lite Micro's own example models (../shared/models/tflite-micro): aotc's output
// for each reference input must be what TFLite Micro's reference kernels computed from a
// freshly allocated interpreter — identical bytes for integer outputs, within a relative
// error of 1e-5 for float ones. (The Ethos-U model, which needs the NPU, has no reference.)
//
// keyword_scrambled (SVDF) and trained_lstm (UNIDIRECTIONAL_SEQUENCE_LSTM) keep state in
// variable tensors from one run to the next: a C program runs each model twice on the same
// input, then resets it and runs it again.
#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

struct MicroModel {
  std::string name;
  bool float_output;
};

std::ostream& operator<<(std::ostream& os, const MicroModel& m) { return os << m.name; }

std::string model_path(const std::string& name) { return shared_path("models/tflite-micro/" + name + ".tflite"); }
std::string reference_path(const std::string& name, const std::string& file) {
  return shared_path("models/tflite-micro/reference/" + name + "/" + file);
}

class TfliteMicro : public TempDirTest<::testing::TestWithParam<MicroModel>> {
 protected:
  TfliteMicro() : TempDirTest("aotc-tflite-micro") {}
};

TEST_P(TfliteMicro, MatchesTfliteMicroOnAllReferenceInputs) {
  const MicroModel& m = GetParam();
  expect_reference_outputs(model_path(m.name), reference_path(m.name, ""), m.float_output, dir_->path());
}

INSTANTIATE_TEST_SUITE_P(Models, TfliteMicro,
                         ::testing::Values(MicroModel{"hello_world_float", true}, MicroModel{"hello_world_int8", false},
                                           MicroModel{"micro_speech_quantized", false},
                                           MicroModel{"person_detect", false},
                                           MicroModel{"keyword_scrambled", false}, MicroModel{"trained_lstm", true}),
                         [](const auto& info) { return info.param.name; });

// A program that runs the model (one input, one output) three times on the input in
// argv[1]: twice in a row, then after <name>_reset(); writes the outputs (argv[2] bytes
// each) to argv[3..5].
const char* const kStatefulHarness = R"(#include <stdio.h>
#include <stdlib.h>
#include "model.h"

static unsigned char input[1 << 16] __attribute__((aligned(16)));
static unsigned char output[1 << 16] __attribute__((aligned(16)));

int main(int argc, char** argv) {
  struct model_inputs in = {(void*)input};
  struct model_outputs out = {(void*)output};
  size_t bytes;
  int k;
  FILE* f;
  if (argc != 6) return 64;
  f = fopen(argv[1], "rb");
  if (!f || fread(input, 1, sizeof input, f) == 0) return 65;
  fclose(f);
  bytes = (size_t)atol(argv[2]);
  for (k = 0; k < 3; ++k) {
    if (k == 2) model_reset();
    if (model_run(&in, &out) != 0) return 2;
    f = fopen(argv[3 + k], "wb");
    if (!f || fwrite(output, 1, bytes, f) != bytes) return 65;
    fclose(f);
  }
  return 0;
}
)";

class TfliteMicroState : public TempDirTest<::testing::TestWithParam<std::string>> {
 protected:
  TfliteMicroState() : TempDirTest("aotc-tflite-state") {}
};

// The first run starts from TFLite Micro's initial state and gives its output; the second
// starts from the state the first left, which changes the output as in TFLite; after
// model_reset() the output is the first one again.
TEST_P(TfliteMicroState, StateCarriesOverUntilReset) {
  const std::string& name = GetParam();
  Result r = run({"compile", model_path(name), "-o", tmp("out")});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string header = read_bytes(tmp("out/model.h"));
  EXPECT_NE(header.find("void model_reset(void);"), std::string::npos) << header;
  EXPECT_NE(header.find("#define MODEL_STATE_SIZE "), std::string::npos) << header;
  EXPECT_NE(header.find("MODEL_STATE_SIZE) from one"), std::string::npos) << header;
  std::string log;
  ASSERT_EQ(build_harness(kStatefulHarness, tmp("out"), tmp("harness"), {"-Wall", "-Wextra", "-Werror"}, &log), 0) << log;
  std::string want = read_bytes(reference_path(name, "output_0.bin"));
  ASSERT_EQ(run_process({tmp("harness"), reference_path(name, "input_0.bin"), std::to_string(want.size()), tmp("y1.bin"),
                         tmp("y2.bin"), tmp("y3.bin")},
                        &log),
            0)
      << log;
  std::string first = read_bytes(tmp("y1.bin")), second = read_bytes(tmp("y2.bin")), after_reset = read_bytes(tmp("y3.bin"));
  if (name == "trained_lstm") {
    expect_close(read_floats(tmp("y1.bin")), read_floats(reference_path(name, "output_0.bin")), 1e-5, 0.0);
  } else {
    EXPECT_EQ(first, want);
  }
  // keyword_scrambled's weights are scrambled: its output saturates to the same two values
  // whatever the input and state (TFLite's too, for every reference input), so only the
  // LSTM shows the state at the output. (tests/unit/test_tflite_recurrent.cc checks the
  // SVDF's state run after run.)
  if (name == "trained_lstm") EXPECT_NE(second, first) << "the second run should start from the state the first left";
  EXPECT_EQ(after_reset, first);
}

INSTANTIATE_TEST_SUITE_P(Models, TfliteMicroState, ::testing::Values("keyword_scrambled", "trained_lstm"));

}  // namespace
}  // namespace aotc::e2e
