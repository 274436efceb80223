// What the loop-IR passes and the operator lowerings may know about the machine the
// generated C runs on: a plain struct, so that those layers do not depend on how targets
// are described or loaded (targets/target.h derives its Target from it).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace aotc {

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
