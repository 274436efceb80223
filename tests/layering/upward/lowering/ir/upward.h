// A loop-IR header that reaches up into the graph layer: check_layers.cmake must reject it
// (test layering_catches_upward_include).
#pragma once

#include "aot/base/dtype.h"
#include "aot/graph/graph.h"
