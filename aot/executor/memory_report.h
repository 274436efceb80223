// The memory plan made visible: a table for the terminal (`aotc compile --memory-report`)
// and an SVG picture (memory_plan.svg: steps across, addresses down, one box per tensor)
// that opens in any browser.
#pragma once

#include <string>
#include <vector>

#include "aot/executor/compiled_model.h"

namespace aotc {

// One planned activation tensor: where it lives and during which kernel steps.
struct PlannedTensor {
  std::string name;
  int pool = 0;  // index into CompiledModel::pools
  int64_t offset = 0, bytes = 0;
  int first_step = 0, last_step = 0;
  // A kernel's output placed over part of the input it reads (the planner's overlap,
  // lowering/compute/output_overlap.h): that input, and how many bytes they share.
  std::string overlaps;
  int64_t overlap_bytes = 0;
};

// Arena tensors in the order of their first use.
std::vector<PlannedTensor> planned_tensors(const CompiledModel& model);

std::string memory_report_table(const CompiledModel& model);
std::string memory_plan_svg(const CompiledModel& model);

}  // namespace aotc
