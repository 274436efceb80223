// The int8 register-block family (conv_blocked_s8.h, depthwise_s8.h, depthwise3_s8.h,
// fully_connected_s8.h): on a core with the DSP extension (the target's `dsp` feature) their
// micro-kernels use SMLAD; without it (cortex-m0plus, riscv32) the same blocks, packing and
// folding run aotc_dot.h's plain C, which takes fewer instructions there than the generic
// kernels (bench/firmware/README.md, "Cores without DSP"). The host (`simd`) keeps the
// generic loops, which its compiler vectorizes.
#pragma once

#include <string>

#include "aot/base/target_facts.h"
#include "lowering/kernels/conv_kernels.h"

namespace aotc {

inline bool int8_register_blocks_pay(const TargetFacts& target) { return target.has("dsp") || !target.has("simd"); }

using DspConvBuilder = ir::Stmt (*)(KernelBuilder&, const ConvGeometry&, ConvArithmetic&, const ConvOperands&,
                                    const FoldedConvConstants&);

// The registration of one of the family's convolutions: it applies where the blocks pay, to
// int8 problems with constant symmetric weights, depthwise or not as `depthwise` says, whose
// geometry `fits`; `reads_filter`: it reads the filter unpacked (a parameter) besides its tables.
inline ConvKernels::Entry dsp_conv_kernel(std::string name, int priority, bool depthwise, bool (*fits)(const ConvGeometry&),
                                          bool reads_filter, DspConvBuilder lower) {
  return {std::move(name), priority,
          [=](const ConvProblem& p, const TargetFacts& target) {
            return int8_register_blocks_pay(target) && p.int8_constant_symmetric && p.depthwise == depthwise && fits(p.geometry);
          },
          [=](KernelBuilder& kb, const ConvProblem& p, ConvOperands& ops) {
            if (reads_filter) ops.filter = kb.tensor_param(p.filter, p.filter_name);
            ops.output = kb.tensor_param(p.output, p.output_name);
            return lower(kb, p.geometry, *p.arithmetic, ops, p.constants);
          },
          // The depthwise kernels go channel by channel; the blocked one a pair of pixels and
          // two channels at a time.
          /*pixels_in_flight=*/depthwise ? 0 : 2};
}

}  // namespace aotc
