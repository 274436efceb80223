#include "lowering/passes/reorder_loops.h"

#include <map>
#include <vector>

#include "lowering/ir/builtins.h"
#include "lowering/ir/ir_functor.h"
#include "lowering/passes/loop_analysis.h"

namespace aotc::ir {
namespace {

// The Stores of a body made of Stores and Seqs only; false for anything else.
bool collect_stores(const Stmt& s, std::vector<const StoreNode*>* stores) {
  if (auto* store = s.as<StoreNode>()) {
    stores->push_back(store);
    return true;
  }
  if (auto* block = s.as<SeqNode>()) {
    for (const Stmt& st : block->stmts)
      if (!collect_stores(st, stores)) return false;
    return true;
  }
  return false;
}

// Every Load of a buffer in `stored`, and whether a call takes an address.
class AccessCollector : public IRVisitor {
 public:
  std::vector<const LoadNode*> loads;
  bool passes_address = false;

 protected:
  void visit_load(const LoadNode* op) override {
    loads.push_back(op);
    IRVisitor::visit_load(op);
  }
  void visit_call(const CallNode* op) override {
    if (op->name == builtin::kAddressOf) passes_address = true;
    IRVisitor::visit_call(op);
  }
};

bool same_indices(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_expr(a[i], b[i])) return false;
  return true;
}

// Each index is exactly `outer`, exactly `inner`, or free of both; each variable at most
// once; at least one of them present.
bool indices_separate_loops(const std::vector<Expr>& indices, const VarNode* outer, const VarNode* inner) {
  int outer_count = 0, inner_count = 0;
  for (const Expr& index : indices) {
    if (index.get() == outer) {
      ++outer_count;
    } else if (index.get() == inner) {
      ++inner_count;
    } else if (uses_var(index, outer) || uses_var(index, inner)) {
      return false;
    }
  }
  return outer_count <= 1 && inner_count <= 1 && outer_count + inner_count >= 1;
}

class Reorderer : public IRMutator {
 protected:
  Stmt mutate_for(const Stmt& s, const ForNode* op) override {
    if (!op->schedule.reorder) return IRMutator::mutate_for(s, op);
    LoopSchedule outer_schedule = op->schedule;
    outer_schedule.reorder = false;
    if (!reorder_is_legal(op)) return IRMutator::mutate(with_schedule(op, outer_schedule));
    const ForNode* inner = op->body.as<ForNode>();
    // The inner loop becomes the outer one; each keeps its own annotations.
    Stmt new_inner = for_loop(op->var, op->min, op->extent, mutate(inner->body), op->for_kind);
    new_inner = with_schedule(new_inner.as<ForNode>(), outer_schedule);
    return rebuild_for(inner, inner->min, inner->extent, new_inner);
  }
};

}  // namespace

bool reorder_is_legal(const ForNode* outer) {
  const ForNode* inner = outer->body.as<ForNode>();
  if (inner == nullptr) return false;
  const VarNode* i = outer->var.get();
  const VarNode* j = inner->var.get();
  if (uses_var(inner->min, i) || uses_var(inner->extent, i)) return false;
  std::vector<const StoreNode*> stores;
  if (!collect_stores(inner->body, &stores)) return false;
  std::map<const VarNode*, const StoreNode*> store_of;  // by buffer data
  for (const StoreNode* st : stores) {
    if (!store_of.emplace(st->buffer->data.get(), st).second) return false;  // stored twice
    if (!indices_separate_loops(st->indices, i, j)) return false;
  }
  AccessCollector accesses;
  accesses.visit(inner->body);
  if (accesses.passes_address) return false;
  for (const LoadNode* load : accesses.loads) {
    auto it = store_of.find(load->buffer->data.get());
    if (it != store_of.end() && !same_indices(load->indices, it->second->indices)) return false;
  }
  return true;
}

Stmt reorder_loops(const Stmt& s) { return Reorderer().mutate(s); }

}  // namespace aotc::ir
