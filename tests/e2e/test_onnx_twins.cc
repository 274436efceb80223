// The ONNX int8 twins of the MLPerf Tiny models (tests/models/onnx_twins, made by its
// make_onnx_twins.py from the TFLite models' weights): the same quantized networks written
// channels-first, as PyTorch / ONNX Runtime quantization writes them, once with QLinearConv
// and once in QDQ form. aotc's output must be ONNX Runtime's bytes (ort_reference.js) for
// each reference input, with the host's kernels, with the Cortex-M4's (run on the host) and
// with the reference NPU's (npu-ref), and the generated C must build with clang as strict C99.
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

const std::string kDir = "tests/models/onnx_twins/";
constexpr int kCases = 2;

class OnnxTwin : public TempDirTest<::testing::TestWithParam<std::string>> {
 protected:
  OnnxTwin() : TempDirTest("aotc-onnx-twins") {}
  std::string file(const std::string& name) const { return source_path(kDir + GetParam() + "/" + name); }

  void expect_onnx_runtime_outputs(const std::string& target) {
    for (int k = 0; k < kCases; ++k) {
      std::string out = tmp(target + "_output_" + std::to_string(k) + ".bin");
      Result r = run({"run", file("model.onnx"), "--target", target, "--inputs", file("input_" + std::to_string(k) + ".bin"),
                      "--outputs", out});
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_EQ(read_bytes(out), read_bytes(file("output_" + std::to_string(k) + ".bin")))
          << "input " << k << ", target " << target;
    }
  }
};

TEST_P(OnnxTwin, MatchesOnnxRuntimeOnTheHost) { expect_onnx_runtime_outputs("host"); }

TEST_P(OnnxTwin, MatchesOnnxRuntimeWithCortexM4Kernels) { expect_onnx_runtime_outputs("cortex-m4"); }

// On npu-ref the convolutions and fully connected layers go to the NPU as the TFLite
// model's do (at least 95% of the MACs, test_npu.cc asks the same of the TFLite models),
// in its commands that round as ONNX does (ties to even, stream 1.1), and the outputs stay
// ONNX Runtime's bytes.
TEST_P(OnnxTwin, RunsOnTheNpuBitExact) {
  Result r = run({"compile", file("model.onnx"), "-o", tmp("npu"), "--target", "npu-ref"});
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json offload = nlohmann::json::parse(read_bytes(tmp("npu/metadata.json")))["offload"];
  EXPECT_EQ(offload["backend"], "npu-ref");
  EXPECT_GE(offload["mac_fraction"].get<double>(), 0.95) << offload.dump(2);
  expect_onnx_runtime_outputs("npu-ref");
}

TEST_P(OnnxTwin, GeneratedCBuildsWithStrictWarnings) {
  Result r = run({"compile", file("model.onnx"), "-o", tmp("c"), "--name", "net"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string log;
  EXPECT_EQ(compile_strict_c99("clang", tmp("c/net.c"), tmp("c"), tmp("net.o"), &log), 0) << log;
}

INSTANTIATE_TEST_SUITE_P(Models, OnnxTwin,
                         ::testing::Values("kws_ref_model_qlinear", "kws_ref_model_qdq", "vww_96_int8_qlinear",
                                           "vww_96_int8_qdq", "pretrainedResnet_quant_qlinear",
                                           "pretrainedResnet_quant_qdq", "ad01_int8_qlinear", "ad01_int8_qdq"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aotc::e2e
