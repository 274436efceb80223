#include "lowering/ir/ir_printer.h"

#include "aot/base/element_bytes.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace aotc::ir {

namespace {

const char* binary_symbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSub: return "-";
    case BinaryOp::kMul: return "*";
    case BinaryOp::kDiv: return "/";
    case BinaryOp::kMod: return "%";
    case BinaryOp::kMin: return "min";
    case BinaryOp::kMax: return "max";
    case BinaryOp::kEQ: return "==";
    case BinaryOp::kNE: return "!=";
    case BinaryOp::kLT: return "<";
    case BinaryOp::kLE: return "<=";
    case BinaryOp::kGT: return ">";
    case BinaryOp::kGE: return ">=";
    case BinaryOp::kAnd: return "&&";
    case BinaryOp::kOr: return "||";
  }
  return "?";
}

std::string shape_text(const Buffer& b) {
  std::string s = b->dtype.str() + "[";
  for (size_t i = 0; i < b->shape.size(); ++i) s += (i ? ", " : "") + std::to_string(b->shape[i]);
  return s + "]";
}

std::string indices_text(const std::vector<Expr>& idx) {
  std::string s;
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + to_string(idx[i]);
  return s;
}

// A loop's annotations, as ` [tensorize aotc_dot_f32, reorder, split 4, unroll inner]`.
std::string schedule_text(const LoopSchedule& s) {
  if (s.empty()) return "";
  std::vector<std::string> parts;
  if (!s.tensorize.empty()) parts.push_back("tensorize " + s.tensorize);
  if (s.reorder) parts.push_back("reorder");
  if (s.split) parts.push_back("split " + std::to_string(s.split));
  if (s.unroll) parts.push_back(s.split ? "unroll inner" : "unroll");
  std::string text = " [";
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
  return text + "]";
}

}  // namespace

std::string float_literal(double v, DataType t) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  int digits = t.bits == 64 ? 17 : 9;
  // Shortest precision that round-trips.
  for (int p = 1; p <= digits; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    double back = std::strtod(buf, nullptr);
    if (t.bits == 64 ? back == v : static_cast<float>(back) == static_cast<float>(v)) break;
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string to_string(const Expr& e) {
  if (!e) return "<null>";
  switch (e->kind) {
    case ExprKind::kIntImm: {
      auto* op = e.as<IntImmNode>();
      std::string s = std::to_string(op->value);
      if (op->dtype == DataType::Bool()) return op->value ? "true" : "false";
      // int32 is the default; other types are named as a cast would be: int8(5), uint32(5).
      return op->dtype == DataType::Int(32) ? s : op->dtype.str() + "(" + s + ")";
    }
    case ExprKind::kFloatImm: {
      auto* op = e.as<FloatImmNode>();
      return float_literal(op->value, op->dtype) + (op->dtype.bits == 32 ? "f" : "");
    }
    case ExprKind::kVar: return e.as<VarNode>()->name;
    case ExprKind::kBinary: {
      auto* op = e.as<BinaryNode>();
      if (op->op == BinaryOp::kMin || op->op == BinaryOp::kMax)
        return std::string(binary_symbol(op->op)) + "(" + to_string(op->a) + ", " + to_string(op->b) + ")";
      return "(" + to_string(op->a) + " " + binary_symbol(op->op) + " " + to_string(op->b) + ")";
    }
    case ExprKind::kUnary: {
      auto* op = e.as<UnaryNode>();
      return std::string(op->op == UnaryOp::kNeg ? "-" : "!") + to_string(op->a);
    }
    case ExprKind::kSelect: {
      auto* op = e.as<SelectNode>();
      return "select(" + to_string(op->cond) + ", " + to_string(op->true_value) + ", " + to_string(op->false_value) + ")";
    }
    case ExprKind::kCast: {
      auto* op = e.as<CastNode>();
      return op->dtype.str() + "(" + to_string(op->value) + ")";
    }
    case ExprKind::kLoad: {
      auto* op = e.as<LoadNode>();
      return op->buffer->name + "[" + indices_text(op->indices) + "]";
    }
    case ExprKind::kCall: {
      auto* op = e.as<CallNode>();
      return op->name + "(" + indices_text(op->args) + ")";
    }
  }
  return "?";
}

std::string to_string(const Stmt& s, int indent) {
  if (!s) return "";
  std::string pad(indent * 2, ' ');
  std::ostringstream os;
  switch (s->kind) {
    case StmtKind::kStore: {
      auto* op = s.as<StoreNode>();
      os << pad << op->buffer->name << "[" << indices_text(op->indices) << "] = " << to_string(op->value) << "\n";
      break;
    }
    case StmtKind::kFor: {
      auto* op = s.as<ForNode>();
      os << pad << (op->for_kind == ForKind::kUnrolled ? "unrolled " : "") << "for (" << op->var->name << ", "
         << to_string(op->min) << ", " << to_string(op->extent) << ")" << schedule_text(op->schedule) << " {\n"
         << to_string(op->body, indent + 1) << pad << "}\n";
      break;
    }
    case StmtKind::kIf: {
      auto* op = s.as<IfNode>();
      os << pad << "if " << to_string(op->cond) << " {\n" << to_string(op->then_case, indent + 1);
      if (op->else_case) os << pad << "} else {\n" << to_string(op->else_case, indent + 1);
      os << pad << "}\n";
      break;
    }
    case StmtKind::kAllocate: {
      auto* op = s.as<AllocateNode>();
      os << pad << "allocate " << op->buffer->name << ": " << shape_text(op->buffer) << " \"" << op->buffer->scope
         << "\" {\n" << to_string(op->body, indent + 1) << pad << "}\n";
      break;
    }
    case StmtKind::kAllocateConst: {
      auto* op = s.as<AllocateConstNode>();
      os << pad << "constant " << op->buffer->name << ": " << shape_text(op->buffer) << " = [";
      DataType t = op->buffer->dtype;
      for (int64_t i = 0; i < op->num_elements(); ++i) {
        if (i == 8) { os << ", ..."; break; }
        os << (i ? ", " : "")
           << (t.is_float() ? float_literal(read_element_double(t, op->data.data(), i), t)
                            : std::to_string(read_element_int(t, op->data.data(), i)));
      }
      os << "] {\n" << to_string(op->body, indent + 1) << pad << "}\n";
      break;
    }
    case StmtKind::kSeq:
      for (auto& st : s.as<SeqNode>()->stmts) os << to_string(st, indent);
      break;
    case StmtKind::kLet: {
      auto* op = s.as<LetNode>();
      os << pad << "let " << op->var->name << (op->var->is_handle ? ": " + op->var->dtype.str() + "*" : "") << " = "
         << to_string(op->value) << " {\n" << to_string(op->body, indent + 1) << pad << "}\n";
      break;
    }
    case StmtKind::kEvaluate:
      os << pad << to_string(s.as<EvaluateNode>()->value) << "\n";
      break;
    case StmtKind::kReturn:
      os << pad << "return " << to_string(s.as<ReturnNode>()->value) << "\n";
      break;
  }
  return os.str();
}

std::string to_string(const PrimFunc& f) {
  std::ostringstream os;
  os << "func " << f.name << "(";
  for (size_t i = 0; i < f.params.size(); ++i) os << (i ? ", " : "") << f.params[i]->name << ": " << shape_text(f.params[i]);
  os << ")";
  for (size_t i = 0; i < f.globals.size(); ++i)
    os << (i ? ", " : " reads ") << f.globals[i]->name << ": " << shape_text(f.globals[i]);
  // The kernel the kernel strategy chose (lowering/kernels/conv_kernels.h), where it chose.
  auto kernel = f.attrs.find("kernel");
  if (kernel != f.attrs.end()) os << " kernel " << kernel->second;
  os << " {\n" << to_string(f.body, 1) << "}\n";
  return os.str();
}

}  // namespace aotc::ir
