# installed_package_test.cmake: the ctest case firmware_installed_package.
#
# Installs aotc (`cmake --install`) into a temporary prefix, copies the project in
# tests/firmware/two_models (plus the example's startup code and linker script) to a
# temporary directory outside the source tree, and builds it for the Cortex-M4 with
# nothing but the installed package: find_package(aotc), the installed toolchain file and
# aotc_add_model() for two models in one image. Then runs the image on QEMU (both models
# must match TFLM's reference outputs), and checks the build dependencies: a second build
# does nothing, and touching the project's target file re-runs aotc.
#
#   cmake -DAOTC_BUILD_DIR=<build> -DAOTC_SOURCE_DIR=<src> -DMODELS_DIR=<shared models>
#         [-DTOOLCHAIN=cortex-m4-gcc] [-DGENERATOR=Ninja] [-DKEEP=ON] -P installed_package_test.cmake
cmake_minimum_required(VERSION 3.20)
foreach(var AOTC_BUILD_DIR AOTC_SOURCE_DIR MODELS_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "installed_package_test.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT DEFINED TOOLCHAIN)
  set(TOOLCHAIN cortex-m4-gcc)
endif()
if(NOT DEFINED GENERATOR)
  set(GENERATOR Ninja)
endif()

function(run)
  cmake_parse_arguments(ARG "" "OUTPUT" "" ${ARGN})
  string(REPLACE ";" " " shown "${ARG_UNPARSED_ARGUMENTS}")
  message(STATUS "${shown}")
  execute_process(COMMAND ${ARG_UNPARSED_ARGUMENTS} RESULT_VARIABLE status
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${shown}")
  endif()
  if(ARG_OUTPUT)
    set(${ARG_OUTPUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()

# A fresh temporary directory, outside the source and build trees.
set(tmp_root "$ENV{TMPDIR}")
if(NOT tmp_root)
  set(tmp_root /tmp)
endif()
string(RANDOM LENGTH 10 suffix)
set(tmp "${tmp_root}/aotc-installed-${suffix}")
file(REMOVE_RECURSE "${tmp}")
set(prefix "${tmp}/prefix")
set(project "${tmp}/project")
set(build "${tmp}/build")

run("${CMAKE_COMMAND}" --install "${AOTC_BUILD_DIR}" --prefix "${prefix}")
foreach(file IN ITEMS bin/aotc share/cmake/aotc/aotcConfig.cmake
                      share/cmake/aotc/aotcConfigVersion.cmake share/cmake/aotc/aotc_add_model.cmake
                      share/aotc/runtime/aotc_runtime.c share/aotc/runtime/aotc_runtime.h
                      share/aotc/targets/cortex-m4.toml share/aotc/toolchains/${TOOLCHAIN}.cmake)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "cmake --install did not write ${file}")
  endif()
endforeach()

file(COPY "${AOTC_SOURCE_DIR}/tests/firmware/two_models/" DESTINATION "${project}")
file(COPY "${AOTC_SOURCE_DIR}/examples/firmware/startup_mps2.c"
          "${AOTC_SOURCE_DIR}/examples/firmware/mps2.ld" DESTINATION "${project}")

# Only the prefix: no aotc_DIR into the build tree, no aotc on the PATH.
run("${CMAKE_COMMAND}" -S "${project}" -B "${build}" -G "${GENERATOR}"
    "-DCMAKE_TOOLCHAIN_FILE=${prefix}/share/aotc/toolchains/${TOOLCHAIN}.cmake"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DMODELS_DIR=${MODELS_DIR}")
run("${CMAKE_COMMAND}" --build "${build}" --parallel 1)
run("${CMAKE_COMMAND}" "-DELF=${build}/two_models.elf" -DMACHINE=mps2-an386
    -P "${AOTC_SOURCE_DIR}/examples/firmware/cmake/run_qemu.cmake" OUTPUT out)
if(NOT out MATCHES "kws: status 0, match" OR NOT out MATCHES "ad: status 0, match")
  message(FATAL_ERROR "both models must run and match")
endif()

# Dependencies: nothing to redo; a changed target file re-runs aotc for its model only.
run("${CMAKE_COMMAND}" --build "${build}" --parallel 1 OUTPUT out)
if(out MATCHES "aotc: compiling")
  message(FATAL_ERROR "an unchanged project re-ran aotc")
endif()
file(TOUCH "${project}/board.toml")
run("${CMAKE_COMMAND}" --build "${build}" --parallel 1 OUTPUT out)
if(NOT out MATCHES "aotc: compiling [^\n]*ad01_int8.tflite" OR out MATCHES "kws_ref_model.tflite into")
  message(FATAL_ERROR "touching board.toml must re-run aotc for the ad model, and only for it")
endif()

if(NOT KEEP)
  file(REMOVE_RECURSE "${tmp}")
endif()
message(STATUS "installed package: OK")
