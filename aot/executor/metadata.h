// metadata.json: what a build system or a person needs to know about a compiled model
// without reading C: inputs and outputs (name, C member, dtype, shape, bytes), the
// memory figures, the operators, each kernel's memory, and the static memory plan.
#pragma once

#include <string>

#include "aot/executor/compiled_model.h"

namespace aotc {

std::string metadata_json(const CompiledModel& model, const std::string& model_file_name);

}  // namespace aotc
