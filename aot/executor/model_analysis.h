// `aotc analyze`: what a compiled model costs, layer by layer, without running anything.
//
// For each kernel step: the model node, the kernel the kernel strategy chose and the shape
// it says, its multiply-accumulates and output elements, the bytes of constants it reads
// (the weights it is given and the tables it holds itself: packed weights, requantization
// constants), the activation bytes live while it runs (the memory plan's tensors whose live
// range covers the step, and its scratch) and, for a target whose file has a [cycles] table,
// its estimated cycles: per_mac x MACs + per_output x output elements + per_call, with the
// kernel's coefficients (targets/target.h KernelCost), which bench/firmware fits to the
// cycle model's measurement of the MLPerf Tiny models (cycle_tables.py); a step an NPU runs
// has the device's MACs and its own estimate (offload.h). Totals: MACs, RAM
// (the activation memory, the inputs and outputs the application passes unless they are in
// the arena, the state), flash (constants and NPU artifacts; code is not estimated), the
// estimated cycles.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aot/executor/compiled_model.h"

namespace aotc {

struct LayerAnalysis {
  int step = 0;            // index in CompiledModel::steps
  std::string function;    // <name>_<c_name>
  std::string node;        // the model node (fused steps: the anchor's label)
  std::string kernel;      // "dsp.blocked_conv_s8"; "" for a kernel outside the kernel strategy
  std::string geometry;    // "3x3/2x2 3->8 ch, out 48x48"; "" where the kernel does not say
  std::string device;      // "cpu", or the NPU's backend
  int64_t macs = 0;
  int64_t output_elements = 0;
  int64_t constant_bytes = 0;
  int64_t live_bytes = 0;  // activations live during the step, its scratch included
  std::optional<double> cycles;
};

struct ModelAnalysis {
  std::string model, target;
  std::vector<LayerAnalysis> layers;
  int64_t macs = 0;
  int64_t activation_bytes = 0;  // the arena (activations and kernel scratch)
  int64_t io_bytes = 0;          // inputs and outputs the application passes (0 with --io-in-arena)
  int64_t state_bytes = 0;
  int64_t ram_bytes = 0;         // the three above
  int64_t peak_step = -1;        // the step where most activation bytes are live
  int64_t constant_bytes = 0;    // flash: weights, kernel tables, NPU artifacts
  int64_t table_bytes = 0;       // of which the kernels' own tables (packed weights, requantization)
  int64_t artifact_bytes = 0;    // of which an NPU's command streams and weights
  // Total, when the target has a cost table: with control flow the worst case, the larger
  // branch of each If and each Loop at its most trips (control_flow says so).
  std::optional<double> cycles;
  bool control_flow = false;
  std::string cycles_source;     // how its costs were found
};

// The elements of the tensors a kernel step computes (its node's outputs).
int64_t output_elements(const CompiledModel& model, const Step& step);

ModelAnalysis analyze_model(const CompiledModel& model, const std::string& model_file_name);

// The analysis as a table for the terminal, and as JSON (the same fields; cycles null where
// not estimated).
std::string analysis_table(const ModelAnalysis& analysis);
std::string analysis_json(const ModelAnalysis& analysis);

}  // namespace aotc
