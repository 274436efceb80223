// Real networks exported from PyTorch (tests/models/make_models.py), and their rewrites into
// the operator versions of opsets 18, 21 and 23 (tests/models/upgrade_opset.py): aotc's
// generated C must compute torch's outputs, build warning-free under strict flags with clang
// and gcc (and, for the Cortex-M4, arm-none-eabi-gcc with the target's flags),
// and give the same results whichever way LowerBuiltin places temporaries.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

namespace fs = std::filesystem;

// One model file of a torch test network: its export (model.onnx) or a rewrite of it into a
// newer opset (model_opset<N>.onnx). Every file of a network computes the same function, so
// all run on the network's input_0.bin and must give its output_0.bin (torch's output).
struct TorchModel {
  std::string network;
  std::string file;
};

void PrintTo(const TorchModel& model, std::ostream* os) { *os << model.network << "/" << model.file; }

// "shufflenet" for model.onnx, "shufflenet_opset18" for model_opset18.onnx.
std::string torch_model_name(const ::testing::TestParamInfo<TorchModel>& info) {
  std::string stem = info.param.file.substr(0, info.param.file.find('.'));
  return info.param.network + (stem == "model" ? "" : stem.substr(std::string("model").size()));
}

class RealModel : public TempDirTest<::testing::TestWithParam<TorchModel>> {
 protected:
  RealModel() : TempDirTest("aotc-model-test") {}
  std::string model_dir() const { return source_path("tests/models/" + GetParam().network); }
  std::string model_file() const { return model_dir() + "/" + GetParam().file; }
  // Float activations of these models exceed cortex-m4.toml's default 128K pool.
  static std::vector<std::string> target_args(const std::string& target) {
    if (target == "host") return {"--target", target};
    return {"--target", target, "--pool", "sram:1M"};
  }
  void expect_reference_output(const std::string& target) {
    std::vector<std::string> args = {"run", model_file(), "--inputs", model_dir() + "/input_0.bin",
                                     "--outputs", tmp("output.bin")};
    for (auto& a : target_args(target)) args.push_back(a);
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.output;
    expect_close(read_floats(tmp("output.bin")), read_floats(model_dir() + "/output_0.bin"), 1e-4, 1e-5);
  }
  std::unique_ptr<TempDir> dir_;
};

TEST_P(RealModel, MatchesTorchOnHost) { expect_reference_output("host"); }

// The cortex-m4 plan (no stack arrays, 16-byte workspace blocks) computes the same.
TEST_P(RealModel, MatchesTorchWithCortexM4Plan) { expect_reference_output("cortex-m4"); }

TEST_P(RealModel, GeneratedCBuildsWithStrictWarnings) {
  for (const std::string target : {"host", "cortex-m4"}) {
    std::string out = tmp("c_" + target);
    std::vector<std::string> args = {"compile", model_file(), "-o", out, "--name", "net"};
    for (auto& a : target_args(target)) args.push_back(a);
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.output;
    for (const std::string cc : {"clang", "gcc"}) {
      for (const char* file : {"net.c", "net_constants.c", "aotc_runtime.c"}) {
        std::string log;
        int status = compile_strict_c99(cc, out + "/" + file, out, tmp(std::string(file) + "." + cc + ".o"), &log);
        EXPECT_EQ(status, 0) << cc << " " << target << " " << file << ":\n" << log;
      }
    }
    if (target == "host") continue;
    // And as firmware is built: arm-none-eabi-gcc with the target's own flags (net.cflags).
    for (const char* file : {"net.c", "net_constants.c", "aotc_runtime.c"}) {
      std::string log;
      int status = cross_compile_strict_c99(out + "/net.cflags", out + "/" + file, out, tmp(std::string(file) + ".arm.o"), &log);
      EXPECT_EQ(status, 0) << "arm-none-eabi-gcc " << file << ":\n" << log;
    }
  }
}

std::vector<TorchModel> torch_models(const std::string& file, bool with_mobilenet_v2) {
  std::vector<TorchModel> models;
  for (const char* network : {"small_cnn", "mobilenet_v2", "shufflenet", "kws_rnn", "mobilenet_v3", "transformer"})
    if (with_mobilenet_v2 || std::string(network) != "mobilenet_v2") models.push_back({network, file});
  return models;
}

INSTANTIATE_TEST_SUITE_P(Torch, RealModel, ::testing::ValuesIn(torch_models("model.onnx", true)), torch_model_name);

// The same networks in the operator versions of opsets 18, 21 and 23, as PyTorch 2.x writes
// them: Reduce* axes as an input, and (from 21) torch's chunk as a Split with num_outputs.
// mobilenet_v2 has no rewrites (its operators are all in small_cnn and mobilenet_v3;
// tests/models/README.md says why).
INSTANTIATE_TEST_SUITE_P(TorchOpset18, RealModel, ::testing::ValuesIn(torch_models("model_opset18.onnx", false)),
                         torch_model_name);
INSTANTIATE_TEST_SUITE_P(TorchOpset21, RealModel, ::testing::ValuesIn(torch_models("model_opset21.onnx", false)),
                         torch_model_name);
INSTANTIATE_TEST_SUITE_P(TorchOpset23, RealModel, ::testing::ValuesIn(torch_models("model_opset23.onnx", false)),
                         torch_model_name);

// The ShuffleNet export computes its channel split's Slice bounds from the tensor's shape
// (Shape -> Gather -> Add / Div / Mul): shapes are static, so all of it folds into
// constants at compile time and no kernel computes a shape at run time. The opset 18
// rewrite keeps that subgraph, with Shape-15 (start and end attributes, absent here).
TEST(TorchExportShapeFolding, ShuffleNetShapeSubgraphFoldsAway) {
  for (const char* file : {"model.onnx", "model_opset18.onnx"}) {
    SCOPED_TRACE(file);
    TempDir dir("aotc-shape-folding");
    std::string model = source_path(std::string("tests/models/shufflenet/") + file);
    ASSERT_NE(read_bytes(model).find("Shape"), std::string::npos) << "the export should hold Shape nodes";
    Result r = run({"compile", model, "-o", dir.path() + "/out", "--name", "net"});
    ASSERT_EQ(r.status, 0) << r.output;
    std::string c = read_bytes(dir.path() + "/out/net.c");
    EXPECT_EQ(c.find("(Shape)"), std::string::npos);
    EXPECT_EQ(c.find("net_shape_"), std::string::npos);
    EXPECT_EQ(c.find("(Gather)"), std::string::npos);
    nlohmann::json operators = nlohmann::json::parse(read_bytes(dir.path() + "/out/metadata.json"))["operators"];
    for (const auto& op : operators) EXPECT_NE(op.get<std::string>(), "Shape");
  }
}

// MobileNetV2's depthwise convolutions write over their input, staging one channel at a
// time in a kernel temporary (9 KiB for the largest). LowerBuiltin puts those temporaries
// in the workspace when the target allows no stack arrays, and on the stack when it
// allows large ones: both placements must give torch's output, and the same bytes.
TEST(RealModelTemporaries, MobileNetV2SameResultsInWorkspaceOrOnStack) {
  TempDir dir("aotc-temporaries");
  std::string model = source_path("tests/models/mobilenet_v2");
  std::map<std::string, std::string> outputs;
  for (int64_t stack_limit : {int64_t{0}, int64_t{1} << 20}) {
    std::string name = "stack" + std::to_string(stack_limit);
    std::string target = dir.path() + "/" + name + ".toml";
    std::ofstream(target) << "base = \"host\"\nname = \"" << name << "\"\nmax_stack_alloca_size = " << stack_limit
                          << "\n";
    Result compiled = run({"compile", model + "/model.onnx", "-o", dir.path() + "/" + name, "--name", "net",
                           "--target-config", target});
    ASSERT_EQ(compiled.status, 0) << compiled.output;
    std::string c = read_bytes(dir.path() + "/" + name + "/net.c");
    nlohmann::json memory = nlohmann::json::parse(read_bytes(dir.path() + "/" + name + "/metadata.json"))["memory"];
    int64_t scratch = memory["largest_kernel_scratch_bytes"], stack = memory["max_stack_bytes"];
    if (stack_limit == 0) {
      EXPECT_NE(c.find("aotc_workspace_alloc("), std::string::npos);
      EXPECT_GE(scratch, 9216) << "a 48x48 float channel, at least";
    } else {
      EXPECT_EQ(c.find("aotc_workspace_alloc("), std::string::npos);
      EXPECT_EQ(scratch, 0);
      EXPECT_GE(stack, 9216);
    }
    std::string out = dir.path() + "/" + name + ".bin";
    Result r = run({"run", model + "/model.onnx", "--inputs", model + "/input_0.bin", "--outputs", out,
                    "--target-config", target});
    ASSERT_EQ(r.status, 0) << r.output;
    expect_close(read_floats(out), read_floats(model + "/output_0.bin"), 1e-4, 1e-5);
    outputs[name] = read_bytes(out);
  }
  EXPECT_EQ(outputs["stack0"], outputs["stack1048576"]);
}

}  // namespace
}  // namespace aotc::e2e
