// Activation memory of the MLPerf Tiny int8 models: aotc's static plan against the
// liveness lower bound, and against TensorFlow Lite Micro's non-persistent arena like for
// like: that arena holds the model's input and output tensors too, while aotc's plan
// leaves them to the caller, so the ratio sets aotc's plan plus the input and output
// buffers against it. With --io-in-arena the input and output are planned in the arena
// too (their memory reused once dead), which is TFLM's own arrangement: that plan alone is
// compared with the arena.
//
//   ninja -C build bench_memory      (prints a Markdown table)
//
// TFLM's figures are the measured ones from ../shared/README.md (x86-64, reference
// kernels). Everything else is computed here, now. The last column plans the model for
// npu-ref: the CPU's arena with the NPU's scratch in it.
#include <cstdio>
#include <string>
#include <vector>

#include "aot/driver/pipeline.h"

namespace {

struct Model {
  const char* name;
  long tflm_non_persistent;  // bytes
};

constexpr Model kModels[] = {
    {"kws_ref_model", 16000}, {"vww_96_int8", 73728}, {"pretrainedResnet_quant", 49152}, {"ad01_int8", 768}};

}  // namespace

struct Plan {
  long bytes = 0, bound = 0, io = 0;
  std::string strategy;
};

Plan plan_of(const std::string& path, bool in_place, bool io_in_arena = false, const char* target = "cortex-m4") {
  aotc::CompileOptions options;
  options.model_path = path;
  options.target = aotc::load_builtin_target(target);
  options.in_place = in_place;
  options.io_in_arena = io_in_arena;
  aotc::CompiledModel m = aotc::compile_model(options);
  Plan p{static_cast<long>(m.arena.total_bytes), static_cast<long>(m.arena.lower_bound), 0, m.arena.strategy};
  for (const std::vector<aotc::TensorId>* io : {&m.graph.inputs, &m.graph.outputs})
    for (aotc::TensorId id : *io) p.io += static_cast<long>(m.graph.tensor(id).size_bytes());
  return p;
}

int main(int argc, char** argv) {
  std::string shared = argc > 1 ? argv[1] : "../shared";
  // "layer-by-layer bound": every kernel's output in memory of its own (--no-in-place);
  // aotc's plan lets kernels write over inputs that die. The plan and its bound are
  // aotc's own figures; only "aotc + I/O", which counts what TFLM's arena counts, is
  // compared with TFLM.
  std::printf("| model | layer-by-layer bound (B) | aotc plan (B) | plan bound (B) | input + output (B) | "
              "aotc + I/O (B) | aotc --io-in-arena (B) | TFLM arena (B) | aotc + I/O / TFLM | "
              "aotc --io-in-arena / TFLM | strategy | npu-ref plan (B) |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
  for (const Model& m : kModels) {
    std::string path = shared + "/models/mlperf-tiny/" + m.name + ".tflite";
    try {
      Plan layered = plan_of(path, false), plan = plan_of(path, true), io_plan = plan_of(path, true, true);
      Plan npu = plan_of(path, true, false, "npu-ref");  // the CPU's arena and the NPU's scratch, in one pool
      long with_io = plan.bytes + plan.io;
      std::printf("| %s | %ld | %ld | %ld | %ld | %ld | %ld | %ld | %.2fx | %.2fx | %s | %ld |\n", m.name, layered.bound,
                  plan.bytes, plan.bound, plan.io, with_io, io_plan.bytes, m.tflm_non_persistent,
                  static_cast<double>(with_io) / m.tflm_non_persistent,
                  static_cast<double>(io_plan.bytes) / m.tflm_non_persistent, plan.strategy.c_str(), npu.bytes);
    } catch (const std::exception& e) {
      std::printf("| %s | error: %s ||||||||||\n", m.name, e.what());
    }
  }
  return 0;
}
