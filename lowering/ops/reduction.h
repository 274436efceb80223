// Shared by the reduction operators (ONNX and TFLite convolutions, matrix products,
// pooling, softmax): a scalar accumulator.
//
// Each output element of these operators is a reduction over a window or a row: it is
// computed in a "local" one-element buffer (a C local variable after code generation),
// which keeps the partial result in a register instead of re-reading the output.
#pragma once

#include <functional>
#include <string>

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

}  // namespace aotc
