#include "lowering/passes/tensorize.h"

#include <limits>
#include <optional>
#include <utility>

#include "lowering/ir/builtins.h"
#include "lowering/ir/ir_functor.h"
#include "lowering/ir/runtime_calls.h"
#include "lowering/passes/loop_analysis.h"
#include "lowering/passes/simplify.h"

namespace aotc::ir {
namespace {

// One factor of a product: buffer[indices] (less zero_point, for integers), walked with
// `stride` elements between iterations.
struct Operand {
  const LoadNode* load = nullptr;
  Expr zero_point;  // int32; 0 when the factor has no offset
  int64_t stride = 0;
};

// A dot product loop: accumulator[acc_indices] += a * b over the loop.
struct DotProduct {
  const StoreNode* update = nullptr;
  Operand a, b;
  std::string kernel;
};

bool fits_int32(int64_t v) { return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(); }

// A factor of the product: a float32 load, or int32(load of int8/uint8) possibly less a
// loop-invariant int32 zero point (or plus a loop-invariant offset).
std::optional<Operand> match_operand(const Expr& e, const ForNode* loop, const BufferNode* accumulator) {
  Operand operand;
  Expr value = e;
  if (e.dtype() == DataType::Int(32)) {
    // x - zero_point, or x + offset (a zero point folded into a constant: -offset).
    if (auto* offset = e.as<BinaryNode>(); offset && (offset->op == BinaryOp::kSub || offset->op == BinaryOp::kAdd)) {
      if (uses_var(offset->b, loop->var.get()) || reads_buffer(offset->b, accumulator)) return std::nullopt;
      operand.zero_point = offset->op == BinaryOp::kSub ? offset->b : simplify(make_int(0) - offset->b);
      value = offset->a;
    }
    auto* widened = value.as<CastNode>();
    if (widened == nullptr) return std::nullopt;
    value = widened->value;
    DataType t = value.dtype();
    if (t != DataType::Int(8) && t != DataType::UInt(8)) return std::nullopt;
    if (!operand.zero_point) operand.zero_point = make_int(0);
  } else if (e.dtype() != DataType::Float32()) {
    return std::nullopt;
  }
  operand.load = value.as<LoadNode>();
  if (operand.load == nullptr || operand.load->buffer.get() == accumulator) return std::nullopt;
  std::optional<int64_t> stride = element_stride(operand.load->buffer, operand.load->indices, loop->var.get());
  if (!stride || !fits_int32(*stride)) return std::nullopt;
  operand.stride = *stride;
  return operand;
}

std::optional<DotProduct> match_dot_product(const ForNode* loop) {
  std::optional<int64_t> extent = constant_int(loop->extent);
  if (!extent || *extent < 1 || !fits_int32(*extent)) return std::nullopt;
  DotProduct dot;
  dot.update = loop->body.as<StoreNode>();
  if (dot.update == nullptr) return std::nullopt;
  // A "local" accumulator is a C local: no operand can alias it.
  const BufferNode* accumulator = dot.update->buffer.get();
  if (accumulator->scope != "local") return std::nullopt;
  for (const Expr& index : dot.update->indices)
    if (uses_var(index, loop->var.get())) return std::nullopt;
  // acc + a * b, or a * b + acc: float addition and multiplication are commutative.
  auto* sum = dot.update->value.as<BinaryNode>();
  if (sum == nullptr || sum->op != BinaryOp::kAdd) return std::nullopt;
  Expr previous = sum->a, product = sum->b;
  if (!previous.as<LoadNode>()) std::swap(previous, product);
  auto* read = previous.as<LoadNode>();
  if (read == nullptr || read->buffer.get() != accumulator) return std::nullopt;
  for (size_t i = 0; i < read->indices.size(); ++i)
    if (!same_expr(read->indices[i], dot.update->indices[i])) return std::nullopt;
  auto* mul = product.as<BinaryNode>();
  if (mul == nullptr || mul->op != BinaryOp::kMul) return std::nullopt;
  std::optional<Operand> a = match_operand(mul->a, loop, accumulator), b = match_operand(mul->b, loop, accumulator);
  if (!a || !b) return std::nullopt;
  DataType acc_type = dot.update->buffer->dtype;
  if (acc_type == DataType::Float32() && mul->dtype == DataType::Float32()) {
    dot.kernel = "aotc_dot_f32";
  } else if (acc_type == DataType::Int(32) && mul->dtype == DataType::Int(32)) {
    bool a_signed = a->load->dtype.is_int(), b_signed = b->load->dtype.is_int();
    if (a_signed && !b_signed) std::swap(a, b);  // the kernel takes uint8 first
    dot.kernel = a_signed && b_signed ? "aotc_dot_s8_s8" : (!a_signed && !b_signed ? "aotc_dot_u8_u8" : "aotc_dot_u8_s8");
  } else {
    return std::nullopt;
  }
  dot.a = *a;
  dot.b = *b;
  return dot;
}

// &buffer[indices] at the loop's first iteration.
Expr first_address(const LoadNode* load, const ForNode* loop) {
  std::vector<Expr> indices;
  for (const Expr& index : load->indices) indices.push_back(simplify(substitute(index, loop->var.get(), loop->min)));
  return address_of(load->buffer, indices);
}

class Tensorizer : public IRMutator {
 protected:
  Stmt mutate_for(const Stmt& s, const ForNode* op) override {
    if (op->schedule.tensorize.empty()) return IRMutator::mutate_for(s, op);
    std::optional<DotProduct> dot = match_dot_product(op);
    if (!dot || dot->kernel != op->schedule.tensorize) {
      LoopSchedule rest = op->schedule;
      rest.tensorize.clear();
      return IRMutator::mutate(with_schedule(op, rest));
    }
    Expr a = first_address(dot->a.load, op), b = first_address(dot->b.load, op);
    Expr acc = address_of(dot->update->buffer, dot->update->indices);
    Expr n = op->extent;
    if (dot->kernel == "aotc_dot_f32") return evaluate(dot_f32_strided(a, dot->a.stride, b, dot->b.stride, n, acc));
    return evaluate(dot_int8_strided(dot->kernel, a, dot->a.stride, dot->a.zero_point, b, dot->b.stride, dot->b.zero_point,
                                     n, acc));
  }
};

}  // namespace

std::string dot_product_kernel(const ForNode* loop) {
  std::optional<DotProduct> dot = match_dot_product(loop);
  return dot ? dot->kernel : "";
}

Stmt tensorize(const Stmt& s) { return Tensorizer().mutate(s); }

}  // namespace aotc::ir
