// Traversal of the loop IR.
//
// IRVisitor walks every node in evaluation order; override the node kinds a pass cares
// about and call the base method to keep walking. IRMutator rebuilds the tree bottom-up
// and returns the original node wherever nothing below it changed, so passes that touch
// little allocate little.
#pragma once

#include "lowering/ir/ir.h"

namespace aotc::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  void visit(const Expr& e);
  void visit(const Stmt& s);

 protected:
  virtual void visit_int(const IntImmNode*) {}
  virtual void visit_float(const FloatImmNode*) {}
  virtual void visit_var(const VarNode*) {}
  virtual void visit_binary(const BinaryNode* op);
  virtual void visit_unary(const UnaryNode* op);
  virtual void visit_select(const SelectNode* op);
  virtual void visit_cast(const CastNode* op);
  virtual void visit_load(const LoadNode* op);
  virtual void visit_call(const CallNode* op);

  virtual void visit_store(const StoreNode* op);
  virtual void visit_for(const ForNode* op);
  virtual void visit_if(const IfNode* op);
  virtual void visit_allocate(const AllocateNode* op);
  virtual void visit_allocate_const(const AllocateConstNode* op);
  virtual void visit_seq(const SeqNode* op);
  virtual void visit_let(const LetNode* op);
  virtual void visit_evaluate(const EvaluateNode* op);
  virtual void visit_return(const ReturnNode* op);
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  Expr mutate(const Expr& e);
  Stmt mutate(const Stmt& s);

 protected:
  virtual Expr mutate_int(const Expr& e) { return e; }
  virtual Expr mutate_float(const Expr& e) { return e; }
  virtual Expr mutate_var(const Expr& e) { return e; }
  virtual Expr mutate_binary(const Expr& e, const BinaryNode* op);
  virtual Expr mutate_unary(const Expr& e, const UnaryNode* op);
  virtual Expr mutate_select(const Expr& e, const SelectNode* op);
  virtual Expr mutate_cast(const Expr& e, const CastNode* op);
  virtual Expr mutate_load(const Expr& e, const LoadNode* op);
  virtual Expr mutate_call(const Expr& e, const CallNode* op);

  virtual Stmt mutate_store(const Stmt& s, const StoreNode* op);
  virtual Stmt mutate_for(const Stmt& s, const ForNode* op);
  virtual Stmt mutate_if(const Stmt& s, const IfNode* op);
  virtual Stmt mutate_allocate(const Stmt& s, const AllocateNode* op);
  virtual Stmt mutate_allocate_const(const Stmt& s, const AllocateConstNode* op);
  virtual Stmt mutate_seq(const Stmt& s, const SeqNode* op);
  virtual Stmt mutate_let(const Stmt& s, const LetNode* op);
  virtual Stmt mutate_evaluate(const Stmt& s, const EvaluateNode* op);
  virtual Stmt mutate_return(const Stmt& s, const ReturnNode* op);

  // Mutates each element; returns true if any changed.
  bool mutate_all(const std::vector<Expr>& in, std::vector<Expr>* out);
};

}  // namespace aotc::ir
