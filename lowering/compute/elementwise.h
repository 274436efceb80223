// What the elementwise operator families share: type checks and shape functions with
// numpy broadcasting, and scalar arithmetic with ONNX's semantics in C99 without undefined
// behaviour. The families: in lowering/ops/onnx/, elementwise.cc (arithmetic,
// Min/Max/Sum/Mean, Clip, BitShift, identities), math_functions.cc (Exp, Log, Sqrt, rounding,
// trigonometry), activations.cc, logic.cc (comparisons, boolean logic, Where, IsInf, IsNaN),
// cast.cc (Cast, CastLike); in lowering/ops/tflite/, tflite_activations.cc,
// tflite_elementwise.cc and tflite_compare.cc.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "aot/graph/op_registry.h"
#include "lowering/compute/kernel_builder.h"

namespace aotc {

// Classes of element types, combined with |, that an operator accepts.
enum TypeClass : unsigned {
  kFloatTypes = 1,     // float32, float64
  kSignedTypes = 2,    // int8, int16, int32, int64
  kUnsignedTypes = 4,  // uint8, uint16, uint32, uint64
  kBoolType = 8,
  kIntegerTypes = kSignedTypes | kUnsignedTypes,
  kNumericTypes = kFloatTypes | kIntegerTypes,
  kAllTypes = kNumericTypes | kBoolType,
};

bool in_class(DataType t, unsigned allowed);
// Input `index` must be present and of a type in `allowed`; else a node_error naming the
// input, its type and what the operator takes.
const Tensor& require_type(const Graph& g, const Node& node, size_t index, unsigned allowed);

// Shape function of an operator whose present inputs all have input 0's type (one of
// `allowed`) and broadcast together: output 0 has the broadcast shape and `output_type`,
// or the inputs' type when it is not given.
InferFn broadcast_infer(unsigned allowed);
InferFn broadcast_infer(unsigned allowed, DataType output_type);
// The same for an operator of exactly two inputs (Add, Equal, And...), both required.
InferFn binary_infer(unsigned allowed);
InferFn binary_infer(unsigned allowed, DataType output_type);

// An elementwise operator (see elementwise_op in kernel_builder.h) whose scalar form needs
// only the node and its operands.
OpDef elementwise(InferFn infer, std::function<ir::Expr(const Node&, const std::vector<ir::Expr>&)> scalar);

// ---- scalar arithmetic

// The libm function `name` of the argument's type: "expf" for float32, "exp" for float64.
ir::Expr math(const std::string& name, std::vector<ir::Expr> args);

// a + b, a - b, a * b, -a for any numeric type. Integers wrap to their width as in ONNX
// (numpy): 8- and 16-bit operands are computed in int (where C computes them anyway, made
// explicit so that a fused chain wraps after each operator), signed 32- and 64-bit ones
// in unsigned arithmetic, as C's signed overflow is undefined.
ir::Expr wrapping_add(ir::Expr a, ir::Expr b);
ir::Expr wrapping_sub(ir::Expr a, ir::Expr b);
ir::Expr wrapping_mul(ir::Expr a, ir::Expr b);
ir::Expr wrapping_neg(ir::Expr a);

// a / b: floating point as IEEE; integers truncate toward zero (C, ONNX Runtime), and the
// cases C leaves undefined get numpy's answers: x / 0 is 0, INT_MIN / -1 wraps to INT_MIN.
ir::Expr divide(ir::Expr a, ir::Expr b);
// Integer remainder, with the sign of the dividend (C's %, fmod) or, with
// `sign_of_divisor`, of the divisor (Python's %, ONNX Mod with fmod=0); x mod 0 is 0.
ir::Expr integer_remainder(ir::Expr a, ir::Expr b, bool sign_of_divisor);

// C99's isnan(x) and isinf(x) as truth values (the macros return any nonzero int).
ir::Expr is_nan(ir::Expr x);
ir::Expr is_inf(ir::Expr x);

// Minimum and maximum that propagate a NaN in either operand (numpy's minimum/maximum,
// ONNX's Min/Max); integers compare as C does.
ir::Expr nan_min(ir::Expr a, ir::Expr b);
ir::Expr nan_max(ir::Expr a, ir::Expr b);

// x converted to `t` with ONNX's Cast rules where C has them and defined answers where C
// has none: to bool, x != 0; from floating point to an integer, truncation toward zero,
// saturated to the type's range, NaN to 0 (as Arm's conversion instructions do; ONNX
// leaves out-of-range conversions undefined, and in C they are undefined behaviour);
// between integers, the low bits (two's complement); to floating point, the nearest value.
// Neither side may be float16 (cast.cc converts those).
ir::Expr convert(DataType t, ir::Expr x);

// The constant `v` of type t: an immediate of the right kind.
ir::Expr constant(double v, DataType t);

}  // namespace aotc
