# The tools aotc's tests run, each with the Debian package that provides it. The test suite
# refuses to configure when one is missing, naming the package, instead of skipping the tests
# that need it (a skipped test would look like a pass). scripts/setup.sh installs them all.
set(_aotc_test_tools
  "clang|clang" "clang++|clang" "gcc|build-essential" "llvm-nm|llvm"
  "arm-none-eabi-gcc|gcc-arm-none-eabi" "arm-none-eabi-objdump|binutils-arm-none-eabi"
  "qemu-system-arm|qemu-system-arm" "flatc|flatbuffers-compiler")
set(_aotc_missing "")
foreach(entry IN LISTS _aotc_test_tools)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 tool)
  list(GET parts 1 package)
  string(MAKE_C_IDENTIFIER "AOTC_TOOL_${tool}" var)
  find_program(${var} NAMES ${tool} ${tool}-14)
  if(NOT ${var})
    list(APPEND _aotc_missing "${tool} (Debian package ${package})")
  endif()
endforeach()

# Files rather than programs: clang's sanitizer runtime, the C library headers the
# bare-metal and cross-compile tests build against, the ONNX node tests, and numpy for
# /usr/bin/python3 (scripts/compare_tensors, which tests/e2e/test_dump_tensors.cc runs).
if(AOTC_TOOL_clang)
  execute_process(COMMAND ${AOTC_TOOL_clang} -print-file-name=libclang_rt.asan-x86_64.a
                  OUTPUT_VARIABLE _aotc_asan OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT EXISTS "${_aotc_asan}")
    list(APPEND _aotc_missing "clang's sanitizer runtime libclang_rt.asan (Debian package libclang-rt-14-dev)")
  endif()
  execute_process(COMMAND ${AOTC_TOOL_clang} -print-file-name=libclang_rt.fuzzer-x86_64.a
                  OUTPUT_VARIABLE _aotc_fuzzer OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT EXISTS "${_aotc_fuzzer}")
    list(APPEND _aotc_missing "clang's libFuzzer libclang_rt.fuzzer (Debian package libclang-rt-14-dev)")
  endif()
endif()
foreach(entry IN ITEMS
    "/usr/lib/arm-none-eabi/include/string.h|libnewlib-arm-none-eabi"
    "/usr/include/newlib/string.h|libnewlib-dev"
    "/usr/share/libonnx-testdata/data/node|libonnx-testdata"
    "/usr/lib/python3/dist-packages/numpy/__init__.py|python3-numpy")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 file)
  list(GET parts 1 package)
  if(NOT EXISTS "${file}")
    list(APPEND _aotc_missing "${file} (Debian package ${package})")
  endif()
endforeach()

if(_aotc_missing)
  string(REPLACE ";" "\n  " _aotc_missing_text "${_aotc_missing}")
  message(FATAL_ERROR "aotc's tests need, and this machine lacks:\n  ${_aotc_missing_text}\n"
                      "Install them (./scripts/setup.sh does), or configure with -DAOTC_BUILD_TESTS=OFF.")
endif()
unset(_aotc_missing)
