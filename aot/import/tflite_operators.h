// The TFLite builtin operators aotc imports, by BuiltinOperator value, and for each the
// reader that turns its options table into Node attributes (the keys are documented in
// aot/tflite_importer.h). Readers throw CompileError for option values aotc cannot honour.
#pragma once

#include <cstdint>

#include "aot/graph/graph.h"
#include "tflite_schema_generated.h"

namespace aotc::tflite_import {

using OptionsReader = void (*)(const tfl::Operator& op, Node& node);

struct BuiltinOperatorInfo {
  int32_t code;
  const char* name;
  OptionsReader read_options;  // nullptr: the operator has no options aotc needs
};

// The operator aotc imports under `code`, or nullptr.
const BuiltinOperatorInfo* find_builtin_operator(int32_t code);
// Operators that run another subgraph (CALL, IF, WHILE, CALL_ONCE), named so that the
// importer's error can say why they are rejected; nullptr for other codes.
const BuiltinOperatorInfo* find_subgraph_operator(int32_t code);

}  // namespace aotc::tflite_import
