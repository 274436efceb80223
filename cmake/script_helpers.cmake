# Helpers for the scripts that the tests, the benchmarks and the example firmware run with
# `cmake -P` (tests/firmware, tests/runtime, bench/firmware, examples/firmware/cmake):
#
#   include("${CMAKE_CURRENT_LIST_DIR}/<path to>/cmake/script_helpers.cmake")
include_guard(GLOBAL)

# require_variables(<name>...)
# Stops the script, naming it and the variable, unless each variable is set (-D<name>=...).
function(require_variables)
  # CMAKE_CURRENT_LIST_FILE is the calling script's here, not this file.
  get_filename_component(script "${CMAKE_CURRENT_LIST_FILE}" NAME)
  foreach(var IN LISTS ARGN)
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "${script}: ${var} is not set")
    endif()
  endforeach()
endfunction()

# run_step(<command> [<argument>...] [OUTPUT <variable>] [QUIET])
# Shows the command, runs it and stops the script if it fails. Its output goes to the
# terminal as it runs; with OUTPUT it is collected instead (stdout and stderr together),
# stored in <variable> and then shown. QUIET collects it too, and shows it only if the
# command fails.
function(run_step)
  cmake_parse_arguments(ARG "QUIET" "OUTPUT" "" ${ARGN})
  string(REPLACE ";" " " shown "${ARG_UNPARSED_ARGUMENTS}")
  message(STATUS "${shown}")
  set(output "")
  if(ARG_OUTPUT OR ARG_QUIET)
    execute_process(COMMAND ${ARG_UNPARSED_ARGUMENTS} RESULT_VARIABLE status
                    OUTPUT_VARIABLE output ERROR_VARIABLE output)
    if(NOT ARG_QUIET)
      message("${output}")
    endif()
  else()
    execute_process(COMMAND ${ARG_UNPARSED_ARGUMENTS} RESULT_VARIABLE status)
  endif()
  if(NOT status EQUAL 0)
    if(ARG_QUIET)
      message(FATAL_ERROR "failed (${status}): ${shown}\n${output}")
    endif()
    message(FATAL_ERROR "failed (${status}): ${shown}")
  endif()
  if(ARG_OUTPUT)
    set(${ARG_OUTPUT} "${output}" PARENT_SCOPE)
  endif()
endfunction()

# replace_between_markers(<file> <begin> <end> <text>)
# Replaces what stands between the lines <begin> and <end> of <file> (a README's measured
# table) with <text>; stops the script if the file has no such block.
function(replace_between_markers file begin end text)
  file(READ "${file}" content)
  string(FIND "${content}" "${begin}" b)
  string(FIND "${content}" "${end}" e)
  if(b EQUAL -1 OR e EQUAL -1)
    message(FATAL_ERROR "${file} has no ${begin} ... ${end} block")
  endif()
  string(SUBSTRING "${content}" 0 ${b} head)
  string(SUBSTRING "${content}" ${e} -1 tail)
  file(WRITE "${file}" "${head}${begin}\n${text}${tail}")
  message(STATUS "table written to ${file}")
endfunction()

# map_sizes(<map file>): the bytes the linker kept from the model library (libmodel.a) and
# the runtime (libaotc_runtime.a), by section kind, from a GNU ld link map of
# examples/firmware: sets code, const, data, bss in the caller (bench/firmware,
# tests/firmware's analyze test).
function(map_sizes map_file)
  file(READ "${map_file}" map)
  string(FIND "${map}" "Linker script and memory map" at)
  string(SUBSTRING "${map}" ${at} -1 map)
  string(REGEX MATCHALL "\n (\\.[^ \n]+|COMMON)[ \n]+0x[0-9a-f]+ +0x[0-9a-f]+ [^\n]*lib(model|aotc_runtime)\\.a\\(" entries "${map}")
  foreach(kind IN ITEMS code const data bss)
    set(${kind} 0)
  endforeach()
  foreach(entry IN LISTS entries)
    string(REGEX MATCH "\n (\\.[^ \n]+|COMMON)[ \n]+0x[0-9a-f]+ +(0x[0-9a-f]+)" _ "${entry}")
    set(section "${CMAKE_MATCH_1}")
    math(EXPR size "${CMAKE_MATCH_2}")
    if(section MATCHES "^\\.text")
      set(kind code)
    elseif(section MATCHES "^\\.rodata")
      set(kind const)
    elseif(section MATCHES "^\\.data")
      set(kind data)
    elseif(section MATCHES "^\\.bss|^COMMON")
      set(kind bss)
    else()
      continue()
    endif()
    math(EXPR ${kind} "${${kind}} + ${size}")
  endforeach()
  foreach(kind IN ITEMS code const data bss)
    set(${kind} ${${kind}} PARENT_SCOPE)
  endforeach()
endfunction()
