#include "lowering/ir/ir_functor.h"

namespace aotc::ir {

void IRVisitor::visit(const Expr& e) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::kIntImm: return visit_int(e.as<IntImmNode>());
    case ExprKind::kFloatImm: return visit_float(e.as<FloatImmNode>());
    case ExprKind::kVar: return visit_var(e.as<VarNode>());
    case ExprKind::kBinary: return visit_binary(e.as<BinaryNode>());
    case ExprKind::kUnary: return visit_unary(e.as<UnaryNode>());
    case ExprKind::kSelect: return visit_select(e.as<SelectNode>());
    case ExprKind::kCast: return visit_cast(e.as<CastNode>());
    case ExprKind::kLoad: return visit_load(e.as<LoadNode>());
    case ExprKind::kCall: return visit_call(e.as<CallNode>());
  }
}

void IRVisitor::visit(const Stmt& s) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::kStore: return visit_store(s.as<StoreNode>());
    case StmtKind::kFor: return visit_for(s.as<ForNode>());
    case StmtKind::kIf: return visit_if(s.as<IfNode>());
    case StmtKind::kAllocate: return visit_allocate(s.as<AllocateNode>());
    case StmtKind::kAllocateConst: return visit_allocate_const(s.as<AllocateConstNode>());
    case StmtKind::kSeq: return visit_seq(s.as<SeqNode>());
    case StmtKind::kLet: return visit_let(s.as<LetNode>());
    case StmtKind::kEvaluate: return visit_evaluate(s.as<EvaluateNode>());
    case StmtKind::kReturn: return visit_return(s.as<ReturnNode>());
  }
}

void IRVisitor::visit_binary(const BinaryNode* op) { visit(op->a); visit(op->b); }
void IRVisitor::visit_unary(const UnaryNode* op) { visit(op->a); }
void IRVisitor::visit_select(const SelectNode* op) { visit(op->cond); visit(op->true_value); visit(op->false_value); }
void IRVisitor::visit_cast(const CastNode* op) { visit(op->value); }
void IRVisitor::visit_load(const LoadNode* op) { for (auto& i : op->indices) visit(i); }
void IRVisitor::visit_call(const CallNode* op) { for (auto& a : op->args) visit(a); }
void IRVisitor::visit_store(const StoreNode* op) { for (auto& i : op->indices) visit(i); visit(op->value); }
void IRVisitor::visit_for(const ForNode* op) { visit(op->min); visit(op->extent); visit(op->body); }
void IRVisitor::visit_if(const IfNode* op) { visit(op->cond); visit(op->then_case); visit(op->else_case); }
void IRVisitor::visit_allocate(const AllocateNode* op) { visit(op->body); }
void IRVisitor::visit_allocate_const(const AllocateConstNode* op) { visit(op->body); }
void IRVisitor::visit_seq(const SeqNode* op) { for (auto& s : op->stmts) visit(s); }
void IRVisitor::visit_let(const LetNode* op) { visit(op->value); visit(op->body); }
void IRVisitor::visit_evaluate(const EvaluateNode* op) { visit(op->value); }
void IRVisitor::visit_return(const ReturnNode* op) { visit(op->value); }

Expr IRMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::kIntImm: return mutate_int(e);
    case ExprKind::kFloatImm: return mutate_float(e);
    case ExprKind::kVar: return mutate_var(e);
    case ExprKind::kBinary: return mutate_binary(e, e.as<BinaryNode>());
    case ExprKind::kUnary: return mutate_unary(e, e.as<UnaryNode>());
    case ExprKind::kSelect: return mutate_select(e, e.as<SelectNode>());
    case ExprKind::kCast: return mutate_cast(e, e.as<CastNode>());
    case ExprKind::kLoad: return mutate_load(e, e.as<LoadNode>());
    case ExprKind::kCall: return mutate_call(e, e.as<CallNode>());
  }
  return e;
}

Stmt IRMutator::mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind) {
    case StmtKind::kStore: return mutate_store(s, s.as<StoreNode>());
    case StmtKind::kFor: return mutate_for(s, s.as<ForNode>());
    case StmtKind::kIf: return mutate_if(s, s.as<IfNode>());
    case StmtKind::kAllocate: return mutate_allocate(s, s.as<AllocateNode>());
    case StmtKind::kAllocateConst: return mutate_allocate_const(s, s.as<AllocateConstNode>());
    case StmtKind::kSeq: return mutate_seq(s, s.as<SeqNode>());
    case StmtKind::kLet: return mutate_let(s, s.as<LetNode>());
    case StmtKind::kEvaluate: return mutate_evaluate(s, s.as<EvaluateNode>());
    case StmtKind::kReturn: return mutate_return(s, s.as<ReturnNode>());
  }
  return s;
}

bool IRMutator::mutate_all(const std::vector<Expr>& in, std::vector<Expr>* out) {
  bool changed = false;
  out->clear();
  for (auto& e : in) {
    out->push_back(mutate(e));
    changed |= !out->back().same_as(e);
  }
  return changed;
}

Expr IRMutator::mutate_binary(const Expr& e, const BinaryNode* op) {
  Expr a = mutate(op->a), b = mutate(op->b);
  if (a.same_as(op->a) && b.same_as(op->b)) return e;
  return binary(op->op, a, b);
}

Expr IRMutator::mutate_unary(const Expr& e, const UnaryNode* op) {
  Expr a = mutate(op->a);
  if (a.same_as(op->a)) return e;
  return op->op == UnaryOp::kNeg ? -a : logical_not(a);
}

Expr IRMutator::mutate_select(const Expr& e, const SelectNode* op) {
  Expr c = mutate(op->cond), t = mutate(op->true_value), f = mutate(op->false_value);
  if (c.same_as(op->cond) && t.same_as(op->true_value) && f.same_as(op->false_value)) return e;
  return select(c, t, f);
}

Expr IRMutator::mutate_cast(const Expr& e, const CastNode* op) {
  Expr v = mutate(op->value);
  if (v.same_as(op->value)) return e;
  return cast(op->dtype, v);
}

Expr IRMutator::mutate_load(const Expr& e, const LoadNode* op) {
  std::vector<Expr> idx;
  if (!mutate_all(op->indices, &idx)) return e;
  return load(op->buffer, idx);
}

Expr IRMutator::mutate_call(const Expr& e, const CallNode* op) {
  std::vector<Expr> args;
  if (!mutate_all(op->args, &args)) return e;
  return call(op->name, args, op->dtype);
}

Stmt IRMutator::mutate_store(const Stmt& s, const StoreNode* op) {
  std::vector<Expr> idx;
  bool changed = mutate_all(op->indices, &idx);
  Expr v = mutate(op->value);
  if (!changed && v.same_as(op->value)) return s;
  return store(op->buffer, idx, v);
}

Stmt IRMutator::mutate_for(const Stmt& s, const ForNode* op) {
  Expr lo = mutate(op->min), n = mutate(op->extent);
  Stmt body = mutate(op->body);
  if (lo.same_as(op->min) && n.same_as(op->extent) && body.same_as(op->body)) return s;
  return rebuild_for(op, lo, n, body);
}

Stmt IRMutator::mutate_if(const Stmt& s, const IfNode* op) {
  Expr c = mutate(op->cond);
  Stmt t = mutate(op->then_case), f = mutate(op->else_case);
  if (c.same_as(op->cond) && t.same_as(op->then_case) && f.same_as(op->else_case)) return s;
  return if_then_else(c, t, f);
}

Stmt IRMutator::mutate_allocate(const Stmt& s, const AllocateNode* op) {
  Stmt body = mutate(op->body);
  if (body.same_as(op->body)) return s;
  return allocate(op->buffer, body);
}

Stmt IRMutator::mutate_allocate_const(const Stmt& s, const AllocateConstNode* op) {
  Stmt body = mutate(op->body);
  if (body.same_as(op->body)) return s;
  return Stmt(std::make_shared<AllocateConstNode>(op->buffer, op->data, body));
}

Stmt IRMutator::mutate_seq(const Stmt& s, const SeqNode* op) {
  std::vector<Stmt> out;
  bool changed = false;
  for (auto& st : op->stmts) {
    out.push_back(mutate(st));
    changed |= !out.back().same_as(st);
  }
  if (!changed) return s;
  return seq(out);
}

Stmt IRMutator::mutate_let(const Stmt& s, const LetNode* op) {
  Expr v = mutate(op->value);
  Stmt body = mutate(op->body);
  if (v.same_as(op->value) && body.same_as(op->body)) return s;
  return let(op->var, v, body);
}

Stmt IRMutator::mutate_evaluate(const Stmt& s, const EvaluateNode* op) {
  Expr v = mutate(op->value);
  if (v.same_as(op->value)) return s;
  return evaluate(v);
}

Stmt IRMutator::mutate_return(const Stmt& s, const ReturnNode* op) {
  Expr v = mutate(op->value);
  if (v.same_as(op->value)) return s;
  return return_stmt(v);
}

}  // namespace aotc::ir
