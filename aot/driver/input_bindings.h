// What the command line says about a model's inputs beyond their shapes, applied right
// after import (the pipeline's bind_inputs pass):
//
//   --bind NAME=VALUE   input NAME is a compile-time constant: it leaves the C API, and
//                       everything that depends only on it folds away (an If on the sample
//                       rate disappears). VALUE is one number for every element, as many
//                       comma-separated numbers as the input has elements, or a file
//                       (.bin, .npy or .pb, as `aotc run` reads them).
//   --state IN=OUT      input IN and output OUT, the next value of IN, are one persistent
//                       tensor inside the generated code: kept from one <name>_run to the
//                       next, zero until then and after <name>_reset(), neither passed by
//                       the caller nor returned (Graph::state_updates).
//   --max-trip NODE=N   a Loop whose trip count or condition is computed at run time runs
//                       at most N iterations; <name>_run returns AOTC_ERR_TRIP_LIMIT when it
//                       would run more.
//
// Each names what it binds; a name that matches nothing is an error.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "aot/graph/graph.h"

namespace aotc {

struct InputBindings {
  std::vector<std::pair<std::string, std::string>> constants;  // --bind NAME=VALUE
  std::vector<std::pair<std::string, std::string>> states;     // --state IN=OUT
  std::map<std::string, int64_t> max_trips;                    // --max-trip NODE=N

  bool empty() const { return constants.empty() && states.empty() && max_trips.empty(); }
};

// Parse "NAME=VALUE" for the option named `option` into *bindings; CompileError when malformed.
void parse_bind(const std::string& spec, InputBindings* bindings);
void parse_state(const std::string& spec, InputBindings* bindings);
void parse_max_trip(const std::string& spec, InputBindings* bindings);

// Applies the bindings to a freshly imported graph. Throws CompileError naming the
// option and the problem.
void bind_inputs(Graph& g, const InputBindings& bindings);

}  // namespace aotc
