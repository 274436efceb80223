// The analysis of `aotc analyze` as one self-contained HTML page (`--report FILE.html`):
// the totals, a bar chart of each layer's estimated cycles and MACs, the layer table
// (sortable by any column), the RAM timeline (the memory plan: tensors as boxes over the
// steps, memory_report.h) and flash by kind. Everything is inline (style, SVG, a few lines
// of script for the sorting): the page needs no network and no other file. Names from the
// model are escaped.
#pragma once

#include <string>

#include "aot/executor/compiled_model.h"
#include "aot/executor/model_analysis.h"

namespace aotc {

std::string analysis_report_html(const ModelAnalysis& analysis, const CompiledModel& model);

}  // namespace aotc
