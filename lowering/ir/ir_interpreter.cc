#include "lowering/ir/ir_interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

#include "aot/base/wrapping_int.h"
#include "lowering/ir/builtins.h"
#include "lowering/ir/runtime_calls.h"

namespace aotc::ir {
namespace {

struct Value {
  double f = 0;   // used when the type is float
  int64_t i = 0;  // used otherwise
};

struct ReturnSignal {
  int64_t code;
};

int64_t wrap_int(int64_t v, DataType t) {
  if (t.is_bool()) return v != 0;
  if (t.bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << t.bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (u >> (t.bits - 1))) u |= ~mask;
  return static_cast<int64_t>(u);
}

double round_float(double v, DataType t) { return t.bits == 32 ? static_cast<double>(static_cast<float>(v)) : v; }

// Comparisons and logic, which read the same for integers and floats: sets *truth and
// returns true, or returns false for an arithmetic operator.
template <typename T>
bool compare(BinaryOp op, T x, T y, int64_t* truth) {
  switch (op) {
    case BinaryOp::kEQ: *truth = x == y; return true;
    case BinaryOp::kNE: *truth = x != y; return true;
    case BinaryOp::kLT: *truth = x < y; return true;
    case BinaryOp::kLE: *truth = x <= y; return true;
    case BinaryOp::kGT: *truth = x > y; return true;
    case BinaryOp::kGE: *truth = x >= y; return true;
    case BinaryOp::kAnd: *truth = x != 0 && y != 0; return true;
    case BinaryOp::kOr: *truth = x != 0 || y != 0; return true;
    default: return false;
  }
}

class Interpreter {
 public:
  std::map<const VarNode*, Value> scalars;
  std::map<const VarNode*, uint8_t*> memory;
  std::vector<std::vector<uint8_t>> temporaries;

  Value eval(const Expr& e) {
    DataType t = e.dtype();
    switch (e->kind) {
      case ExprKind::kIntImm: return {0, e.as<IntImmNode>()->value};
      case ExprKind::kFloatImm: return {round_float(e.as<FloatImmNode>()->value, t), 0};
      case ExprKind::kVar: {
        auto it = scalars.find(e.as<VarNode>());
        if (it == scalars.end()) throw std::runtime_error("interpreter: unbound variable " + e.as<VarNode>()->name);
        return it->second;
      }
      case ExprKind::kBinary: return binary(e.as<BinaryNode>());
      case ExprKind::kUnary: {
        auto* op = e.as<UnaryNode>();
        Value a = eval(op->a);
        if (op->op == UnaryOp::kNot) return {0, a.i == 0};
        return t.is_float() ? Value{-a.f, 0} : Value{0, wrap_int(-a.i, t)};
      }
      case ExprKind::kSelect: {
        auto* op = e.as<SelectNode>();
        return eval(op->cond).i ? eval(op->true_value) : eval(op->false_value);
      }
      case ExprKind::kCast: {
        auto* op = e.as<CastNode>();
        Value v = eval(op->value);
        DataType from = op->value.dtype();
        if (t.is_float16() || from.is_float16())
          throw std::runtime_error("interpreter: float16 holds bit patterns; convert with aotc_f16_to_f32 / aotc_f64_to_f16");
        if (t.is_float()) {
          if (from.is_float()) return {round_float(v.f, t), 0};
          // One rounding, straight to the target type, as C converts.
          bool is_u64 = from.is_uint() && from.bits == 64;
          if (t.bits == 32)
            return {is_u64 ? static_cast<double>(static_cast<float>(static_cast<uint64_t>(v.i))) : static_cast<double>(static_cast<float>(v.i)), 0};
          return {is_u64 ? static_cast<double>(static_cast<uint64_t>(v.i)) : static_cast<double>(v.i), 0};
        }
        if (from.is_float()) {
          if (t.is_bool()) return {0, v.f != 0};
          // C truncates toward zero (the value must be in range: lowerings clamp first).
          if (t.is_uint() && t.bits == 64 && v.f >= 9223372036854775808.0)
            return {0, static_cast<int64_t>(static_cast<uint64_t>(v.f))};
          return {0, wrap_int(static_cast<int64_t>(v.f), t)};
        }
        return {0, wrap_int(v.i, t)};
      }
      case ExprKind::kLoad: {
        auto* op = e.as<LoadNode>();
        return read(op->buffer, address(op->buffer, op->indices));
      }
      case ExprKind::kCall: return call(e.as<CallNode>());
    }
    return {};
  }

  void exec(const Stmt& s) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::kStore: {
        auto* op = s.as<StoreNode>();
        write(op->buffer, address(op->buffer, op->indices), eval(op->value));
        break;
      }
      case StmtKind::kFor: {
        auto* op = s.as<ForNode>();
        int64_t lo = eval(op->min).i, n = eval(op->extent).i;
        for (int64_t v = lo; v < lo + n; ++v) {
          scalars[op->var.get()] = {0, v};
          exec(op->body);
        }
        scalars.erase(op->var.get());
        break;
      }
      case StmtKind::kIf: {
        auto* op = s.as<IfNode>();
        if (eval(op->cond).i) exec(op->then_case); else exec(op->else_case);
        break;
      }
      case StmtKind::kAllocate: {
        auto* op = s.as<AllocateNode>();
        temporaries.emplace_back(static_cast<size_t>(op->buffer->size_bytes()));
        memory[op->buffer->data.get()] = temporaries.back().data();
        exec(op->body);
        break;
      }
      case StmtKind::kAllocateConst: {
        auto* op = s.as<AllocateConstNode>();
        temporaries.push_back(op->data);
        memory[op->buffer->data.get()] = temporaries.back().data();
        exec(op->body);
        break;
      }
      case StmtKind::kSeq:
        for (auto& st : s.as<SeqNode>()->stmts) exec(st);
        break;
      case StmtKind::kLet: {
        auto* op = s.as<LetNode>();
        if (op->var->is_handle) {
          auto* c = op->value.as<CallNode>();
          if (!c || c->name != builtin::kWorkspaceAlloc) throw std::runtime_error("interpreter: unsupported handle let");
          temporaries.emplace_back(static_cast<size_t>(eval(c->args[0]).i));
          memory[op->var.get()] = temporaries.back().data();
        } else {
          scalars[op->var.get()] = eval(op->value);
        }
        exec(op->body);
        break;
      }
      case StmtKind::kEvaluate:
        eval(s.as<EvaluateNode>()->value);
        break;
      case StmtKind::kReturn:
        throw ReturnSignal{eval(s.as<ReturnNode>()->value).i};
    }
  }

 private:
  uint8_t* address(const Buffer& b, const std::vector<Expr>& indices) {
    int64_t flat = 0;
    for (size_t i = 0; i < indices.size(); ++i) {
      int64_t idx = eval(indices[i]).i;
      if (idx < 0 || idx >= b->shape[i])
        throw std::runtime_error("interpreter: index " + std::to_string(idx) + " out of bounds for " + b->name);
      flat = flat * b->shape[i] + idx;
    }
    auto it = memory.find(b->data.get());
    if (it == memory.end()) throw std::runtime_error("interpreter: unbound buffer " + b->name);
    return it->second + flat * b->dtype.bytes();
  }

  static Value read(const Buffer& b, const uint8_t* p) {
    DataType t = b->dtype;
    if (t.is_float() && !t.is_float16()) {  // float16: its bit pattern, as an integer
      if (t.bits == 32) { float v; std::memcpy(&v, p, 4); return {v, 0}; }
      double v; std::memcpy(&v, p, 8); return {v, 0};
    }
    int64_t v = 0;
    std::memcpy(&v, p, static_cast<size_t>(t.bytes()));  // little-endian host
    return {0, wrap_int(v, t)};
  }

  static void write(const Buffer& b, uint8_t* p, Value v) {
    DataType t = b->dtype;
    if (t.is_float() && !t.is_float16()) {
      if (t.bits == 32) { float f = static_cast<float>(v.f); std::memcpy(p, &f, 4); }
      else std::memcpy(p, &v.f, 8);
      return;
    }
    std::memcpy(p, &v.i, static_cast<size_t>(t.bytes()));
  }

  Value binary(const BinaryNode* op) {
    DataType t = op->a.dtype();
    Value a = eval(op->a);
    if (op->op == BinaryOp::kAnd && !a.i) return {0, 0};
    if (op->op == BinaryOp::kOr && a.i) return {0, 1};
    Value b = eval(op->b);
    int64_t truth = 0;
    if (t.is_uint() && t.bits == 64) return binary_u64(op->op, static_cast<uint64_t>(a.i), static_cast<uint64_t>(b.i), t);
    if (t.is_float() ? compare(op->op, a.f, b.f, &truth) : compare(op->op, a.i, b.i, &truth)) return {0, truth};
    if (t.is_float()) {
      double x = a.f, y = b.f, r = 0;
      switch (op->op) {
        case BinaryOp::kAdd: r = x + y; break;
        case BinaryOp::kSub: r = x - y; break;
        case BinaryOp::kMul: r = x * y; break;
        case BinaryOp::kDiv: r = x / y; break;
        case BinaryOp::kMod: r = std::fmod(x, y); break;
        case BinaryOp::kMin: r = y < x ? y : x; break;  // as the generated C: NaN in x propagates
        case BinaryOp::kMax: r = x < y ? y : x; break;
        default: break;  // comparisons and logic: compare()
      }
      return {round_float(r, t), 0};
    }
    int64_t x = a.i, y = b.i, r = 0;
    switch (op->op) {  // wrapping, as C's narrower types
      case BinaryOp::kAdd: r = wrapping_add(x, y); break;
      case BinaryOp::kSub: r = wrapping_sub(x, y); break;
      case BinaryOp::kMul: r = wrapping_mul(x, y); break;
      case BinaryOp::kDiv: if (y == 0) throw std::runtime_error("interpreter: division by zero"); r = wrapping_div(x, y); break;
      case BinaryOp::kMod: if (y == 0) throw std::runtime_error("interpreter: division by zero"); r = wrapping_mod(x, y); break;
      case BinaryOp::kMin: r = std::min(x, y); break;
      case BinaryOp::kMax: r = std::max(x, y); break;
      default: break;  // comparisons and logic: compare()
    }
    return {0, wrap_int(r, t)};
  }

  // uint64 does not fit the int64 the interpreter holds integers in: its comparisons,
  // division and min/max read the bits as unsigned.
  static Value binary_u64(BinaryOp op, uint64_t x, uint64_t y, DataType t) {
    int64_t truth = 0;
    if (compare(op, x, y, &truth)) return {0, truth};
    uint64_t r = 0;
    switch (op) {
      case BinaryOp::kAdd: r = x + y; break;
      case BinaryOp::kSub: r = x - y; break;
      case BinaryOp::kMul: r = x * y; break;
      case BinaryOp::kDiv: if (y == 0) throw std::runtime_error("interpreter: division by zero"); r = x / y; break;
      case BinaryOp::kMod: if (y == 0) throw std::runtime_error("interpreter: division by zero"); r = x % y; break;
      case BinaryOp::kMin: r = std::min(x, y); break;
      case BinaryOp::kMax: r = std::max(x, y); break;
      default: break;
    }
    return {0, wrap_int(static_cast<int64_t>(r), t)};
  }

  // The fixed-point functions and micro-kernels of the C runtime, evaluated by the
  // runtime's own code (addresses are host pointers into the interpreter's memory).
  Value runtime_call(const CallNode* op) {
    if (is_runtime_float_call(op->name)) {
      // float16 conversions: 16-bit patterns are integers, and so is a float16 result.
      std::vector<double> args;
      for (auto& arg : op->args) {
        Value v = eval(arg);
        args.push_back(arg.dtype().is_float() && !arg.dtype().is_float16() ? v.f : static_cast<double>(v.i));
      }
      double result = 0;
      if (!evaluate_runtime_float_call(op->name, args, &result)) throw std::runtime_error("interpreter: unsupported call " + op->name);
      DataType t = op->dtype;
      return t.is_float() && !t.is_float16() ? Value{round_float(result, t), 0} : Value{0, static_cast<int64_t>(result)};
    }
    std::vector<int64_t> args;
    for (auto& arg : op->args) args.push_back(eval(arg).i);
    int64_t result = 0;
    if (!evaluate_runtime_call(op->name, args, &result)) throw std::runtime_error("interpreter: unsupported call " + op->name);
    return {0, result};
  }

  Value call(const CallNode* op) {
    if (op->name == builtin::kIsNull) return {0, 0};
    if (op->name == builtin::kAddressOf) {
      auto* element = op->args[0].as<LoadNode>();
      return {0, static_cast<int64_t>(reinterpret_cast<intptr_t>(address(element->buffer, element->indices)))};
    }
    if (op->name == builtin::kWorkspaceFree) return {0, 0};
    if (op->name == builtin::kErrInvalidArgument) return {0, 1};  // its value in aotc_runtime.h
    if (op->name.rfind("aotc_", 0) == 0) return runtime_call(op);
    std::vector<double> args;
    for (auto& a : op->args) args.push_back(a.dtype().is_float() ? eval(a).f : static_cast<double>(eval(a).i));
    static const std::map<std::string, float (*)(float)> kUnaryF32 = {
        {"expf", std::exp},   {"tanhf", std::tanh}, {"sqrtf", std::sqrt}, {"logf", std::log},
        {"fabsf", std::fabs}, {"floorf", std::floor}, {"ceilf", std::ceil}, {"roundf", std::round},
        {"nearbyintf", std::nearbyint}, {"erff", std::erf}, {"sinf", std::sin}, {"cosf", std::cos},
        {"tanf", std::tan}, {"asinf", std::asin}, {"acosf", std::acos}, {"atanf", std::atan},
        {"sinhf", std::sinh}, {"coshf", std::cosh}, {"asinhf", std::asinh}, {"acoshf", std::acosh},
        {"atanhf", std::atanh}, {"expm1f", std::expm1}, {"log1pf", std::log1p}};
    static const std::map<std::string, double (*)(double)> kUnaryF64 = {
        {"exp", std::exp},   {"tanh", std::tanh}, {"sqrt", std::sqrt}, {"log", std::log},
        {"fabs", std::fabs}, {"floor", std::floor}, {"ceil", std::ceil}, {"round", std::round},
        {"nearbyint", std::nearbyint}, {"erf", std::erf}, {"sin", std::sin}, {"cos", std::cos},
        {"tan", std::tan}, {"asin", std::asin}, {"acos", std::acos}, {"atan", std::atan},
        {"sinh", std::sinh}, {"cosh", std::cosh}, {"asinh", std::asinh}, {"acosh", std::acosh},
        {"atanh", std::atanh}, {"expm1", std::expm1}, {"log1p", std::log1p}};
    static const std::map<std::string, float (*)(float, float)> kBinaryF32 = {{"powf", std::pow}, {"fmodf", std::fmod}};
    static const std::map<std::string, double (*)(double, double)> kBinaryF64 = {{"pow", std::pow}, {"fmod", std::fmod}};
    if (auto it = kUnaryF32.find(op->name); it != kUnaryF32.end() && args.size() == 1)
      return {static_cast<double>(it->second(static_cast<float>(args[0]))), 0};
    if (auto it = kUnaryF64.find(op->name); it != kUnaryF64.end() && args.size() == 1) return {it->second(args[0]), 0};
    if (auto it = kBinaryF32.find(op->name); it != kBinaryF32.end() && args.size() == 2)
      return {static_cast<double>(it->second(static_cast<float>(args[0]), static_cast<float>(args[1]))), 0};
    if (auto it = kBinaryF64.find(op->name); it != kBinaryF64.end() && args.size() == 2) return {it->second(args[0], args[1]), 0};
    // C99's classification macros (of a float or a double): an int, here a truth value.
    if (op->name == "isnan" && args.size() == 1) return {0, std::isnan(args[0]) ? 1 : 0};
    if (op->name == "isinf" && args.size() == 1) return {0, std::isinf(args[0]) ? 1 : 0};
    throw std::runtime_error("interpreter: unsupported call " + op->name);
  }
};

}  // namespace

int64_t interpret(const PrimFunc& func, const std::vector<BufferBinding>& bindings) {
  Interpreter in;
  for (auto& b : bindings) in.memory[b.param->data.get()] = static_cast<uint8_t*>(b.data);
  try {
    in.exec(func.body);
  } catch (const ReturnSignal& r) {
    return r.code;
  }
  return 0;
}

}  // namespace aotc::ir
