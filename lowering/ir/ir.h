// The loop IR that every operator lowers to, modelled on TVM's TIR.
//
// A PrimFunc takes Buffers (typed, shaped, row-major memory) and its body is a tree of
// statements: For loops, IfThenElse, BufferStore, Allocate (a temporary buffer with a
// storage scope), LetStmt, Evaluate of a Call, and Return. Expressions are immutable and
// shared; passes rebuild trees through IRMutator instead of editing them in place.
//
// Buffer accesses keep one index per dimension, so printed IR reads like the operator's
// definition (`Y[n, c, h, w]`); the C code generator flattens them.
//
// Storage scopes of an Allocate:
//   "global"           the compiler chooses stack or workspace (LowerBuiltin decides);
//   "global.stack"     stack only: too big for the target is a compile error;
//   "global.workspace" workspace only: memory an NPU or DMA engine must be able to reach;
//   "local"            a few scalars, always a C local (accumulators).
// AllocateConst holds compile-time tables (requantization multipliers) as const data.
// After LowerBuiltin only "local" and "stack" Allocates remain; workspace buffers are
// bound by a LetStmt to an allocator call instead.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aot/base/dtype.h"

namespace aotc::ir {

// ---------------------------------------------------------------- expressions

enum class ExprKind { kIntImm, kFloatImm, kVar, kBinary, kUnary, kSelect, kCast, kLoad, kCall };

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMod, kMin, kMax, kEQ, kNE, kLT, kLE, kGT, kGE, kAnd, kOr };
enum class UnaryOp { kNeg, kNot };

struct ExprNode {
  ExprKind kind;
  DataType dtype;
  ExprNode(ExprKind k, DataType t) : kind(k), dtype(t) {}
  virtual ~ExprNode() = default;
};

// A handle to an immutable expression node. Integers and doubles convert implicitly
// (int32 and float32 immediates), so lowering code can write `h * stride + kh - pad`.
class Expr {
 public:
  Expr() = default;
  Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}  // NOLINT
  Expr(int value);                                                         // NOLINT
  Expr(int64_t value);                                                     // NOLINT
  Expr(double value);                                                      // NOLINT

  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  bool same_as(const Expr& o) const { return node_ == o.node_; }
  DataType dtype() const { return node_->dtype; }
  template <typename T>
  const T* as() const { return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct IntImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kIntImm;
  int64_t value;
  IntImmNode(int64_t v, DataType t) : ExprNode(kKind, t), value(v) {}
};

struct FloatImmNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kFloatImm;
  double value;
  FloatImmNode(double v, DataType t) : ExprNode(kKind, t), value(v) {}
};

// A scalar variable (loop counter, let-bound value) or, with is_handle, the pointer
// to a buffer's data. Identity is the node, not the name.
struct VarNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kVar;
  std::string name;
  bool is_handle = false;  // when set, dtype is the pointee's element type
  VarNode(std::string n, DataType t, bool handle) : ExprNode(kKind, t), name(std::move(n)), is_handle(handle) {}
};
using Var = std::shared_ptr<const VarNode>;

struct BinaryNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kBinary;
  BinaryOp op;
  Expr a, b;
  BinaryNode(BinaryOp o, Expr x, Expr y, DataType t) : ExprNode(kKind, t), op(o), a(std::move(x)), b(std::move(y)) {}
};

struct UnaryNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kUnary;
  UnaryOp op;
  Expr a;
  UnaryNode(UnaryOp o, Expr x, DataType t) : ExprNode(kKind, t), op(o), a(std::move(x)) {}
};

struct SelectNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kSelect;
  Expr cond, true_value, false_value;
  SelectNode(Expr c, Expr t, Expr f) : ExprNode(kKind, t.dtype()), cond(std::move(c)), true_value(std::move(t)), false_value(std::move(f)) {}
};

struct CastNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kCast;
  Expr value;
  CastNode(DataType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
};

struct BufferNode;
using Buffer = std::shared_ptr<const BufferNode>;

// A typed, row-major block of memory. `data` is the handle variable that C code names.
struct BufferNode {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  std::string scope = "global";
  Var data;
  int64_t num_elements() const;
  int64_t size_bytes() const { return num_elements() * dtype.bytes(); }
};

struct LoadNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kLoad;
  Buffer buffer;
  std::vector<Expr> indices;
  LoadNode(Buffer b, std::vector<Expr> idx) : ExprNode(kKind, b->dtype), buffer(std::move(b)), indices(std::move(idx)) {}
};

// A call to a pure C math function (expf, tanhf, sqrtf...) or an aotc builtin
// (aotc_workspace_alloc, aotc_workspace_free, isnull). Builtins are listed in builtins.h.
struct CallNode : ExprNode {
  static constexpr ExprKind kKind = ExprKind::kCall;
  std::string name;
  std::vector<Expr> args;
  CallNode(std::string n, std::vector<Expr> a, DataType t) : ExprNode(kKind, t), name(std::move(n)), args(std::move(a)) {}
};

// ---------------------------------------------------------------- statements

enum class StmtKind { kStore, kFor, kIf, kAllocate, kAllocateConst, kSeq, kLet, kEvaluate, kReturn };

struct StmtNode {
  StmtKind kind;
  explicit StmtNode(StmtKind k) : kind(k) {}
  virtual ~StmtNode() = default;
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}  // NOLINT
  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  bool same_as(const Stmt& o) const { return node_ == o.node_; }
  template <typename T>
  const T* as() const { return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr; }

 private:
  std::shared_ptr<const StmtNode> node_;
};

struct StoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kStore;
  Buffer buffer;
  std::vector<Expr> indices;
  Expr value;
  StoreNode(Buffer b, std::vector<Expr> idx, Expr v) : StmtNode(kKind), buffer(std::move(b)), indices(std::move(idx)), value(std::move(v)) {}
};

enum class ForKind { kSerial, kUnrolled };

// What the scheduling passes are asked to do with a loop: schedule_loops writes these
// annotations from the loop shapes and the target's features, and tensorize,
// reorder_loops, split_loops and unroll_loops (lowering/passes/) carry them out in that
// order. They are requests, not semantics: a loop means the same with or without them.
struct LoopSchedule {
  // Replace the loop by a call to this runtime micro-kernel (a dot product): tensorize.
  std::string tensorize;
  // Interchange the loop with the one loop that is its whole body: reorder_loops.
  bool reorder = false;
  // Split into an outer loop and an inner loop of this many iterations (plus a tail loop
  // when the extent is not a multiple): split_loops. 0: not split.
  int64_t split = 0;
  // Replace the loop by copies of its body, one per iteration: unroll_loops. With split,
  // the inner loop (and the tail) is unrolled, not the whole loop.
  bool unroll = false;

  bool empty() const { return tensorize.empty() && !reorder && split == 0 && !unroll; }
};

struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kFor;
  Var var;
  Expr min, extent;
  ForKind for_kind;
  Stmt body;
  LoopSchedule schedule;
  ForNode(Var v, Expr lo, Expr n, ForKind k, Stmt b, LoopSchedule sched = {})
      : StmtNode(kKind), var(std::move(v)), min(std::move(lo)), extent(std::move(n)), for_kind(k), body(std::move(b)),
        schedule(std::move(sched)) {}
};

struct IfNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kIf;
  Expr cond;
  Stmt then_case, else_case;  // else_case may be empty
  IfNode(Expr c, Stmt t, Stmt e) : StmtNode(kKind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
};

struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kAllocate;
  Buffer buffer;  // buffer->scope is the storage scope
  Stmt body;
  AllocateNode(Buffer b, Stmt s) : StmtNode(kKind), buffer(std::move(b)), body(std::move(s)) {}
};

// Read-only data computed at compile time: per-channel requantization multipliers,
// lookup tables, weights packed in the order a kernel reads them. `static const` data
// inside the kernel in C. The buffer gives dtype and shape; `data` holds its elements as
// little-endian bytes, row-major (aot/base/element_bytes.h reads and writes them).
struct AllocateConstNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kAllocateConst;
  Buffer buffer;
  std::vector<uint8_t> data;  // buffer->size_bytes() bytes
  Stmt body;
  AllocateConstNode(Buffer b, std::vector<uint8_t> d, Stmt s)
      : StmtNode(kKind), buffer(std::move(b)), data(std::move(d)), body(std::move(s)) {}
  int64_t num_elements() const { return buffer->num_elements(); }
};

struct SeqNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kSeq;
  std::vector<Stmt> stmts;
  explicit SeqNode(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
};

struct LetNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kLet;
  Var var;
  Expr value;
  Stmt body;
  LetNode(Var v, Expr x, Stmt b) : StmtNode(kKind), var(std::move(v)), value(std::move(x)), body(std::move(b)) {}
};

struct EvaluateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kEvaluate;
  Expr value;
  explicit EvaluateNode(Expr v) : StmtNode(kKind), value(std::move(v)) {}
};

// Leaves the PrimFunc with an error code (a nonzero int32).
struct ReturnNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::kReturn;
  Expr value;
  explicit ReturnNode(Expr v) : StmtNode(kKind), value(std::move(v)) {}
};

// ---------------------------------------------------------------- functions

// One kernel: reads and writes its parameter buffers, returns 0 or an error code.
struct PrimFunc {
  std::string name;
  std::vector<Buffer> params;
  Stmt body;
  std::map<std::string, std::string> attrs;  // e.g. "source_node" -> "conv1 (Conv)"
  // Constant arrays of the module, not parameters, that the body reads by name: the
  // artifacts of an external function (a command stream, packed weights). The C names
  // them <model>_<buffer name>.
  std::vector<Buffer> globals;
};

// ---------------------------------------------------------------- constructors

Expr make_int(int64_t v, DataType t = DataType::Int(32));
Expr make_float(double v, DataType t = DataType::Float32());
Expr make_zero(DataType t);
Var make_var(const std::string& name, DataType t = DataType::Int(32));
Buffer make_buffer(const std::string& name, DataType dtype, std::vector<int64_t> shape, const std::string& scope = "global");
Buffer with_scope(const Buffer& b, const std::string& scope);  // same data var, new scope

Expr binary(BinaryOp op, Expr a, Expr b);
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // C semantics: truncation for integers
Expr operator%(Expr a, Expr b);
Expr operator-(Expr a);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr logical_and(Expr a, Expr b);  // not operator&&: that would capture C++ conditions on Exprs
Expr logical_not(Expr a);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr select(Expr c, Expr t, Expr f);
Expr cast(DataType t, Expr v);
Expr load(const Buffer& b, std::vector<Expr> indices);
Expr call(const std::string& name, std::vector<Expr> args, DataType t);
// The address of element `indices` of `b` (`&b[...]` in C), to pass arrays to runtime
// micro-kernels. Its dtype is the element type.
Expr address_of(const Buffer& b, std::vector<Expr> indices);
inline Expr var_expr(const Var& v) { return Expr(std::static_pointer_cast<const ExprNode>(v)); }

Stmt store(const Buffer& b, std::vector<Expr> indices, Expr value);
Stmt for_loop(const Var& v, Expr min, Expr extent, Stmt body, ForKind kind = ForKind::kSerial);
// `loop` with new bounds and body, keeping its variable, kind and schedule: what every
// pass that rebuilds a For calls, so that no pass drops another's annotations.
Stmt rebuild_for(const ForNode* loop, Expr min, Expr extent, Stmt body);
// `loop` with `schedule` in place of its own.
Stmt with_schedule(const ForNode* loop, LoopSchedule schedule);
Stmt if_then_else(Expr c, Stmt then_case, Stmt else_case = Stmt());
Stmt allocate(const Buffer& b, Stmt body);
// A constant buffer `name` of `dtype` and `shape` holding `bytes` (little-endian elements,
// row-major); `body` builds the statement that reads it. Throws std::invalid_argument if
// the byte count does not match.
Stmt allocate_const(const std::string& name, DataType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes,
                    const std::function<Stmt(const Buffer&)>& body);
// A 1-D table of `values`, each exactly representable in `dtype`.
Stmt allocate_const(const std::string& name, DataType dtype, const std::vector<double>& values,
                    const std::function<Stmt(const Buffer&)>& body);
Stmt seq(std::vector<Stmt> stmts);  // flattens nested Seqs, drops empty statements
Stmt let(const Var& v, Expr value, Stmt body);
Stmt evaluate(Expr v);
Stmt return_stmt(Expr v);

// Builds a loop nest over `shape` with fresh int32 loop variables named `names`
// (or i0, i1, ... when `names` is shorter) and calls `body` with them, innermost last.
Stmt loop_nest(const std::vector<int64_t>& shape, const std::vector<std::string>& names,
               const std::function<Stmt(const std::vector<Expr>&)>& body);

}  // namespace aotc::ir
