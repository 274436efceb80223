// The trip count of a Loop whose condition follows from constants alone, found by running
// the part of the body that decides it at compile time.
//
// A TFLite WHILE (`while i < 5: i = i + 1; ...`) and an ONNX Loop with a counter in its
// condition have no trip count operand, yet how often they run is no secret: the condition
// reads carried values that start as constants and that the body computes from
// themselves and constants. aotc runs just those nodes of the body (the slice the
// condition depends on, closed under the carried values it reads) in the IR interpreter,
// iteration after iteration, until the condition is false: that many iterations, exactly,
// whatever the model's inputs. The loop then needs no `--max-trip` and becomes a plain
// counted `for`.
//
// It gives up (nullopt) when the slice reads anything computed at run time (an input, a
// value of the enclosing graph, a carried value that does not start constant), contains
// control flow of its own, or has not stopped after kMostCountedIterations iterations
// (or kMostCountedNodeRuns runs of its nodes: compile time stays short).
#pragma once

#include <cstdint>
#include <optional>

#include "aot/graph/graph.h"

namespace aotc {

constexpr int64_t kMostCountedIterations = 4096;
constexpr int64_t kMostCountedNodeRuns = 65536;  // iterations times the nodes of the slice

// Of a Loop node without a constant trip count, after its body's shapes are inferred.
std::optional<int64_t> counted_trips(const Graph& g, const Node& loop);

}  // namespace aotc
