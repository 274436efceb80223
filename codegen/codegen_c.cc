#include "codegen/codegen_c.h"

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>

#include "aot/base/element_bytes.h"
#include "aot/base/text.h"
#include "lowering/ir/builtins.h"
#include "lowering/ir/ir_functor.h"
#include "lowering/ir/ir_printer.h"
#include "lowering/ir/runtime_calls.h"
#include "lowering/passes/simplify.h"

namespace aotc {

using namespace ir;  // NOLINT: this file is all about the IR

std::string c_float_literal(double v, DataType t) {
  std::string suffix = t.bits == 32 ? "f" : "";
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "-INFINITY";
  return float_literal(v, t) + suffix;
}

std::string c_int_literal(int64_t v, DataType t) {
  // A uint64 arrives as its bits; INT64_MIN has no literal (its magnitude does not fit).
  if (t.bits == 64 && t.is_uint()) return "UINT64_C(" + std::to_string(static_cast<uint64_t>(v)) + ")";
  if (t.bits == 64 && v == INT64_MIN) return "(-INT64_C(9223372036854775807) - 1)";
  if (t.bits == 64) return "INT64_C(" + std::to_string(v) + ")";
  if (v == INT32_MIN) return "(-2147483647 - 1)";
  return std::to_string(v) + (t.is_uint() && t.bits == 32 ? "u" : "");
}

std::string c_element_literal(DataType t, const uint8_t* bytes, int64_t i) {
  if (t.is_float16()) {  // a uint16_t array of bit patterns
    uint16_t bits;
    std::memcpy(&bits, bytes + 2 * i, 2);
    return c_int_literal(bits, DataType::UInt(16));
  }
  return t.is_float() ? c_float_literal(read_element_double(t, bytes, i), t) : c_int_literal(read_element_int(t, bytes, i), t);
}

std::string c_identifier(const std::string& name) {
  static const std::set<std::string> kReserved = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
      "NULL", "main", "inputs", "outputs", "status"};
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "t_" + s;
  if (kReserved.count(s)) s += "_";
  return s;
}

std::string CFileContext::helper_definitions() const {
  std::ostringstream os;
  for (const std::string& h : helpers) {
    // h is "min_<ctype>" or "max_<ctype>" with a suffix naming the type.
    bool is_min = h.rfind("aotc_min", 0) == 0;
    std::string type = h.substr(h.find(':') + 1);
    std::string name = h.substr(0, h.find(':'));
    // std::min / std::max semantics: the first operand unless the second is strictly
    // smaller (larger). A NaN in `a` propagates, as in TFLite's activations and ONNX's Relu.
    os << "static inline " << type << " " << name << "(" << type << " a, " << type << " b) { return "
       << (is_min ? "b < a" : "a < b") << " ? b : a; }\n";
  }
  return os.str();
}

namespace {

// Which buffers a function writes: the rest of its parameters become `const`.
class StoreCollector : public IRVisitor {
 public:
  std::set<const VarNode*> stored;
  std::set<const VarNode*> used;

 protected:
  void visit_store(const StoreNode* op) override {
    stored.insert(op->buffer->data.get());
    used.insert(op->buffer->data.get());
    IRVisitor::visit_store(op);
  }
  void visit_load(const LoadNode* op) override {
    used.insert(op->buffer->data.get());
    IRVisitor::visit_load(op);
  }
  // A device driver call reads its regions and writes those marked writable; a runtime
  // micro-kernel writes through an address it is given (aotc_mve.h's outputs).
  void visit_call(const CallNode* op) override {
    if (is_device_call(op)) {
      for (size_t i = 2; i + 2 < op->args.size(); i += 3) {
        const VarNode* handle = op->args[i].as<VarNode>();
        if (!handle) continue;
        used.insert(handle);
        if (op->args[i + 2].as<IntImmNode>() && op->args[i + 2].as<IntImmNode>()->value != 0) stored.insert(handle);
      }
    }
    for (size_t i = 0; i < op->args.size(); ++i) {
      const auto* address = op->args[i].as<CallNode>();
      if (address && address->name == builtin::kAddressOf && ir::runtime_call_writes_argument(op->name, i))
        if (const auto* element = address->args.at(0).as<LoadNode>()) stored.insert(element->buffer->data.get());
    }
    IRVisitor::visit_call(op);
  }

 public:
  static bool is_device_call(const CallNode* op) {
    return op->name == builtin::kNpuInvoke || op->name == builtin::kEthosuInvoke;
  }
};

std::string type_suffix(DataType t) {
  return t.is_float() ? (t.bits == 32 ? "f32" : "f64") : (t.is_uint() ? "u" : "i") + std::to_string(t.bits);
}

class CEmitter {
 public:
  explicit CEmitter(CFileContext* ctx) : ctx_(ctx) {}

  std::string function(const PrimFunc& f, const std::string& c_name) {
    StoreCollector sc;
    sc.visit(f.body);
    std::ostringstream head;
    head << "/* " << f.name << ": " << display_text(f.attrs.count("source_node") ? f.attrs.at("source_node") : "");
    if (f.attrs.count("fused")) head << ", fused with " << display_text(f.attrs.at("fused"));
    head << " */\n";
    head << "AOTC_KERNEL int32_t " << c_name << "(";
    for (size_t i = 0; i < f.params.size(); ++i) {
      const Buffer& b = f.params[i];
      bool is_const = !sc.stored.count(b->data.get());
      head << (i ? ", " : "") << (is_const ? "const " : "") << b->dtype.c_type() << "* " << declare(b->data.get(), b->name);
    }
    if (f.params.empty()) head << "void";
    head << ") {\n";
    for (const Buffer& g : f.globals) {
      names_[g->data.get()] = ctx_->prefix + "_" + c_identifier(g->name);
      taken_.insert(names_[g->data.get()]);
    }
    for (const Buffer& b : f.params)
      if (!sc.used.count(b->data.get())) os_ << "  (void)" << names_[b->data.get()] << ";\n";
    stmt(f.body, 1);
    os_ << "  return 0;\n}\n";
    return head.str() + os_.str();
  }

 private:
  std::string declare(const VarNode* v, const std::string& hint) {
    std::string base = c_identifier(hint);
    std::string name = base;
    for (int k = 1; taken_.count(name); ++k) name = base + "_" + std::to_string(k);
    taken_.insert(name);
    names_[v] = name;
    return name;
  }

  const std::string& name_of(const VarNode* v) {
    auto it = names_.find(v);
    if (it == names_.end()) throw std::logic_error("C codegen: variable '" + v->name + "' used before declaration");
    return it->second;
  }

  std::string helper(const char* kind, DataType t) {
    std::string name = std::string("aotc_") + kind + "_" + type_suffix(t);
    ctx_->helpers.insert(name + ":" + t.c_type());
    return name;
  }

  // Row-major flattening: ((i0 * d1 + i1) * d2 + i2) ...
  std::string access(const Buffer& b, const std::vector<Expr>& indices) {
    const std::string& name = name_of(b->data.get());
    if (scalars_.count(b->data.get())) return name;
    Expr flat = 0;
    for (size_t i = 0; i < indices.size(); ++i) flat = flat * make_int(b->shape[i]) + indices[i];
    return name + "[" + expr(simplify(flat)) + "]";
  }

  // C precedence of an expression's top operator; operands that bind looser than their
  // context get parentheses, so index arithmetic reads `(i0 * 4 + i1) * 5 + i2`.
  static int precedence(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kUnary:
      case ExprKind::kCast: return 14;
      case ExprKind::kSelect: return 3;
      case ExprKind::kBinary:
        switch (e.as<BinaryNode>()->op) {
          case BinaryOp::kMul: case BinaryOp::kDiv: case BinaryOp::kMod: return 13;
          case BinaryOp::kAdd: case BinaryOp::kSub: return 12;
          case BinaryOp::kLT: case BinaryOp::kLE: case BinaryOp::kGT: case BinaryOp::kGE: return 10;
          case BinaryOp::kEQ: case BinaryOp::kNE: return 9;
          case BinaryOp::kAnd: return 5;
          case BinaryOp::kOr: return 4;
          case BinaryOp::kMin: case BinaryOp::kMax: return 100;  // printed as calls
        }
        return 0;
      case ExprKind::kCall:
        // isnull(p) prints as `p == NULL`, and &x[i] binds like a unary operator.
        if (e.as<CallNode>()->name == builtin::kIsNull) return 9;
        if (e.as<CallNode>()->name == builtin::kAddressOf) return 14;
        return 100;
      // A negative literal binds like unary minus (`x * -2`, `a == -1`): only a postfix
      // operator could split it, and literals take none.
      case ExprKind::kIntImm: return e.as<IntImmNode>()->value < 0 ? 14 : 100;
      case ExprKind::kFloatImm: return e.as<FloatImmNode>()->value < 0 || std::signbit(e.as<FloatImmNode>()->value) ? 14 : 100;
      default: return 100;  // variables, loads
    }
  }

  // Prints `e` in a context that needs at least precedence `context` (0: anywhere).
  std::string expr(const Expr& e, int context = 0) {
    std::string text = bare_expr(e);
    return precedence(e) < context ? "(" + text + ")" : text;
  }

  std::string bare_expr(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kIntImm: {
        auto* op = e.as<IntImmNode>();
        return c_int_literal(op->value, op->dtype);
      }
      case ExprKind::kFloatImm: {
        auto* op = e.as<FloatImmNode>();
        return c_float_literal(op->value, op->dtype);
      }
      case ExprKind::kVar: return name_of(e.as<VarNode>());
      case ExprKind::kBinary: {
        auto* op = e.as<BinaryNode>();
        if (op->op == BinaryOp::kMin || op->op == BinaryOp::kMax)
          return helper(op->op == BinaryOp::kMin ? "min" : "max", op->dtype) + "(" + expr(op->a) + ", " + expr(op->b) + ")";
        static const std::map<BinaryOp, const char*> kSym = {
            {BinaryOp::kAdd, "+"}, {BinaryOp::kSub, "-"}, {BinaryOp::kMul, "*"}, {BinaryOp::kDiv, "/"},
            {BinaryOp::kMod, "%"}, {BinaryOp::kEQ, "=="}, {BinaryOp::kNE, "!="}, {BinaryOp::kLT, "<"},
            {BinaryOp::kLE, "<="}, {BinaryOp::kGT, ">"},  {BinaryOp::kGE, ">="}, {BinaryOp::kAnd, "&&"},
            {BinaryOp::kOr, "||"}};
        int p = precedence(e);
        // Left-associative: the right operand needs a tighter binding. Inside || and &&,
        // comparisons and && get parentheses anyway, and so does a comparison inside a
        // comparison (`(a < 0) != (b < 0)`), as -Wparentheses and readers prefer.
        int left = p, right = p + 1;
        if (op->op == BinaryOp::kOr || op->op == BinaryOp::kAnd) left = right = 6;
        if (p == 9 || p == 10) left = right = 11;
        return expr(op->a, left) + " " + kSym.at(op->op) + " " + expr(op->b, right);
      }
      case ExprKind::kUnary: {
        auto* op = e.as<UnaryNode>();
        std::string operand = expr(op->a, 14);
        if (operand[0] == '-') operand = "(" + operand + ")";  // `-(-x)`, never the `--` operator
        return std::string(op->op == UnaryOp::kNeg ? "-" : "!") + operand;
      }
      case ExprKind::kSelect: {
        auto* op = e.as<SelectNode>();
        return expr(op->cond, 6) + " ? " + expr(op->true_value, 4) + " : " + expr(op->false_value, 3);
      }
      case ExprKind::kCast: {
        auto* op = e.as<CastNode>();
        return "(" + op->dtype.c_type() + ")" + expr(op->value, 14);
      }
      case ExprKind::kLoad: {
        auto* op = e.as<LoadNode>();
        return access(op->buffer, op->indices);
      }
      case ExprKind::kCall: return call_expr(e.as<CallNode>());
    }
    return "?";
  }

  std::string call_expr(const CallNode* op) {
    if (op->name == builtin::kIsNull) return expr(op->args[0], 10) + " == NULL";
    if (op->name == builtin::kAddressOf) {
      auto* element = op->args[0].as<LoadNode>();
      return "&" + access(element->buffer, element->indices);
    }
    if (op->name == builtin::kWorkspaceAlloc)
      return "(" + op->dtype.c_type() + "*)" + op->name + "(" + ctx_->workspace_allocator + ", " + expr(op->args[0]) + ")";
    if (op->name == builtin::kWorkspaceFree)
      return op->name + "(" + ctx_->workspace_allocator + ", " + expr(op->args[0]) + ")";
    if (StoreCollector::is_device_call(op)) return device_call(op);
    if (op->args.empty()) return op->name;  // a named constant (error codes)
    std::string s = op->name + "(";
    for (size_t i = 0; i < op->args.size(); ++i) s += (i ? ", " : "") + expr(op->args[i]);
    return s + ")";
  }

  // A device driver call (builtins.h): the region table as a compound literal, one entry a
  // region. aotc_npu_invoke takes aotc_npu_region entries ({base, size, flags}), Arm's
  // Ethos-U driver (through aotc_ethosu_invoke) base addresses and sizes in two arrays.
  std::string device_call(const CallNode* op) {
    std::vector<std::string> bases, sizes, flags;
    for (size_t i = 2; i + 2 < op->args.size(); i += 3) {
      const Expr& handle = op->args[i];
      bool null = handle.as<IntImmNode>() != nullptr;
      bases.push_back(null ? "NULL" : expr(handle));
      sizes.push_back(expr(op->args[i + 1]) + "u");
      bool writable = op->args[i + 2].as<IntImmNode>() && op->args[i + 2].as<IntImmNode>()->value != 0;
      flags.push_back(writable ? "0u" : "AOTC_NPU_REGION_READ_ONLY");
    }
    std::string count = std::to_string(bases.size());
    std::string head = op->name + "(" + expr(op->args[0]) + ", " + expr(op->args[1]) + "u, ";
    std::string table;
    if (op->name == builtin::kNpuInvoke) {
      table = "(const aotc_npu_region[" + count + "]){";
      for (size_t i = 0; i < bases.size(); ++i)
        table += std::string(i ? ", " : "") + "{" + (bases[i] == "NULL" ? "NULL" : "(void*)" + bases[i]) + ", " + sizes[i] +
                 ", " + flags[i] + "}";
      return head + table + "}, " + count + "u)";
    }
    std::string addresses = "(const uint64_t[" + count + "]){", byte_counts = "(const size_t[" + count + "]){";
    for (size_t i = 0; i < bases.size(); ++i) {
      addresses += std::string(i ? ", " : "") + (bases[i] == "NULL" ? "0u" : "(uint64_t)(uintptr_t)" + bases[i]);
      byte_counts += std::string(i ? ", " : "") + sizes[i];
    }
    return head + addresses + "}, " + byte_counts + "}, " + count + ")";
  }

  void stmt(const Stmt& s, int indent) {
    if (!s) return;
    std::string pad(indent * 2, ' ');
    switch (s->kind) {
      case StmtKind::kStore: {
        auto* op = s.as<StoreNode>();
        os_ << pad << access(op->buffer, op->indices) << " = " << expr(op->value) << ";\n";
        break;
      }
      case StmtKind::kFor: {
        auto* op = s.as<ForNode>();
        std::string v = declare(op->var.get(), op->var->name);
        Expr end = simplify(op->min + op->extent);
        os_ << pad << "for (int32_t " << v << " = " << expr(op->min) << "; " << v << " < " << expr(end, 11)
            << "; ++" << v << ") {\n";
        stmt(op->body, indent + 1);
        os_ << pad << "}\n";
        release(op->var.get());
        break;
      }
      case StmtKind::kIf: {
        auto* op = s.as<IfNode>();
        os_ << pad << "if (" << expr(op->cond) << ") {\n";
        stmt(op->then_case, indent + 1);
        if (op->else_case) {
          os_ << pad << "} else {\n";
          stmt(op->else_case, indent + 1);
        }
        os_ << pad << "}\n";
        break;
      }
      case StmtKind::kAllocate:
      case StmtKind::kAllocateConst:
      case StmtKind::kLet:
        declaration_block(s, indent);
        break;
      case StmtKind::kSeq:
        for (auto& st : s.as<SeqNode>()->stmts) stmt(st, indent);
        break;
      case StmtKind::kEvaluate:
        os_ << pad << "(void)" << expr(s.as<EvaluateNode>()->value, 14) << ";\n";
        break;
      case StmtKind::kReturn:
        os_ << pad << "return " << expr(s.as<ReturnNode>()->value) << ";\n";
        break;
    }
  }

  // Allocate, AllocateConst and Let declare a name for the scope of their body: a C block.
  // A chain of them nested directly in one another shares one block, so that
  // `let a { let b { body } }` reads as two declarations and the body.
  void declaration_block(Stmt s, int indent) {
    std::string pad(indent * 2, ' '), inner = pad + "  ";
    os_ << pad << "{\n";
    std::vector<const VarNode*> declared;
    for (;; s = body_of(s)) {
      if (auto* op = s.as<AllocateNode>()) {
        declared.push_back(declare_array(op, inner));
      } else if (auto* op = s.as<AllocateConstNode>()) {
        declared.push_back(declare_table(op, inner));
      } else if (auto* op = s.as<LetNode>()) {
        declared.push_back(declare_let(op, inner));
      } else {
        break;
      }
    }
    stmt(s, indent + 1);
    os_ << pad << "}\n";
    for (const VarNode* v : declared) release(v);
  }

  static Stmt body_of(const Stmt& s) {
    if (auto* op = s.as<AllocateNode>()) return op->body;
    if (auto* op = s.as<AllocateConstNode>()) return op->body;
    return s.as<LetNode>()->body;
  }

  const VarNode* declare_array(const AllocateNode* op, const std::string& pad) {
    const Buffer& b = op->buffer;
    if (b->scope != "local" && b->scope != "stack")
      throw std::logic_error("C codegen: buffer '" + b->name + "' still has scope '" + b->scope + "' (LowerBuiltin not run)");
    std::string name = declare(b->data.get(), b->name);
    if (b->scope == "local" && b->num_elements() == 1) {
      scalars_.insert(b->data.get());
      os_ << pad << b->dtype.c_type() << " " << name << ";\n";
    } else {
      os_ << pad << b->dtype.c_type() << " " << name << "[" << b->num_elements() << "];\n";
    }
    return b->data.get();
  }

  const VarNode* declare_table(const AllocateConstNode* op, const std::string& pad) {
    const Buffer& b = op->buffer;
    std::string name = declare(b->data.get(), b->name);
    int64_t n = op->num_elements();
    os_ << pad << "static const " << b->dtype.c_type() << " " << name << "[" << n << "] = {";
    // Short tables on one line, long ones (packed weights) eight elements a line.
    std::string line_break = n > 16 ? "\n" + pad + "  " : " ";
    for (int64_t i = 0; i < n; ++i) {
      os_ << (i == 0 ? (n > 16 ? line_break : "") : (i % 8 == 0 ? "," + line_break : ", "))
          << c_element_literal(b->dtype, op->data.data(), i);
    }
    os_ << (n > 16 ? "\n" + pad : "") << "};\n";
    return b->data.get();
  }

  const VarNode* declare_let(const LetNode* op, const std::string& pad) {
    std::string value = expr(op->value);
    std::string name = declare(op->var.get(), op->var->name);
    if (op->var->is_handle) {
      os_ << pad << op->var->dtype.c_type() << "* const " << name << " = " << value << ";\n";
    } else {
      os_ << pad << "const " << op->var->dtype.c_type() << " " << name << " = " << value << ";\n";
    }
    return op->var.get();
  }

  // A name may be reused once its scope has closed.
  void release(const VarNode* v) { taken_.erase(names_[v]); }

  CFileContext* ctx_;
  std::ostringstream os_;
  std::map<const VarNode*, std::string> names_;
  std::set<std::string> taken_;
  std::set<const VarNode*> scalars_;
};

}  // namespace

std::string emit_c_function(const PrimFunc& func, const std::string& c_name, CFileContext* ctx) {
  return CEmitter(ctx).function(func, c_name);
}

}  // namespace aotc
