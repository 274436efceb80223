#include "lowering/kernels/node_problem.h"

#include <map>

namespace aotc {
namespace {

std::map<std::string, NodeProblemBuilder>& builders() {
  static std::map<std::string, NodeProblemBuilder> table;
  return table;
}

}  // namespace

void register_node_problem(const std::string& op, NodeProblemBuilder build) { builders()[op] = build; }

NodeProblem node_problem(const Graph& g, const Node& node) {
  auto it = builders().find(node.op);
  return it == builders().end() ? NodeProblem{} : it->second(g, node);
}

}  // namespace aotc
