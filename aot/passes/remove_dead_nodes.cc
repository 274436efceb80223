// remove_dead_nodes: drops nodes none of whose outputs is read by a later node or is a
// graph output, walking backwards so that chains of dead nodes go at once.
#include <set>

#include "aot/passes/graph_passes.h"

namespace aotc {

void remove_dead_nodes(Graph& g) {
  std::set<TensorId> needed(g.outputs.begin(), g.outputs.end());
  std::vector<Node> kept;
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    bool live = false;
    for (TensorId out : it->outputs) live |= out != kNoTensor && needed.count(out);
    if (!live) continue;
    for (TensorId in : it->inputs) needed.insert(in);
    for (const Node& step : it->body)
      for (TensorId in : step.inputs) needed.insert(in);
    kept.push_back(std::move(*it));
  }
  g.nodes.assign(std::make_move_iterator(kept.rbegin()), std::make_move_iterator(kept.rend()));
}

}  // namespace aotc
