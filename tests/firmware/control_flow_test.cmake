# control_flow_test.cmake: one ctest case firmware_<model>_cortex_m4_<compiler> for the
# control-flow models: configures tests/firmware/control_flow with a toolchain file against
# aotc's package, builds the image of one model (cascade or streaming_gru) and runs it on
# QEMU. The image checks its outputs against torch's within tolerance and exits with 0 only
# if all match (run_qemu.cmake requires that and "result: PASS"); this script also
# requires, from what the image printed, that the cascade took both branches of its If and
# that the stream ran all its chunks twice (before and after stream_reset()).
#
#   cmake -DPROJECT_DIR=<aotc>/tests/firmware/control_flow -DBINARY_DIR=<dir>
#         -DTOOLCHAIN=<file> -DAOTC_DIR=<aotc build>/aotc-config -DMODEL=cascade|streaming_gru
#         -DMACHINE=mps2-an386 [-DGENERATOR=Ninja] -P control_flow_test.cmake
#
# The build runs with one job: ctest already runs tests in parallel.
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/script_helpers.cmake")
require_variables(PROJECT_DIR BINARY_DIR TOOLCHAIN AOTC_DIR MODEL MACHINE)
if(NOT MODEL MATCHES "^(cascade|streaming_gru)$")
  message(FATAL_ERROR "control_flow_test.cmake: MODEL must be cascade or streaming_gru")
endif()
if(NOT DEFINED GENERATOR)
  set(GENERATOR Ninja)
endif()

run_step("${CMAKE_COMMAND}" -S "${PROJECT_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
    "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}" "-Daotc_DIR=${AOTC_DIR}")
run_step("${CMAKE_COMMAND}" --build "${BINARY_DIR}" --target ${MODEL} --parallel 1)
get_filename_component(run_qemu "${PROJECT_DIR}/../../../examples/firmware/cmake/run_qemu.cmake" ABSOLUTE)
run_step("${CMAKE_COMMAND}" "-DELF=${BINARY_DIR}/${MODEL}.elf" "-DMACHINE=${MACHINE}"
    "-DLOG=${BINARY_DIR}/${MODEL}.log" -P "${run_qemu}" OUTPUT out)

if(MODEL STREQUAL "cascade")
  foreach(branch IN ITEMS ran skipped)
    if(NOT out MATCHES "\ncase [0-9]+: score [^\n]*, verifier ${branch}, [^\n]*: match\n")
      message(FATAL_ERROR "no case matched with the verifier ${branch}: both branches of the If must run")
    endif()
  endforeach()
else()
  get_filename_component(stream_dir "${PROJECT_DIR}/../../models/control_flow/streaming_gru" ABSOLUTE)
  file(GLOB chunk_files "${stream_dir}/chunk_*.bin")
  list(LENGTH chunk_files chunks)
  string(REGEX MATCHALL "stream [01] chunk [0-9]+: score [^\n]*: match" matched "${out}")
  list(LENGTH matched matched)
  math(EXPR expected "2 * ${chunks}")
  if(chunks LESS 10 OR NOT matched EQUAL expected)
    message(FATAL_ERROR "${matched} chunks matched, not the ${expected} of two passes over ${stream_dir}")
  endif()
endif()
message(STATUS "${MODEL}: OK")
