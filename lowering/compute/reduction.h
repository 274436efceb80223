// Shared by the reduction operators (ONNX and TFLite convolutions, matrix products,
// pooling, softmax): a scalar accumulator.
//
// Each output element of these operators is a reduction over a window or a row: it is
// computed in a "local" one-element buffer (a C local variable after code generation),
// which keeps the partial result in a register instead of re-reading the output.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "lowering/ir/ir.h"
#include "aot/graph/op_registry.h"

namespace aotc {

struct Accumulator {
  ir::Buffer buffer;

  ir::Expr value() const { return ir::load(buffer, {0}); }
  ir::Stmt set(ir::Expr v) const { return ir::store(buffer, {0}, std::move(v)); }
};

// Declares an accumulator named `name` of init's type, sets it to `init`, then runs
// `body` (the reduction loops followed by the store of the result).
inline ir::Stmt with_accumulator(const std::string& name, ir::Expr init,
                                 const std::function<ir::Stmt(const Accumulator&)>& body) {
  Accumulator acc{ir::make_buffer(name, init.dtype(), {1}, "local")};
  return ir::allocate(acc.buffer, ir::seq({acc.set(std::move(init)), body(acc)}));
}

// acc = init; sum(acc); write(final value of acc).
inline ir::Stmt accumulate(ir::Expr init, const std::function<ir::Stmt(const Accumulator&)>& sum,
                           const std::function<ir::Stmt(const ir::Expr&)>& write) {
  return with_accumulator("acc", std::move(init),
                          [&](const Accumulator& acc) { return ir::seq({sum(acc), write(acc.value())}); });
}

// A float sum with Kahan's compensation: `add(v)` adds v to `sum` and keeps in
// `compensation` the low-order part the addition lost, which the next addition puts back.
// The error of n additions is then a few units in the last place instead of growing with n,
// which matters where a sum of many values is divided again (a normalization's mean over
// thousands of elements near 130 lost three decimal digits in float32). The statements
// are kept apart so that no C compiler may fold (t - sum) - y to zero without -ffast-math.
struct CompensatedSum {
  Accumulator sum, compensation;

  ir::Expr value() const { return sum.value(); }
  ir::Stmt add(const ir::Expr& v) const {
    ir::Var y = ir::make_var("y", v.dtype()), t = ir::make_var("t", v.dtype());
    ir::Expr ye = ir::var_expr(y), te = ir::var_expr(t);
    return ir::let(y, v - compensation.value(),
                   ir::let(t, sum.value() + ye,
                           ir::seq({compensation.set((te - sum.value()) - ye), sum.set(te)})));
  }
};

// The compensated sum divided by `n` as an unevaluated pair hi + lo: hi the rounded quotient,
// lo what it lacks (to about twice the type's precision), for `body`. A mean subtracted
// from values that lie far from zero compared with their spread (x - hi - lo) then keeps
// the digits that rounding the mean to one float would lose. The residual sum - hi * n is
// computed exactly with Dekker's product (Veltkamp's split of hi; n split at compile time),
// once per sum, so no fused multiply-add is needed.
inline ir::Stmt divided_as_pair(const CompensatedSum& s, int64_t n,
                                const std::function<ir::Stmt(const ir::Expr& hi, const ir::Expr& lo)>& body) {
  DataType t = s.sum.buffer->dtype;
  const double splitter = t.bits == 32 ? 4097.0 : 134217729.0;  // 2^12 + 1, 2^27 + 1
  auto in_type = [&](double v) { return t.bits == 32 ? static_cast<double>(static_cast<float>(v)) : v; };
  // n's halves, each with at most half the significand's bits (Veltkamp, in the type's rounding).
  const double n_scaled = in_type(splitter * static_cast<double>(n));
  const double n_hi = in_type(n_scaled - in_type(n_scaled - static_cast<double>(n)));
  const double n_lo = in_type(static_cast<double>(n) - n_hi);
  auto f = [&](double v) { return ir::make_float(v, t); };
  std::vector<std::pair<ir::Var, ir::Expr>> lets;
  auto let = [&](const std::string& name, ir::Expr v) {
    lets.emplace_back(ir::make_var(name, t), std::move(v));
    return ir::var_expr(lets.back().first);
  };
  ir::Expr hi = let("mean_hi", s.value() / f(static_cast<double>(n)));
  ir::Expr scaled = let("mean_scaled", hi * f(splitter));
  ir::Expr hi_hi = let("mean_hi_hi", scaled - (scaled - hi));
  ir::Expr hi_lo = let("mean_hi_lo", hi - hi_hi);
  ir::Expr product = let("mean_times_n", hi * f(static_cast<double>(n)));
  ir::Expr error = hi_hi * f(n_hi) - product;
  if (n_lo != 0) error = error + hi_hi * f(n_lo);  // n_lo is 0 for n below 2^12 (2^27 in float64)
  error = error + hi_lo * f(n_hi);
  if (n_lo != 0) error = error + hi_lo * f(n_lo);
  ir::Expr product_error = let("mean_times_n_error", error);
  ir::Expr residual = (s.value() - product - product_error - s.compensation.value()) / f(static_cast<double>(n));
  // Beyond 2^100 the split overflows (a mean that large has no digits to recover anyway).
  ir::Expr lo = let("mean_lo", ir::select(ir::call(t.bits == 32 ? "fabsf" : "fabs", {hi}, t) < f(0x1p100), residual, f(0)));
  ir::Stmt result = body(hi, lo);
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) result = ir::let(it->first, it->second, result);
  return result;
}

// Declares a compensated sum of type `t` named `name`, starting at zero, then runs `body`.
inline ir::Stmt with_compensated_sum(const std::string& name, DataType t,
                                     const std::function<ir::Stmt(const CompensatedSum&)>& body) {
  return with_accumulator(name, ir::make_zero(t), [&](const Accumulator& sum) {
    return with_accumulator(name + "_lost", ir::make_zero(t),
                            [&](const Accumulator& lost) { return body(CompensatedSum{sum, lost}); });
  });
}

}  // namespace aotc
