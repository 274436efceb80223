// The ONNX reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceLogSum, ReduceLogSumExp and ReduceSumSquare.
//
// Which axes are reduced: the attribute `axes` (every opset before 18, ReduceSum before
// 13) or the optional input 1 (ReduceSum from opset 13, all of them from 18), which must
// be a compile-time constant; negative axes count from the end. No axes means all of
// them, unless noop_with_empty_axes=1: then nothing is reduced and each element is its
// own group (ReduceSumSquare squares, ReduceL1 takes the absolute value..., as ONNX's
// reference computes). keepdims (default 1) keeps the reduced axes with size 1.
//
// One kernel for all: for each output element, a loop over its group into a local
// accumulator (start value, combine, finish), in row-major order of the group. ReduceMax
// and ReduceMin start from the group's first element and propagate NaN, as numpy does.
// ReduceLogSumExp first finds the group's maximum and sums exp(x - max), so exp cannot
// overflow (an infinite maximum is not subtracted: inf - inf would be NaN).
//
// Types: float32 and float64 accumulate in their own type. Integers (the spec allows
// int32/int64/uint32/uint64, and int8/uint8 for Max and Min; any integer type is accepted)
// wrap around as numpy's sums and products do: sums and products accumulate in an
// unsigned type of at least 32 bits, whose overflow is defined in C (a signed one's is
// not), and are converted back. ReduceMean and ReduceL2 of integers compute in double and
// truncate (saturating), like numpy's float mean and the reference's astype. ReduceLogSum and
// ReduceLogSumExp have no integer result in general and take only floats.
#include <algorithm>
#include <cmath>
#include <limits>

#include "lowering/compute/axis_split.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

// ---------------------------------------------------------------- axes and shapes

// is_reduced[d] for each axis of input 0 (see the header comment).
std::vector<bool> reduced_axes(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  bool axes_input = node.input(1) != kNoTensor;
  if (axes_input && node.has_attr("axes")) node_error(node, "axes are given both as an attribute and as input 1");
  std::vector<int64_t> axes = axes_input ? constant_ints(g, node, 1, "axes") : node.attr_ints("axes");
  if (axes.empty()) return std::vector<bool>(static_cast<size_t>(rank), node.attr_int("noop_with_empty_axes", 0) == 0);
  std::vector<bool> is_reduced(static_cast<size_t>(rank), false);
  for (int64_t axis : axes) {
    if (rank == 0 || axis < -rank || axis >= rank)
      node_error(node, "axis " + std::to_string(axis) + " is out of range for an input of rank " + std::to_string(rank));
    size_t d = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    if (is_reduced[d]) node_error(node, "axis " + std::to_string(axis) + " is listed twice");
    is_reduced[d] = true;
  }
  return is_reduced;
}

bool keep_dims(const Node& node) { return node.attr_int("keepdims", 1) != 0; }

std::vector<int64_t> reduced_shape(const Node& node, const AxisSplit& split) {
  if (!keep_dims(node)) return split.kept_shape();
  std::vector<int64_t> shape = split.shape();
  for (size_t d = 0; d < shape.size(); ++d)
    if (split.is_reduced(d)) shape[d] = 1;
  return shape;
}

// ---------------------------------------------------------------- the reductions

// How one reduction accumulates. `shift` is the group's maximum for ReduceLogSumExp
// (needs_max), else unused.
struct Reduction {
  DataType acc_type;
  bool starts_from_first = false;  // else from `init`
  double init = 0;
  bool needs_max = false;
  std::function<Expr(const Expr& acc, const Expr& x, const Expr& shift)> combine;
  // The output value (converted to the output type by the store) from the accumulator.
  std::function<Expr(const Expr& acc, const Expr& shift)> finish;
};

bool is_float(DataType t) { return t == DataType::Float32() || t == DataType::Float64(); }

// The unsigned type integer sums and products wrap around in.
DataType wrapping_type(DataType t) { return DataType::UInt(std::max(32, t.bits)); }

Expr absolute(const Expr& x) {
  if (x.dtype().is_float()) return float_call("fabs", {x});
  if (x.dtype().is_uint()) return x;
  return ir::select(x < ir::make_zero(x.dtype()), -x, x);
}

Reduction reduction_of(const Node& node, DataType x_type, int64_t group_size) {
  const std::string& op = node.op;
  bool floating = is_float(x_type);
  Reduction r;
  r.acc_type = floating ? x_type : wrapping_type(x_type);
  auto as_acc = [](DataType acc_type) { return [acc_type](const Expr& x) { return ir::cast(acc_type, x); }; };
  auto to_acc = as_acc(r.acc_type);
  auto identity = [](const Expr& acc, const Expr&) { return acc; };
  r.finish = identity;
  if (op == "ReduceSum") {
    r.combine = [=](const Expr& acc, const Expr& x, const Expr&) { return acc + to_acc(x); };
  } else if (op == "ReduceSumSquare") {
    r.combine = [=](const Expr& acc, const Expr& x, const Expr&) { return acc + to_acc(x) * to_acc(x); };
  } else if (op == "ReduceL1") {
    // |x| of a signed integer: negated after the conversion to unsigned (-INT_MIN overflows).
    r.combine = [=](const Expr& acc, const Expr& x, const Expr&) {
      if (floating || x_type.is_uint()) return acc + absolute(to_acc(x));
      return acc + ir::select(x < ir::make_zero(x_type), -to_acc(x), to_acc(x));
    };
  } else if (op == "ReduceProd") {
    r.init = 1;
    r.combine = [=](const Expr& acc, const Expr& x, const Expr&) { return acc * to_acc(x); };
  } else if (op == "ReduceMax" || op == "ReduceMin") {
    bool is_max = op == "ReduceMax";
    r.acc_type = x_type;
    r.starts_from_first = true;
    r.combine = [=](const Expr& acc, const Expr& x, const Expr&) {
      Expr better = is_max ? ir::max(x, acc) : ir::min(x, acc);
      return floating ? ir::select(is_nan(acc), acc, better) : better;  // a NaN stays
    };
  } else if (op == "ReduceMean" || op == "ReduceL2") {
    if (!floating) r.acc_type = DataType::Float64();
    auto to = as_acc(r.acc_type);
    Expr count = ir::make_float(static_cast<double>(group_size), r.acc_type);
    // Back to an integer type by truncation, saturated: the mean of int64 values near the
    // limit rounds to 2^63 in double, and the root of a large sum may exceed the type, and
    // a C conversion of a value out of range is undefined.
    auto to_output = [=](const Expr& v) { return floating ? v : convert(x_type, v); };
    if (op == "ReduceMean") {
      r.combine = [=](const Expr& acc, const Expr& x, const Expr&) { return acc + to(x); };
      r.finish = [=](const Expr& acc, const Expr&) { return to_output(acc / count); };
    } else {
      r.combine = [=](const Expr& acc, const Expr& x, const Expr&) { return acc + to(x) * to(x); };
      r.finish = [=](const Expr& acc, const Expr&) { return to_output(float_call("sqrt", {acc})); };
    }
  } else if (op == "ReduceLogSum") {
    r.combine = [=](const Expr& acc, const Expr& x, const Expr&) { return acc + x; };
    r.finish = [=](const Expr& acc, const Expr&) { return float_call("log", {acc}); };
  } else if (op == "ReduceLogSumExp") {
    r.needs_max = true;
    r.combine = [=](const Expr& acc, const Expr& x, const Expr& shift) { return acc + float_call("exp", {x - shift}); };
    r.finish = [=](const Expr& acc, const Expr& shift) { return float_call("log", {acc}) + shift; };
  }
  return r;
}

void check_input_type(const Graph& g, const Node& node) {
  DataType t = require_input(g, node, 0).dtype;
  bool floats_only = node.op == "ReduceLogSum" || node.op == "ReduceLogSumExp";
  if (is_float(t) || (t.is_integer() && !floats_only)) return;
  node_error(node, "input '" + g.tensor(node.inputs[0]).name + "' is " + t.str() + "; " + node.op + " supports " +
                       (floats_only ? "float32 and float64" : "float32, float64 and integer types"));
}

void infer_reduce(Graph& g, Node& node) {
  check_input_type(g, node);
  const Tensor& x = g.tensor(node.inputs[0]);
  AxisSplit split(x.shape, reduced_axes(g, node));
  set_output(g, node, 0, x.dtype, reduced_shape(node, split));
}

// The group's maximum into a local, for ReduceLogSumExp; an infinite maximum becomes 0.
ir::Stmt with_group_max(const AxisSplit& split, const ir::Buffer& x, const std::vector<Expr>& kept,
                        const std::function<ir::Stmt(const Expr&)>& body) {
  Expr first = ir::load(x, buffer_index(split.first(kept)));
  return with_accumulator("group_max", first, [&](const Accumulator& m) {
    ir::Stmt find = split.for_each_element(kept, [&](const std::vector<Expr>& index) {
      return m.set(ir::max(ir::load(x, buffer_index(index)), m.value()));
    });
    DataType t = first.dtype();
    Expr infinite = logical_or(m.value() == ir::make_float(INFINITY, t), m.value() == ir::make_float(-INFINITY, t));
    return ir::seq({find, m.set(ir::select(infinite, ir::make_zero(t), m.value())), body(m.value())});
  });
}

LoweredOp lower_reduce(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  const Tensor& x_tensor = g.tensor(node.inputs[0]);
  AxisSplit split(x_tensor.shape, reduced_axes(g, node));
  Reduction r = reduction_of(node, x_tensor.dtype, split.group_size());
  bool keep = keep_dims(node);

  ir::Stmt body = split.for_each_group([&](const std::vector<Expr>& kept) {
    std::vector<Expr> out_index = buffer_index(keep ? split.first(kept) : kept);
    auto reduce_with = [&](const Expr& shift) {
      Expr init = r.starts_from_first ? ir::load(x, buffer_index(split.first(kept))) : ir::make_float(r.init, r.acc_type);
      if (!r.acc_type.is_float() && !r.starts_from_first) init = ir::make_int(static_cast<int64_t>(r.init), r.acc_type);
      return accumulate(
          init,
          [&](const Accumulator& acc) {
            return split.for_each_element(kept, [&](const std::vector<Expr>& index) {
              return acc.set(r.combine(acc.value(), ir::load(x, buffer_index(index)), shift));
            });
          },
          [&](const Expr& value) { return ir::store(y, out_index, r.finish(value, shift)); });
    };
    return r.needs_max ? with_group_max(split, x, kept, reduce_with) : reduce_with(Expr());
  });
  return kb.finish(body);
}

AOTC_REGISTER_OPS(kernel_op(infer_reduce, lower_reduce), "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                  "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare");

}  // namespace
}  // namespace aotc
