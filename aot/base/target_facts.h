// What the loop-IR passes and the operator lowerings may know about the machine the
// generated C runs on: a plain struct, so that those layers do not depend on how targets
// are described or loaded (targets/target.h derives its Target from it).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace aotc {

// An NPU beside the CPU (a target file's [npu] table): what the compiler offloads to it and
// what it must know to do so. Graph regions of the operators it runs become external
// functions that the backend of that name compiles (aot/graph/external.h).
struct NpuFacts {
  std::string backend;                 // the external code generator: "npu-ref", "ethos-u"
  std::vector<std::string> operators;  // TFLite builtin operators to offload ("CONV_2D", ...)
  int64_t max_kernel = 255;            // largest kernel height or width it takes
  int64_t max_stride = 255;
  int64_t max_dilation = 255;
  // For the cycle estimate of a region: each command costs the larger of its MACs over
  // macs_per_cycle and its bytes moved over bytes_per_cycle, plus command_cycles.
  double macs_per_cycle = 1;
  double bytes_per_cycle = 1;
  int64_t command_cycles = 0;
  int64_t alignment = 16;              // bytes, of every buffer it reads or writes
  std::vector<std::string> pools;      // the memory pools it can reach; empty: all of them
  std::string section;                 // linker section of its command streams and weights ("": .rodata)
};

struct TargetFacts {
  std::string name = "host";  // for messages: "cortex-m4"
  // Largest Allocate (in bytes) that LowerBuiltin may place on the C stack; larger ones,
  // and all of them when 0, go to the workspace allocator.
  int64_t max_stack_alloca_size = 1024;
  // Bytes, for every planned tensor and every workspace block; the generated C checks that
  // the runtime was built with the same AOTC_WORKSPACE_ALIGNMENT.
  int64_t workspace_alignment = 16;
  int word_size = 64;  // bits: sizeof(size_t) * 8 on the target
  // ISA features a lowering may choose a kernel variant by (see kKnownFeatures).
  std::set<std::string> features;
  // The NPU, when the target has one.
  std::optional<NpuFacts> npu;

  bool has(const std::string& feature) const { return features.count(feature) != 0; }
  // Bytes of the runtime's workspace block header (two size_t words), rounded up to the
  // workspace alignment: what every workspace block costs besides its payload.
  int64_t workspace_header_bytes() const;
  // Bytes one workspace block of `nbytes` takes from the allocator's region, as
  // AOTC_WORKSPACE_BLOCK_BYTES computes it in runtime-c/aotc_runtime.h.
  int64_t workspace_block_bytes(int64_t nbytes) const;
};

// Every feature a target file may list, with what it means.
struct FeatureInfo {
  const char* name;
  const char* meaning;
  std::vector<std::string> requires_features;  // features it cannot be without
};
const std::vector<FeatureInfo>& known_features();

}  // namespace aotc
