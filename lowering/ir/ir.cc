#include "lowering/ir/ir.h"

#include <functional>
#include <stdexcept>

#include "aot/base/element_bytes.h"
#include "lowering/ir/builtins.h"

namespace aotc::ir {

Expr::Expr(int value) : Expr(make_int(value)) {}
Expr::Expr(int64_t value) : Expr(make_int(value)) {}
Expr::Expr(double value) : Expr(make_float(value)) {}

int64_t BufferNode::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Expr make_int(int64_t v, DataType t) { return Expr(std::make_shared<IntImmNode>(v, t)); }
Expr make_float(double v, DataType t) { return Expr(std::make_shared<FloatImmNode>(v, t)); }
Expr make_zero(DataType t) { return t.is_float() ? make_float(0.0, t) : make_int(0, t); }

Var make_var(const std::string& name, DataType t) { return std::make_shared<VarNode>(name, t, false); }

Buffer make_buffer(const std::string& name, DataType dtype, std::vector<int64_t> shape, const std::string& scope) {
  auto b = std::make_shared<BufferNode>();
  b->name = name;
  b->dtype = dtype;
  b->shape = std::move(shape);
  b->scope = scope;
  b->data = std::make_shared<VarNode>(name, dtype, true);
  return b;
}

Buffer with_scope(const Buffer& b, const std::string& scope) {
  auto copy = std::make_shared<BufferNode>(*b);
  copy->scope = scope;
  return copy;
}

static bool is_comparison(BinaryOp op) {
  return op == BinaryOp::kEQ || op == BinaryOp::kNE || op == BinaryOp::kLT || op == BinaryOp::kLE ||
         op == BinaryOp::kGT || op == BinaryOp::kGE || op == BinaryOp::kAnd || op == BinaryOp::kOr;
}

// Immediates adopt the type of the other operand, so `x * 2` stays float when x is float
// and `i + 1` stays int32; other mismatches are lowering bugs.
static void unify(Expr& a, Expr& b) {
  if (a.dtype() == b.dtype()) return;
  auto adopt = [](Expr& imm, DataType t) {
    if (auto* i = imm.as<IntImmNode>()) {
      imm = t.is_float() ? make_float(static_cast<double>(i->value), t) : make_int(i->value, t);
      return true;
    }
    if (auto* f = imm.as<FloatImmNode>()) {
      if (!t.is_float()) return false;
      imm = make_float(f->value, t);
      return true;
    }
    return false;
  };
  if (adopt(b, a.dtype()) || adopt(a, b.dtype())) return;
  throw std::logic_error("IR type mismatch: " + a.dtype().str() + " vs " + b.dtype().str());
}

Expr binary(BinaryOp op, Expr a, Expr b) {
  unify(a, b);
  DataType t = is_comparison(op) ? DataType::Bool() : a.dtype();
  return Expr(std::make_shared<BinaryNode>(op, std::move(a), std::move(b), t));
}

Expr operator+(Expr a, Expr b) { return binary(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return binary(BinaryOp::kSub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return binary(BinaryOp::kMul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return binary(BinaryOp::kDiv, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return binary(BinaryOp::kMod, std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return binary(BinaryOp::kLT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return binary(BinaryOp::kLE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return binary(BinaryOp::kGT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return binary(BinaryOp::kGE, std::move(a), std::move(b)); }
Expr operator==(Expr a, Expr b) { return binary(BinaryOp::kEQ, std::move(a), std::move(b)); }
Expr operator!=(Expr a, Expr b) { return binary(BinaryOp::kNE, std::move(a), std::move(b)); }
Expr logical_and(Expr a, Expr b) { return binary(BinaryOp::kAnd, std::move(a), std::move(b)); }
Expr operator-(Expr a) {
  DataType t = a.dtype();
  return Expr(std::make_shared<UnaryNode>(UnaryOp::kNeg, std::move(a), t));
}
Expr logical_not(Expr a) { return Expr(std::make_shared<UnaryNode>(UnaryOp::kNot, std::move(a), DataType::Bool())); }
Expr min(Expr a, Expr b) { return binary(BinaryOp::kMin, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return binary(BinaryOp::kMax, std::move(a), std::move(b)); }

Expr select(Expr c, Expr t, Expr f) {
  unify(t, f);
  return Expr(std::make_shared<SelectNode>(std::move(c), std::move(t), std::move(f)));
}

Expr cast(DataType t, Expr v) {
  if (v.dtype() == t) return v;
  return Expr(std::make_shared<CastNode>(t, std::move(v)));
}

Expr load(const Buffer& b, std::vector<Expr> indices) {
  if (indices.size() != b->shape.size())
    throw std::logic_error("load of " + b->name + " with " + std::to_string(indices.size()) + " indices");
  return Expr(std::make_shared<LoadNode>(b, std::move(indices)));
}

Expr call(const std::string& name, std::vector<Expr> args, DataType t) {
  return Expr(std::make_shared<CallNode>(name, std::move(args), t));
}

Expr address_of(const Buffer& b, std::vector<Expr> indices) {
  return call(builtin::kAddressOf, {load(b, std::move(indices))}, b->dtype);
}

Stmt store(const Buffer& b, std::vector<Expr> indices, Expr value) {
  if (indices.size() != b->shape.size())
    throw std::logic_error("store to " + b->name + " with " + std::to_string(indices.size()) + " indices");
  if (value.dtype() != b->dtype) value = cast(b->dtype, value);
  return Stmt(std::make_shared<StoreNode>(b, std::move(indices), std::move(value)));
}

Stmt for_loop(const Var& v, Expr min, Expr extent, Stmt body, ForKind kind) {
  return Stmt(std::make_shared<ForNode>(v, std::move(min), std::move(extent), kind, std::move(body)));
}

Stmt rebuild_for(const ForNode* loop, Expr min, Expr extent, Stmt body) {
  return Stmt(std::make_shared<ForNode>(loop->var, std::move(min), std::move(extent), loop->for_kind, std::move(body),
                                        loop->schedule));
}

Stmt with_schedule(const ForNode* loop, LoopSchedule schedule) {
  return Stmt(std::make_shared<ForNode>(loop->var, loop->min, loop->extent, loop->for_kind, loop->body, std::move(schedule)));
}

Stmt if_then_else(Expr c, Stmt then_case, Stmt else_case) {
  return Stmt(std::make_shared<IfNode>(std::move(c), std::move(then_case), std::move(else_case)));
}

Stmt allocate(const Buffer& b, Stmt body) { return Stmt(std::make_shared<AllocateNode>(b, std::move(body))); }

Stmt allocate_const(const std::string& name, DataType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes,
                    const std::function<Stmt(const Buffer&)>& body) {
  Buffer b = make_buffer(name, dtype, std::move(shape), "constant");
  if (static_cast<int64_t>(bytes.size()) != b->size_bytes())
    throw std::invalid_argument("constant '" + name + "': " + std::to_string(bytes.size()) + " bytes for " +
                                std::to_string(b->size_bytes()));
  return Stmt(std::make_shared<AllocateConstNode>(b, std::move(bytes), body(b)));
}

Stmt allocate_const(const std::string& name, DataType dtype, const std::vector<double>& values,
                    const std::function<Stmt(const Buffer&)>& body) {
  return allocate_const(name, dtype, {static_cast<int64_t>(values.size())}, encode_elements(dtype, values), body);
}

Stmt seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (auto& s : stmts) {
    if (!s) continue;
    if (auto* inner = s.as<SeqNode>()) {
      flat.insert(flat.end(), inner->stmts.begin(), inner->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return Stmt(std::make_shared<SeqNode>(std::move(flat)));
}

Stmt let(const Var& v, Expr value, Stmt body) { return Stmt(std::make_shared<LetNode>(v, std::move(value), std::move(body))); }
Stmt evaluate(Expr v) { return Stmt(std::make_shared<EvaluateNode>(std::move(v))); }
Stmt return_stmt(Expr v) { return Stmt(std::make_shared<ReturnNode>(std::move(v))); }

Stmt loop_nest(const std::vector<int64_t>& shape, const std::vector<std::string>& names,
               const std::function<Stmt(const std::vector<Expr>&)>& body) {
  std::vector<Var> vars;
  std::vector<Expr> exprs;
  for (size_t i = 0; i < shape.size(); ++i) {
    vars.push_back(make_var(i < names.size() ? names[i] : "i" + std::to_string(i)));
    exprs.push_back(var_expr(vars.back()));
  }
  Stmt s = body(exprs);
  for (size_t i = shape.size(); i-- > 0;) s = for_loop(vars[i], 0, make_int(shape[i]), s);
  return s;
}

}  // namespace aotc::ir
