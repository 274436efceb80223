#include "lowering/passes/lower_builtin.h"

#include <algorithm>
#include <vector>

#include "aot/base/errors.h"
#include "lowering/ir/builtins.h"
#include "lowering/ir/ir_functor.h"

namespace aotc::ir {
namespace {

Expr error_code(const char* name) { return call(name, {}, DataType::Int(32)); }

class BuiltinLowerer : public IRMutator {
 public:
  explicit BuiltinLowerer(const TargetFacts& target) : target_(target) {}

 protected:
  Stmt mutate_allocate(const Stmt& s, const AllocateNode* op) override {
    const Buffer& buf = op->buffer;
    const std::string& scope = buf->scope;
    if (scope == "local" || scope == "stack") return IRMutator::mutate_allocate(s, op);
    int64_t bytes = buf->size_bytes();
    bool fits_stack = bytes <= target_.max_stack_alloca_size;
    if (scope == "global.stack") {
      if (!fits_stack)
        throw CompileError("buffer '" + buf->name + "' (" + std::to_string(bytes) +
                           " bytes) has scope global.stack but target '" + target_.name + "' allows at most " +
                           std::to_string(target_.max_stack_alloca_size) + " bytes on the stack");
      return allocate(with_scope(buf, "stack"), mutate(op->body));
    }
    if (scope == "global" && fits_stack) return allocate(with_scope(buf, "stack"), mutate(op->body));
    if (scope != "global" && scope != "global.workspace")
      throw CompileError("buffer '" + buf->name + "' has unknown storage scope '" + scope + "'");
    return to_workspace(buf, op->body);
  }

 private:
  // let buf = alloc(n) { if isnull(buf) { free enclosing; return exhausted }  body  free(buf) }
  Stmt to_workspace(const Buffer& buf, const Stmt& body) {
    Expr handle = var_expr(buf->data);
    std::vector<Stmt> on_failure;
    for (auto it = held_.rbegin(); it != held_.rend(); ++it) on_failure.push_back(free_block(*it));
    on_failure.push_back(return_stmt(error_code(builtin::kErrWorkspaceExhausted)));
    Stmt check = if_then_else(call(builtin::kIsNull, {handle}, DataType::Bool()), seq(on_failure));

    held_.push_back(buf);
    Stmt inner = mutate(body);
    held_.pop_back();

    Expr alloc = call(builtin::kWorkspaceAlloc, {make_int(buf->size_bytes())}, buf->dtype);
    return let(buf->data, alloc, seq({check, inner, free_block(buf)}));
  }

  static Stmt free_block(const Buffer& buf) {
    Expr status = call(builtin::kWorkspaceFree, {var_expr(buf->data)}, DataType::Int(32));
    return if_then_else(status != 0, return_stmt(error_code(builtin::kErrWorkspaceFreeOrder)));
  }

  const TargetFacts& target_;
  std::vector<Buffer> held_;  // enclosing workspace blocks, outermost first
};

class MemoryMeasurer : public IRVisitor {
 public:
  explicit MemoryMeasurer(const TargetFacts& target) : target_(target) {}
  KernelMemory peak;

 protected:
  void visit_allocate(const AllocateNode* op) override {
    stack_ += op->buffer->size_bytes();
    peak.stack_bytes = std::max(peak.stack_bytes, stack_);
    IRVisitor::visit_allocate(op);
    stack_ -= op->buffer->size_bytes();
  }
  void visit_let(const LetNode* op) override {
    auto* c = op->value.as<CallNode>();
    if (!c || c->name != builtin::kWorkspaceAlloc) return IRVisitor::visit_let(op);
    int64_t block = target_.workspace_block_bytes(c->args[0].as<IntImmNode>()->value);
    workspace_ += block;
    peak.workspace_bytes = std::max(peak.workspace_bytes, workspace_);
    IRVisitor::visit_let(op);
    workspace_ -= block;
  }

 private:
  const TargetFacts& target_;
  int64_t stack_ = 0, workspace_ = 0;
};

}  // namespace

Stmt lower_builtin(Stmt body, const TargetFacts& target) { return BuiltinLowerer(target).mutate(body); }

KernelMemory measure_kernel_memory(const Stmt& body, const TargetFacts& target) {
  MemoryMeasurer m(target);
  m.visit(body);
  return m.peak;
}


}  // namespace aotc::ir
