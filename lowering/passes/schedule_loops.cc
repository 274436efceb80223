#include "lowering/passes/schedule_loops.h"

#include <optional>
#include <vector>

#include "lowering/ir/ir_functor.h"
#include "lowering/passes/loop_analysis.h"
#include "lowering/passes/reorder_loops.h"
#include "lowering/passes/tensorize.h"

namespace aotc::ir {
namespace {

// Whether `s` is made of Stores, Seqs, Ifs and Lets only: what may be copied by
// unrolling without duplicating loops, allocations or calls with side effects.
class StraightLineCheck : public IRVisitor {
 public:
  bool ok = true;

 protected:
  void visit_for(const ForNode*) override { ok = false; }
  void visit_allocate(const AllocateNode*) override { ok = false; }
  void visit_allocate_const(const AllocateConstNode*) override { ok = false; }
  void visit_evaluate(const EvaluateNode*) override { ok = false; }
  void visit_return(const ReturnNode*) override { ok = false; }
  void visit_call(const CallNode* op) override {
    if (op->name.rfind("aotc_", 0) == 0) ok = false;  // runtime functions: kernels, allocators
    IRVisitor::visit_call(op);
  }
};

// Whether a kernel calls something for its effect: a hand-written micro-kernel that its
// lowering chose (aotc_dot.h, aotc_mve.h...), whose loops around the calls, the staging
// copies and the epilogues were written for it.
class EffectCallFinder : public IRVisitor {
 public:
  bool found = false;

 protected:
  void visit_evaluate(const EvaluateNode*) override { found = true; }
};

bool calls_micro_kernel(const Stmt& s) {
  EffectCallFinder finder;
  finder.visit(s);
  return finder.found;
}

bool is_straight_line(const Stmt& s) {
  StraightLineCheck check;
  check.visit(s);
  return check.ok;
}

// A body whose every Store writes an element that does not depend on the loop variable,
// which it also reads: acc[0] = acc[0] + x[k], acc[0] = max(acc[0], x[k]).
bool is_reduction(const ForNode* loop) {
  std::vector<Stmt> stmts;
  if (auto* block = loop->body.as<SeqNode>()) stmts = block->stmts; else stmts = {loop->body};
  for (const Stmt& st : stmts) {
    auto* store = st.as<StoreNode>();
    if (store == nullptr) return false;
    for (const Expr& index : store->indices)
      if (uses_var(index, loop->var.get())) return false;
    if (!reads_buffer(store->value, store->buffer.get())) return false;
  }
  return true;
}

// Whether interchanging `outer` with its inner loop makes the inner loop walk the first
// Store's last dimension: its last index is the outer variable, and the inner one does not
// appear in it.
bool reorder_is_profitable(const ForNode* outer) {
  const ForNode* inner = outer->body.as<ForNode>();
  const StoreNode* store = inner->body.as<StoreNode>();
  if (store == nullptr)
    if (auto* block = inner->body.as<SeqNode>()) store = block->stmts.empty() ? nullptr : block->stmts[0].as<StoreNode>();
  if (store == nullptr || store->indices.empty()) return false;
  const Expr& last = store->indices.back();
  return last.get() == outer->var.get() && !uses_var(last, inner->var.get());
}

class Scheduler : public IRMutator {
 public:
  explicit Scheduler(const SchedulePolicy& policy) : policy_(policy) {}

 protected:
  Stmt mutate_for(const Stmt& s, const ForNode* op) override {
    Stmt mutated = IRMutator::mutate_for(s, op);
    const ForNode* loop = mutated.as<ForNode>();
    LoopSchedule schedule = loop->schedule;
    if (const ForNode* inner = loop->body.as<ForNode>()) {
      bool inner_is_innermost = is_straight_line(inner->body);
      if (policy_.reorder && inner_is_innermost && reorder_is_profitable(loop) && reorder_is_legal(loop)) {
        // The loops trade places: the inner one's annotations would no longer fit.
        schedule.reorder = true;
        Stmt plain_inner = with_schedule(inner, LoopSchedule());
        return with_schedule(rebuild_for(loop, loop->min, loop->extent, plain_inner).as<ForNode>(), schedule);
      }
      return mutated;
    }
    if (!is_straight_line(loop->body)) return mutated;
    std::optional<int64_t> extent = constant_int(loop->extent);
    int64_t body_nodes = node_count(loop->body);
    std::string kernel = dot_product_kernel(loop);
    // A few taps are cheaper written out than as a call that loops over them.
    if (extent && *extent >= 2 && *extent <= policy_.unroll_max_extent && *extent * body_nodes <= policy_.unroll_max_nodes) {
      schedule.unroll = true;
    } else if (!kernel.empty() && (kernel == "aotc_dot_f32" ? policy_.tensorize_f32 : policy_.tensorize_int8)) {
      schedule.tensorize = kernel;
    } else if (extent && policy_.split_factor > 1 && *extent > policy_.split_factor &&
               body_nodes <= policy_.split_max_nodes && is_reduction(loop)) {
      schedule.split = policy_.split_factor;
      schedule.unroll = true;
    } else {
      return mutated;
    }
    return with_schedule(loop, schedule);
  }

 private:
  const SchedulePolicy& policy_;
};

}  // namespace

SchedulePolicy SchedulePolicy::for_target(const TargetFacts& target) {
  SchedulePolicy p;
  p.reorder = true;
  if (target.has("simd")) return p;
  const bool big_core = target.has("fpu") || target.has("dsp");
  p.tensorize_f32 = target.has("fpu");
  p.tensorize_int8 = target.has("dsp");
  p.unroll_max_extent = 4;
  p.unroll_max_nodes = big_core ? 128 : 48;
  if (big_core) {
    p.split_factor = 4;
    p.split_max_nodes = 32;
  }
  return p;
}

Stmt schedule_loops(const Stmt& s, const SchedulePolicy& policy) {
  if (calls_micro_kernel(s)) return s;
  return Scheduler(policy).mutate(s);
}
Stmt schedule_loops(const Stmt& s, const TargetFacts& target) { return schedule_loops(s, SchedulePolicy::for_target(target)); }

}  // namespace aotc::ir
