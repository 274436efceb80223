# ethos_u_test.cmake: one ctest case firmware_person_detect_vela_cortex_m55_<compiler>:
# reads the Vela operator's stream, weights and scratch sizes from the .tflite file
# (extract_vela_operator, the flatbuffers schema's accessors), builds tests/firmware/ethos_u
# for the Cortex-M55 and runs it on QEMU's mps3-an547, where the harness checks the
# generated code's call into the stand-in Ethos-U driver and reports "result: PASS".
#
#   cmake -DPROJECT_DIR=<aotc>/tests/firmware/ethos_u -DBINARY_DIR=<dir> -DTOOLCHAIN=<file>
#         -DAOTC_DIR=<build>/aotc-config -DMODEL=<person_detect_vela.tflite>
#         -DEXTRACT=<extract_vela_operator> [-DGENERATOR=Ninja] -P ethos_u_test.cmake
#
# The build runs with one job: ctest already runs tests in parallel.
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/script_helpers.cmake")
require_variables(PROJECT_DIR BINARY_DIR TOOLCHAIN AOTC_DIR MODEL EXTRACT)
if(NOT DEFINED GENERATOR)
  set(GENERATOR Ninja)
endif()

set(data_dir "${BINARY_DIR}/vela_operator")
file(MAKE_DIRECTORY "${data_dir}")
run_step("${EXTRACT}" "${MODEL}" "${data_dir}")
include("${data_dir}/scratch.cmake")
run_step("${CMAKE_COMMAND}" -S "${PROJECT_DIR}" -B "${BINARY_DIR}/build" -G "${GENERATOR}"
    "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}" "-Daotc_DIR=${AOTC_DIR}" "-DETHOS_U_MODEL=${MODEL}"
    "-DETHOS_U_STREAM=${data_dir}/stream.bin" "-DETHOS_U_WEIGHTS=${data_dir}/weights.bin"
    "-DETHOS_U_SCRATCH=${SCRATCH}" "-DETHOS_U_SCRATCH_FAST=${SCRATCH_FAST}")
run_step("${CMAKE_COMMAND}" --build "${BINARY_DIR}/build" --parallel 1)
get_filename_component(run_qemu "${PROJECT_DIR}/../../../examples/firmware/cmake/run_qemu.cmake" ABSOLUTE)
run_step("${CMAKE_COMMAND}" "-DELF=${BINARY_DIR}/build/ethos_u.elf" -DMACHINE=mps3-an547
    "-DLOG=${BINARY_DIR}/ethos_u.log" -P "${run_qemu}")
