#include "lowering/passes/loop_analysis.h"

#include "lowering/ir/ir_functor.h"

namespace aotc::ir {
namespace {

class Substituter : public IRMutator {
 public:
  Substituter(const VarNode* var, Expr value) : var_(var), value_(std::move(value)) {}

 protected:
  Expr mutate_var(const Expr& e) override { return e.get() == var_ ? value_ : e; }

 private:
  const VarNode* var_;
  Expr value_;
};

class VarFinder : public IRVisitor {
 public:
  explicit VarFinder(const VarNode* var) : var_(var) {}
  bool found = false;

 protected:
  void visit_var(const VarNode* op) override { found |= op == var_; }

 private:
  const VarNode* var_;
};

class LoadFinder : public IRVisitor {
 public:
  explicit LoadFinder(const BufferNode* b) : buffer_(b) {}
  bool found = false;

 protected:
  void visit_load(const LoadNode* op) override {
    found |= op->buffer.get() == buffer_;
    IRVisitor::visit_load(op);
  }

 private:
  const BufferNode* buffer_;
};

class NodeCounter : public IRVisitor {
 public:
  int64_t count = 0;
  void visit_all(const Stmt& s) { visit(s); }

 protected:
  void visit_int(const IntImmNode*) override { ++count; }
  void visit_float(const FloatImmNode*) override { ++count; }
  void visit_var(const VarNode*) override { ++count; }
  void visit_binary(const BinaryNode* op) override { ++count; IRVisitor::visit_binary(op); }
  void visit_unary(const UnaryNode* op) override { ++count; IRVisitor::visit_unary(op); }
  void visit_select(const SelectNode* op) override { ++count; IRVisitor::visit_select(op); }
  void visit_cast(const CastNode* op) override { ++count; IRVisitor::visit_cast(op); }
  void visit_load(const LoadNode* op) override { ++count; IRVisitor::visit_load(op); }
  void visit_call(const CallNode* op) override { ++count; IRVisitor::visit_call(op); }
  void visit_store(const StoreNode* op) override { ++count; IRVisitor::visit_store(op); }
  void visit_for(const ForNode* op) override { ++count; IRVisitor::visit_for(op); }
  void visit_if(const IfNode* op) override { ++count; IRVisitor::visit_if(op); }
  void visit_allocate(const AllocateNode* op) override { ++count; IRVisitor::visit_allocate(op); }
  void visit_let(const LetNode* op) override { ++count; IRVisitor::visit_let(op); }
  void visit_evaluate(const EvaluateNode* op) override { ++count; IRVisitor::visit_evaluate(op); }
};

bool same_exprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_expr(a[i], b[i])) return false;
  return true;
}

}  // namespace

Stmt substitute(const Stmt& s, const VarNode* var, const Expr& value) { return Substituter(var, value).mutate(s); }
Expr substitute(const Expr& e, const VarNode* var, const Expr& value) { return Substituter(var, value).mutate(e); }

bool uses_var(const Expr& e, const VarNode* var) {
  VarFinder f(var);
  f.visit(e);
  return f.found;
}

bool uses_var(const Stmt& s, const VarNode* var) {
  VarFinder f(var);
  f.visit(s);
  return f.found;
}

bool reads_buffer(const Stmt& s, const BufferNode* b) {
  LoadFinder f(b);
  f.visit(s);
  return f.found;
}

bool reads_buffer(const Expr& e, const BufferNode* b) {
  LoadFinder f(b);
  f.visit(e);
  return f.found;
}

bool same_expr(const Expr& a, const Expr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b || a->kind != b->kind || a.dtype() != b.dtype()) return false;
  switch (a->kind) {
    case ExprKind::kIntImm: return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case ExprKind::kFloatImm: {
      double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
      return x == y || (x != x && y != y);
    }
    case ExprKind::kVar: return false;  // identity, checked above
    case ExprKind::kBinary: {
      auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
      return x->op == y->op && same_expr(x->a, y->a) && same_expr(x->b, y->b);
    }
    case ExprKind::kUnary: {
      auto *x = a.as<UnaryNode>(), *y = b.as<UnaryNode>();
      return x->op == y->op && same_expr(x->a, y->a);
    }
    case ExprKind::kSelect: {
      auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
      return same_expr(x->cond, y->cond) && same_expr(x->true_value, y->true_value) &&
             same_expr(x->false_value, y->false_value);
    }
    case ExprKind::kCast: return same_expr(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::kLoad: {
      auto *x = a.as<LoadNode>(), *y = b.as<LoadNode>();
      return x->buffer->data == y->buffer->data && same_exprs(x->indices, y->indices);
    }
    case ExprKind::kCall: {
      auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
      return x->name == y->name && same_exprs(x->args, y->args);
    }
  }
  return false;
}

int64_t node_count(const Stmt& s) {
  NodeCounter c;
  c.visit_all(s);
  return c.count;
}

std::optional<int64_t> linear_coefficient(const Expr& e, const VarNode* var) {
  if (!uses_var(e, var)) return 0;
  if (e.get() == var) return 1;
  auto* op = e.as<BinaryNode>();
  if (op == nullptr || !e.dtype().is_integer()) return std::nullopt;
  switch (op->op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub: {
      auto a = linear_coefficient(op->a, var), b = linear_coefficient(op->b, var);
      if (!a || !b) return std::nullopt;
      return op->op == BinaryOp::kAdd ? *a + *b : *a - *b;
    }
    case BinaryOp::kMul: {
      if (auto c = constant_int(op->b)) {
        auto a = linear_coefficient(op->a, var);
        if (a) return *a * *c;
      }
      if (auto c = constant_int(op->a)) {
        auto b = linear_coefficient(op->b, var);
        if (b) return *b * *c;
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

std::optional<int64_t> element_stride(const Buffer& b, const std::vector<Expr>& indices, const VarNode* var) {
  int64_t stride = 0, row = 1;
  for (size_t i = indices.size(); i-- > 0;) {
    auto c = linear_coefficient(indices[i], var);
    if (!c) return std::nullopt;
    stride += *c * row;
    row *= b->shape[i];
  }
  return stride;
}

std::optional<int64_t> constant_int(const Expr& e) {
  if (auto* i = e.as<IntImmNode>()) return i->value;
  return std::nullopt;
}

}  // namespace aotc::ir
