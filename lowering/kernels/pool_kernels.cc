#include "lowering/kernels/pool_kernels.h"

#include "lowering/compute/output_overlap.h"
#include "lowering/compute/reduction.h"

namespace aotc {
namespace {

using ir::Expr;

// Output element o = (n, oy, ox, c): the reduction over its window, clipped to the input.
ir::Stmt pool_one_output(const PoolProblem& p, const ir::Buffer& x, const ir::Buffer& y, const std::vector<Expr>& o) {
  WindowTaps window(p.axes, {o[1], o[2]});
  auto taps = [&](const Accumulator& acc) {
    return window.loops([&](const std::vector<Expr>&, const std::vector<Expr>& at) {
      return acc.set(p.reduction.update(acc.value(), ir::load(x, {o[0], at[0], at[1], o[3]})));
    });
  };
  auto write = [&](const Expr& total) {
    if (!p.reduction.uses_count) return ir::store(y, o, p.stored(p.reduction.finish(total, Expr()), o));
    ir::Var count = ir::make_var("count");
    return ir::let(count, window.count(), ir::store(y, o, p.stored(p.reduction.finish(total, ir::var_expr(count)), o)));
  };
  return window.bind(accumulate(p.reduction.init, taps, write));
}

AOTC_REGISTER_KERNEL(PoolKernels, ({"portable.pool", 0, [](const PoolProblem&, const TargetFacts&) { return true; },
                                    [](KernelBuilder&, const PoolProblem& p, PoolOperands& ops) {
                                      return ir::loop_nest({p.batches, p.axes[0].output, p.axes[1].output, p.channels},
                                                           {"n", "oy", "ox", "c"}, [&](const std::vector<Expr>& o) {
                                                             return pool_one_output(p, ops.input, ops.output, o);
                                                           });
                                    },
                                    /*pixels_in_flight=*/1}));

}  // namespace

LoweredOp build_pool_kernel(KernelBuilder& kb, const PoolProblem& problem) {
  const PoolKernels::Entry& kernel = PoolKernels::select(problem, kb.target());
  PoolOperands ops{kb.tensor_param(problem.input, "input"), kb.tensor_param(problem.output, "output")};
  LoweredOp lowered = kb.finish(kernel.build(kb, problem, ops));
  if (kernel.pixels_in_flight > 0 && problem.batches == 1)
    allow_pixel_order_overlap(lowered, kb.graph(), problem.input, problem.output, problem.axes, kernel.pixels_in_flight);
  lowered.func.attrs["kernel"] = kernel.name;
  return lowered;
}

}  // namespace aotc
