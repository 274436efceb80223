// `aotc run --dump-tensors DIR` and scripts/compare_tensors: every intermediate tensor of a
// run, checked against ONNX Runtime's and numpy's dumps committed in
// tests/models/dump_tensors (made by make_dump_tensors_models.py and make_references.sh),
// and a wrong kernel found at its node.
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kPython = "/usr/bin/python3";  // with numpy (python3-numpy)

std::string models(const std::string& rel) { return source_path("tests/models/dump_tensors/" + rel); }

nlohmann::json read_index(const std::string& dir) { return nlohmann::json::parse(read_bytes(dir + "/tensors.json")); }

const nlohmann::json* entry_named(const nlohmann::json& index, const std::string& name) {
  for (const auto& e : index["tensors"])
    if (e["name"] == name) return &e;
  return nullptr;
}

class DumpTensors : public TempDirTest<> {
 protected:
  DumpTensors() : TempDirTest("aotc-dump-test") {}

  // aotc run MODEL on INPUT with --dump-tensors DIR; expects success.
  void dump(const std::string& model, const std::string& input, const std::string& dir) {
    Result r = run({"run", model, "--inputs", input, "--outputs", tmp("output.npy"), "--dump-tensors", dir});
    ASSERT_EQ(r.status, 0) << r.output;
  }
  // scripts/compare_tensors A B [options].
  Result compare(const std::string& a, const std::string& b, const std::vector<std::string>& options = {}) {
    std::vector<std::string> command = {kPython, source_path("scripts/compare_tensors"), a, b};
    command.insert(command.end(), options.begin(), options.end());
    Result r;
    r.status = run_process(command, &r.output);
    return r;
  }
};

// Every intermediate of the float model, Relu and hard swish included (which the normal
// build fuses into the kernels before them), agrees with ONNX Runtime's.
TEST_F(DumpTensors, EveryIntermediateMatchesOnnxRuntime) {
  ASSERT_NO_FATAL_FAILURE(dump(models("model.onnx"), models("input.npy"), tmp("aotc")));
  Result r = compare(tmp("aotc"), models("ort"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("all 12 tensors both dumps hold agree"), std::string::npos) << r.output;

  nlohmann::json index = read_index(tmp("aotc"));
  EXPECT_EQ(index["format"], "aotc-tensor-dump");
  ASSERT_EQ(index["tensors"].size(), 12u);
  int order = 0;
  for (const auto& e : index["tensors"]) {
    EXPECT_EQ(e["order"], order++) << e.dump();
    ASSERT_TRUE(e["file"].is_string()) << e.dump();
    EXPECT_TRUE(fs::exists(tmp("aotc") + "/" + e["file"].get<std::string>())) << e.dump();
  }
  const nlohmann::json* relu = entry_named(index, "relu1_out");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ((*relu)["node"], "relu1");
  EXPECT_EQ((*relu)["op"], "Relu");
  EXPECT_EQ((*relu)["source"], "run");
  EXPECT_EQ((*relu)["shape"], nlohmann::json({1, 4, 8, 8}));
  // Shape arithmetic fold_constants computed: the compile-time value, as ONNX Runtime's.
  const nlohmann::json* flat_shape = entry_named(index, "flat_shape");
  ASSERT_NE(flat_shape, nullptr);
  EXPECT_EQ((*flat_shape)["source"], "compile_time");
  EXPECT_EQ((*flat_shape)["dtype"], "int64");

  // The dump build computes the model's output as the normal build does.
  EXPECT_EQ(read_bytes(tmp("output.npy")), read_bytes(tmp("aotc") + "/" + entry_named(index, "output")->at("file").get<std::string>()));
}

// The normal build fuses relu1 into conv1's kernel; the dump still holds relu1's output,
// so a wrong activation is found at relu1 and not at conv1 or later: aotc's dump of the
// model against ONNX Runtime's dump of the model with relu1 a LeakyRelu.
TEST_F(DumpTensors, NamesTheNodeWhoseKernelIsWrong) {
  Result compiled = run({"compile", models("model.onnx"), "-o", tmp("compiled")});
  ASSERT_EQ(compiled.status, 0) << compiled.output;
  nlohmann::json metadata = nlohmann::json::parse(read_bytes(tmp("compiled/metadata.json")));
  for (const auto& step : metadata["steps"]) EXPECT_NE(step["node"], "relu1 (Relu)") << "relu1 is no longer fused";

  ASSERT_NO_FATAL_FAILURE(dump(models("model.onnx"), models("input.npy"), tmp("aotc")));
  Result relu = compare(tmp("aotc"), models("ort_relu_altered"));
  EXPECT_EQ(relu.status, 1) << relu.output;
  EXPECT_NE(relu.output.find("first divergence: node 'relu1' (Relu in A, LeakyRelu in B), output 0, tensor 'relu1_out'"),
            std::string::npos)
      << relu.output;
  EXPECT_NE(relu.output.find("(1 tensor agreed before it)"), std::string::npos) << relu.output;

  // A perturbed weight: conv2 diverges, and everything before it agrees.
  Result weight = compare(tmp("aotc"), models("ort_weight_altered"));
  EXPECT_EQ(weight.status, 1) << weight.output;
  EXPECT_NE(weight.output.find("first divergence: node 'conv2' (Conv), output 0, tensor 'conv2_out'"), std::string::npos)
      << weight.output;
  EXPECT_NE(weight.output.find("(3 tensors agreed before it)"), std::string::npos) << weight.output;

  // The tolerance is the user's: --atol 2 hides the wrong Relu's largest difference, 1.8.
  Result loose = compare(tmp("aotc"), models("ort_relu_altered"), {"--atol", "2"});
  EXPECT_EQ(loose.status, 0) << loose.output;
}

// A QDQ model: aotc runs integer kernels (fold_qdq), so its dump holds the QuantizeLinear
// outputs as raw uint8 with their scale and zero point, equal to ONNX Runtime's byte for
// byte, and lists the float tensors fold_qdq folded away with the reason.
TEST_F(DumpTensors, QuantizedTensorsAreRawIntegersWithScaleAndZeroPoint) {
  ASSERT_NO_FATAL_FAILURE(
      dump(source_path("tests/models/qdq/conv_chain/model.onnx"), models("input_qdq_conv_chain.npy"), tmp("aotc")));
  Result r = compare(tmp("aotc"), models("ort_qdq_conv_chain"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("all 4 tensors both dumps hold agree"), std::string::npos) << r.output;

  nlohmann::json index = read_index(tmp("aotc"));
  const nlohmann::json* q = entry_named(index, "quantizelinear_25");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ((*q)["dtype"], "uint8");
  ASSERT_TRUE(q->contains("quantization")) << q->dump();
  EXPECT_EQ((*q)["quantization"]["zero_point"], nlohmann::json({0}));
  EXPECT_FLOAT_EQ((*q)["quantization"]["scale"][0].get<float>(), 0.023672347888350487f);
  std::string npy = read_bytes(tmp("aotc") + "/" + (*q)["file"].get<std::string>());
  EXPECT_NE(npy.find("'descr': '|u1'"), std::string::npos);
  const nlohmann::json* conv = entry_named(index, "conv_19");
  ASSERT_NE(conv, nullptr);
  EXPECT_TRUE((*conv)["file"].is_null());
  EXPECT_NE((*conv)["absent"].get<std::string>().find("fold_qdq"), std::string::npos) << conv->dump();
}

// What the compiled program never holds is listed without a file, with the reason: the
// nodes inside an If's branches (nested_if). The layers the NPU runs (kws on npu-ref) write
// their results out of the NPU's region in a dump build: each is the CPU's result of the
// same layer, byte for byte (both are TensorFlow Lite Micro's arithmetic). The model's
// outputs stay right: torch's and TensorFlow Lite Micro's.
TEST_F(DumpTensors, TensorsTheProgramNeverHoldsAreListedWithTheReason) {
  std::string nested_if = source_path("tests/models/control_flow/nested_if/");
  Result r = run({"run", nested_if + "model.onnx", "--inputs", nested_if + "input_0_0.bin", "--outputs", tmp("y.bin"),
                  "--dump-tensors", tmp("if")});
  ASSERT_EQ(r.status, 0) << r.output;
  expect_close(read_floats(tmp("y.bin")), read_floats(nested_if + "output_0_0.bin"), 1e-5, 1e-6);
  nlohmann::json index = read_index(tmp("if"));
  const nlohmann::json* y = entry_named(index, "y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ((*y)["op"], "If");
  int in_branches = 0;
  for (const auto& e : index["tensors"]) {
    if (!e["file"].is_null()) continue;
    EXPECT_NE(e["absent"].get<std::string>().find("control-flow subgraph"), std::string::npos) << e.dump();
    EXPECT_EQ(e["order"], (*y)["order"]) << e.dump();  // a branch's nodes: their If's place
    ++in_branches;
  }
  EXPECT_GE(in_branches, 10);

  std::string kws = shared_path("models/mlperf-tiny/");
  r = run({"run", kws + "kws_ref_model.tflite", "--target", "npu-ref", "--inputs", kws + "reference/kws_ref_model/input_0.bin",
           "--outputs", tmp("kws.bin"), "--dump-tensors", tmp("npu")});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_bytes(tmp("kws.bin")), read_bytes(kws + "reference/kws_ref_model/output_0.bin"));
  index = read_index(tmp("npu"));
  r = run({"run", kws + "kws_ref_model.tflite", "--inputs", kws + "reference/kws_ref_model/input_0.bin", "--outputs",
           tmp("kws_cpu.bin"), "--dump-tensors", tmp("cpu")});
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json cpu_index = read_index(tmp("cpu"));
  ASSERT_EQ(index["tensors"].size(), cpu_index["tensors"].size());
  const nlohmann::json& first_conv = index["tensors"][0];
  EXPECT_EQ(first_conv["op"], "tfl.CONV_2D");
  int npu_layers = 0;
  for (size_t i = 0; i < index["tensors"].size(); ++i) {
    const nlohmann::json& npu = index["tensors"][i];
    const nlohmann::json& cpu = cpu_index["tensors"][i];
    ASSERT_TRUE(npu["file"].is_string()) << npu.dump();
    ASSERT_TRUE(cpu["file"].is_string()) << cpu.dump();
    EXPECT_EQ(read_bytes(tmp("npu") + "/" + npu["file"].get<std::string>()),
              read_bytes(tmp("cpu") + "/" + cpu["file"].get<std::string>()))
        << npu.dump();
    std::string op = npu["op"].get<std::string>();
    npu_layers += op == "tfl.CONV_2D" || op == "tfl.DEPTHWISE_CONV_2D" || op == "tfl.FULLY_CONNECTED";
  }
  EXPECT_GE(npu_layers, 10);
  // The softmax runs on the CPU: its int8 output is in the dump with TFLite's scale and zero point.
  const nlohmann::json* softmax = entry_named(index, "Identity");
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ((*softmax)["op"], "tfl.SOFTMAX");
  EXPECT_EQ((*softmax)["dtype"], "int8");
  EXPECT_EQ((*softmax)["quantization"]["zero_point"], nlohmann::json({-128}));
  EXPECT_FLOAT_EQ((*softmax)["quantization"]["scale"][0].get<float>(), 1.0f / 256);
}

// Tensor names are untrusted: path separators, "..", quotes, a newline and non-ASCII
// letters stay in the index (where the comparison with numpy's dump finds them) and out of
// the file names.
TEST_F(DumpTensors, FileNamesAreSafeWhateverTheTensorNames) {
  ASSERT_NO_FATAL_FAILURE(dump(models("model_hostile_names.onnx"), models("input_hostile_names.npy"), tmp("aotc")));
  std::vector<std::string> files;
  for (const auto& f : fs::directory_iterator(tmp("aotc"))) files.push_back(f.path().filename().string());
  EXPECT_EQ(files.size(), 4u);
  for (const std::string& f : files) {
    EXPECT_EQ(f.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"), std::string::npos) << f;
    EXPECT_LE(f.size(), 4u + 1 + 64 + 4) << f;
  }
  nlohmann::json index = read_index(tmp("aotc"));
  EXPECT_NE(entry_named(index, "../../escape/\"quoted\"\nline"), nullptr);
  Result r = compare(tmp("aotc"), models("ref_hostile_names"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("all 3 tensors both dumps hold agree"), std::string::npos) << r.output;

  // Bytes that are not UTF-8 and a terminal escape in a name: the index is still JSON,
  // with U+FFFD for the bad bytes, and the file name keeps only the safe characters.
  std::string model = read_bytes(models("model_hostile_names.onnx"));
  const std::string name = "../../escape/", patched = std::string("..\xff\xfe\x1b[31m/zzz", name.size());
  for (size_t at = model.find(name); at != std::string::npos; at = model.find(name, at)) model.replace(at, name.size(), patched);
  {
    std::ofstream f(tmp("bad_bytes.onnx"), std::ios::binary);
    f << model;
  }
  ASSERT_NO_FATAL_FAILURE(dump(tmp("bad_bytes.onnx"), models("input_hostile_names.npy"), tmp("bad_bytes")));
  nlohmann::json bad = read_index(tmp("bad_bytes"));
  EXPECT_NE(entry_named(bad, "..\xEF\xBF\xBD\xEF\xBF\xBD\x1b[31m/zzz\"quoted\"\nline"), nullptr) << bad.dump();
  EXPECT_EQ(bad["tensors"][0]["file"], "0000_..____31m_zzz_quoted__line.npy");
}

// A run that fails leaves no dump folder and nothing staged beside it.
TEST_F(DumpTensors, FailedRunLeavesNoFolder) {
  ScopedEnvironment env({{"CC", "false"}});
  Result r = run({"run", models("model.onnx"), "--inputs", models("input.npy"), "--outputs", tmp("output.npy"),
                  "--dump-tensors", tmp("dump")});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("building the generated C failed"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp("dump")));
  EXPECT_FALSE(fs::exists(tmp("output.npy")));
  for (auto& entry : fs::directory_iterator(dir_->path())) ADD_FAILURE() << "left behind: " << entry.path();
}

// compare_tensors refuses what is not a dump (exit status 2), naming it.
TEST_F(DumpTensors, CompareRefusesAFolderThatIsNotADump) {
  fs::create_directories(tmp("empty"));
  Result r = compare(tmp("empty"), models("ort"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("not a tensor dump"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace aotc::e2e
