# kernel_test.cmake: one ctest case of a runtime-kernel test project (tests/firmware/
# mve_kernels, tests/firmware/dot_strided): configures the project with a toolchain file,
# builds its image <project>.elf (the image takes the project folder's name) and runs it on
# QEMU's MACHINE. The image compares the kernels' Helium or DSP build with their plain loops
# on random cases and exits with 0 only if all agree (run_qemu.cmake requires that and
# "result: PASS").
#
#   cmake -DPROJECT_DIR=<aotc>/tests/firmware/mve_kernels -DBINARY_DIR=<dir>
#         -DTOOLCHAIN=<file> -DMACHINE=mps3-an547 [-DGENERATOR=Ninja] -P kernel_test.cmake
#
# The build runs with one job: ctest already runs tests in parallel.
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/script_helpers.cmake")
require_variables(PROJECT_DIR BINARY_DIR TOOLCHAIN MACHINE)
if(NOT DEFINED GENERATOR)
  set(GENERATOR Ninja)
endif()
get_filename_component(image "${PROJECT_DIR}" NAME)

run_step("${CMAKE_COMMAND}" -S "${PROJECT_DIR}" -B "${BINARY_DIR}" -G "${GENERATOR}" "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}")
run_step("${CMAKE_COMMAND}" --build "${BINARY_DIR}" --parallel 1)
get_filename_component(run_qemu "${PROJECT_DIR}/../../../examples/firmware/cmake/run_qemu.cmake" ABSOLUTE)
run_step("${CMAKE_COMMAND}" "-DELF=${BINARY_DIR}/${image}.elf" -DMACHINE=${MACHINE}
    "-DLOG=${BINARY_DIR}/${image}.log" -P "${run_qemu}")
