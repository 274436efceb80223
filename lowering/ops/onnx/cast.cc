// Cast (to the type its `to` attribute names) and CastLike (to the type of its second
// input), between every type aotc has: float32, float64, float16, int8 to int64, uint8 to
// uint64 and bool.
//
// ONNX's rules, and what aotc does where ONNX leaves the result undefined (convert() in
// elementwise.h): to bool, nonzero is true; between integers, the low bits; floating point
// to an integer truncates toward zero, out-of-range values saturate and NaN becomes 0 (as
// Arm's conversion instructions do: in C such a conversion is undefined behaviour); to
// floating point, the nearest value (an infinity past the largest).
//
// float16 tensors hold bit patterns (see aot/base/dtype.h and the ONNX importer): a Cast
// from float16 decodes them with the runtime's aotc_f16_to_f32 (exact), a Cast to float16
// encodes with aotc_f64_to_f16 (nearest, ties to even, from the exact float64 value of the
// input, so that a float64 input is rounded once).
#include "aot/import/onnx_importer.h"
#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/elementwise.h"

namespace aotc {
namespace {

using ir::Expr;

void infer_cast_to(Graph& g, Node& node, DataType to) {
  const Tensor& x = require_input(g, node, 0);
  if (!x.dtype.is_float16()) require_type(g, node, 0, kAllTypes);
  set_output(g, node, 0, to, x.shape);
}

void infer_cast(Graph& g, Node& node) {
  if (!node.has_attr("to")) node_error(node, "attribute 'to' is required");
  int64_t to = node.attr_int("to", 0);
  std::optional<DataType> t = onnx_element_dtype(to);
  if (!t) node_error(node, "a cast to " + onnx_element_type_name(to) + " is not supported");
  infer_cast_to(g, node, *t);
}

void infer_cast_like(Graph& g, Node& node) { infer_cast_to(g, node, require_input(g, node, 1).dtype); }

Expr cast_to(DataType t, Expr x) {
  if (x.dtype().is_float16()) x = ir::float16_to_float32(x);
  if (t.is_float16()) return ir::float64_to_float16(convert(DataType::Float64(), x));
  return convert(t, x);
}

// The output's type is what the shape function chose.
ScalarFn cast_scalar() {
  return [](const Graph& g, const Node& node, const std::vector<Expr>& in) { return cast_to(g.tensor(node.outputs.at(0)).dtype, in[0]); };
}

AOTC_REGISTER_OP("Cast", elementwise_op(infer_cast, cast_scalar()));
AOTC_REGISTER_OP("CastLike", elementwise_op(infer_cast_like, cast_scalar()));

}  // namespace
}  // namespace aotc
