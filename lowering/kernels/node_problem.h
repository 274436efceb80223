// The kernel problem of a graph node, for readers other than its lowering.
//
// A front end's lowering reads its operator into a ConvProblem or FcProblem and hands it to
// the kernel strategy (conv_kernels.h, fc_kernels.h). An NPU backend (codegen/external)
// needs the same description of the node — geometry, layout, constant weights and bias, the
// requantization as data (ChannelRequantization) — to compile it for the device, and should
// not care which front end the node came from, nor re-derive what the lowering computed. So
// each front end registers, per operator, the function that builds its problem, and its
// own lowering calls that same function: one reading of the operator for both.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "lowering/kernels/conv_kernels.h"
#include "lowering/kernels/fc_kernels.h"

namespace aotc {

// A node's problem: a convolution, a fully connected layer, or neither. The problem's
// `arithmetic` points into `arithmetic`, which the NodeProblem keeps alive.
struct NodeProblem {
  std::optional<ConvProblem> conv;
  std::optional<FcProblem> fc;
  std::shared_ptr<ConvArithmetic> arithmetic;
};

using NodeProblemBuilder = NodeProblem (*)(const Graph& g, const Node& node);

void register_node_problem(const std::string& op, NodeProblemBuilder build);

// The problem of `node`; empty when its operator registers none or the node is not one
// (a QLinearMatMul whose right operand is not a constant matrix). Throws CompileError
// naming the node where the node is malformed, as its lowering would.
NodeProblem node_problem(const Graph& g, const Node& node);

struct NodeProblemRegistrar {
  NodeProblemRegistrar(const std::string& op, NodeProblemBuilder build) { register_node_problem(op, build); }
};

// Registers `build` (a NodeProblemBuilder) as the problem of operator `op`.
#define AOTC_REGISTER_NODE_PROBLEM(op, build) \
  static const ::aotc::NodeProblemRegistrar AOTC_CONCAT(aotc_node_problem_registrar_, __COUNTER__)(op, build)

}  // namespace aotc
