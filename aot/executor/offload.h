// What runs where, for a model compiled for a target with an NPU: the external functions
// (what each runs, its MACs and estimated cycles, its scratch and artifacts), the nodes
// left on the CPU (with the reason when the NPU could have run the operator), and the
// share of the model's multiply-accumulates on the NPU. metadata.json ("offload") and the
// memory report print it.
#pragma once

#include <string>
#include <vector>

#include "aot/executor/compiled_model.h"

namespace aotc {

struct OffloadedFunction {
  std::string name;        // "npu0"
  std::string c_function;  // the kernel that calls the driver: "kws_aotc_external_0"
  std::vector<std::string> nodes;
  int64_t macs = 0, estimated_cycles = 0, scratch_bytes = 0;
  std::vector<const Artifact*> artifacts;
};

struct CpuNode {
  std::string node;    // "name (op)"
  std::string reason;  // why the NPU does not run it, if its operator is one the NPU runs
};

struct OffloadSummary {
  std::string backend;
  std::vector<OffloadedFunction> functions;
  std::vector<CpuNode> cpu_nodes;
  int64_t npu_macs = 0, cpu_macs = 0, estimated_cycles = 0;
  double mac_fraction() const {
    return npu_macs + cpu_macs > 0 ? static_cast<double>(npu_macs) / static_cast<double>(npu_macs + cpu_macs) : 0.0;
  }
};

// Empty backend when the target has no NPU.
OffloadSummary offload_summary(const CompiledModel& model);

}  // namespace aotc
