// Real networks exported from PyTorch (tests/models/make_models.py): aotc's generated C
// must compute torch's outputs, build warning-free under strict flags with clang and gcc,
// and give the same results whichever way LowerBuiltin places temporaries.
#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

namespace fs = std::filesystem;

class RealModel : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { dir_ = std::make_unique<TempDir>("aotc-model-test"); }
  std::string model_dir() const { return source_path("tests/models/" + GetParam()); }
  std::string tmp(const std::string& name) const { return dir_->path() + "/" + name; }
  // Float activations of these models exceed cortex-m4.toml's default 128K pool.
  static std::vector<std::string> target_args(const std::string& target) {
    if (target == "host") return {"--target", target};
    return {"--target", target, "--pool", "sram:1M"};
  }
  void expect_reference_output(const std::string& target) {
    std::vector<std::string> args = {"run", model_dir() + "/model.onnx", "--inputs", model_dir() + "/input_0.bin",
                                     "--outputs", tmp("output.bin")};
    for (auto& a : target_args(target)) args.push_back(a);
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.output;
    expect_close(read_floats(tmp("output.bin")), read_floats(model_dir() + "/output_0.bin"), 1e-4, 1e-5);
  }
  std::unique_ptr<TempDir> dir_;
};

TEST_P(RealModel, MatchesTorchOnHost) { expect_reference_output("host"); }

// cortex-m4 allows no stack arrays: every temporary goes through the workspace allocator.
TEST_P(RealModel, MatchesTorchWithWorkspaceTemporaries) { expect_reference_output("cortex-m4"); }

TEST_P(RealModel, GeneratedCBuildsWithStrictWarnings) {
  for (const std::string target : {"host", "cortex-m4"}) {
    std::string out = tmp("c_" + target);
    std::vector<std::string> args = {"compile", model_dir() + "/model.onnx", "-o", out, "--name", "net"};
    for (auto& a : target_args(target)) args.push_back(a);
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.output;
    for (const std::string cc : {"clang", "gcc"}) {
      for (const char* file : {"net.c", "net_constants.c", "aotc_runtime.c"}) {
        std::string log;
        int status = run_process({cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-c", out + "/" + file,
                              "-I" + out, "-o", tmp(std::string(file) + "." + cc + ".o")},
                             &log);
        EXPECT_EQ(status, 0) << cc << " " << target << " " << file << ":\n" << log;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Torch, RealModel, ::testing::Values("small_cnn", "mobilenet_v2"));

}  // namespace
}  // namespace aotc::e2e
