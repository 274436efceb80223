# analyze_cycles_test.cmake: `aotc analyze` against the linked firmware (issue #30): its
# estimated cycles within 15% of the cycle model's measurement, its RAM within 1% of what
# the link map shows. Builds the example firmware for MODEL on the Cortex-M4F with gcc
# (reference case 0), prices one run of <name>_run with ../shared/tools/cycles/cycles.py
# (which checks itself against the firmware's SysTick), runs `aotc analyze` with the same
# options, and compares: cycles; RAM = the .data and .bss the linker kept from the model
# library and the runtime (firmware.map) plus the input and output buffers the application
# passes (metadata.json).
#
#   cmake -DEXAMPLE_DIR=<aotc>/examples/firmware -DBINARY_DIR=<dir> -DTOOLCHAIN=<file>
#         -DAOTC_DIR=<aotc build>/aotc-config -DAOTC=<aotc executable> -DMODEL=<file.tflite>
#         -DREFERENCE_DIR=<dir> -DCYCLES_TOOL=<../shared/tools/cycles/cycles.py>
#         [-DPOOLS=sram:1M] -P analyze_cycles_test.cmake
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/script_helpers.cmake")
require_variables(EXAMPLE_DIR BINARY_DIR TOOLCHAIN AOTC_DIR AOTC MODEL REFERENCE_DIR CYCLES_TOOL)

run_step("${CMAKE_COMMAND}" -S "${EXAMPLE_DIR}" -B "${BINARY_DIR}" -G Ninja
    "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}" "-Daotc_DIR=${AOTC_DIR}" "-DAOTC_FW_MODEL=${MODEL}"
    -DAOTC_FW_TARGET=cortex-m4 "-DAOTC_FW_REFERENCE_DIR=${REFERENCE_DIR}" -DAOTC_FW_CASES=1
    "-DAOTC_FW_POOLS=${POOLS}" QUIET)
run_step("${CMAKE_COMMAND}" --build "${BINARY_DIR}" --parallel 1 QUIET)
file(READ "${BINARY_DIR}/model/metadata.json" metadata)
string(JSON name GET "${metadata}" name)
run_step(/usr/bin/python3 "${CYCLES_TOOL}" "${BINARY_DIR}/firmware.elf" --func ${name}_run
    --json "${BINARY_DIR}/cycles.json" OUTPUT report QUIET)
file(READ "${BINARY_DIR}/cycles.json" measured_json)
string(JSON measured GET "${measured_json}" cycles_issue_model)

set(pool_args "")
if(POOLS)
  set(pool_args --pool ${POOLS})
endif()
run_step("${AOTC}" analyze "${MODEL}" --target cortex-m4 ${pool_args} --json "${BINARY_DIR}/analysis.json" OUTPUT table QUIET)
file(READ "${BINARY_DIR}/analysis.json" analysis)
string(JSON estimated GET "${analysis}" cycles)

# per_mille_off(<value> <reference> <out>): |value - reference| in thousandths of reference,
# in integer arithmetic (CMake has no floats).
function(per_mille_off value reference out)
  math(EXPR difference "${value} - ${reference}")
  if(difference LESS 0)
    math(EXPR difference "-${difference}")
  endif()
  math(EXPR result "${difference} * 1000 / ${reference}")
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# |estimated - measured| <= 15% of measured.
string(REGEX REPLACE "\\..*" "" estimated "${estimated}")
per_mille_off(${estimated} ${measured} cycles_per_mille)
message(STATUS "aotc analyze: ${estimated} cycles estimated, the cycle model measured ${measured}: "
               "${cycles_per_mille} per mille off")
if(cycles_per_mille GREATER 150)
  message(FATAL_ERROR "the estimate is more than 15% off the measurement\n${table}")
endif()

map_sizes("${BINARY_DIR}/firmware.map")
string(JSON io GET "${metadata}" memory io_bytes)
math(EXPR linked_ram "${data} + ${bss} + ${io}")
string(JSON analyzed_ram GET "${analysis}" ram_bytes)
per_mille_off(${analyzed_ram} ${linked_ram} per_mille)
message(STATUS "aotc analyze: RAM ${analyzed_ram} B, the linked firmware ${linked_ram} B (.data ${data} + .bss ${bss} "
               "+ inputs and outputs ${io}): ${per_mille} per mille off")
if(per_mille GREATER 10)
  message(FATAL_ERROR "the RAM figure is more than 1% off the linked firmware's\n${table}")
endif()
