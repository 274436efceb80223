# run_qemu.cmake: runs a firmware image under qemu-system-arm and checks what it reports.
#
#   cmake -DELF=firmware.elf -DMACHINE=mps2-an386 [-DICOUNT=ON] [-DREFERENCE_DIR=dir]
#         [-DLOG=file] [-DTIMEOUT=seconds] [-DQEMU=qemu-system-arm] -P run_qemu.cmake
#
# The firmware (main.c) prints over semihosting and exits with 0 only if every case
# matched its compiled-in expected output; QEMU passes that status on. This script fails
# unless the status is 0 and the output ends in "result: PASS". With REFERENCE_DIR it
# also checks the printed output bytes of case K against REFERENCE_DIR/output_K.bin on
# its own, so a firmware that compares wrongly cannot pass (float32 outputs, which the
# firmware prints as "case K output J float32: ...", within a relative error of 1e-5). ICOUNT=ON runs with
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

# Whether the float32 values in `printed` and `reference` (hex of little-endian bytes)
# agree within a relative error of 1e-5: each pair has the same sign and lies at most 83
# units in the last place apart (1e-5 of a float is at least 83.9 of its units), or both
# are zeros. Sets `out_var` to TRUE or to the index of the first value that differs.
function(float32_close printed reference out_var)
  string(LENGTH "${reference}" digits)
  math(EXPR last "${digits} / 8 - 1")
  foreach(i RANGE ${last})
    math(EXPR at "${i} * 8")
    foreach(which printed reference)
      string(SUBSTRING "${${which}}" ${at} 8 word)
      # Little-endian bytes "aabbccdd" are the word 0xddccbbaa.
      string(REGEX REPLACE "^(..)(..)(..)(..)$" "0x\\4\\3\\2\\1" word "${word}")
      math(EXPR sign_${which} "(${word} >> 31) & 1")
      math(EXPR magnitude_${which} "${word} & 0x7fffffff")
    endforeach()
    math(EXPR distance "${magnitude_printed} - ${magnitude_reference}")
    if(distance LESS 0)
      math(EXPR distance "-${distance}")
    endif()
    set(zeros FALSE)
    if(magnitude_printed EQUAL 0 AND magnitude_reference EQUAL 0)
      set(zeros TRUE)
    endif()
    if(NOT zeros AND (NOT sign_printed EQUAL sign_reference OR distance GREATER 83))
      set(${out_var} ${i} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out_var} TRUE PARENT_SCOPE)
endfunction()

if(DEFINED REFERENCE_DIR AND NOT REFERENCE_DIR STREQUAL "")
  # Outputs printed as "case K output J float32: ..." are float32 values, compared within
  # a relative error of 1e-5 (float32_close); all others byte for byte.
  string(REGEX MATCHALL "case [0-9]+ output [0-9]+( float32)?: [0-9a-f]*" lines "${output}")
  set(checked 0)
  set(k 0)
  while(EXISTS "${REFERENCE_DIR}/output_${k}.bin")
    # All outputs of case K, concatenated in order, as in output_K.bin.
    set(printed "")
    set(found FALSE)
    set(float_parts "")  # "<first hex digit>:<hex digits>" of each float32 output
    foreach(line IN LISTS lines)
      if(line MATCHES "^case ${k} output [0-9]+( float32)?: ([0-9a-f]*)$")
        if(CMAKE_MATCH_1)
          string(LENGTH "${printed}" start)
          string(LENGTH "${CMAKE_MATCH_2}" length)
          list(APPEND float_parts "${start}:${length}")
        endif()
        string(APPEND printed "${CMAKE_MATCH_2}")
        set(found TRUE)
      endif()
    endforeach()
    if(NOT found)
      break() # the firmware holds fewer cases than the folder
    endif()
    file(READ "${REFERENCE_DIR}/output_${k}.bin" reference HEX)
    string(LENGTH "${printed}" printed_length)
    string(LENGTH "${reference}" reference_length)
    # The float32 parts compared within 1e-5, then replaced by the reference's digits.
    if(float_parts AND printed_length EQUAL reference_length)
      set(exact "${printed}")
      foreach(part IN LISTS float_parts)
        string(REPLACE ":" ";" part "${part}")
        list(GET part 0 start)
        list(GET part 1 length)
        string(SUBSTRING "${printed}" ${start} ${length} got)
        string(SUBSTRING "${reference}" ${start} ${length} want)
        float32_close("${got}" "${want}" close)
        if(NOT close STREQUAL "TRUE")
          message(FATAL_ERROR "case ${k}: float32 value ${close} of the output at hex digit ${start} differs from "
                              "${REFERENCE_DIR}/output_${k}.bin by more than 1e-5 relative")
        endif()
        string(SUBSTRING "${exact}" 0 ${start} head)
        math(EXPR end "${start} + ${length}")
        string(SUBSTRING "${exact}" ${end} -1 tail)
        set(exact "${head}${want}${tail}")
      endforeach()
      set(printed "${exact}")
    endif()
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
  message(STATUS "${checked} case(s) identical to ${REFERENCE_DIR}/output_K.bin (float32 outputs within 1e-5)")
endif()
