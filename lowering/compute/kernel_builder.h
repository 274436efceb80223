// KernelBuilder: the common scaffolding of every operator lowering.
//
// It turns graph tensors into PrimFunc parameters (and remembers which tensor each one is
// bound to), loads with numpy broadcasting, and applies a node's fused epilogue: the
// elementwise operators that the fusion pass chained behind it (bias, activation,
// elementwise chains), so that one loop nest computes them all without writing the
// intermediate tensors to memory.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "aot/graph/lowered_op.h"
#include "aot/graph/op_registry.h"

namespace aotc {

class KernelBuilder {
 public:
  explicit KernelBuilder(const LowerContext& ctx);

  // Declares input `index` of the node as a parameter named `param_name`.
  ir::Buffer input(size_t index, const std::string& param_name);
  // Declares output `index` (the fused node's final output) as a parameter.
  ir::Buffer output(size_t index, const std::string& param_name);
  // A parameter for any graph tensor (used for epilogue operands); one per tensor.
  ir::Buffer tensor_param(TensorId id, const std::string& param_name);

  // The value of tensor `id` at `out_index` with broadcasting: an immediate for a
  // constant scalar, else a load from a parameter named `param_name`.
  ir::Expr operand(TensorId id, const std::string& param_name, const std::vector<ir::Expr>& out_index);

  // Applies the node's fused epilogue (node.body) to `value`, the element of the
  // un-fused output at `out_index`. Returns `value` unchanged if nothing is fused.
  ir::Expr epilogue(ir::Expr value, const std::vector<ir::Expr>& out_index);

  // The parameter of operand `id` of the fused epilogue, for a kernel that computes the
  // epilogue itself (conv_mve_s8.h's vector ADD); registered as epilogue() registers its
  // operands, so that the output may take its memory.
  ir::Buffer epilogue_operand(TensorId id);

  // Declares that the output may be written over input tensor `id` (see LoweredOp), for
  // kernels that decide it by shape (a staged convolution); operators that always can
  // declare Role::kInPlace instead.
  void allow_in_place(TensorId id) { in_place_.push_back(id); }

  // The kernel with its parameters. In-place candidates: those allowed above; with
  // Role::kInPlace, every input of the output's shape and element size (a uint8 -> int8
  // conversion too); and every epilogue operand of that shape and element size (the
  // epilogue reads its element i just before the kernel writes output element i: a kernel
  // with an epilogue writes each output element once, every store being the epilogue's).
  LoweredOp finish(ir::Stmt body);

  const Graph& graph() const { return graph_; }
  const Node& node() const { return node_; }
  const TargetFacts& target() const { return target_; }

 private:
  const Graph& graph_;
  const Node& node_;
  std::string func_name_;
  const TargetFacts& target_;
  std::vector<ir::Buffer> params_;
  std::vector<TensorId> args_;
  std::map<TensorId, ir::Buffer> by_tensor_;
  std::vector<TensorId> in_place_;
  std::vector<TensorId> epilogue_operands_;
};

// A lowering written against what nearly every lowering takes out of its LowerContext
// first: the graph, the node, and a KernelBuilder for the node's kernel.
using BuilderLowerFn = std::function<LoweredOp(const Graph& g, const Node& node, KernelBuilder& kb)>;
// An operator with a kernel (kernel_op, op_registry.h) lowered by such a function.
OpDef kernel_op(InferFn infer, BuilderLowerFn lower);

// Loads `buffer` at `out_index` (an index into a larger output shape) with numpy
// broadcasting: trailing dimensions align, size-1 dimensions read index 0.
ir::Expr broadcast_load(const ir::Buffer& buffer, const std::vector<ir::Expr>& out_index);

// An elementwise operator defined by its scalar form: a kernel that loops over the output
// (lowering/compute/elementwise.cc), and the same form fused behind an anchor. Roles: anchor,
// epilogue, in-place.
OpDef elementwise_op(InferFn infer, ScalarFn scalar);

// Registers one definition under several names: a family of operators whose shape function
// and kernel tell the members apart by node.op (ReduceSum, ReduceMax...), written once:
//   AOTC_REGISTER_OPS(kernel_op(infer_reduce, lower_reduce), "ReduceSum", "ReduceMax");
struct OpFamilyRegistrar {
  OpFamilyRegistrar(const OpDef& def, std::initializer_list<const char*> ops) {
    for (const char* op : ops) register_op(op, def);
  }
};
#define AOTC_REGISTER_OPS(def, ...) \
  static ::aotc::OpFamilyRegistrar AOTC_CONCAT(aotc_op_family_registrar_, __COUNTER__)(def, {__VA_ARGS__})

}  // namespace aotc
