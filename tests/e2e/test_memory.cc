// Memory as a firmware engineer configures it: pools from the command line (static, in
// a named section, or handed in at run time), a clear error when the model does not fit,
// and LowerBuiltin's stack-or-workspace choice per target, with identical results.
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

const std::string kVwwFloat = "models/mlperf-tiny/vww_96_float";

class Memory : public TempDirTest<> {
 protected:
  Memory() : TempDirTest("aotc-memory-test") {}
  std::string model() const { return shared_path(kVwwFloat + ".tflite"); }
  std::string reference(const std::string& file) const {
    return shared_path("models/mlperf-tiny/reference/vww_96_float/" + file);
  }
  nlohmann::json compile(const std::vector<std::string>& extra, const std::string& out) {
    std::vector<std::string> args = {"compile", model(), "-o", tmp(out)};
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = run(args);
    EXPECT_EQ(r.status, 0) << r.output;
    return nlohmann::json::parse(read_bytes(tmp(out + "/metadata.json")));
  }
  void expect_reference_output(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run", model(), "--inputs", reference("input_0.bin"), "--outputs", tmp("y.bin")};
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(read_bytes(tmp("y.bin")), read_bytes(reference("output_0.bin")));
  }
};

TEST_F(Memory, ReportTableAndPicture) {
  Result r = run({"compile", model(), "-o", tmp("out"), "--memory-report"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("memory plan of 'model' for target host"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("lower bound"), std::string::npos);
  EXPECT_NE(r.output.find("pool workspace"), std::string::npos);
  nlohmann::json meta = nlohmann::json::parse(read_bytes(tmp("out/metadata.json")));
  for (const char* key : {"workspace_bytes", "lower_bound_bytes", "constant_bytes", "max_stack_bytes"})
    EXPECT_TRUE(meta["memory"].contains(key)) << key;
  // One box per planned tensor, each titled with the tensor's name.
  std::string svg = read_bytes(tmp("out/memory_plan.svg"));
  ASSERT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  size_t boxes = 0;
  for (size_t at = svg.find("<title>"); at != std::string::npos; at = svg.find("<title>", at + 1)) ++boxes;
  EXPECT_EQ(boxes, meta["activations"].size());
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST_F(Memory, ModelThatDoesNotFitSaysWhatItNeedsAndWhere) {
  Result r = run({"compile", model(), "-o", tmp("out"), "--pool", "sram:100K"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("does not fit in the memory pools (sram 102400 B)"), std::string::npos) << r.output;
  // The peak: a stride-2 depthwise layer's input (48x48x16 float32) and output (24x24x16);
  // the 1x1 convolution before it writes its 147,456 B output over its 73,728 B input.
  EXPECT_NE(r.output.find("need 184320 bytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("at the peak, step"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(tmp("out")));
}

TEST_F(Memory, BadPoolSpecIsExplained) {
  Result r = run({"compile", model(), "-o", tmp("out"), "--pool", "sram:12Q"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--pool 'sram:12Q': bad size '12Q'"), std::string::npos) << r.output;
}

TEST_F(Memory, TwoPoolsOneProvidedAtRunTime) {
  nlohmann::json meta = compile({"--pool", "dtcm:64K:section=.dtcm", "--pool", "sram:512K:runtime"}, "out");
  ASSERT_EQ(meta["pools"].size(), 2u);
  EXPECT_GT(meta["pools"][0]["used_bytes"].get<int64_t>(), 0);
  EXPECT_LE(meta["pools"][0]["used_bytes"].get<int64_t>(), 64 * 1024);
  EXPECT_GT(meta["pools"][1]["used_bytes"].get<int64_t>(), 0);
  std::string header = read_bytes(tmp("out/model.h")), source = read_bytes(tmp("out/model.c"));
  EXPECT_NE(header.find("struct model_pools {\n  uint8_t* sram;"), std::string::npos) << header;
  EXPECT_NE(header.find("const struct model_pools* pools);"), std::string::npos);
  EXPECT_NE(source.find("__attribute__((section(\".dtcm\")))"), std::string::npos);
  // The application's pool is used through the pointer it passes.
  EXPECT_NE(source.find("pools->sram + "), std::string::npos);
  expect_reference_output({"--pool", "dtcm:64K:section=.dtcm", "--pool", "sram:512K:runtime"});
}

TEST_F(Memory, PoolsCanBeRestrictedToSomeTensors) {
  nlohmann::json meta = compile({"--pool", "fast:64K:tensors=*depthwise*", "--pool", "sram:1M"}, "out");
  int in_fast = 0;
  for (auto& t : meta["activations"]) {
    if (t["pool"] != "fast") continue;
    ++in_fast;
    EXPECT_NE(t["tensor"].get<std::string>().find("depthwise"), std::string::npos) << t["tensor"];
  }
  EXPECT_GT(in_fast, 0);
  expect_reference_output({"--pool", "fast:64K:tensors=*depthwise*", "--pool", "sram:1M"});
  Result r = run({"compile", model(), "-o", tmp("bad"), "--pool", "fast:64K:tensors=nothing*"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("matches no pool's 'tensors' pattern"), std::string::npos) << r.output;
}

// max_stack_alloca_size is 0 on cortex-m4: kernels keep only scalars and a register
// block's sums on the stack (the float convolutions' 4x4 block: 16 floats, 64 B, which the
// runtime's aotc_dot_f32_4x4 holds in FPU registers), and their temporaries come from the
// planned workspace. The host keeps small ones on the stack.
TEST_F(Memory, StackArraysOnHostWorkspaceOnCortexM4) {
  // The float model needs more than cortex-m4.toml's default 128K pool.
  nlohmann::json m4 = compile({"--target", "cortex-m4", "--pool", "sram:512K"}, "m4");
  nlohmann::json host = compile({"--target", "host"}, "host");
  int64_t m4_scratch = 0, host_largest_stack = 0;
  for (auto& k : m4["kernels"]) {
    EXPECT_LE(k["stack_bytes"].get<int64_t>(), 64) << k["function"];  // scalars, or a block's 16 sums
    m4_scratch = std::max(m4_scratch, k["scratch_bytes"].get<int64_t>());
  }
  for (auto& k : host["kernels"]) host_largest_stack = std::max(host_largest_stack, k["stack_bytes"].get<int64_t>());
  EXPECT_GT(m4_scratch, 0);
  EXPECT_GT(host_largest_stack, 16);
  EXPECT_LE(host_largest_stack, 1024 + 64);  // host.toml: max_stack_alloca_size = 1024, and a block's sums
  EXPECT_LE(m4["memory"]["max_stack_bytes"].get<int64_t>(), 64);
  expect_reference_output({"--target", "cortex-m4", "--pool", "sram:512K"});
  expect_reference_output({"--target", "host"});
}

// --io-in-arena: vww's input and output planned with the activations. The float model's
// plan then holds them too (its peak is where the input is still alive, so it grows by
// less than the I/O), the results stay the reference's, and metadata.json counts RAM
// with I/O either way.
TEST_F(Memory, InputsAndOutputsInTheArena) {
  nlohmann::json apart = compile({}, "apart");
  nlohmann::json inside = compile({"--io-in-arena"}, "inside");
  int64_t io = apart["memory"]["io_bytes"].get<int64_t>();
  EXPECT_EQ(io, 96 * 96 * 3 * 4 + 2 * 4);
  EXPECT_EQ(apart["memory"]["ram_bytes"].get<int64_t>(), apart["memory"]["workspace_bytes"].get<int64_t>() + io);
  EXPECT_EQ(inside["memory"]["ram_bytes"].get<int64_t>(), inside["memory"]["workspace_bytes"].get<int64_t>());
  EXPECT_LT(inside["memory"]["ram_bytes"].get<int64_t>(), apart["memory"]["ram_bytes"].get<int64_t>());
  EXPECT_TRUE(inside["memory"]["io_in_arena"].get<bool>());
  // The input is planned from step 0, the output to the step after the last kernel.
  int64_t steps = static_cast<int64_t>(inside["kernels"].size());
  bool input_seen = false, output_seen = false;
  for (auto& a : inside["activations"]) {
    if (a["tensor"] == inside["inputs"][0]["name"]) input_seen = a["first_step"] == 0;
    if (a["tensor"] == inside["outputs"][0]["name"]) output_seen = a["last_step"] == steps;
  }
  EXPECT_TRUE(input_seen && output_seen) << inside["activations"].dump(1);
  std::string header = read_bytes(tmp("inside/model.h"));
  EXPECT_NE(header.find("void model_io(struct model_inputs* inputs, struct model_outputs* outputs);"), std::string::npos)
      << header;
  expect_reference_output({"--io-in-arena"});
}

// Outputs no kernel writes (a flattened input, an input passed through) and several
// outputs of one kernel, with and without --io-in-arena: the same bytes.
TEST_F(Memory, InputsAndOutputsInTheArenaGiveTheSameBytes) {
  for (const char* test : {"test_flatten_axis1", "test_identity", "test_split_equal_parts_2d",
                           "test_basic_conv_with_padding", "test_add_bcast"}) {
    std::string dir = std::string("/usr/share/libonnx-testdata/data/node/") + test;
    std::vector<std::string> inputs, outputs;
    for (int i = 0; std::filesystem::exists(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb"); ++i)
      inputs.push_back(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
    for (int i = 0; std::filesystem::exists(dir + "/test_data_set_0/output_" + std::to_string(i) + ".pb"); ++i)
      outputs.push_back(std::to_string(i) + ".bin");
    std::map<std::string, std::string> got;
    for (std::string mode : {"apart", "inside"}) {
      std::vector<std::string> args = {"run", dir + "/model.onnx", "--inputs"};
      std::string list, out_list;
      for (auto& in : inputs) list += (list.empty() ? "" : ",") + in;
      for (auto& out : outputs) out_list += (out_list.empty() ? "" : ",") + tmp(mode + out);
      args.insert(args.end(), {list, "--outputs", out_list});
      if (mode == "inside") args.push_back("--io-in-arena");
      Result r = run(args);
      ASSERT_EQ(r.status, 0) << test << ": " << r.output;
      for (auto& out : outputs) got[mode + out] = read_bytes(tmp(mode + out));
    }
    for (auto& out : outputs) EXPECT_EQ(got["inside" + out], got["apart" + out]) << test << " output " << out;
  }
}

}  // namespace
}  // namespace aotc::e2e
