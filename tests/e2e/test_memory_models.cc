// The small models of the memory work (issue #29, tests/models/memory,
// make_memory_models.py), each giving TensorFlow Lite Micro's bytes (reference/ made by
// tests/models/make_tflm_references.sh with tests/oracle/tflm) on the host with the
// portable kernels and with the Cortex-M4's and M55's (their C run on the host; the
// firmware tests run some on QEMU):
//   - fold_pad (aot/passes/fold_pad.cc): a PAD of a quantized tensor with its zero point,
//     read only by a VALID convolution, becomes the convolution's own padding;
//   - a uint8 -> int8 QUANTIZE of a graph input planned in the arena runs in place;
//   - a PAD whose kernel computes a fused ADD of a tensor sharing its memory pads in one
//     pass (pad_add_pad: it filled the padding over that tensor first, then read it);
//   - an output written in place over a graph input does not also overlap another input
//     (dw_add_input).
#include <nlohmann/json.hpp>

#include <set>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

const std::string kDir = "tests/models/memory/";

class MemoryModel : public TempDirTest<::testing::TestWithParam<std::string>> {
 protected:
  MemoryModel() : TempDirTest("aotc-memory-model") {}
};

TEST_P(MemoryModel, GivesTfliteMicrosOutputBytes) {
  const std::string model = source_path(kDir + GetParam() + ".tflite");
  const std::string reference = source_path(kDir + "reference/" + GetParam() + "/");
  for (const char* target : {"host", "cortex-m4", "cortex-m55"}) {
    for (int k = 0; k < 4; ++k) {
      std::string out = tmp(std::string(target) + std::to_string(k) + ".bin");
      Result r = run({"run", model, "--target", target, "--inputs", reference + "input_" + std::to_string(k) + ".bin",
                      "--outputs", out});
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_EQ(read_bytes(out), read_bytes(reference + "output_" + std::to_string(k) + ".bin"))
          << GetParam() << " on " << target << ", case " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, MemoryModel,
                         ::testing::Values("pad_dw_stride2", "pad_conv_asymmetric", "pad16_conv_stride2", "pad_conv_same",
                                           "pad_shared", "quantize_u8_dw", "pad_add_pad"),
                         [](const auto& info) { return info.param; });

// How many steps of `model` compiled for the M4 run a PAD, and whether a tensor of the
// padded shape is planned.
int pad_steps(const TempDir& dir, const std::string& model) {
  Result r = run({"compile", source_path(kDir + model + ".tflite"), "--target", "cortex-m4", "-o", dir.path() + "/" + model});
  EXPECT_EQ(r.status, 0) << r.output;
  if (r.status != 0) return -1;
  nlohmann::json meta = nlohmann::json::parse(read_bytes(dir.path() + "/" + model + "/metadata.json"));
  int pads = 0;
  for (const nlohmann::json& step : meta["steps"])
    if (step.contains("function") && step["function"].get<std::string>().find("_tfl_pad_") != std::string::npos) ++pads;
  return pads;
}

TEST(FoldPadPlan, PadBeforeAValidConvolutionIsNoStep) {
  TempDir dir("aotc-fold-pad");
  for (const char* model : {"pad_dw_stride2", "pad_conv_asymmetric", "pad16_conv_stride2"})
    EXPECT_EQ(pad_steps(dir, model), 0) << model;
  // A convolution that pads itself too, and a PAD two layers read, keep theirs.
  for (const char* model : {"pad_conv_same", "pad_shared"}) EXPECT_EQ(pad_steps(dir, model), 1) << model;
}

// With --io-in-arena, the uint8 image [1,16,16,8] is converted to int8 over itself: at the
// QUANTIZE the plan holds the image alone (2,048 B), not its int8 copy too; the stride-2
// depthwise layer after it (a channel-plane kernel) writes its 512 B output where the int8
// image begins, so the plan is the image and that layer's scratch. Apart (--no-in-place),
// image and copy: 4,096 B. The results are TFLM's.
TEST(QuantizeInPlace, Uint8InputIsConvertedOverItself) {
  TempDir dir("aotc-quantize-in-place");
  const std::string model = source_path(kDir + "quantize_u8_dw.tflite");
  auto plan = [&](const std::string& out, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"compile", model, "--target", "cortex-m4", "--io-in-arena", "-o", dir.path() + "/" + out};
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = run(args);
    EXPECT_EQ(r.status, 0) << r.output;
    return nlohmann::json::parse(read_bytes(dir.path() + "/" + out + "/metadata.json"));
  };
  nlohmann::json in_place = plan("in_place", {}), apart = plan("apart", {"--no-in-place"});
  int64_t scratch = 0;
  for (const nlohmann::json& k : in_place["kernels"]) scratch = std::max(scratch, k["scratch_bytes"].get<int64_t>());
  std::set<std::string> planned;
  for (const nlohmann::json& a : in_place["activations"]) planned.insert(a["tensor"].get<std::string>());
  EXPECT_EQ(planned.count("q"), 0u) << in_place["activations"].dump();
  EXPECT_LT(scratch, 1024);
  EXPECT_EQ(in_place["memory"]["workspace_bytes"].get<int64_t>(), 2048 + scratch);
  EXPECT_EQ(apart["memory"]["workspace_bytes"].get<int64_t>(), 4096);
  const std::string reference = source_path(kDir + "reference/quantize_u8_dw/");
  Result r = run({"run", model, "--target", "cortex-m4", "--io-in-arena", "--inputs", reference + "input_1.bin", "--outputs",
                  dir.path() + "/y.bin"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_bytes(dir.path() + "/y.bin"), read_bytes(reference + "output_1.bin"));
}

// With --io-in-arena, the depthwise layer's output (its ADD of the second input e fused)
// takes e's memory; it may not then also overlap the first input x, which holds the
// application's data beside e from the start (it did, and x's bytes were e's).
TEST(OverlapAndInPlace, AnOutputOverAGraphInputDoesNotOverlapAnother) {
  TempDir dir("aotc-overlap-in-place");
  const std::string model = source_path(kDir + "dw_add_input.tflite");
  const std::string reference = source_path(kDir + "reference/dw_add_input/");
  for (const char* target : {"host", "cortex-m4", "cortex-m55"}) {
    for (int k = 0; k < 4; ++k) {
      std::string in = reference + "input_" + std::to_string(k) + "_";
      Result r = run({"run", model, "--target", target, "--io-in-arena", "--inputs", in + "0.bin," + in + "1.bin", "--outputs",
                      dir.path() + "/z.bin"});
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_EQ(read_bytes(dir.path() + "/z.bin"), read_bytes(reference + "output_" + std::to_string(k) + ".bin"))
          << target << ", case " << k;
    }
  }
}

}  // namespace
}  // namespace aotc::e2e
