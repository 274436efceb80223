# aotc_host_tool.cmake: aotc added with add_subdirectory() by a cross-compiling project.
#
# Included by aotc's top-level CMakeLists.txt instead of everything else when a project
# that cross-compiles (CMAKE_CROSSCOMPILING, e.g. under one of cmake/toolchains/*.cmake)
# adds aotc with add_subdirectory(). The compiler must run on the build machine, but a
# subdirectory cannot change the project's compilers, so aotc is built by a nested CMake
# build of this same source tree with the host compilers (ExternalProject), and made known
# to the project as the imported executable `aotc`. aotc_add_model() runs that executable
# and depends on it, so its models are (re)generated after the host tool is (re)built.
#
#   <binary dir of aotc>/host      the nested host build (tests and benchmarks off,
#                                  only the `aotc` target is built)
#
# Cache variables for the project:
#   AOTC_EXECUTABLE       an aotc binary to use instead: then nothing is built
#   AOTC_HOST_CMAKE_ARGS  extra arguments for the nested configure (a list), e.g.
#                         -DCMAKE_CXX_COMPILER=g++-12 or -DCMAKE_PREFIX_PATH=<host deps>
# The nested build runs at the parallelism of `cmake --build` (the generator's default, or
# the CMAKE_BUILD_PARALLEL_LEVEL environment variable). It is re-checked on every build
# (a no-op when aotc's sources are unchanged), so that an edited aotc is rebuilt; models
# are only regenerated when the aotc binary actually changed.

include_guard(GLOBAL)

set(AOTC_EXECUTABLE "" CACHE FILEPATH
    "aotc binary for aotc_add_model() (empty: build aotc for the host from this source tree)")
set(AOTC_HOST_CMAKE_ARGS "" CACHE STRING "Extra arguments for the nested host build of aotc")

if(AOTC_EXECUTABLE)
  if(NOT EXISTS "${AOTC_EXECUTABLE}")
    message(FATAL_ERROR "AOTC_EXECUTABLE '${AOTC_EXECUTABLE}' does not exist")
  endif()
  message(STATUS "aotc: cross-compiling project, using ${AOTC_EXECUTABLE}")
else()
  include(ExternalProject)
  set(_aotc_host_dir "${CMAKE_CURRENT_BINARY_DIR}/host")
  set(_aotc_host_exe "${_aotc_host_dir}/aotc")
  if(CMAKE_HOST_WIN32)
    string(APPEND _aotc_host_exe ".exe")
  endif()
  # Multi-config generators put the binary in a per-configuration folder.
  get_property(_aotc_multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  set(_aotc_config_args)
  if(_aotc_multi_config)
    set(_aotc_host_exe "${_aotc_host_dir}/Release/aotc")
    set(_aotc_config_args --config Release)
  endif()

  # No toolchain file is passed on: the nested build uses the host compilers.
  ExternalProject_Add(aotc_host
    SOURCE_DIR "${CMAKE_CURRENT_SOURCE_DIR}"
    BINARY_DIR "${_aotc_host_dir}"
    PREFIX "${CMAKE_CURRENT_BINARY_DIR}/host-ep"
    CMAKE_ARGS -DCMAKE_BUILD_TYPE=Release -DAOTC_BUILD_TESTS=OFF ${AOTC_HOST_CMAKE_ARGS}
    BUILD_COMMAND "${CMAKE_COMMAND}" --build <BINARY_DIR> --target aotc ${_aotc_config_args}
    BUILD_ALWAYS ON
    BUILD_BYPRODUCTS "${_aotc_host_exe}"
    INSTALL_COMMAND ""
    TEST_COMMAND ""
    USES_TERMINAL_CONFIGURE ON
    USES_TERMINAL_BUILD ON)

  # The imported `aotc` is what aotc_add_model() looks for first; its dependency on
  # aotc_host is followed by every target whose custom commands depend on it.
  add_executable(aotc IMPORTED GLOBAL)
  set_target_properties(aotc PROPERTIES IMPORTED_LOCATION "${_aotc_host_exe}")
  add_dependencies(aotc aotc_host)
  message(STATUS "aotc: cross-compiling project, aotc is built for the host in ${_aotc_host_dir}")
  unset(_aotc_host_dir)
  unset(_aotc_host_exe)
  unset(_aotc_multi_config)
  unset(_aotc_config_args)
endif()

include("${CMAKE_CURRENT_LIST_DIR}/aotc_add_model.cmake")
