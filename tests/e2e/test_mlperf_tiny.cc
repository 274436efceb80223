// The MLPerf Tiny reference models (../shared/models/mlperf-tiny): aotc's output for each
// reference input must be what TensorFlow Lite Micro's reference kernels computed —
// identical bytes for int8 models, within a relative error of 1e-5 for float models.
#include <nlohmann/json.hpp>
#include <set>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

struct MlperfModel {
  std::string name;
  bool int8_output;
};

std::ostream& operator<<(std::ostream& os, const MlperfModel& m) { return os << m.name; }

class MlperfTiny : public TempDirTest<::testing::TestWithParam<MlperfModel>> {
 protected:
  MlperfTiny() : TempDirTest("aotc-mlperf") {}
};

TEST_P(MlperfTiny, MatchesTfliteMicroOnAllReferenceInputs) {
  const MlperfModel& m = GetParam();
  expect_reference_outputs(shared_path("models/mlperf-tiny/" + m.name + ".tflite"),
                           shared_path("models/mlperf-tiny/reference/" + m.name + "/"), !m.int8_output, dir_->path());
}

INSTANTIATE_TEST_SUITE_P(Models, MlperfTiny,
                         ::testing::Values(MlperfModel{"ad01_int8", true}, MlperfModel{"ad01_fp32", false},
                                           MlperfModel{"kws_ref_model", true}, MlperfModel{"vww_96_int8", true},
                                           MlperfModel{"vww_96_float", false}, MlperfModel{"pretrainedResnet_quant", true},
                                           MlperfModel{"pretrainedResnet", false},
                                           MlperfModel{"pretrainedResnet_large_int8", true},
                                           MlperfModel{"model_ToyCar_quant_fullint_micro", false}),
                         [](const auto& info) { return info.param.name; });

// int8 models run on integer arithmetic only: requantization constants are computed at
// compile time, so neither the kernels nor run() mention a floating-point type.
TEST(MlperfTinyInt8, GeneratedCodeHasNoFloatingPoint) {
  TempDir dir("aotc-mlperf");
  for (const char* name : {"kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8"}) {
    std::string out = dir.path() + "/" + name;
    Result r = run({"compile", shared_path(std::string("models/mlperf-tiny/") + name + ".tflite"), "-o", out, "--target",
                    "cortex-m4"});
    ASSERT_EQ(r.status, 0) << r.output;
    std::string source = read_bytes(out + "/model.c");
    EXPECT_EQ(source.find("float"), std::string::npos) << name;
    EXPECT_EQ(source.find("double"), std::string::npos) << name;
  }
}

// TFLite tensor names run to 260 characters; the C symbols stay short (kws_w3_conv_2d),
// every external one distinct in the 31 characters C99 promises are significant, and the
// model's names stay beside them in comments and in metadata.json. A --name so long that
// two external names would agree in 31 characters is refused.
//
// On the host, where every weight tensor is an external constant (microcontroller targets
// pack the convolutions' weights into their kernels instead).
TEST(MlperfTinyInt8, ExternalNamesAreShortAndDistinctIn31Characters) {
  TempDir dir("aotc-mlperf");
  std::string model = shared_path("models/mlperf-tiny/kws_ref_model.tflite");
  Result r = run({"compile", model, "-o", dir.path() + "/kws", "--name", "kws", "--target", "host"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string constants = read_bytes(dir.path() + "/kws/kws_constants.c");
  std::set<std::string> first31;
  size_t externs = 0;
  for (size_t at = constants.find("extern const "); at != std::string::npos; at = constants.find("extern const ", at + 1)) {
    size_t name_start = constants.find(' ', at + 13) + 1;
    std::string name = constants.substr(name_start, constants.find('[', name_start) - name_start);
    EXPECT_LE(name.size(), 31u) << name;
    EXPECT_TRUE(first31.insert(name.substr(0, 31)).second) << name;
    ++externs;
  }
  EXPECT_GT(externs, 10u);
  EXPECT_NE(constants.find("const int8_t kws_w0_conv_2d["), std::string::npos) << constants.substr(0, 2000);
  nlohmann::json meta = nlohmann::json::parse(read_bytes(dir.path() + "/kws/metadata.json"));
  ASSERT_EQ(meta["constants"].size(), externs);
  EXPECT_EQ(meta["constants"][0]["c_name"], "kws_w0_conv_2d");
  size_t longest = 0;
  for (auto& c : meta["constants"]) longest = std::max(longest, c["name"].get<std::string>().size());
  EXPECT_GT(longest, 200u);  // the model's names, kept whole
  // 28 characters of prefix: ..._w10_... and ..._w11_... agree in their first 31.
  r = run({"compile", model, "-o", dir.path() + "/long", "--name", "keyword_spotting_model_v2_ab", "--target", "host"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("agree in their first 31 characters"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("use a shorter --name"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/long"));
}

// The generated C (staged in-place convolutions, fused residual additions, workspace
// temporaries on cortex-m4; on cortex-m55 the Helium kernels' bands of padded rows, staged
// pixels and epilogue scratch, run by their plain loops on the host) runs clean under
// AddressSanitizer and UBSan, and still gives TFLM's bytes.
TEST(MlperfTinyInt8, GeneratedCodeIsCleanUnderSanitizers) {
  TempDir dir("aotc-mlperf");
  ScopedEnvironment sanitizers(
      {{"CC", "clang"}, {"CFLAGS", "-fsanitize=address,undefined -fno-sanitize-recover=all"}});
  for (const char* target : {"cortex-m4", "cortex-m55"}) {
    for (const char* name : {"kws_ref_model", "pretrainedResnet_quant", "vww_96_int8"}) {
      std::string ref = shared_path(std::string("models/mlperf-tiny/reference/") + name + "/");
      std::string out = dir.path() + "/" + name + ".bin";
      Result r = run({"run", shared_path(std::string("models/mlperf-tiny/") + name + ".tflite"), "--target", target,
                      "--inputs", ref + "input_2.bin", "--outputs", out});
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_EQ(r.output.find("runtime error"), std::string::npos) << r.output;
      EXPECT_EQ(read_bytes(out), read_bytes(ref + "output_2.bin")) << name << " for " << target;
    }
  }
}

TEST(MlperfTinyErrors, HybridModelIsRejectedClearly) {
  TempDir dir("aotc-mlperf");
  Result r = run({"compile", shared_path("models/mlperf-tiny/kws_ref_model_float32.tflite"), "-o", dir.path() + "/out"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("hybrid models"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not supported"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace aotc::e2e
