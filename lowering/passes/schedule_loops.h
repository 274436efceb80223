// ScheduleLoops: decides, kernel by kernel and loop by loop, how each loop nest is to be
// run on the target, and writes the decisions as annotations (ir.h's LoopSchedule) for
// the passes that carry them out: tensorize, reorder_loops, split_loops, unroll_loops.
// It changes no loop itself, so `--print-after=schedule_loops` shows the plan.
//
// The policy, from the loop shapes and the target's features:
//   - an innermost loop of at most 4 iterations with a small body (kernel taps, the
//     channels of a pixel) is unrolled completely: gcc -O2 does not unroll, and a 3-tap
//     loop otherwise spends about as much on its compare, branch and index arithmetic as on
//     its work. The body budget is halved on cores without an FPU or DSP extension, whose
//     flash is the smallest;
//   - a longer innermost dot product (acc += a[k] * b[k], tensorize.h) becomes a runtime
//     micro-kernel: float32 on cores with an FPU, int8/uint8 on cores with the DSP
//     extension (two products per SMLAD where both operands are contiguous);
//   - a longer innermost reduction (a body that updates the same element every
//     iteration: sums, maxima) with a constant extent is split by 4 with the inner loop
//     unrolled, on cores with an FPU or the DSP extension;
//   - a perfect nest of two loops around Stores whose inner loop does not walk the
//     stored buffer's last (contiguous) dimension but whose outer loop does is
//     interchanged, where reorder_loops finds that legal.
// Targets with the `simd` feature (hosts) get only the interchange: their compilers
// unroll and vectorize on their own, and code size does not matter there.
// Kernels that call hand-written micro-kernels (chosen at lowering time: an Evaluate of a
// call anywhere in the kernel) are left alone as a whole: their lowerings arranged the
// loops around the calls, the staging copies and the epilogues for those kernels (unrolling
// the 3-channel gather of an int8 convolution's windows made it slower).
#pragma once

#include "aot/base/target_facts.h"
#include "lowering/ir/ir.h"

namespace aotc::ir {

// What schedule_loops may do on a target: derived from its features by for_target.
struct SchedulePolicy {
  bool tensorize_f32 = false;   // aotc_dot_f32
  bool tensorize_int8 = false;  // aotc_dot_s8_s8, aotc_dot_u8_u8, aotc_dot_u8_s8
  int64_t unroll_max_extent = 0;  // 0: no full unrolling
  int64_t unroll_max_nodes = 0;   // of all copies together (loop_analysis.h's node_count)
  int64_t split_factor = 0;       // 0: no splitting of reductions
  int64_t split_max_nodes = 0;    // of the body that is copied split_factor times
  bool reorder = false;

  static SchedulePolicy for_target(const TargetFacts& target);
};

Stmt schedule_loops(const Stmt& s, const SchedulePolicy& policy);
Stmt schedule_loops(const Stmt& s, const TargetFacts& target);

}  // namespace aotc::ir
