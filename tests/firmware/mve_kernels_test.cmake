# mve_kernels_test.cmake: one ctest case firmware_mve_kernels_cortex_m55_<compiler>:
# configures tests/firmware/mve_kernels with a Cortex-M55 toolchain file, builds the image
# and runs it on QEMU's mps3-an547. The image compares the runtime's Helium kernels with its
# plain loops on random cases and exits with 0 only if all agree (run_qemu.cmake requires
# that and "result: PASS").
#
#   cmake -DPROJECT_DIR=<aotc>/tests/firmware/mve_kernels -DBINARY_DIR=<dir>
#         -DTOOLCHAIN=<file> [-DGENERATOR=Ninja] -P mve_kernels_test.cmake
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
run_step("${CMAKE_COMMAND}" "-DELF=${BINARY_DIR}/mve_kernels.elf" -DMACHINE=mps3-an547
    "-DLOG=${BINARY_DIR}/mve_kernels.log" -P "${run_qemu}")
