# Runs one libFuzzer harness for a bounded time from fixed seeds (ctest fuzz_*_bounded):
#   cmake -DFUZZER=<binary> -DWORK=<dir> -DSEEDS=<file|file|...> -DSECONDS=<n> -P run_fuzzer.cmake
# A seed that is a directory stands for the files in it.
# The seeds are copied into WORK/seeds (libFuzzer writes new inputs into WORK/corpus, never
# into the source tree); a crash, hang, leak or sanitizer report fails the run and leaves
# the input in WORK/findings, to be replayed with `<binary> <file>` and turned into a
# regression test.
# -entropic=0: libFuzzer's default (entropic) input scheduling spent half of fuzz_compile's
# time updating its feature frequencies (perf, 47,000 features); without it the same 60 s
# run twice the inputs (709 against 318 a second, same corpus).
foreach(var FUZZER WORK SEEDS SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzzer.cmake: -D${var}=... is required")
  endif()
endforeach()
string(REPLACE "|" ";" SEEDS "${SEEDS}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/seeds" "${WORK}/corpus" "${WORK}/findings")
set(index 0)
set(seed_files)
foreach(seed IN LISTS SEEDS)
  if(IS_DIRECTORY "${seed}")
    file(GLOB dir_seeds "${seed}/*")
    list(APPEND seed_files ${dir_seeds})
  else()
    list(APPEND seed_files "${seed}")
  endif()
endforeach()
foreach(seed IN LISTS seed_files)
  get_filename_component(name "${seed}" NAME)
  file(COPY_FILE "${seed}" "${WORK}/seeds/${index}_${name}")
  math(EXPR index "${index} + 1")
endforeach()
execute_process(
  COMMAND "${FUZZER}" -seed=1 -max_total_time=${SECONDS} -entropic=0 -timeout=30 -rss_limit_mb=2560 -print_final_stats=1
          "-artifact_prefix=${WORK}/findings/" "${WORK}/corpus" "${WORK}/seeds"
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(GLOB findings "${WORK}/findings/*")
  message(FATAL_ERROR "${FUZZER} found a problem (status ${status}): ${findings}")
endif()
