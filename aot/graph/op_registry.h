// The operator table: for each graph operator, how to infer its output types and shapes,
// how to lower it to a PrimFunc, and its roles in fusion and memory reuse.
//
// The table is declared here, in the graph layer, because the graph passes read it
// (shape inference, constant folding, fusion); the operators themselves live in the layers
// above, one family per file under lowering/ops/onnx/ and lowering/ops/tflite/, and
// register with AOTC_REGISTER_OP, so adding an operator touches one file. Elementwise operators also provide a scalar
// form, which is what lets the fusion pass chain them behind a convolution or another
// elementwise operator (see lowering/compute/kernel_builder.h).
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aot/base/target_facts.h"
#include "aot/graph/graph.h"

namespace aotc {

// The loop-IR types the table names only in the types of its functions: the lowerings and
// their callers include lowered_op.h (and through it lowering/ir/ir.h).
namespace ir {
class Expr;
}
struct LoweredOp;

// What a lowering is given: the node, the graph around it, the kernel's name (unique in
// the module) and the target's facts, by which it may choose a kernel variant.
struct LowerContext {
  const Graph& graph;
  const Node& node;
  std::string func_name;
  const TargetFacts& target;
};

using InferFn = std::function<void(Graph&, Node&)>;
// Replaces a node by other nodes when its operands allow it (an If whose condition is a
// constant becomes the branch it takes); nullopt to keep the node.
using ExpandFn = std::function<std::optional<std::vector<Node>>(Graph&, const Node&)>;
using LowerFn = std::function<LoweredOp(const LowerContext&)>;
// For elementwise operators: output element from the input elements (same index, after
// broadcasting). Inputs that are absent are passed as empty Exprs.
using ScalarFn = std::function<ir::Expr(const Graph&, const Node&, const std::vector<ir::Expr>& inputs)>;

// How an operator takes part in fusion (fuse_operators) and memory reuse (the storage
// planner). Declared with the operator, so that the passes need no list of operators.
enum class Role {
  // Its lowering applies the node's fused epilogue (KernelBuilder::epilogue) to every
  // output element: elementwise operators may be fused behind it.
  kAnchor,
  // It has a scalar form (OpDef::scalar) and may be fused behind an anchor.
  kEpilogue,
  // Output element i is written after input element i of every input of the output's
  // shape and type has been read: the output may take such an input's memory.
  kInPlace,
};

struct OpDef {
  // Sets dtype/shape of the node's outputs from its inputs (and constant inputs).
  // Throws CompileError (via node_error) for anything unsupported.
  InferFn infer;
  // Builds the kernel (operators with subgraphs have none: the driver lowers them).
  LowerFn lower;
  // Asked by infer_shapes before `infer`, for operators that may vanish (optional).
  ExpandFn expand;
  // The scalar form of an epilogue operator.
  ScalarFn scalar;
  // Output 0 is input 0 with a new shape: no kernel, the planner makes it an alias.
  bool is_view = false;
  // Its outputs depend only on the shapes of its inputs (Shape, Size), never on their
  // values: they are constants as soon as the shapes are known (see infer_shapes).
  bool reads_only_shapes = false;
  std::set<Role> roles;
  // Whether the node's kernels are faster channels-last on the target than in the layout
  // the model gives (the channels_last pass asks; without it an operator keeps its layout).
  // The operator's lowering answers from its kernel strategy: the layout is the target's.
  std::function<bool(const Graph&, const Node&, const TargetFacts&)> prefers_channels_last;

  bool has(Role role) const { return roles.count(role) != 0; }
  // Adds roles; kEpilogue requires `scalar`.
  OpDef& with(std::initializer_list<Role> added);
};

// An operator with a kernel.
OpDef kernel_op(InferFn infer, LowerFn lower);
// An operator whose output is its input 0 with another shape (no kernel; an alias).
OpDef view_op(InferFn infer);
// An operator that runs subgraphs (If, Loop, Scan): no kernel of its own.
OpDef control_flow_op(InferFn infer, ExpandFn expand = nullptr);

const OpDef* find_op(const std::string& op);
// The names of every registered operator, in order.
std::vector<std::string> registered_ops();

// View output -> its input, for every view node in the graph and its subgraphs: the
// storage planner and the lowering of control flow follow these to where bytes live.
std::map<TensorId, TensorId> view_inputs(const Graph& g);
void register_op(const std::string& op, OpDef def);

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
// Normalizes a possibly negative axis against rank; node_error if out of range
// ([-rank, rank - 1]: a scalar has no axis).
int64_t normalize_axis(const Node& node, int64_t axis, int64_t rank);
// Requires input `index` to be float32.
void require_float32(const Graph& g, const Node& node, size_t index);

}  // namespace aotc
