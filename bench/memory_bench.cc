// Activation memory of the MLPerf Tiny int8 models: aotc's static plan against the
// liveness lower bound and TensorFlow Lite Micro's non-persistent arena.
//
//   ninja -C build bench_memory      (prints a Markdown table)
//
// TFLM's figures are the measured ones from ../shared/README.md (x86-64, reference
// kernels). Everything else is computed here, now.
#include <cstdio>
#include <string>

#include "aot/pipeline.h"

namespace {

struct Model {
  const char* name;
  long tflm_non_persistent;  // bytes
};

constexpr Model kModels[] = {
    {"kws_ref_model", 16000}, {"vww_96_int8", 73728}, {"pretrainedResnet_quant", 49152}, {"ad01_int8", 768}};

}  // namespace

int main(int argc, char** argv) {
  std::string shared = argc > 1 ? argv[1] : "../shared";
  // aotc's plan holds the intermediate tensors; the caller owns the input and output
  // buffers, which TFLM keeps in its arena. Both views are printed.
  std::printf("| model | lower bound (B) | aotc plan (B) | plan / bound | + inputs, outputs (B) | TFLM arena (B) | "
              "aotc (with I/O) / TFLM | strategy |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (const Model& m : kModels) {
    aotc::CompileOptions options;
    options.model_path = shared + "/models/mlperf-tiny/" + m.name + ".tflite";
    options.target = aotc::load_builtin_target("cortex-m4");
    try {
      aotc::CompiledModel compiled = aotc::compile_model(options);
      long plan = static_cast<long>(compiled.arena.total_bytes);  // tensors and kernel scratch
      long bound = static_cast<long>(compiled.arena.lower_bound);
      long io = 0;
      for (aotc::TensorId id : compiled.graph.inputs) io += static_cast<long>(compiled.graph.tensor(id).size_bytes());
      for (aotc::TensorId id : compiled.graph.outputs) io += static_cast<long>(compiled.graph.tensor(id).size_bytes());
      std::printf("| %s | %ld | %ld | %.3f | %ld | %ld | %.3f | %s |\n", m.name, bound, plan,
                  bound ? static_cast<double>(plan) / bound : 1.0, plan + io, m.tflm_non_persistent,
                  static_cast<double>(plan + io) / m.tflm_non_persistent, compiled.arena.strategy.c_str());
    } catch (const std::exception& e) {
      std::printf("| %s | error: %s ||||||\n", m.name, e.what());
    }
  }
  return 0;
}
