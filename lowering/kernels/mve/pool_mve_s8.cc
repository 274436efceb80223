// int8 average pooling for cores with Helium (the target's `mve` feature): over windows that
// never leave the input, each output pixel's window is summed for every channel by the
// runtime (aotc_mve_window_sum_s8, four channels per vector), then divided channel by
// channel by the problem's reduction (TFLite's rounding division).
#include "lowering/ir/runtime_calls.h"
#include "lowering/kernels/pool_kernels.h"

namespace aotc {
namespace {

using ir::Expr;

bool helium_average_applies(const PoolProblem& p, const TargetFacts& target) {
  bool inside = !p.axes[0].can_leave_input() && !p.axes[1].can_leave_input();
  return target.has("mve") && p.average && p.type == DataType::Int(8) && inside;
}

ir::Stmt helium_average(KernelBuilder&, const PoolProblem& p, PoolOperands& ops) {
  const WindowAxis &ya = p.axes[0], &xa = p.axes[1];
  ir::Buffer sums = ir::make_buffer("sums", DataType::Int(32), {p.channels});
  ir::Stmt loops = ir::loop_nest({p.batches, ya.output, xa.output}, {"n", "oy", "ox"}, [&](const std::vector<Expr>& o) {
    Expr first = ir::address_of(ops.input, {o[0], o[1] * ya.stride - ya.pad_begin, o[2] * xa.stride - xa.pad_begin, 0});
    ir::Stmt sum = ir::evaluate(ir::mve_window_sum_s8(first, ir::make_int(xa.input * p.channels), ir::make_int(ya.kernel),
                                                      ir::make_int(xa.kernel), ir::make_int(p.channels),
                                                      ir::address_of(sums, {0})));
    ir::Stmt divide = ir::loop_nest({p.channels}, {"c"}, [&](const std::vector<Expr>& c) {
      std::vector<Expr> out_index = {o[0], o[1], o[2], c[0]};
      return ir::store(ops.output, out_index,
                       p.stored(p.reduction.finish(ir::load(sums, c), ir::make_int(ya.kernel * xa.kernel)), out_index));
    });
    return ir::seq({sum, divide});
  });
  return ir::allocate(sums, loops);
}

}  // namespace

AOTC_REGISTER_KERNEL(PoolKernels, ({"mve.average_pool_s8", 40, helium_average_applies, helium_average,
                                    /*pixels_in_flight=*/1}));

}  // namespace aotc
