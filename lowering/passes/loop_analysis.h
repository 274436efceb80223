// Questions the scheduling passes (schedule_loops, tensorize, reorder_loops, split_loops,
// unroll_loops) ask about loops and expressions, and the one rewrite they share:
// substituting an expression for a loop variable.
#pragma once

#include <cstdint>
#include <optional>

#include "lowering/ir/ir.h"

namespace aotc::ir {

// `s` (or `e`) with every use of `var` replaced by `value`; nodes that do not use it are
// shared, not copied.
Stmt substitute(const Stmt& s, const VarNode* var, const Expr& value);
Expr substitute(const Expr& e, const VarNode* var, const Expr& value);

// Whether `var` occurs anywhere in `e` (or `s`).
bool uses_var(const Expr& e, const VarNode* var);
bool uses_var(const Stmt& s, const VarNode* var);

// Whether `s` reads (loads) buffer `b` anywhere, or stores to it.
bool reads_buffer(const Stmt& s, const BufferNode* b);
bool reads_buffer(const Expr& e, const BufferNode* b);

// Structural equality: the same operators, constants, variables (by identity) and buffers.
bool same_expr(const Expr& a, const Expr& b);

// The number of expression and statement nodes in `s`: a measure of how much code an
// unrolled copy of it costs.
int64_t node_count(const Stmt& s);

// c such that `e` = c * var + (something without var), if `e` is affine in var with an
// integer coefficient (sums, differences and products by constants of var and
// var-free terms); nullopt otherwise.
std::optional<int64_t> linear_coefficient(const Expr& e, const VarNode* var);

// The distance in elements between b[indices] at var and at var + 1, for row-major b,
// if every index is affine in var.
std::optional<int64_t> element_stride(const Buffer& b, const std::vector<Expr>& indices, const VarNode* var);

// The value of a constant integer expression (after simplify), if it is one.
std::optional<int64_t> constant_int(const Expr& e);

}  // namespace aotc::ir
