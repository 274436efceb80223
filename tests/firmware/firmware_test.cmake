# firmware_test.cmake: one ctest case of tests/firmware: configures and builds the example
# firmware (examples/firmware) for one model, target and compiler, then runs it on QEMU
# and checks its output bytes against the MLPerf Tiny reference outputs.
#
#   cmake -DEXAMPLE_DIR=<aotc>/examples/firmware -DBINARY_DIR=<dir> -DTOOLCHAIN=<file>
#         -DAOTC_DIR=<aotc build>/aotc-config -DMODEL=<file.tflite> -DTARGET=cortex-m4
#         -DREFERENCE_DIR=<dir> [-DMACHINE=mps2-an386] [-DPOOLS=sram:256K] [-DGENERATOR=Ninja]
#         -P firmware_test.cmake
#
# Without MACHINE the firmware is only built.
# POOLS (aotc --pool) replaces the target's memory pools.
# The build runs with one job: ctest already runs tests in parallel.
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/script_helpers.cmake")
require_variables(EXAMPLE_DIR BINARY_DIR TOOLCHAIN AOTC_DIR MODEL TARGET REFERENCE_DIR)
if(NOT DEFINED GENERATOR)
  set(GENERATOR Ninja)
endif()

run_step("${CMAKE_COMMAND}" -S "${EXAMPLE_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
    "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}" "-Daotc_DIR=${AOTC_DIR}"
    "-DAOTC_FW_MODEL=${MODEL}" "-DAOTC_FW_TARGET=${TARGET}" "-DAOTC_FW_REFERENCE_DIR=${REFERENCE_DIR}"
    "-DAOTC_FW_POOLS=${POOLS}")
run_step("${CMAKE_COMMAND}" --build "${BINARY_DIR}" --parallel 1)
if(DEFINED MACHINE AND NOT MACHINE STREQUAL "")
  get_filename_component(run_qemu "${EXAMPLE_DIR}/cmake/run_qemu.cmake" ABSOLUTE)
  run_step("${CMAKE_COMMAND}" "-DELF=${BINARY_DIR}/firmware.elf" "-DMACHINE=${MACHINE}"
      "-DREFERENCE_DIR=${REFERENCE_DIR}" "-DLOG=${BINARY_DIR}/qemu.log" -P "${run_qemu}")
endif()
