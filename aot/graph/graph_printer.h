// Text form of the operator graph, for `aotc --print-after=<graph pass>`.
//   %conv1_out: float32[1, 8, 32, 32] = Conv(%input, %w, %b) {pads=[1, 1, 1, 1]}  # conv1
//     + Relu
#pragma once

#include <string>

#include "aot/graph/graph.h"

namespace aotc {

std::string to_string(const Graph& g);

}  // namespace aotc
