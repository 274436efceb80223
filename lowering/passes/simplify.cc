#include "lowering/passes/simplify.h"

#include <map>

#include "aot/base/wrapping_int.h"
#include "lowering/ir/builtins.h"
#include "lowering/ir/ir_functor.h"
#include "lowering/passes/loop_analysis.h"

namespace aotc::ir {
namespace {

const IntImmNode* as_int(const Expr& e) { return e.as<IntImmNode>(); }

bool is_int_value(const Expr& e, int64_t v) {
  auto* i = as_int(e);
  return i && i->value == v;
}

bool is_float_value(const Expr& e, double v) {
  auto* f = e.as<FloatImmNode>();
  return f && f->value == v;
}

// Wraps to the width of the type, as the generated C would.
int64_t wrap(int64_t v, DataType t) {
  if (t.bits >= 64) return v;
  if (t.is_bool()) return v != 0;
  uint64_t mask = (uint64_t{1} << t.bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (t.bits - 1))) u |= ~mask;
  return static_cast<int64_t>(u);
}

// Whether an expression calls a function (anything but arithmetic, loads and address_of).
bool calls_function(const Expr& e) {
  class CallFinder : public IRVisitor {
   public:
    bool found = false;

   protected:
    void visit_call(const CallNode* op) override {
      found |= op->name != builtin::kAddressOf;
      IRVisitor::visit_call(op);
    }
  } finder;
  finder.visit(e);
  return finder.found;
}

class Simplifier : public IRMutator {
 public:
  std::map<const VarNode*, Expr> substitutions;

 protected:
  Expr mutate_var(const Expr& e) override {
    auto it = substitutions.find(e.as<VarNode>());
    return it == substitutions.end() ? e : it->second;
  }

  Expr mutate_binary(const Expr& e, const BinaryNode* op) override {
    Expr a = mutate(op->a), b = mutate(op->b);
    auto* ia = as_int(a);
    auto* ib = as_int(b);
    DataType t = op->dtype;
    if (ia && ib && op->a.dtype().is_integer()) {
      int64_t x = ia->value, y = ib->value;
      switch (op->op) {
        case BinaryOp::kAdd: return make_int(wrap(wrapping_add(x, y), t), t);
        case BinaryOp::kSub: return make_int(wrap(wrapping_sub(x, y), t), t);
        case BinaryOp::kMul: return make_int(wrap(wrapping_mul(x, y), t), t);
        case BinaryOp::kDiv: if (y != 0) return make_int(wrap(wrapping_div(x, y), t), t); break;
        case BinaryOp::kMod: if (y != 0) return make_int(wrapping_mod(x, y), t); break;
        case BinaryOp::kMin: return make_int(std::min(x, y), t);
        case BinaryOp::kMax: return make_int(std::max(x, y), t);
        case BinaryOp::kEQ: return make_int(x == y, t);
        case BinaryOp::kNE: return make_int(x != y, t);
        case BinaryOp::kLT: return make_int(x < y, t);
        case BinaryOp::kLE: return make_int(x <= y, t);
        case BinaryOp::kGT: return make_int(x > y, t);
        case BinaryOp::kGE: return make_int(x >= y, t);
        default: break;
      }
    }
    switch (op->op) {
      case BinaryOp::kAdd:
        if (is_int_value(b, 0)) return a;
        if (is_int_value(a, 0)) return b;
        // x + (y - x)  ->  y, for the same x (a loop from `first` to `end` has extent
        // end - first, and its bound first + extent reads better as end).
        if (auto* diff = b.as<BinaryNode>(); diff && diff->op == BinaryOp::kSub && diff->b.same_as(a)) return diff->a;
        // (x / c) * c + x % c  ->  x (C's division and remainder: true for every x), what
        // a row-major index of a position split into row and column adds back up to.
        if (auto* mul = a.as<BinaryNode>(), *mod = b.as<BinaryNode>();
            mul && mod && mul->op == BinaryOp::kMul && mod->op == BinaryOp::kMod) {
          auto* div = mul->a.as<BinaryNode>();
          auto *c1 = as_int(mul->b), *c2 = mod ? as_int(mod->b) : nullptr;
          if (div && div->op == BinaryOp::kDiv && c1 && c2 && c1->value == c2->value && c1->value != 0 &&
              is_int_value(div->b, c1->value) && div->a.same_as(mod->a))
            return div->a;
        }
        // (x + c1) + c2  ->  x + (c1 + c2)
        if (ib) {
          if (auto* inner = a.as<BinaryNode>()) {
            if (auto* c1 = as_int(inner->b); c1 && (inner->op == BinaryOp::kAdd || inner->op == BinaryOp::kSub)) {
              int64_t c = inner->op == BinaryOp::kAdd ? wrapping_add(c1->value, ib->value) : wrapping_sub(ib->value, c1->value);
              return mutate(inner->a + make_int(c, t));
            }
          }
          if (ib->value < 0 && ib->value != INT64_MIN) return a - make_int(-ib->value, t);
        }
        break;
      case BinaryOp::kSub:
        if (is_int_value(b, 0)) return a;
        if (ib && ib->value < 0 && ib->value != INT64_MIN) return mutate(a + make_int(-ib->value, t));
        if (ib) {
          if (auto* inner = a.as<BinaryNode>()) {
            if (auto* c1 = as_int(inner->b); c1 && (inner->op == BinaryOp::kAdd || inner->op == BinaryOp::kSub)) {
              int64_t c = inner->op == BinaryOp::kAdd ? wrapping_sub(c1->value, ib->value)
                                                      : wrapping_sub(0, wrapping_add(c1->value, ib->value));
              return mutate(inner->a + make_int(c, t));
            }
          }
        }
        break;
      case BinaryOp::kMul:
        if (is_int_value(b, 1) || is_float_value(b, 1.0)) return a;
        if (is_int_value(a, 1) || is_float_value(a, 1.0)) return b;
        if (is_int_value(a, 0) || is_int_value(b, 0)) return make_int(0, t);
        if (ia && !ib) return mutate(b * a);  // constants on the right
        break;
      case BinaryOp::kDiv:
        if (is_int_value(b, 1)) return a;
        break;
      case BinaryOp::kMod:
        if (is_int_value(b, 1)) return make_int(0, t);
        break;
      case BinaryOp::kAnd:
        if (ia) return ia->value ? b : make_int(0, DataType::Bool());
        if (ib) return ib->value ? a : make_int(0, DataType::Bool());
        break;
      case BinaryOp::kOr:
        if (ia) return ia->value ? make_int(1, DataType::Bool()) : b;
        if (ib) return ib->value ? make_int(1, DataType::Bool()) : a;
        break;
      default:
        break;
    }
    if (a.same_as(op->a) && b.same_as(op->b)) return e;
    return binary(op->op, a, b);
  }

  Expr mutate_select(const Expr& e, const SelectNode* op) override {
    Expr c = mutate(op->cond);
    if (auto* ic = as_int(c)) return mutate(ic->value ? op->true_value : op->false_value);
    return IRMutator::mutate_select(e, op);
  }

  Expr mutate_cast(const Expr& e, const CastNode* op) override {
    Expr v = mutate(op->value);
    if (auto* iv = as_int(v)) {
      if (op->dtype.is_integer() || op->dtype.is_bool()) return make_int(wrap(iv->value, op->dtype), op->dtype);
      if (op->dtype.is_float()) return make_float(static_cast<double>(iv->value), op->dtype);
    }
    if (v.same_as(op->value)) return e;
    return cast(op->dtype, v);
  }

  Stmt mutate_for(const Stmt& s, const ForNode* op) override {
    Expr lo = mutate(op->min), n = mutate(op->extent);
    if (is_int_value(n, 0)) return Stmt();
    if (is_int_value(n, 1)) {
      substitutions[op->var.get()] = lo;
      Stmt body = mutate(op->body);
      substitutions.erase(op->var.get());
      return body;
    }
    Stmt body = mutate(op->body);
    if (!body) return Stmt();
    if (lo.same_as(op->min) && n.same_as(op->extent) && body.same_as(op->body)) return s;
    return rebuild_for(op, lo, n, body);
  }

  // A constant table, or a Let's value, that nothing reads once the branches and loops
  // that read it have simplified away (a depthwise kernel's bias table where every window
  // lies inside the input, the taps of a window larger than a small input) is dropped:
  // the generated C would declare a variable nobody uses (an error under -Werror) and
  // keep a table in flash for nothing. A Let whose value calls a function stays: the call
  // may do something (an allocator).
  Stmt mutate_allocate_const(const Stmt& s, const AllocateConstNode* op) override {
    Stmt body = mutate(op->body);
    if (!body || !reads_buffer(body, op->buffer.get())) return body;
    if (body.same_as(op->body)) return s;
    return Stmt(std::make_shared<AllocateConstNode>(op->buffer, op->data, body));
  }

  Stmt mutate_let(const Stmt& s, const LetNode* op) override {
    Expr value = mutate(op->value);
    Stmt body = mutate(op->body);
    if (!body || (!uses_var(body, op->var.get()) && !calls_function(value))) return body;
    if (value.same_as(op->value) && body.same_as(op->body)) return s;
    return let(op->var, value, body);
  }

  Stmt mutate_if(const Stmt& s, const IfNode* op) override {
    Expr c = mutate(op->cond);
    if (auto* ic = as_int(c)) return mutate(ic->value ? op->then_case : op->else_case);
    Stmt t = mutate(op->then_case), f = mutate(op->else_case);
    if (!t && !f) return Stmt();
    if (!t) return if_then_else(logical_not(c), f);
    if (c.same_as(op->cond) && t.same_as(op->then_case) && f.same_as(op->else_case)) return s;
    return if_then_else(c, t, f);
  }
};

}  // namespace

Expr simplify(const Expr& e) { return Simplifier().mutate(e); }
Stmt simplify(const Stmt& s) { return Simplifier().mutate(s); }

}  // namespace aotc::ir
