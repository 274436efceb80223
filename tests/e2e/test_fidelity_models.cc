// The wrong answers of issue #26 in their smallest form (tests/models/fidelity, README
// there): each model's four reference outputs were computed by TensorFlow Lite Micro's
// reference kernels (tests/oracle/tflm), and aotc's output must be the same bytes. The same
// models run on a Cortex-M4 under QEMU (tests/firmware: firmware_<model>_cortex_m4_{gcc,clang}).
#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

class FidelityModel : public TempDirTest<::testing::TestWithParam<std::string>> {
 protected:
  FidelityModel() : TempDirTest("aotc-fidelity") {}
};

TEST_P(FidelityModel, GivesTfliteMicrosOutputBytes) {
  const std::string dir = source_path("tests/models/fidelity/");
  expect_reference_outputs(dir + GetParam() + ".tflite", dir + "reference/" + GetParam() + "/", false, dir_->path());
}

INSTANTIATE_TEST_SUITE_P(Models, FidelityModel,
                         ::testing::Values("mean_7x7_shared_scale", "mean_3x3_shared_scale", "mean_fc_softmax_head",
                                           "folded_bn_mul_add_relu", "pad_mul_requant", "conv16_no_bias",
                                           "fc16_no_bias", "fc16_no_bias_acc32", "mul16_relu", "pool16_avg_max", "softmax16",
                                           "softmax16_beta", "tanh16_large_scale", "logistic16_large_scale",
                                           "hswish_large_out_scale", "hswish_tiny_in_scale", "fc16_per_tensor"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aotc::e2e
