# Compiles C sources with one compiler and flag set, then (unless RUN is false) runs the
# result. Used by ctest so that the runtime is checked with each compiler it must support,
# independently of the compiler the aotc build itself uses.
#
# Usage: cmake -DCC=clang "-DFLAGS=-std=c99 -Wall" "-DSOURCES=a.c;b.c" -DOUTPUT=path
#              [-DRUN=OFF] -P compile_and_run.cmake
# With RUN=OFF the sources are only compiled to objects (for cross targets); if NM is also
# given (an nm that reads the target's objects, e.g. llvm-nm), the objects must not
# reference any symbol outside the compiler's support library (names starting "__"):
# the runtime promises to need no libc at all.
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/script_helpers.cmake")
require_variables(CC FLAGS SOURCES OUTPUT)
if(NOT DEFINED RUN)
  set(RUN ON)
endif()
separate_arguments(flag_list UNIX_COMMAND "${FLAGS}")
get_filename_component(output_dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${output_dir}")

if(RUN)
  run_step("${CC}" ${flag_list} ${SOURCES} -o "${OUTPUT}")
  run_step("${OUTPUT}")
else()
  foreach(source IN LISTS SOURCES)
    get_filename_component(stem "${source}" NAME_WE)
    run_step("${CC}" ${flag_list} -c "${source}" -o "${OUTPUT}.${stem}.o")
    if(DEFINED NM AND NOT NM STREQUAL "")
      execute_process(COMMAND "${NM}" -u "${OUTPUT}.${stem}.o" OUTPUT_VARIABLE undefined
                      RESULT_VARIABLE status)
      if(NOT status EQUAL 0)
        message(FATAL_ERROR "${NM} failed on ${OUTPUT}.${stem}.o (${status})")
      endif()
      string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_.$]*" symbols "${undefined}")
      foreach(symbol IN LISTS symbols)
        if(NOT symbol MATCHES "^(__|U$)")
          message(FATAL_ERROR "${source} needs '${symbol}', which a bare-metal target may not have")
        endif()
      endforeach()
    endif()
  endforeach()
endif()
