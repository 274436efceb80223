#include "lowering/passes/unroll_loops.h"

#include <optional>
#include <vector>

#include "lowering/ir/ir_functor.h"
#include "lowering/passes/loop_analysis.h"

namespace aotc::ir {
namespace {

class Unroller : public IRMutator {
 protected:
  Stmt mutate_for(const Stmt& s, const ForNode* op) override {
    if (!op->schedule.unroll) return IRMutator::mutate_for(s, op);
    Stmt body = mutate(op->body);
    std::optional<int64_t> extent = constant_int(op->extent);
    if (!extent) {
      LoopSchedule rest = op->schedule;
      rest.unroll = false;
      return with_schedule(rebuild_for(op, op->min, op->extent, body).as<ForNode>(), rest);
    }
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < *extent; ++i) copies.push_back(substitute(body, op->var.get(), op->min + make_int(i)));
    return seq(copies);
  }
};

}  // namespace

Stmt unroll_loops(const Stmt& s) { return Unroller().mutate(s); }

}  // namespace aotc::ir
