# installed_package_test.cmake: the ctest cases firmware_installed_package and
# firmware_add_subdirectory.
#
# Copies the project in tests/firmware/two_models (plus the example's startup code and
# linker script) to a temporary directory outside the source tree and builds it for the
# Cortex-M4: two int8 models in one image through aotc_add_model(), one by built-in target
# name, one by a target file of the project's own, and a float model with a softmax, which
# links only because its library brings the math library (expf) itself. aotc comes
#   MODE=installed (default)  from `cmake --install` into a temporary prefix, and nothing
#                             else: find_package(aotc), the installed toolchain file;
#   MODE=add_subdirectory     from aotc's source tree: add_subdirectory(AOTC_SOURCE_DIR),
#                             which builds the host aotc once in a nested host build
#                             (<build>/aotc/host), while the project cross-compiles with the
#                             source tree's toolchain file.
# Then runs the image on QEMU (all three models must match TFLM's reference outputs: the
# firmware compares, within a tolerance for the float one, and this script compares the
# int8 models' printed bytes with output_0.bin again),
# and checks the build dependencies: a second build does nothing, and touching the
# project's target file re-runs aotc for that model only.
#
#   cmake -DAOTC_SOURCE_DIR=<src> -DMODELS_DIR=<shared models> [-DAOTC_BUILD_DIR=<build>]
#         [-DMODE=installed|add_subdirectory] [-DTOOLCHAIN=cortex-m4-gcc] [-DGENERATOR=Ninja]
#         [-DKEEP=ON] -P installed_package_test.cmake
# (AOTC_BUILD_DIR, the build to install, is needed for MODE=installed only.)
# The builds run one job at a time; the nested host build of aotc gets
# CMAKE_BUILD_PARALLEL_LEVEL from the environment (2 if unset).
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/script_helpers.cmake")
if(NOT DEFINED MODE)
  set(MODE installed)
endif()
if(NOT MODE MATCHES "^(installed|add_subdirectory)$")
  message(FATAL_ERROR "installed_package_test.cmake: MODE must be installed or add_subdirectory")
endif()
require_variables(AOTC_SOURCE_DIR MODELS_DIR)
if(MODE STREQUAL "installed")
  require_variables(AOTC_BUILD_DIR)
endif()
if(NOT DEFINED TOOLCHAIN)
  set(TOOLCHAIN cortex-m4-gcc)
endif()
if(NOT DEFINED GENERATOR)
  set(GENERATOR Ninja)
endif()
if(NOT DEFINED ENV{CMAKE_BUILD_PARALLEL_LEVEL})
  set(ENV{CMAKE_BUILD_PARALLEL_LEVEL} 2)
endif()

# A fresh temporary directory, outside the source and build trees.
set(tmp_root "$ENV{TMPDIR}")
if(NOT tmp_root)
  set(tmp_root /tmp)
endif()
string(RANDOM LENGTH 10 suffix)
if(MODE STREQUAL "installed")
  set(tmp "${tmp_root}/aotc-installed-${suffix}")
else()
  set(tmp "${tmp_root}/aotc-subdir-${suffix}")
endif()
file(REMOVE_RECURSE "${tmp}")
set(prefix "${tmp}/prefix")
set(project "${tmp}/project")
set(build "${tmp}/build")

if(MODE STREQUAL "installed")
  run_step("${CMAKE_COMMAND}" --install "${AOTC_BUILD_DIR}" --prefix "${prefix}")
  foreach(file IN ITEMS bin/aotc share/cmake/aotc/aotcConfig.cmake
                        share/cmake/aotc/aotcConfigVersion.cmake share/cmake/aotc/aotc_add_model.cmake
                        share/aotc/runtime/aotc_runtime.c share/aotc/runtime/aotc_runtime.h
                        share/aotc/runtime/npu/aotc_npu_ref.c share/aotc/runtime/npu/aotc_npu.h
                        share/aotc/targets/cortex-m4.toml share/aotc/toolchains/${TOOLCHAIN}.cmake)
    if(NOT EXISTS "${prefix}/${file}")
      message(FATAL_ERROR "cmake --install did not write ${file}")
    endif()
  endforeach()
endif()

file(COPY "${AOTC_SOURCE_DIR}/tests/firmware/two_models/" DESTINATION "${project}")
file(COPY "${AOTC_SOURCE_DIR}/examples/firmware/startup_mps2.c"
          "${AOTC_SOURCE_DIR}/examples/firmware/mps2.ld" DESTINATION "${project}")

if(MODE STREQUAL "installed")
  # Only the prefix: no aotc_DIR into the build tree, no aotc on the PATH.
  run_step("${CMAKE_COMMAND}" -S "${project}" -B "${build}" -G "${GENERATOR}"
      "-DCMAKE_TOOLCHAIN_FILE=${prefix}/share/aotc/toolchains/${TOOLCHAIN}.cmake"
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DMODELS_DIR=${MODELS_DIR}")
else()
  # Only the source tree: no package, no aotc build of its own.
  run_step("${CMAKE_COMMAND}" -S "${project}" -B "${build}" -G "${GENERATOR}"
      "-DCMAKE_TOOLCHAIN_FILE=${AOTC_SOURCE_DIR}/cmake/toolchains/${TOOLCHAIN}.cmake"
      "-DAOTC_SOURCE_DIR=${AOTC_SOURCE_DIR}" "-DMODELS_DIR=${MODELS_DIR}"
      -DCMAKE_DISABLE_FIND_PACKAGE_aotc=ON)
endif()
run_step("${CMAKE_COMMAND}" --build "${build}" --parallel 1)
if(MODE STREQUAL "add_subdirectory")
  # aotc was built for the build machine, and aotc's own tests were not built.
  if(NOT EXISTS "${build}/aotc/host/aotc")
    message(FATAL_ERROR "no host aotc in ${build}/aotc/host")
  endif()
  execute_process(COMMAND "${build}/aotc/host/aotc" --version RESULT_VARIABLE status
                  OUTPUT_QUIET ERROR_QUIET)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${build}/aotc/host/aotc does not run on this machine")
  endif()
  if(EXISTS "${build}/aotc/host/tests")
    message(FATAL_ERROR "the nested host build configured aotc's tests")
  endif()
endif()
run_step("${CMAKE_COMMAND}" "-DELF=${build}/two_models.elf" -DMACHINE=mps2-an386
    -P "${AOTC_SOURCE_DIR}/examples/firmware/cmake/run_qemu.cmake" OUTPUT out)
foreach(name IN ITEMS kws ad img)
  if(NOT out MATCHES "(^|\n)${name}: status 0, match\n")
    message(FATAL_ERROR "${name}: the model must run and match")
  endif()
endforeach()
# The printed bytes against the reference files, independently of the firmware's check.
foreach(pair IN ITEMS kws:kws_ref_model ad:ad01_int8)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 name)
  list(GET pair 1 model)
  file(READ "${MODELS_DIR}/reference/${model}/output_0.bin" reference HEX)
  if(NOT out MATCHES "(^|\n)${name} output: ([0-9a-f]*)")
    message(FATAL_ERROR "${name}: no output printed")
  endif()
  if(NOT CMAKE_MATCH_2 STREQUAL reference)
    message(FATAL_ERROR "${name}: printed output differs from ${model}/output_0.bin\n"
                        "  printed:   ${CMAKE_MATCH_2}\n  reference: ${reference}")
  endif()
endforeach()

# Builds the project again: sets `out` to what the build printed and `relinked` to whether
# it rebuilt the host aotc.
function(build_again)
  run_step("${CMAKE_COMMAND}" --build "${build}" --parallel 1 OUTPUT output)
  set(out "${output}" PARENT_SCOPE)
  set(relinked FALSE PARENT_SCOPE)
  if(MODE STREQUAL "add_subdirectory" AND output MATCHES "Linking CXX executable aotc")
    set(relinked TRUE PARENT_SCOPE)
    message(STATUS "aotc's sources changed during the test: the host aotc was rebuilt")
  endif()
endfunction()

# Dependencies: nothing to redo; a changed target file re-runs aotc for its model only.
# (With add_subdirectory, a host aotc relinked because its sources were edited meanwhile
# rightly re-runs both models: then only the ad model's re-run is checked.)
build_again()
if(out MATCHES "aotc: compiling" AND NOT relinked)
  message(FATAL_ERROR "an unchanged project re-ran aotc")
endif()
file(TOUCH "${project}/board.toml")
build_again()
if(NOT out MATCHES "aotc: compiling [^\n]*ad01_int8.tflite"
   OR ((out MATCHES "kws_ref_model.tflite into" OR out MATCHES "pretrainedResnet.tflite into") AND NOT relinked))
  message(FATAL_ERROR "touching board.toml must re-run aotc for the ad model, and only for it")
endif()

if(NOT KEEP)
  file(REMOVE_RECURSE "${tmp}")
endif()
message(STATUS "${MODE}: OK")
