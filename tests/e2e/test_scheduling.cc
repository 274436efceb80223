// The scheduling passes on whole models through the aotc binary: what they do on a
// Cortex-M4 shows in --print-after, and the results stay the unscheduled host build's,
// byte for byte, and the reference's.
#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

const std::string kNodeTests = "/usr/share/libonnx-testdata/data/node/";

class Scheduling : public TempDirTest<> {
 protected:
  Scheduling() : TempDirTest("aotc-scheduling-test") {}

  // The output bytes of `aotc run` of an ONNX node test on `target`.
  std::string run_node_test(const std::string& test, const std::string& target) {
    std::string dir = kNodeTests + test;
    std::vector<std::string> args = {"run", dir + "/model.onnx", "--target", target, "--outputs", tmp(target + ".bin"),
                                     "--inputs"};
    std::string inputs;
    for (int i = 0; std::ifstream(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb").good(); ++i)
      inputs += (i ? "," : "") + dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb";
    args.push_back(inputs);
    Result r = run(args);
    EXPECT_EQ(r.status, 0) << r.output;
    return read_bytes(tmp(target + ".bin"));
  }

  std::string ir_after(const std::string& model, const std::string& pass, const std::string& target) {
    Result r = run({"compile", model, "-o", tmp("ir_" + target), "--target", target, "--pool", "sram:1M",
                    "--print-after=" + pass});
    EXPECT_EQ(r.status, 0) << r.output;
    return r.output;
  }
};

// The host schedules none of these loops; the Cortex-M4 build replaces the dot products
// by aotc_dot_* calls (and unrolls short ones): the same bytes come out.
TEST_F(Scheduling, CortexM4ResultsAreTheHostsBitForBit) {
  for (const char* test : {"test_gemm_transposeB", "test_gemm_all_attributes", "test_matmul_2d", "test_matmul_3d",
                           "test_matmulinteger", "test_basic_convinteger", "test_conv_with_strides_padding"}) {
    std::string host = run_node_test(test, "host");
    ASSERT_FALSE(host.empty()) << test;
    EXPECT_EQ(run_node_test(test, "cortex-m4"), host) << test;
  }
}

TEST_F(Scheduling, PrintAfterShowsThePlanAndItsResult) {
  std::string gemm = kNodeTests + "test_gemm_transposeB/model.onnx";
  EXPECT_NE(ir_after(gemm, "schedule_loops", "cortex-m4").find("for (k, 0, 6) [tensorize aotc_dot_f32] {"), std::string::npos);
  EXPECT_NE(ir_after(gemm, "tensorize", "cortex-m4").find("aotc_dot_f32(address_of(A[m, 0]), 1, address_of(B[n, 0]), 1, 6, "
                                                          "address_of(acc[0]))"),
            std::string::npos);
  EXPECT_EQ(ir_after(gemm, "tensorize", "host").find("aotc_dot_f32"), std::string::npos);
}

// A real network through `aotc run` on the Cortex-M4 plan, whose kernels the passes
// change (tensorized Gemm and MatMul, split reductions): torch's outputs still.
TEST_F(Scheduling, TransformerStillMatchesTorch) {
  std::string dir = source_path("tests/models/transformer");
  std::string plan = ir_after(dir + "/model.onnx", "simplify_scheduled", "cortex-m4");
  EXPECT_NE(plan.find("aotc_dot_f32("), std::string::npos);
  EXPECT_NE(plan.find(".outer"), std::string::npos);
  Result r = run({"run", dir + "/model.onnx", "--inputs", dir + "/input_0.bin", "--outputs", tmp("output.bin"), "--target",
                  "cortex-m4", "--pool", "sram:1M"});
  ASSERT_EQ(r.status, 0) << r.output;
  expect_close(read_floats(tmp("output.bin")), read_floats(dir + "/output_0.bin"), 1e-4, 1e-5);
}

}  // namespace
}  // namespace aotc::e2e
