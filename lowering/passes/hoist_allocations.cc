#include "lowering/passes/hoist_allocations.h"

#include <optional>
#include <vector>

#include "lowering/ir/ir_functor.h"

namespace aotc::ir {
namespace {

bool is_hoistable_scope(const std::string& scope) {
  return scope == "global" || scope == "global.workspace" || scope == "global.stack";
}

// Whether a statement allocates anything (stack, workspace or local) anywhere inside it.
class AllocationFinder : public IRVisitor {
 public:
  bool found = false;

 protected:
  void visit_allocate(const AllocateNode*) override { found = true; }
};

bool allocates(const Stmt& s) {
  AllocationFinder finder;
  finder.visit(s);
  return finder.found;
}

// An Allocate taken out of a loop body, and the body without it.
struct Taken {
  Buffer buffer;
  Stmt rest;
};

// The Allocate that `body` may lose to the loop around it (see the header), if any.
std::optional<Taken> take_hoistable(const Stmt& body) {
  if (auto* alloc = body.as<AllocateNode>()) {
    if (!is_hoistable_scope(alloc->buffer->scope)) return std::nullopt;
    return Taken{alloc->buffer, alloc->body};
  }
  auto* block = body.as<SeqNode>();
  if (block == nullptr) return std::nullopt;
  int allocating = -1;
  for (size_t i = 0; i < block->stmts.size(); ++i) {
    if (!allocates(block->stmts[i])) continue;
    if (allocating >= 0) return std::nullopt;  // two statements allocate at different times
    allocating = static_cast<int>(i);
  }
  if (allocating < 0) return std::nullopt;
  auto* alloc = block->stmts[allocating].as<AllocateNode>();
  if (alloc == nullptr || !is_hoistable_scope(alloc->buffer->scope)) return std::nullopt;
  std::vector<Stmt> rest = block->stmts;
  rest[allocating] = alloc->body;
  return Taken{alloc->buffer, seq(rest)};
}

class AllocationHoister : public IRMutator {
 protected:
  // Inner loops first, so that what they hoist can leave this loop too.
  Stmt mutate_for(const Stmt& s, const ForNode* op) override {
    Stmt mutated = IRMutator::mutate_for(s, op);
    const ForNode* loop = mutated.as<ForNode>();
    std::vector<Buffer> hoisted;  // outermost first
    Stmt body = loop->body;
    while (std::optional<Taken> taken = take_hoistable(body)) {
      hoisted.push_back(taken->buffer);
      body = taken->rest;
    }
    if (hoisted.empty()) return mutated;
    Stmt result = rebuild_for(loop, loop->min, loop->extent, body);
    for (auto it = hoisted.rbegin(); it != hoisted.rend(); ++it) result = allocate(*it, result);
    return result;
  }
};

}  // namespace

Stmt hoist_allocations(Stmt body) { return AllocationHoister().mutate(body); }

}  // namespace aotc::ir
