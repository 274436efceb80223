# aotc_add_model(): compile a neural network into a static C library at build time.
#
# A firmware project calls
#
#   aotc_add_model(<lib> MODEL <file> TARGET <name-or-config-file>
#                  [NAME <c-prefix>] [OUTPUT_DIR <dir>] [POOLS <pool>...]
#                  [INPUT_SHAPES <input>=<d0>,<d1>,...] [DIMS <dim>=<size>...] [IO_IN_ARENA]
#                  [BINDS <input>=<value>...] [STATES <in>=<out>...] [MAX_TRIPS <node>=<n>...]
#                  [NPU_DRIVER <library>] [AOTC_ARGS <arg>...])
#
# and links <lib> like any other library. At build time `aotc compile` turns MODEL into
# <NAME>.h, <NAME>.c and <NAME>_constants.c (plus the runtime headers) in OUTPUT_DIR; <lib>
# is a static library of the two .c files with OUTPUT_DIR as its public include directory,
# so `#include "<NAME>.h"` just works. The command re-runs when the model, the target
# description or the aotc binary changes.
#
#   MODEL       the .onnx or .tflite file (relative paths are from the current source dir)
#   TARGET      a built-in target (`aotc targets`: cortex-m4, cortex-m7, ...) or the path of
#               a target description file of your own (TOML; passed as --target-config)
#   NAME        C prefix of every generated symbol and file (default: <lib>); must be unique
#               per model in one firmware
#   OUTPUT_DIR  where the sources are generated (default: <current binary dir>/<lib>)
#   POOLS       memory pools, each passed to aotc as `--pool <value>`
#               (NAME:SIZE[:runtime][:section=NAME], first preferred); they replace the
#               target's [[pool]] tables. A `runtime` pool becomes an extra argument of
#               <NAME>_run (see the generated header).
#   INPUT_SHAPES  shapes of inputs the model leaves dynamic, each passed as --input-shape
#   DIMS        sizes of named dynamic dimensions (N=1), each passed as --dim
#   BINDS       inputs made compile-time constants (NAME=VALUE), each passed as --bind
#   STATES      input/output pairs kept as state inside the model (IN=OUT), each --state
#   MAX_TRIPS   bounds of loops decided at run time (NODE=N), each passed as --max-trip
#   IO_IN_ARENA plan the inputs and outputs in the activation memory (--io-in-arena): the
#               application gets their addresses from <NAME>_io() instead of passing its own
#               buffers, and the memory of an input is reused once it is dead
#   AOTC_ARGS   further arguments for `aotc compile` (e.g. --memory-report)
#   NPU_DRIVER  for a target with an NPU: the library that implements the driver the
#               generated code calls (default: aotc_npu_ref, aotc's reference NPU driver,
#               which runs the reference NPU's command streams on the CPU). For another
#               device, a library of your own: aotc_npu_start/aotc_npu_wait of aotc_npu.h,
#               or for an Ethos-U (target cortex-m55-ethos-u55) aotc_ethosu.c from the
#               runtime directory's npu/ folder built and linked with Arm's Ethos-U core
#               driver.
#
# The C runtime (aotc_runtime.c) is compiled once per project into the static library
# `aotc_runtime` (alias aotc::runtime), created on first use and linked by every model
# library, so two models in one firmware do not define its symbols twice; so is the
# reference NPU's driver (npu/aotc_npu_ref.c, library `aotc_npu_ref`), which a model links
# unless NPU_DRIVER names another (a model without NPU parts takes nothing from it). The generated
# code itself has every symbol prefixed by NAME.
#
# The generated code calls the C math library (expf, tanhf, ... for softmax, sigmoid, tanh
# and recurrent cells), which gcc- and clang-style toolchains keep in a library of its own:
# glibc's libm on Linux, newlib's for arm-none-eabi. So every model library links it, by
# name (-lm: the arm-none-eabi-gcc driver then picks the multilib of the CPU flags), and
# the application links the model and nothing else. AOTC_MATH_LIBRARY, set before
# aotc_add_model, names another library, or "" for a C library with its math built in; by
# default it is m for GNU, Clang and AppleClang (not in MSVC mode), "" for other compilers.
#
# The runtime's workspace alignment is 16, that of every built-in target. For targets with
# another workspace_alignment, set AOTC_WORKSPACE_ALIGNMENT to it before the first
# aotc_add_model (it is defined for the runtime and every model); a model compiled for
# another alignment than the runtime's stops the build with an #error or a link error.
#
# Compiler flags (CPU, FPU, optimisation) are the project's: use a toolchain file from
# aotc's toolchains/ directory, or your own. The libraries are built as strict C99. The
# model library is also compiled with the target's own `cflags` (the CPU, FPU and ABI the
# code was generated for: `aotc targets NAME` shows them), which aotc compile writes to
# <NAME>.cflags and gcc and clang read as @<OUTPUT_DIR>/<NAME>.cflags. They come after the
# project's flags, so the model is built for the core it was generated for; the project's
# toolchain must name the same core (and, for clang, the target's triple). Other compilers
# get no @file.
#
# Where aotc comes from, in this order:
#   - the `aotc` executable target, when aotc is part of the build (add_subdirectory). In a
#     host build that is aotc itself, built with the project's compilers; in a
#     cross-compiling project (a firmware) it is an imported executable built for the
#     build machine by a nested host build of aotc's source tree (aotc_host_tool.cmake);
#   - AOTC_EXECUTABLE, set by aotcConfig.cmake (find_package(aotc));
#   - `aotc` on the PATH.
# The runtime sources come from AOTC_RUNTIME_DIR (set by aotcConfig.cmake), else from the
# source tree this file belongs to (../runtime-c).

include_guard(GLOBAL)
# (No cmake_minimum_required here: it would reset the including project's policies.)
if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "aotc_add_model needs CMake 3.20 or newer")
endif()

# Remember where this file is: functions resolve variables in the caller's scope, which
# (after add_subdirectory) is not the scope that included this file.
if(DEFINED AOTC_RUNTIME_DIR)
  set_property(GLOBAL PROPERTY AOTC_RUNTIME_DIR "${AOTC_RUNTIME_DIR}")
else()
  get_filename_component(_aotc_tree_runtime "${CMAKE_CURRENT_LIST_DIR}/../runtime-c" ABSOLUTE)
  set_property(GLOBAL PROPERTY AOTC_RUNTIME_DIR "${_aotc_tree_runtime}")
  unset(_aotc_tree_runtime)
endif()
if(DEFINED AOTC_EXECUTABLE)
  set_property(GLOBAL PROPERTY AOTC_EXECUTABLE "${AOTC_EXECUTABLE}")
endif()

# The shared runtime library, created once per build on first use.
function(_aotc_runtime_library)
  if(TARGET aotc_runtime)
    return()
  endif()
  get_property(runtime_dir GLOBAL PROPERTY AOTC_RUNTIME_DIR)
  if(NOT EXISTS "${runtime_dir}/aotc_runtime.c")
    message(FATAL_ERROR "aotc_add_model: no aotc_runtime.c in '${runtime_dir}' (AOTC_RUNTIME_DIR)")
  endif()
  add_library(aotc_runtime STATIC "${runtime_dir}/aotc_runtime.c")
  target_include_directories(aotc_runtime PUBLIC "${runtime_dir}")
  # PUBLIC: the models (and the application) see the alignment the runtime is built with.
  if(AOTC_WORKSPACE_ALIGNMENT)
    target_compile_definitions(aotc_runtime PUBLIC AOTC_WORKSPACE_ALIGNMENT=${AOTC_WORKSPACE_ALIGNMENT})
  endif()
  set_target_properties(aotc_runtime PROPERTIES
    C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  add_library(aotc::runtime ALIAS aotc_runtime)
  # The device drivers are in npu/ (the driver also includes aotc_quant*.h, which
  # aotc_runtime's include directory gives it).
  add_library(aotc_npu_ref STATIC "${runtime_dir}/npu/aotc_npu_ref.c")
  target_include_directories(aotc_npu_ref PUBLIC "${runtime_dir}/npu")
  target_link_libraries(aotc_npu_ref PUBLIC aotc_runtime)
  set_target_properties(aotc_npu_ref PROPERTIES
    C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
endfunction()

# Sets <out_var> to the math library every model library links (see above).
function(_aotc_math_library out_var)
  if(DEFINED AOTC_MATH_LIBRARY)
    set(${out_var} "${AOTC_MATH_LIBRARY}" PARENT_SCOPE)
  elseif(CMAKE_C_COMPILER_ID MATCHES "^(GNU|Clang|AppleClang)$" AND NOT CMAKE_C_SIMULATE_ID STREQUAL "MSVC")
    set(${out_var} m PARENT_SCOPE)
  else()
    set(${out_var} "" PARENT_SCOPE)
  endif()
endfunction()

function(aotc_add_model lib)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "IO_IN_ARENA" "MODEL;TARGET;NAME;OUTPUT_DIR;NPU_DRIVER" "POOLS;INPUT_SHAPES;DIMS;BINDS;STATES;MAX_TRIPS;AOTC_ARGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "aotc_add_model(${lib}): unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  foreach(required IN ITEMS MODEL TARGET)
    if(NOT ARG_${required})
      message(FATAL_ERROR "aotc_add_model(${lib}): ${required} is required")
    endif()
  endforeach()
  if(NOT ARG_NAME)
    set(ARG_NAME "${lib}")
  endif()
  if(NOT ARG_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "aotc_add_model(${lib}): NAME '${ARG_NAME}' is not a C identifier")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${lib}")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(out "${ARG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  if(NOT EXISTS "${model}")
    message(FATAL_ERROR "aotc_add_model(${lib}): model '${model}' does not exist")
  endif()

  # The compiler: the in-tree target, the packaged binary, or one on the PATH.
  set(in_tree FALSE)
  if(TARGET aotc)
    get_target_property(aotc_type aotc TYPE)
    if(aotc_type STREQUAL "EXECUTABLE")
      set(in_tree TRUE)
    endif()
  endif()
  if(in_tree)
    set(aotc_command "$<TARGET_FILE:aotc>")
    set(aotc_depends aotc)
  else()
    get_property(aotc_command GLOBAL PROPERTY AOTC_EXECUTABLE)
    if(NOT aotc_command)
      find_program(AOTC_EXECUTABLE_ON_PATH aotc)
      if(NOT AOTC_EXECUTABLE_ON_PATH)
        message(FATAL_ERROR "aotc_add_model(${lib}): no aotc executable (use find_package(aotc) "
                            "or add aotc with add_subdirectory)")
      endif()
      set(aotc_command "${AOTC_EXECUTABLE_ON_PATH}")
    endif()
    set(aotc_depends "${aotc_command}")
  endif()

  # A built-in target name, or a file of one's own (anything that names an existing file
  # or ends in .toml). Built-in targets live inside the aotc binary, which is a dependency.
  set(target_args --target "${ARG_TARGET}")
  get_filename_component(target_file "${ARG_TARGET}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(ARG_TARGET MATCHES "\\.toml$" OR (ARG_TARGET MATCHES "/" AND EXISTS "${target_file}"))
    if(NOT EXISTS "${target_file}")
      message(FATAL_ERROR "aotc_add_model(${lib}): target file '${target_file}' does not exist")
    endif()
    set(target_args --target-config "${target_file}")
    list(APPEND aotc_depends "${target_file}")
  endif()

  set(compile_args)
  # Each keyword's values, each passed with its option.
  foreach(keyword_option IN ITEMS POOLS:--pool INPUT_SHAPES:--input-shape DIMS:--dim BINDS:--bind STATES:--state MAX_TRIPS:--max-trip)
    string(REPLACE ":" ";" keyword_option "${keyword_option}")
    list(GET keyword_option 0 keyword)
    list(GET keyword_option 1 option)
    foreach(value IN LISTS ARG_${keyword})
      list(APPEND compile_args ${option} "${value}")
    endforeach()
  endforeach()
  if(ARG_IO_IN_ARENA)
    list(APPEND compile_args --io-in-arena)
  endif()

  set(sources "${out}/${ARG_NAME}.c" "${out}/${ARG_NAME}_constants.c")
  add_custom_command(
    OUTPUT ${sources} "${out}/${ARG_NAME}.h" "${out}/metadata.json" "${out}/${ARG_NAME}.cflags"
    COMMAND "${aotc_command}" compile "${model}" -o "${out}" --name "${ARG_NAME}"
            ${target_args} ${compile_args} ${ARG_AOTC_ARGS}
    DEPENDS "${model}" ${aotc_depends}
    COMMENT "aotc: compiling ${ARG_MODEL} into ${ARG_NAME} (${ARG_TARGET})"
    VERBATIM)

  # Under one of aotc's toolchain files, the CPU flags live in CMAKE_C_FLAGS (from
  # CMAKE_C_FLAGS_INIT). A CMAKE_C_FLAGS given on the command line replaces them, and the
  # runtime and the application would silently be built for another core than the model.
  if(DEFINED AOTC_ARM_CPU_FLAGS)
    separate_arguments(cpu_flags UNIX_COMMAND "${AOTC_ARM_CPU_FLAGS}")
    foreach(flag IN LISTS cpu_flags)
      string(FIND " ${CMAKE_C_FLAGS} " " ${flag} " at)
      if(at EQUAL -1)
        message(WARNING "aotc_add_model(${lib}): CMAKE_C_FLAGS lacks ${flag} from the toolchain "
                        "file (${AOTC_ARM_CPU_FLAGS}); add to CMAKE_C_FLAGS instead of replacing it")
        break()
      endif()
    endforeach()
  endif()

  _aotc_runtime_library()
  add_library(${lib} STATIC ${sources})
  target_include_directories(${lib} PUBLIC "${out}")
  _aotc_math_library(math_library)
  if(NOT ARG_NPU_DRIVER)
    set(ARG_NPU_DRIVER aotc_npu_ref)
  endif()
  target_link_libraries(${lib} PUBLIC ${ARG_NPU_DRIVER} aotc_runtime ${math_library})
  set_target_properties(${lib} PROPERTIES
    C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
    AOTC_MODEL "${model}" AOTC_NAME "${ARG_NAME}" AOTC_OUTPUT_DIR "${out}"
    AOTC_METADATA "${out}/metadata.json")

  # The target's flags, from the file the same custom command writes. OBJECT_DEPENDS makes
  # every generator (Ninja and Makefiles alike) generate the file before compiling and
  # recompile when it changes.
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${lib} PRIVATE "@${out}/${ARG_NAME}.cflags")
    set_source_files_properties(${sources} PROPERTIES OBJECT_DEPENDS "${out}/${ARG_NAME}.cflags")
  else()
    message(STATUS "aotc_add_model(${lib}): ${CMAKE_C_COMPILER_ID} does not read gcc's @file: "
                   "${out}/${ARG_NAME}.cflags (the target's flags) is not used")
  endif()
endfunction()
