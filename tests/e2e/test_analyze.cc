// `aotc analyze`: the per-layer table and its totals agree with what `aotc compile` writes
// (metadata.json: kernels, memory, constants) and with the model's published size (the MLPerf
// Tiny MAC counts in ../shared/README.md); layers an NPU runs carry the device's MACs and
// cycle estimate (metadata.json's offload); a target without a [cycles] table says so; nothing is written but the --json file. How close
// the estimated cycles come to the cycle model's measurement is the firmware test
// analyze_cycles_* (tests/firmware/analyze_cycles_test.cmake), which runs the firmware.
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

namespace fs = std::filesystem;

class Analyze : public TempDirTest<> {
 protected:
  Analyze() : TempDirTest("aotc-analyze") {}

  nlohmann::json analyze(const std::string& model, const std::vector<std::string>& options, std::string* table) {
    std::vector<std::string> args = {"analyze", model, "--json", tmp("analysis.json")};
    args.insert(args.end(), options.begin(), options.end());
    Result r = run(args);
    EXPECT_EQ(r.status, 0) << r.output;
    *table = r.output;
    return nlohmann::json::parse(read_bytes(tmp("analysis.json")));
  }

  nlohmann::json metadata(const std::string& model, const std::vector<std::string>& options) {
    std::vector<std::string> args = {"compile", model, "-o", tmp("out")};
    args.insert(args.end(), options.begin(), options.end());
    Result r = run(args);
    EXPECT_EQ(r.status, 0) << r.output;
    return nlohmann::json::parse(read_bytes(tmp("out/metadata.json")));
  }
};

std::string mlperf(const std::string& name) { return shared_path("models/mlperf-tiny/" + name + ".tflite"); }

TEST_F(Analyze, LayersAndTotalsAreWhatTheCompiledModelHolds) {
  // ../shared/README.md: multiply-accumulates of one inference, in millions to two places.
  const std::map<std::string, double> kMillionMacs = {{"kws_ref_model", 2.66}, {"ad01_int8", 0.26}};
  for (const auto& [name, macs] : kMillionMacs) {
    std::string table;
    nlohmann::json a = analyze(mlperf(name), {"--target", "cortex-m4"}, &table);
    nlohmann::json m = metadata(mlperf(name), {"--target", "cortex-m4"});
    EXPECT_NEAR(a["macs"].get<double>() / 1e6, macs, 0.005) << name;
    EXPECT_EQ(a["ram_bytes"], m["memory"]["ram_bytes"]) << name;
    EXPECT_EQ(a["activation_bytes"], m["memory"]["activation_bytes"]) << name;
    EXPECT_EQ(a["constant_bytes"], m["memory"]["constant_bytes"]) << name;
    ASSERT_EQ(a["layers"].size(), m["kernels"].size()) << name;
    int64_t peak = 0, constants = 0;
    double cycles = 0;
    for (size_t i = 0; i < a["layers"].size(); ++i) {
      const nlohmann::json& layer = a["layers"][i];
      const nlohmann::json& kernel = m["kernels"][i];
      EXPECT_EQ(layer["function"], kernel["function"]);
      EXPECT_EQ(layer["kernel"], kernel.value("kernel", ""));
      EXPECT_EQ(layer["macs"].get<int64_t>(), kernel.value("macs", int64_t{0}));
      EXPECT_EQ(layer["output_elements"], kernel["output_elements"]);
      ASSERT_TRUE(layer["cycles"].is_number()) << layer.dump();
      cycles += layer["cycles"].get<double>();
      peak = std::max(peak, layer["live_bytes"].get<int64_t>());
      constants += layer["constant_bytes"].get<int64_t>();
    }
    // The plan meets its bound on these models: the busiest step holds the whole arena.
    EXPECT_EQ(peak, m["memory"]["lower_bound_bytes"].get<int64_t>()) << name;
    EXPECT_EQ(peak, a["activation_bytes"].get<int64_t>()) << name;
    // Every constant is read by some kernel, once.
    EXPECT_EQ(constants, a["constant_bytes"].get<int64_t>()) << name;
    EXPECT_NEAR(cycles, a["cycles"].get<double>(), 1e-6 * cycles) << name;
    EXPECT_FALSE(a["cycles_source"].get<std::string>().empty());
    if (name == "kws_ref_model") EXPECT_NE(table.find("dsp.blocked_conv_s8"), std::string::npos) << table;
    EXPECT_NE(table.find("estimated ("), std::string::npos) << table;
  }
}

TEST_F(Analyze, NpuLayersHaveTheDevicesFiguresAndTargetsWithoutCostsSaySo) {
  std::string table;
  nlohmann::json npu = analyze(mlperf("kws_ref_model"), {"--target", "npu-ref"}, &table);
  nlohmann::json offload = metadata(mlperf("kws_ref_model"), {"--target", "npu-ref"})["offload"];
  int on_npu = 0;
  for (const nlohmann::json& layer : npu["layers"]) {
    if (layer["device"] == "cpu") continue;
    EXPECT_EQ(layer["device"], "npu-ref");
    const nlohmann::json& f = offload["functions"][static_cast<size_t>(on_npu++)];
    EXPECT_EQ(layer["function"], f["function"]) << f.dump();
    EXPECT_EQ(layer["macs"], f["macs"]);
    EXPECT_EQ(layer["cycles"].get<double>(), f["estimated_cycles"].get<double>());
  }
  EXPECT_EQ(static_cast<size_t>(on_npu), offload["functions"].size());
  int64_t constants = 0;  // the command streams and weights included
  for (const nlohmann::json& layer : npu["layers"]) constants += layer["constant_bytes"].get<int64_t>();
  EXPECT_EQ(constants, npu["constant_bytes"].get<int64_t>());
  EXPECT_NEAR(npu["macs"].get<double>() / 1e6, 2.66, 0.005);

  nlohmann::json host = analyze(mlperf("kws_ref_model"), {}, &table);
  EXPECT_TRUE(host["cycles"].is_null());
  EXPECT_NE(table.find("not estimated: target host has no [cycles] table"), std::string::npos) << table;
}

// With control flow the total is the worst case: the larger branch of each If (so less
// than the sum of both branches' kernels), each Loop at its most trips.
TEST_F(Analyze, ControlFlowTotalsTheWorstCase) {
  std::string table;
  nlohmann::json a = analyze(source_path("tests/models/control_flow/nested_if/model.onnx"), {"--target", "cortex-m4"}, &table);
  EXPECT_TRUE(a["cycles_worst_case_over_control_flow"].get<bool>());
  double sum = 0, largest = 0;
  for (const nlohmann::json& layer : a["layers"]) {
    sum += layer["cycles"].get<double>();
    largest = std::max(largest, layer["cycles"].get<double>());
  }
  EXPECT_LT(a["cycles"].get<double>(), sum);
  EXPECT_GE(a["cycles"].get<double>(), largest);
  EXPECT_NE(table.find("worst case (the larger branch of each If"), std::string::npos) << table;
  nlohmann::json flat = analyze(mlperf("kws_ref_model"), {"--target", "cortex-m4"}, &table);
  EXPECT_FALSE(flat["cycles_worst_case_over_control_flow"].get<bool>());
}

TEST_F(Analyze, WritesNothingButItsJsonAndFailsLikeCompile) {
  Result r = run({"analyze", mlperf("kws_ref_model"), "--target", "cortex-m4"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::is_empty(dir_->path()));
  // vww's float activations do not fit the Cortex-M4's 128 KB pool: by how much and where.
  r = run({"analyze", mlperf("vww_96_float"), "--target", "cortex-m4", "--json", tmp("a.json")});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("does not fit in the memory pools (sram 131072 B)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("at the peak, step"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp("a.json")));
}

}  // namespace
}  // namespace aotc::e2e
