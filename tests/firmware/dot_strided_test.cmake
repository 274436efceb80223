# dot_strided_test.cmake: one ctest case firmware_dot_strided_cortex_m4_<compiler>:
# configures tests/firmware/dot_strided with a Cortex-M4 toolchain file, builds the image
# and runs it on QEMU's mps2-an386. The image compares the DSP-extension build of
# runtime-c/aotc_dot_strided.h's integer kernels with their plain loops on random cases
# and exits with 0 only if all agree (run_qemu.cmake requires that and "result: PASS").
#
#   cmake -DPROJECT_DIR=<aotc>/tests/firmware/dot_strided -DBINARY_DIR=<dir>
#         -DTOOLCHAIN=<file> [-DGENERATOR=Ninja] -P dot_strided_test.cmake
#
# The build runs with one job: ctest already runs tests in parallel.
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/script_helpers.cmake")
require_variables(PROJECT_DIR BINARY_DIR TOOLCHAIN)
if(NOT DEFINED GENERATOR)
  set(GENERATOR Ninja)
endif()

run_step("${CMAKE_COMMAND}" -S "${PROJECT_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}" "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}")
run_step("${CMAKE_COMMAND}" --build "${BINARY_DIR}" --parallel 1)
get_filename_component(run_qemu "${PROJECT_DIR}/../../../examples/firmware/cmake/run_qemu.cmake" ABSOLUTE)
run_step("${CMAKE_COMMAND}" "-DELF=${BINARY_DIR}/dot_strided.elf" -DMACHINE=mps2-an386
    "-DLOG=${BINARY_DIR}/dot_strided.log" -P "${run_qemu}")
