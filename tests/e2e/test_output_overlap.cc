// Output overlap (issue #29, lowering/compute/output_overlap.h): every kernel that declares
// it writes pixels in order (Kernel::pixels_in_flight) computes the same bytes with its
// output beginning exactly the declared distance below its input, and farther, running on
// over it, as with the two apart; and every kernel that works channel plane by channel
// plane (Kernel::channel_planes) with its output beginning where its input begins. The kernels are the ones compiled (after every loop-IR pass,
// so a pass that reorders a kernel's loops is caught), run in the IR interpreter on random
// inputs: the layers of the random-kernel models (tests/firmware/random_kernels) on each
// core whose kernels the firmware tests run, and the host. The oracle is the same kernel
// with separate buffers; the firmware and e2e tests compare that one with TFLite Micro.
//
// The distance itself is checked in tests/unit/test_output_overlap.cc against a simulation
// of reads and writes; the planner's use of it in tests/unit/test_memory_planner.cc.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "aot/driver/pipeline.h"
#include "e2e_util.h"
#include "lowering/ir/ir_interpreter.h"
#include "lowering/kernels/conv_kernels.h"
#include "lowering/kernels/pool_kernels.h"

namespace aotc::e2e {
namespace {

// Random values for a tensor: small floats for float32 (no NaN bit patterns), bytes otherwise.
std::vector<uint8_t> random_values(const Tensor& t, std::mt19937& rng) {
  std::vector<uint8_t> bytes(static_cast<size_t>(t.size_bytes()));
  if (t.dtype == DataType::Float32()) {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      float v = value(rng);
      std::memcpy(&bytes[i], &v, 4);
    }
  } else {
    std::uniform_int_distribution<int> byte(0, 255);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(byte(rng));
  }
  return bytes;
}

// Runs kernel `k` with its overlapped input at `input` and its output at `output`; every
// other argument gets `others`' bytes (a fresh copy: constants as compiled, activations random).
void interpret_step(const Step& k, uint8_t* input, uint8_t* output, const std::map<TensorId, std::vector<uint8_t>>& others) {
  std::map<TensorId, std::vector<uint8_t>> copies = others;
  std::vector<ir::BufferBinding> bindings;
  for (size_t i = 0; i < k.args.size(); ++i) {
    TensorId t = k.args[i];
    void* at = t == k.overlap_input ? input : t == k.in_place_output ? output : copies.at(t).data();
    bindings.push_back({k.func.params[i], at});
  }
  ASSERT_EQ(ir::interpret(k.func, bindings), 0) << k.label;
}

// Runs every overlapping kernel of `model` compiled for `target` apart and overlapped; counts
// the kernels in `overlapped`.
void expect_overlaps_compute_the_same(const std::string& model_path, const std::string& target,
                                      std::map<std::string, int>& overlapped) {
  CompileOptions options;
  options.model_path = model_path;
  options.target = load_builtin_target(target);
  options.pools = {{"sram", 0, false, "", ""}};  // unbounded: the float models need more than a core's SRAM
  CompiledModel m = compile_model(options);
  std::mt19937 rng(29);
  for (const Step& k : m.steps) {
    if (!k.is_call() || k.overlap_input == kNoTensor) continue;
    const std::string kernel = k.func.attrs.count("kernel") ? k.func.attrs.at("kernel") : k.c_name;
    const Tensor& x = m.graph.tensor(k.overlap_input);
    const Tensor& y = m.graph.tensor(k.in_place_output);
    const int64_t distance = k.overlap_distance;
    ASSERT_TRUE(k.overlap_at_start ? distance == 0 : distance > 0) << k.label;
    std::map<TensorId, std::vector<uint8_t>> others;
    for (TensorId t : k.args)
      if (t != k.overlap_input && t != k.in_place_output)
        others[t] = m.graph.tensor(t).is_constant() ? *m.graph.tensor(t).data : random_values(m.graph.tensor(t), rng);
    const std::vector<uint8_t> input = random_values(x, rng);

    std::vector<uint8_t> input_apart = input, output_apart(static_cast<size_t>(y.size_bytes()), 0);
    interpret_step(k, input_apart.data(), output_apart.data(), others);

    // Output at 0, input `apart` bytes on: the closest the planner may place them, and
    // farther (the planner may place the input anywhere from the distance on; an order
    // that is wrong can look right at one distance, where channels happen to line up).
    const int64_t element = std::max(x.dtype.bytes(), y.dtype.bytes());
    std::vector<int64_t> places = {distance, distance + element, distance + 4 * element, distance + 12 * element,
                                   distance + x.size_bytes() / 3 / element * element};
    if (k.overlap_at_start) places = {0};  // a channel-plane kernel: only at the input's start
    for (int64_t apart : places) {
      if (apart != distance && apart >= y.size_bytes()) continue;  // no overlap left
      std::vector<uint8_t> block(static_cast<size_t>(std::max(y.size_bytes(), apart + x.size_bytes())), 0);
      std::copy(input.begin(), input.end(), block.begin() + apart);
      interpret_step(k, block.data() + apart, block.data(), others);
      EXPECT_TRUE(std::equal(output_apart.begin(), output_apart.end(), block.begin()))
          << target << " " << kernel << " at " << k.label << ": output " << y.size_bytes() << " B, input " << x.size_bytes()
          << " B, " << apart << " B apart (the distance is " << distance << " B)";
    }
    overlapped[kernel]++;
  }
}

// The kernels that declare an order that lets them overlap, per the registries.
std::set<std::string> kernels_that_may_overlap() {
  std::set<std::string> names;
  for (const auto& k : ConvKernels::kernels())
    if (k.pixels_in_flight > 0 || k.channel_planes) names.insert(k.name);
  for (const auto& k : PoolKernels::kernels())
    if (k.pixels_in_flight > 0) names.insert(k.name);
  return names;
}

TEST(OutputOverlap, EveryKernelThatDeclaresItComputesTheSameOverlapped) {
  std::map<std::string, int> overlapped;
  for (const char* target : {"cortex-m4", "cortex-m7", "cortex-m55", "host"})
    for (const char* model : {"random_kernels_s8", "random_kernels_f32"})
      expect_overlaps_compute_the_same(source_path("tests/firmware/random_kernels/" + std::string(model) + ".tflite"), target,
                                       overlapped);
  for (const std::string& name : kernels_that_may_overlap())
    EXPECT_GT(overlapped[name], 0) << name << " declares an order that lets it overlap, and no layer ran it overlapped";
}

// The MLPerf Tiny models' layers: real shapes (pointwise convolutions of many pixels).
TEST(OutputOverlap, MlperfTinyLayersComputeTheSameOverlapped) {
  std::map<std::string, int> overlapped;
  for (const char* target : {"cortex-m4", "cortex-m55", "host"})
    for (const char* model : {"vww_96_int8", "vww_96_float", "kws_ref_model", "pretrainedResnet_quant"})
      expect_overlaps_compute_the_same(shared_path("models/mlperf-tiny/" + std::string(model) + ".tflite"), target,
                                       overlapped);
}

// The generated C of plans with overlaps, inputs and outputs in the arena too, built with
// AddressSanitizer and UBSan on the host: TFLite Micro's bytes, as with --no-in-place.
TEST(OutputOverlap, OverlappedPlansRunCleanUnderSanitizersWithTheReferenceBytes) {
  TempDir dir("aotc-overlap");
  ScopedEnvironment sanitizers({{"CC", "clang"}, {"CFLAGS", "-fsanitize=address,undefined -fno-sanitize-recover=all"}});
  for (const char* name : {"vww_96_int8", "vww_96_float", "kws_ref_model"}) {
    std::string model = shared_path(std::string("models/mlperf-tiny/") + name + ".tflite");
    std::string ref = shared_path(std::string("models/mlperf-tiny/reference/") + name + "/");
    std::vector<std::string> options = {"--target", "cortex-m4", "--pool", "sram:512K", "--io-in-arena"};
    std::vector<std::string> compile = {"compile", model, "-o", dir.path() + "/" + name};
    compile.insert(compile.end(), options.begin(), options.end());
    Result r = run(compile);
    ASSERT_EQ(r.status, 0) << r.output;
    nlohmann::json meta = nlohmann::json::parse(read_bytes(dir.path() + "/" + name + "/metadata.json"));
    int overlaps = 0;
    for (const nlohmann::json& a : meta["activations"]) overlaps += a.contains("overlaps");
    EXPECT_GT(overlaps, 0) << name << ": the plan overlaps no output with its input";
    for (const char* in_place : {"", "--no-in-place"}) {
      std::vector<std::string> args = {"run", model, "--inputs", ref + "input_1.bin", "--outputs", dir.path() + "/y.bin"};
      args.insert(args.end(), options.begin(), options.end());
      if (*in_place) args.push_back(in_place);
      r = run(args);
      ASSERT_EQ(r.status, 0) << r.output;
      EXPECT_EQ(r.output.find("runtime error"), std::string::npos) << r.output;
      EXPECT_EQ(read_bytes(dir.path() + "/y.bin"), read_bytes(ref + "output_1.bin")) << name << " " << in_place;
    }
  }
}

}  // namespace
}  // namespace aotc::e2e
