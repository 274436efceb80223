// C99 code generation for lowered kernels (PrimFuncs) and constant arrays.
//
// Output is plain C99 that compiles warning-free under -std=c99 -Wall -Wextra -Werror
// -pedantic with clang and gcc: no allocation, no stdio, only <math.h> functions. Buffer
// indices are flattened row-major here; the text of every kernel keeps the loop structure
// of the IR so that a firmware engineer can read it next to `aotc --print-after`.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "lowering/ir/ir.h"

namespace aotc {

// Collects what the kernels of one C file need from its preamble.
struct CFileContext {
  std::string prefix;               // model name: prefixes every symbol
  std::string workspace_allocator;  // C expression of the aotc_workspace* kernels allocate from
  std::set<std::string> helpers;    // names of static inline helpers used (min/max per type)
  // Definitions of the used helpers, to print before the kernels.
  std::string helper_definitions() const;
};

// `static int32_t <c_name>(params...) { ... return 0; }` with a comment naming the source node.
std::string emit_c_function(const ir::PrimFunc& func, const std::string& c_name, CFileContext* ctx);

// The C literal for an immediate of type `t` (e.g. `1.5f`, `-INFINITY`, `INT64_C(7)`).
std::string c_float_literal(double v, DataType t);
std::string c_int_literal(int64_t v, DataType t);
// The C literal of element i of `bytes` (elements of type t).
std::string c_element_literal(DataType t, const uint8_t* bytes, int64_t i);

// Makes `name` a valid, non-reserved C identifier (non-alphanumerics become '_').
std::string c_identifier(const std::string& name);

}  // namespace aotc
