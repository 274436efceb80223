# run_qemu.cmake: runs a firmware image under qemu-system-arm and checks what it reports.
#
#   cmake -DELF=firmware.elf -DMACHINE=mps2-an386 [-DICOUNT=ON] [-DREFERENCE_DIR=dir]
#         [-DLOG=file] [-DTIMEOUT=seconds] [-DQEMU=qemu-system-arm] -P run_qemu.cmake
#
# The firmware (main.c) prints over semihosting and exits with 0 only if every case
# matched its compiled-in expected output; QEMU passes that status on. This script fails
# unless the status is 0 and the output ends in "result: PASS". With REFERENCE_DIR it
# also checks the printed output bytes of case K against REFERENCE_DIR/output_K.bin on
# its own, so a firmware that compares wrongly cannot pass. ICOUNT=ON runs with
# -icount shift=0 (one instruction per virtual ns: SysTick then counts instructions).
# LOG receives QEMU's output (for bench/firmware, which reads the figures from it).
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../../../cmake/script_helpers.cmake")
require_variables(ELF MACHINE)
if(NOT DEFINED QEMU)
  find_program(QEMU qemu-system-arm)
  if(NOT QEMU)
    message(FATAL_ERROR "qemu-system-arm not found (Debian: apt-get install qemu-system-arm)")
  endif()
endif()
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 600)
endif()

set(command "${QEMU}" -M "${MACHINE}" -nographic -monitor none -serial none
    -semihosting-config enable=on,target=native -kernel "${ELF}")
if(ICOUNT)
  list(APPEND command -icount shift=0)
endif()
string(REPLACE ";" " " shown "${command}")
message(STATUS "${shown}")
execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE output
                ERROR_VARIABLE output TIMEOUT ${TIMEOUT})
message("${output}")
if(DEFINED LOG)
  file(WRITE "${LOG}" "${output}")
endif()
if(NOT status EQUAL 0)
  message(FATAL_ERROR "firmware failed: exit status '${status}'")
endif()
if(NOT output MATCHES "\nresult: PASS")
  message(FATAL_ERROR "firmware did not report 'result: PASS'")
endif()

if(DEFINED REFERENCE_DIR AND NOT REFERENCE_DIR STREQUAL "")
  string(REGEX MATCHALL "case [0-9]+ output [0-9]+: [0-9a-f]*" lines "${output}")
  set(checked 0)
  set(k 0)
  while(EXISTS "${REFERENCE_DIR}/output_${k}.bin")
    # All outputs of case K, concatenated in order, as in output_K.bin.
    set(printed "")
    set(found FALSE)
    foreach(line IN LISTS lines)
      if(line MATCHES "^case ${k} output [0-9]+: ([0-9a-f]*)$")
        string(APPEND printed "${CMAKE_MATCH_1}")
        set(found TRUE)
      endif()
    endforeach()
    if(NOT found)
      break() # the firmware holds fewer cases than the folder
    endif()
    file(READ "${REFERENCE_DIR}/output_${k}.bin" reference HEX)
    if(NOT printed STREQUAL reference)
      message(FATAL_ERROR "case ${k}: printed output differs from ${REFERENCE_DIR}/output_${k}.bin\n"
                          "  printed:   ${printed}\n  reference: ${reference}")
    endif()
    math(EXPR checked "${checked} + 1")
    math(EXPR k "${k} + 1")
  endwhile()
  if(checked EQUAL 0)
    message(FATAL_ERROR "no case output matched against ${REFERENCE_DIR}")
  endif()
  message(STATUS "${checked} case(s) identical to ${REFERENCE_DIR}/output_K.bin")
endif()
