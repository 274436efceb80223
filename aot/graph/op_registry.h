// The operator table: for each graph operator, how to infer its output types and shapes,
// and how to lower it to a PrimFunc.
//
// Each family of operators lives in one file under lowering/ops/ and registers itself
// with AOTC_REGISTER_OP, so adding an operator touches one file. Elementwise operators
// also provide a scalar form, which is what lets the fusion pass chain them behind a
// convolution or another elementwise operator (see lowering/kernel_builder.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "aot/graph/graph.h"
#include "lowering/ir/ir.h"

namespace aotc {

// A lowered operator: the kernel, and for each of its parameters the graph tensor bound to it.
struct LoweredOp {
  ir::PrimFunc func;
  std::vector<TensorId> args;  // args[i] is passed as func.params[i]
  // Inputs whose memory the output may take, if nothing later reads them: the kernel
  // reads element i of such an input before it writes element i of the output (or
  // stages what it overwrites). The memory planner decides whether to use it.
  std::vector<TensorId> in_place_inputs;
};

struct OpDef {
  // Sets dtype/shape of the node's outputs from its inputs (and constant inputs).
  // Throws CompileError (via node_error) for anything unsupported.
  std::function<void(Graph&, Node&)> infer;
  // Builds the kernel. `func_name` is unique in the module.
  std::function<LoweredOp(const Graph&, const Node&, const std::string& func_name)> lower;
  // For elementwise operators: output element from the input elements (same index,
  // after broadcasting). Inputs that are absent are passed as empty Exprs.
  std::function<ir::Expr(const Graph&, const Node&, const std::vector<ir::Expr>& inputs)> scalar;
  // Output 0 is input 0 with a new shape: no kernel, the planner makes it an alias.
  bool is_view = false;
};

using InferFn = std::function<void(Graph&, Node&)>;
using LowerFn = std::function<LoweredOp(const Graph&, const Node&, const std::string&)>;

// An operator with a kernel.
OpDef kernel_op(InferFn infer, LowerFn lower);
// An operator whose output is its input 0 with another shape (no kernel; an alias).
OpDef view_op(InferFn infer);

const OpDef* find_op(const std::string& op);
void register_op(const std::string& op, OpDef def);
std::vector<std::string> registered_ops();

struct OpRegistrar {
  OpRegistrar(const std::string& op, OpDef def) { register_op(op, std::move(def)); }
};

#define AOTC_CONCAT_INNER(a, b) a##b
#define AOTC_CONCAT(a, b) AOTC_CONCAT_INNER(a, b)
#define AOTC_REGISTER_OP(op_name, def) \
  static ::aotc::OpRegistrar AOTC_CONCAT(aotc_op_registrar_, __COUNTER__)(op_name, def)

// ---- helpers shared by the shape functions

// Sets output `index` of `node` to (dtype, shape).
void set_output(Graph& g, const Node& node, size_t index, DataType dtype, std::vector<int64_t> shape);
// The input tensor, with a clear error if it is missing or its shape is not known.
const Tensor& require_input(const Graph& g, const Node& node, size_t index);
// Numpy-style broadcast of two shapes; node_error if incompatible.
std::vector<int64_t> broadcast_shapes(const Node& node, const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// Normalizes a possibly negative axis against rank; node_error if out of range.
int64_t normalize_axis(const Node& node, int64_t axis, int64_t rank);
// Requires input `index` to be float32.
void require_float32(const Graph& g, const Node& node, size_t index);

}  // namespace aotc
