#include "aot/base/target_facts.h"

namespace aotc {
namespace {

int64_t align_up(int64_t n, int64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

}  // namespace

int64_t TargetFacts::workspace_header_bytes() const { return align_up(2 * word_size / 8, workspace_alignment); }

int64_t TargetFacts::workspace_block_bytes(int64_t nbytes) const {
  return workspace_header_bytes() + align_up(nbytes, workspace_alignment);
}

const std::vector<FeatureInfo>& known_features() {
  static const std::vector<FeatureInfo> kFeatures = {
      {"fpu", "single-precision floating point in hardware", {}},
      {"fp64", "double-precision floating point in hardware", {"fpu"}},
      {"dsp", "Armv7E-M DSP extension: SIMD on 16-bit pairs (SMLAD, SXTB16), saturation (SSAT)", {}},
      {"mve", "Armv8.1-M Helium (M-profile vector extension), integer", {"dsp"}},
      {"mve.fp", "Helium floating point", {"mve", "fpu"}},
      {"simd",
       "wide float SIMD registers that the C compiler vectorizes loops into (SSE/AVX, NEON): "
       "float32 convolutions as register-blocked products over packed weights (runtime-c/aotc_host_f32.h)",
       {"fpu"}},
  };
  return kFeatures;
}

}  // namespace aotc
