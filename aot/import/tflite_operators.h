// The TFLite builtin operators aotc imports, by BuiltinOperator value, and for each the
// reader that turns its options table into Node attributes (the keys are documented in
// aot/import/tflite_importer.h). Readers throw CompileError for option values aotc cannot
// honour.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aot/graph/graph.h"
#include "tflite_schema_generated.h"

namespace aotc::tflite_import {

using OptionsReader = void (*)(const tfl::Operator& op, Node& node);

struct BuiltinOperatorInfo {
  tfl::BuiltinOperator code;
  OptionsReader read_options;  // nullptr: the operator has no options aotc needs
};

// The operator aotc imports under `code`, or nullptr. These are the operators with a
// lowering (lowering/ops/tflite/): the importer rejects the others by name rather
// than leave them for a later "no lowering" error.
const BuiltinOperatorInfo* find_builtin_operator(int32_t code);

// TFLite's name of the operator ("CONV_2D"), or "" for a code the schema does not define.
std::string builtin_operator_name(int32_t code);

// Whether the operator runs another subgraph (CALL, IF, WHILE, CALL_ONCE), so that the
// importer's error can say why it is rejected.
bool runs_subgraph(int32_t code);

// The subgraph indices an imported IF, WHILE or CALL_ONCE node names, as its option
// reader set them (then/else, cond/body, init); empty for every other node.
std::vector<int64_t> called_subgraphs(const Node& node);

}  // namespace aotc::tflite_import
