// The int8 register-block family (conv_blocked_s8.h, depthwise_s8.h, depthwise3_s8.h,
// fully_connected_s8.h): on a core with the DSP extension (the target's `dsp` feature) their
// micro-kernels use SMLAD; without it (cortex-m0plus, riscv32) the same blocks, packing and
// folding run aotc_dot.h's plain C, which takes fewer instructions there than the generic
// kernels (bench/firmware/README.md, "Cores without DSP"). The host (`simd`) keeps the
// generic loops, which its compiler vectorizes.
#pragma once

#include "aot/base/target_facts.h"

namespace aotc {

inline bool int8_register_blocks_pay(const TargetFacts& target) { return target.has("dsp") || !target.has("simd"); }

}  // namespace aotc
