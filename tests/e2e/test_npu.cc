// NPU offload (issue #10) with aotc's reference NPU (target npu-ref): the int8 MLPerf Tiny
// models split into NPU regions and the CPU's rest, run through `aotc run` with the
// reference driver (runtime-c/npu/aotc_npu_ref.c) and compared byte for byte with TFLite
// Micro's outputs; a target that keeps one operator off the NPU; memory the NPU reaches;
// artifacts through disk and back.
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_util.h"
#include "tests/e2e/ethos_u/vela_operator.h"
#include "tests/tflite_model_builder.h"

namespace aotc::e2e {
namespace {

const std::vector<std::string> kInt8Models = {"kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8"};

std::string mlperf(const std::string& name) { return shared_path("models/mlperf-tiny/" + name + ".tflite"); }

nlohmann::json metadata(const std::string& out) { return nlohmann::json::parse(read_bytes(out + "/metadata.json")); }

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

class NpuRef : public TempDirTest<::testing::TestWithParam<std::string>> {
 protected:
  NpuRef() : TempDirTest("aotc-npu") {}
};

// Every int8 MLPerf Tiny model: at least 95% of its MACs on the NPU, and TFLite Micro's
// output bytes on all four reference inputs.
TEST_P(NpuRef, MlperfModelRunsOnTheNpuBitExact) {
  const std::string name = GetParam();
  Result r = run({"compile", mlperf(name), "-o", tmp("out"), "--target", "npu-ref"});
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json offload = metadata(tmp("out"))["offload"];
  EXPECT_EQ(offload["backend"], "npu-ref");
  EXPECT_GE(offload["mac_fraction"].get<double>(), 0.95) << offload.dump(2);
  EXPECT_GE(offload["functions"].size(), 1u);
  EXPECT_GT(offload["estimated_npu_cycles"].get<int64_t>(), 0);
  expect_reference_outputs(mlperf(name), shared_path("models/mlperf-tiny/reference/" + name + "/"), false, dir_->path(),
                           {"--target", "npu-ref"});
}

INSTANTIATE_TEST_SUITE_P(Int8Models, NpuRef, ::testing::ValuesIn(kInt8Models), [](const auto& info) { return info.param; });

class Npu : public TempDirTest<> {
 protected:
  Npu() : TempDirTest("aotc-npu") {}

  // Writes `toml` as the target file `file` (in the test's directory) and compiles `model`
  // for it into `out`.
  Result compile_for(const std::string& file, const std::string& toml, const std::string& model, const std::string& out) {
    write_text(tmp(file), toml);
    return run({"compile", model, "-o", tmp(out), "--target-config", tmp(file)});
  }
};

// A target whose NPU does not run average pooling: kws's AVERAGE_POOL_2D stays on the CPU
// (with the reason), which cuts the NPU part in two, and the output is still TFLite
// Micro's, byte for byte.
TEST_F(Npu, ExcludedOperatorSplitsTheGraphAndStaysBitExact) {
  Result r = compile_for("no_pool.toml",
                         "base = \"npu-ref\"\nname = \"npu-ref-no-avgpool\"\n[npu]\nbackend = \"npu-ref\"\n"
                         "operators = [\"CONV_2D\", \"DEPTHWISE_CONV_2D\", \"FULLY_CONNECTED\", \"MAX_POOL_2D\", \"ADD\", "
                         "\"MUL\", \"RESHAPE\"]\nmax_kernel = 64\nmax_stride = 64\npools = [\"sram\"]\n",
                         mlperf("kws_ref_model"), "out");
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json meta = metadata(tmp("out"));
  nlohmann::json offload = meta["offload"];
  ASSERT_EQ(offload["functions"].size(), 2u) << offload.dump(2);
  std::vector<std::string> devices;
  for (const auto& step : meta["steps"]) devices.push_back(step["device"]);
  EXPECT_EQ(devices, (std::vector<std::string>{"npu-ref", "cpu", "npu-ref", "cpu"}));  // convs, pool, dense, softmax
  bool pool_on_cpu = false;
  for (const auto& c : offload["cpu_nodes"]) pool_on_cpu |= c["node"].get<std::string>().find("AVERAGE_POOL_2D") != std::string::npos;
  EXPECT_TRUE(pool_on_cpu) << offload.dump(2);
  // Pooling has no multiply-accumulates: the NPU still does all of them.
  EXPECT_EQ(offload["mac_fraction"].get<double>(), 1.0);
  expect_reference_outputs(mlperf("kws_ref_model"), shared_path("models/mlperf-tiny/reference/kws_ref_model/"), false,
                           dir_->path(), {"--target-config", tmp("no_pool.toml")});
}

// The NPU cannot see the CPU's stack: its scratch is workspace memory even where 16 bytes
// would go on the stack (a host-based target allows 1024 bytes there). The model: two
// int8 ADDs of 16 elements on the NPU, the first one's 16-byte result in the NPU's scratch.
TEST_F(Npu, SixteenByteNpuScratchStaysOffTheStack) {
  test::TfliteModelBuilder b;
  int32_t x = b.input("x", tfl::TensorType_INT8, {1, 16}, 0.5f, 3);
  int32_t t = b.tensor(test::TfliteModelBuilder::spec("t", tfl::TensorType_INT8, {1, 16}, 0.5f, -2));
  int32_t y = b.output("y", tfl::TensorType_INT8, {1, 16}, 1.0f, 1);
  b.op(tfl::BuiltinOperator_ADD, {x, x}, {t});
  b.op(tfl::BuiltinOperator_ADD, {t, x}, {y});
  std::vector<uint8_t> bytes = b.build();
  std::string model = tmp("adds.tflite");
  std::ofstream(model, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  write_text(tmp("host_npu.toml"), "base = \"host\"\nname = \"host-npu\"\n[npu]\nbackend = \"npu-ref\"\noperators = [\"ADD\"]\n");
  Result r = run({"compile", model, "-o", tmp("out"), "--target-config", tmp("host_npu.toml"), "--print-after=lower_builtin"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("let scratch0: uint8* = aotc_workspace_alloc(16)"), std::string::npos) << r.output;
  std::string c = read_bytes(tmp("out/model.c"));
  EXPECT_NE(c.find("aotc_workspace_alloc(&model_scratch_allocator, 16)"), std::string::npos) << c;
  EXPECT_EQ(c.find("uint8_t scratch0[16]"), std::string::npos) << c;
}

// --emit-artifacts writes the NPU's streams and weights; a compile that reads them back
// with --artifacts emits the same files, byte for byte. A damaged directory is an error.
TEST_F(Npu, ArtifactsRoundTripThroughDiskToIdenticalC) {
  Result r = run({"compile", mlperf("kws_ref_model"), "-o", tmp("first"), "--name", "kws", "--target", "npu-ref",
                  "--emit-artifacts", tmp("artifacts")});
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json index = nlohmann::json::parse(read_bytes(tmp("artifacts/artifacts.json")));
  ASSERT_EQ(index["functions"].size(), 1u);
  for (const auto& a : index["functions"][0]["artifacts"])
    EXPECT_EQ(read_bytes(tmp("artifacts/") + a["file"].get<std::string>()).size(), a["bytes"].get<size_t>());
  std::string stream = read_bytes(tmp("artifacts/npu0_stream.bin"));
  ASSERT_GE(stream.size(), 24u);
  EXPECT_EQ(stream.substr(0, 4), "ANPU");

  r = run({"compile", mlperf("kws_ref_model"), "-o", tmp("second"), "--name", "kws", "--target", "npu-ref", "--artifacts",
           tmp("artifacts")});
  ASSERT_EQ(r.status, 0) << r.output;
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(tmp("first"))) {
    std::string name = entry.path().filename();
    EXPECT_EQ(read_bytes(entry.path()), read_bytes(tmp("second/") + name)) << name;
    ++files;
  }
  EXPECT_GT(files, 5u);

  // A stream cut short no longer matches its index.
  std::ofstream(tmp("artifacts/npu0_stream.bin"), std::ios::binary) << stream.substr(0, 8);
  r = run({"compile", mlperf("kws_ref_model"), "-o", tmp("third"), "--target", "npu-ref", "--artifacts", tmp("artifacts")});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("npu0_stream.bin has 8 bytes"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(tmp("third")));
  // Artifacts of another model name no function of this one's.
  r = run({"compile", mlperf("ad01_int8"), "-o", tmp("fourth"), "--target", "npu-ref", "--artifacts", tmp("artifacts")});
  EXPECT_EQ(r.status, 1) << r.output;
}

// The NPU reaches only the pools its [npu] table names: every tensor an NPU part reads or
// writes, and its scratch, go there even when another pool comes first.
TEST_F(Npu, NpuBuffersOnlyInPoolsTheNpuReaches) {
  Result r = compile_for("two_pools.toml",
                         "base = \"npu-ref\"\nname = \"npu-two-pools\"\n[[pool]]\nname = \"dtcm\"\nsize = \"64K\"\n"
                         "[[pool]]\nname = \"sram\"\nsize = \"128K\"\n[npu]\nbackend = \"npu-ref\"\n"
                         "operators = [\"CONV_2D\", \"DEPTHWISE_CONV_2D\"]\npools = [\"sram\"]\n",
                         mlperf("kws_ref_model"), "out");
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json meta = metadata(tmp("out"));
  std::set<int64_t> npu_steps;
  for (const auto& step : meta["steps"])
    if (step["device"] == "npu-ref") npu_steps.insert(step["step"].get<int64_t>());
  ASSERT_FALSE(npu_steps.empty());
  size_t on_dtcm = 0;
  for (const auto& a : meta["activations"]) {
    bool touched_by_npu = false;
    for (int64_t s : npu_steps) touched_by_npu |= a["first_step"].get<int64_t>() <= s && s <= a["last_step"].get<int64_t>();
    if (touched_by_npu) EXPECT_EQ(a["pool"], "sram") << a.dump();
    on_dtcm += a["pool"] == "dtcm";
  }
  EXPECT_GT(on_dtcm, 0u) << "the CPU's tensors still prefer the first pool";
  for (const auto& k : meta["kernels"])
    if (k["device"] == "npu-ref" && k["scratch_bytes"].get<int64_t>() > 0) EXPECT_EQ(k["scratch_pool"], "sram") << k.dump();
  // An NPU pool too small for the NPU's buffers: a clear error, nothing written.
  r = compile_for("small.toml",
                  "base = \"npu-ref\"\nname = \"npu-small\"\n[[pool]]\nname = \"dtcm\"\nsize = \"64K\"\n"
                  "[[pool]]\nname = \"sram\"\nsize = \"1K\"\n[npu]\nbackend = \"npu-ref\"\n"
                  "operators = [\"CONV_2D\"]\npools = [\"sram\"]\n",
                  mlperf("kws_ref_model"), "small");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("does not fit"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(tmp("small")));
}

// The generated C of an NPU target, the reference driver with it, builds as strict C99
// with arm-none-eabi-gcc (the target's flags) and clang.
TEST_F(Npu, GeneratedCAndDriverBuildStrictForCortexM4) {
  Result r = run({"compile", mlperf("ad01_int8"), "-o", tmp("out"), "--target", "npu-ref"});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* file : {"model.c", "model_constants.c", "aotc_npu_ref.c", "aotc_runtime.c"}) {
    std::string log;
    EXPECT_EQ(cross_compile_strict_c99(tmp("out/model.cflags"), tmp("out/") + file, tmp("out"), tmp("gcc.o"), &log), 0)
        << file << ":\n" << log;
    EXPECT_EQ(compile_strict_c99("clang", tmp("out/") + file, tmp("out"), tmp("clang.o"), &log), 0) << file << ":\n" << log;
  }
  std::string constants = read_bytes(tmp("out/model_constants.c"));
  EXPECT_NE(constants.find("section(\".rodata.npu\")"), std::string::npos);
}

}  // namespace
}  // namespace aotc::e2e

namespace aotc::e2e {
namespace {

using ethos_u_test::read_vela_operator;
using ethos_u_test::VelaOperator;

// person_detect_vela.tflite for the Ethos-U55 target: its command stream becomes an
// artifact, and the generated code hands it with TFLite Micro's base-address table to
// ethosu_invoke_v3. A stand-in driver checks the call: the stream's bytes, Vela's weights,
// the table's order and sizes, 16-byte alignment, scratch off the stack; and what it
// writes is the model's output. On the host, built with clang under ASan and UBSan.
TEST_F(Npu, PersonDetectVelaCallsTheEthosUDriverAsTfliteMicroDoes) {
  std::string model = shared_path("models/tflite-micro/person_detect_vela.tflite");
  Result r = run({"compile", model, "-o", tmp("out"), "--name", "pd", "--target", "cortex-m55-ethos-u55"});
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json offload = metadata(tmp("out"))["offload"];
  EXPECT_EQ(offload["backend"], "ethos-u");
  ASSERT_EQ(offload["functions"].size(), 1u);
  EXPECT_TRUE(offload["cpu_nodes"].empty()) << offload.dump(2);  // Vela left nothing to the CPU
  VelaOperator vela = read_vela_operator(model);
  ASSERT_EQ(vela.stream.size(), 8168u);
  std::ofstream(tmp("stream.bin"), std::ios::binary) << vela.stream;
  std::ofstream(tmp("weights.bin"), std::ios::binary) << vela.weights;

  std::string stand_in = source_path("tests/e2e/ethos_u");
  std::string log;
  int status = run_process({"clang", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "-g",
                            "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-I" + tmp("out"), "-I" + stand_in,
                            tmp("out/pd.c"), tmp("out/pd_constants.c"), tmp("out/aotc_runtime.c"), tmp("out/aotc_ethosu.c"),
                            stand_in + "/stand_in_driver.c", stand_in + "/harness.c", "-o", tmp("harness")},
                           &log);
  ASSERT_EQ(status, 0) << log;
  status = run_process({tmp("harness"), tmp("stream.bin"), tmp("weights.bin"), std::to_string(vela.scratch_sizes[0]),
                        std::to_string(vela.scratch_sizes[1])},
                       &log);
  EXPECT_EQ(status, 0) << log;
  EXPECT_NE(log.find("ok: 0 checks failed"), std::string::npos) << log;
}

// Without an Ethos-U in the target, a Vela model is a clear error, not a crash.
TEST_F(Npu, VelaModelNeedsAnEthosUTarget) {
  Result r = run({"compile", shared_path("models/tflite-micro/person_detect_vela.tflite"), "-o", tmp("out"), "--target",
                  "cortex-m55"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("ethos-u"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(tmp("out")));
}

}  // namespace
}  // namespace aotc::e2e
