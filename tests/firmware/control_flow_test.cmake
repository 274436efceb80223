# control_flow_test.cmake: one ctest case firmware_<model>_cortex_m4_<compiler> for the
# control-flow models: configures tests/firmware/control_flow with a toolchain file against
# aotc's package, builds the image of one model (cascade or streaming_gru), or the images
# of all the models of runtime_branches (MODEL=runtime_branches: each model twice, the
# second time compiled with IO_IN_ARENA), and runs them on QEMU.
# Each image checks its outputs against the reference's (torch's, ONNX Runtime's) within
# tolerance and exits with 0 only if all match (run_qemu.cmake requires that and "result:
# PASS"); this script also requires, from what the images printed, that the cascade took
# both branches of its If, that the stream ran all its chunks twice (before and after
# stream_reset()), and that every output of every case of runtime_branches/cases.json
# matched in both images. The runtime_branches images run under -icount shift=0 (one instruction per
# virtual nanosecond: a deterministic run).
#
#   cmake -DPROJECT_DIR=<aotc>/tests/firmware/control_flow -DBINARY_DIR=<dir>
#         -DTOOLCHAIN=<file> -DAOTC_DIR=<aotc build>/aotc-config
#         -DMODEL=cascade|streaming_gru|runtime_branches
#         -DMACHINE=mps2-an386 [-DGENERATOR=Ninja] -P control_flow_test.cmake
#
# The build runs with one job: ctest already runs tests in parallel.
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/script_helpers.cmake")
require_variables(PROJECT_DIR BINARY_DIR TOOLCHAIN AOTC_DIR MODEL MACHINE)
if(NOT MODEL MATCHES "^(cascade|streaming_gru|runtime_branches)$")
  message(FATAL_ERROR "control_flow_test.cmake: MODEL must be cascade, streaming_gru or runtime_branches")
endif()
if(NOT DEFINED GENERATOR)
  set(GENERATOR Ninja)
endif()

run_step("${CMAKE_COMMAND}" -S "${PROJECT_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}"
    "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}" "-Daotc_DIR=${AOTC_DIR}")
run_step("${CMAKE_COMMAND}" --build "${BINARY_DIR}" --target ${MODEL} --parallel 1)
get_filename_component(run_qemu "${PROJECT_DIR}/../../../examples/firmware/cmake/run_qemu.cmake" ABSOLUTE)
get_filename_component(models_dir "${PROJECT_DIR}/../../models/control_flow" ABSOLUTE)

if(MODEL STREQUAL "runtime_branches")
  # Every model of cases.json: its image, run; every output of every case must match. All
  # the images run before the test fails, so that it names every model that failed.
  file(READ "${models_dir}/runtime_branches/cases.json" branches)
  string(JSON model_count LENGTH "${branches}")
  math(EXPR last_model "${model_count} - 1")
  set(matched 0)
  set(failures)
  foreach(m RANGE ${last_model})
    string(JSON onnx GET "${branches}" ${m} model)
    get_filename_component(model "${onnx}" NAME_WE)
    string(JSON output_count LENGTH "${branches}" ${m} outputs)
    math(EXPR last_output "${output_count} - 1")
    string(JSON case_count LENGTH "${branches}" ${m} cases)
    math(EXPR last_case "${case_count} - 1")
    foreach(image IN ITEMS ${model} ${model}_io)
      execute_process(COMMAND "${CMAKE_COMMAND}" "-DELF=${BINARY_DIR}/${image}.elf" "-DMACHINE=${MACHINE}" -DICOUNT=ON
          "-DLOG=${BINARY_DIR}/${image}.log" -P "${run_qemu}" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
      message("${out}")
      if(NOT status EQUAL 0)
        list(APPEND failures "${image}: the image failed (${status})")
      endif()
      foreach(k RANGE ${last_case})
        string(JSON path GET "${branches}" ${m} cases ${k} path)
        foreach(j RANGE ${last_output})
          string(JSON name GET "${branches}" ${m} outputs ${j})
          if(out MATCHES "\nmodel ${image} case ${k} output ${j}: [^\n]*: match\n")
            math(EXPR matched "${matched} + 1")
          else()
            list(APPEND failures "${image} case ${k} (${path}): output ${j} (${name}) does not match ONNX Runtime's")
          endif()
        endforeach()
      endforeach()
    endforeach()
  endforeach()
  if(failures)
    list(JOIN failures "\n  " failures)
    message(FATAL_ERROR "runtime_branches:\n  ${failures}")
  endif()
  message(STATUS "runtime_branches: the ${matched} outputs of every case of ${model_count} models, each compiled "
                 "as it is and with IO_IN_ARENA, match ONNX Runtime's")
  return()
endif()

run_step("${CMAKE_COMMAND}" "-DELF=${BINARY_DIR}/${MODEL}.elf" "-DMACHINE=${MACHINE}"
    "-DLOG=${BINARY_DIR}/${MODEL}.log" -P "${run_qemu}" OUTPUT out)

if(MODEL STREQUAL "cascade")
  foreach(branch IN ITEMS ran skipped)
    if(NOT out MATCHES "\ncase [0-9]+: score [^\n]*, verifier ${branch}, [^\n]*: match\n")
      message(FATAL_ERROR "no case matched with the verifier ${branch}: both branches of the If must run")
    endif()
  endforeach()
else()
  set(stream_dir "${models_dir}/streaming_gru")
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
