# bench_firmware.cmake: flash, RAM, stack and executed instructions of the int8 MLPerf Tiny
# models compiled by aotc for the Cortex-M4F, the Cortex-M7 or the Cortex-M55 with Helium,
# with arm-none-eabi-gcc and with clang, on QEMU's mps2-an386, mps2-an500 and mps3-an547
# (and for the Cortex-M0+ on mps2-an385, whose Cortex-M3 runs the Armv6-M image as it is),
# next to TensorFlow Lite Micro's figures (../shared/README.md: CMSIS-NN on the Cortex-M4F,
# CMSIS-NN's MVE kernels on the Cortex-M55), and the slowest layers of each model.
#
#   cmake -DAOTC_BUILD_DIR=build [-DREADME=bench/firmware/README.md] -P bench/firmware/bench_firmware.cmake
#   (or `ninja bench_firmware` in a build that includes bench/firmware)
#
# For each target, model and compiler the example firmware (examples/firmware) is built with
# the model's reference case 0 compiled in and run once under `qemu-system-arm -icount
# shift=0`, where SysTick counts one tick per 40 executed instructions on the MPS2 boards
# (25 MHz) and per 31.25 on mps3-an547 (32 MHz; main.c converts). Reported:
#   code, const   bytes of .text and .rodata the linker kept from the model's library and
#                 the aotc runtime (firmware.map); const = weights and the kernels' tables
#   RAM           .data + .bss of the same (the statically planned activations and kernel
#                 scratch: aotc has no heap and no arena besides these); "+ I/O" adds the
#                 input and output buffers the application provides (TFLM's arena holds them)
#   stack static  the deepest call path from <name>_run through the linked image (objdump:
#                 bl/blx are calls, other branches to a function tail calls), each function's
#                 frame from -fstack-usage (.su); frames of library functions without .su
#                 (memcpy, ...) are read from their prologue (the total is then marked ~)
#   stack run     measured: the stack below main is painted, <name>_run runs, and the deepest
#                 overwritten word is found (main.c)
#   instructions  executed by one <name>_run (to 40 instructions), and per MAC
#   cycles        on the Cortex-M4F: estimated Cortex-M4 cycles of the same call
#                 (../shared/tools/cycles/cycles.py: the run traced once and priced with the
#                 TRM's timings, checked against the firmware's SysTick), per MAC, the
#                 instruction classes that take them, against the published figures to beat;
#                 and the layers that take most cycles (cycle_tables.py)
# On the first target each firmware is built a second time with every kernel instrumented
# (AOTC_FW_PROFILE_LAYERS), which gives the instructions of each layer (layer_table.cmake).
# The comparison with TFLM is for the first target: CMSIS-NN's kernels for a Cortex-M4F
# first, its MVE kernels for a Cortex-M55 first. With README the tables between the
# bench_firmware markers in that file are replaced (bench_firmware:<target>:begin/end when
# the first target is not cortex-m4).
#
# Options: -DMODELS="kws_ref_model;..." -DCOMPILERS="gcc;clang" -DTARGETS="cortex-m4;cortex-m7"
#          (or -DTARGETS=cortex-m55, or cortex-m0plus) -DLAYERS=ON -DTOP_LAYERS=5 -DWORK_DIR=<dir> (default <build>/bench-firmware)
#          -DCOST_TABLE=ON (also fit `aotc analyze`'s [cycles] table to the Cortex-M4F runs: targets/cortex-m4.toml)
#          -DGENERATOR=Ninja -DJOBS=2
cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/script_helpers.cmake")

get_filename_component(source_dir "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
# An option's value unless given with -D.
macro(option_default name)
  if(NOT DEFINED ${name})
    set(${name} ${ARGN})
  endif()
endmacro()
option_default(AOTC_BUILD_DIR "${source_dir}/build")
get_filename_component(AOTC_BUILD_DIR "${AOTC_BUILD_DIR}" ABSOLUTE)
get_filename_component(models_dir "${source_dir}/../shared/models/mlperf-tiny" ABSOLUTE)
option_default(MODELS kws_ref_model vww_96_int8 pretrainedResnet_quant ad01_int8)
option_default(COMPILERS gcc clang)
option_default(TARGETS cortex-m4 cortex-m7)
option_default(LAYERS ON)
option_default(TOP_LAYERS 5)
option_default(COST_TABLE OFF)
option_default(WORK_DIR "${AOTC_BUILD_DIR}/bench-firmware")
option_default(GENERATOR Ninja)
option_default(JOBS 2)
if(NOT EXISTS "${AOTC_BUILD_DIR}/aotc-config/aotcConfig.cmake")
  message(FATAL_ERROR "no aotc build in ${AOTC_BUILD_DIR} (set AOTC_BUILD_DIR)")
endif()
find_program(OBJDUMP arm-none-eabi-objdump REQUIRED)
get_filename_component(cycles_tool "${source_dir}/../shared/tools/cycles/cycles.py" ABSOLUTE)
include("${CMAKE_CURRENT_LIST_DIR}/layer_table.cmake")

# From ../shared/README.md: MACs per inference, and TensorFlow Lite Micro on the same
# QEMU board (arm-none-eabi-gcc 12.2 -O2): executed instructions with the reference kernels
# and with CMSIS-NN, the minimum arena on a 32-bit target, and the model's flatbuffer size
# (TFLM's flash is its interpreter, 75.2 KB with the reference kernels, plus that).
set(macs_kws_ref_model 2.66)
set(macs_vww_96_int8 7.49)
set(macs_pretrainedResnet_quant 12.50)
set(macs_ad01_int8 0.26)
set(tflm_ref_kws_ref_model 200.1)
set(tflm_ref_vww_96_int8 553.6)
set(tflm_ref_pretrainedResnet_quant 827.2)
set(tflm_ref_ad01_int8 1.95)
set(tflm_cmsis_kws_ref_model 7.70)
set(tflm_cmsis_vww_96_int8 24.10)
set(tflm_cmsis_pretrainedResnet_quant 29.86)
set(tflm_cmsis_ad01_int8 0.583)
set(tflm_arena_kws_ref_model 22784)
set(tflm_arena_vww_96_int8 100672)
set(tflm_arena_pretrainedResnet_quant 54352)
set(tflm_arena_ad01_int8 2704)
set(tflm_flatbuffer_kws_ref_model 53936)
set(tflm_flatbuffer_vww_96_int8 333288)
set(tflm_flatbuffer_pretrainedResnet_quant 98496)
set(tflm_flatbuffer_ad01_int8 276976)
set(tflm_interpreter_flash 75200)
# The float32 models (-DMODELS="ad01_fp32;vww_96_float;pretrainedResnet"): CMSIS-NN has no
# float kernels, so TFLM runs them with its reference kernels either way; both TFLM columns
# show that figure (../shared/README.md: instructions and arena on the same board).
set(macs_ad01_fp32 0.26)
set(macs_vww_96_float 7.49)
set(macs_pretrainedResnet 12.50)
foreach(model_figures IN ITEMS "ad01_fp32 1.36 4848 1067648" "vww_96_float 80.6 299968 866284"
                               "pretrainedResnet 88.7 199120 318144")
  string(REPLACE " " ";" model_figures "${model_figures}")
  list(GET model_figures 0 float_model)
  list(GET model_figures 1 tflm_ref_${float_model})
  list(GET model_figures 1 tflm_cmsis_${float_model})
  list(GET model_figures 2 tflm_arena_${float_model})
  list(GET model_figures 3 tflm_flatbuffer_${float_model})
  # Their activations take more than cortex-m4.toml's 128 KB pool (mps2 has 4 MB of RAM).
  set(pools_${float_model} sram:1M)
endforeach()
# On QEMU mps3-an547 (Cortex-M55), TFLM with CMSIS-NN's Helium (MVE) kernels, same build
# otherwise (../shared/README.md): executed instructions of one Invoke(), millions.
set(tflm_mve_kws_ref_model 1.81)
set(tflm_mve_vww_96_int8 6.56)
set(tflm_mve_pretrainedResnet_quant 4.91)
set(tflm_mve_ad01_int8 0.286)

# "a / b" with `digits` decimals (CMake's math() is integer only).
function(ratio a b digits out_var)
  set(scale 1)
  foreach(i RANGE 1 ${digits})
    if(digits GREATER 0)
      math(EXPR scale "${scale} * 10")
    endif()
  endforeach()
  math(EXPR q "(${a} * ${scale} + ${b} / 2) / ${b}")
  math(EXPR whole "${q} / ${scale}")
  math(EXPR frac "${q} % ${scale}")
  string(LENGTH "${frac}" len)
  while(len LESS digits)
    set(frac "0${frac}")
    math(EXPR len "${len} + 1")
  endwhile()
  if(digits EQUAL 0)
    set(${out_var} "${whole}" PARENT_SCOPE)
  else()
    set(${out_var} "${whole}.${frac}" PARENT_SCOPE)
  endif()
endfunction()

# A decimal string like "2.66" (millions) as an integer count.
function(millions value out_var)
  string(REGEX MATCH "^([0-9]+)\\.?([0-9]*)$" _ "${value}")
  set(whole "${CMAKE_MATCH_1}")
  set(frac "${CMAKE_MATCH_2}000000")
  string(SUBSTRING "${frac}" 0 6 frac)
  string(REGEX REPLACE "^0+([0-9])" "\\1" frac "${frac}")
  math(EXPR n "${whole} * 1000000 + ${frac}")
  set(${out_var} ${n} PARENT_SCOPE)
endfunction()

# 1234567 -> "1,234,567"
function(thousands value out_var)
  set(text "${value}")
  set(result "")
  string(LENGTH "${text}" len)
  while(len GREATER 3)
    math(EXPR cut "${len} - 3")
    string(SUBSTRING "${text}" ${cut} 3 group)
    string(SUBSTRING "${text}" 0 ${cut} text)
    set(result ",${group}${result}")
    set(len ${cut})
  endwhile()
  set(${out_var} "${text}${result}" PARENT_SCOPE)
endfunction()

# Bytes a push/stmdb/vpush register list takes: "r4, r5, lr" -> 12, "d8-d15" -> 64.
function(register_list_bytes list out_var)
  string(REPLACE " " "" list "${list}")
  string(REPLACE "," ";" regs "${list}")
  set(bytes 0)
  foreach(reg IN LISTS regs)
    set(unit 4)
    if(reg MATCHES "^d")
      set(unit 8)
    endif()
    set(count 1)
    if(reg MATCHES "^[a-z]+([0-9]+)-[a-z]+([0-9]+)$")
      math(EXPR count "${CMAKE_MATCH_2} - ${CMAKE_MATCH_1} + 1")
    endif()
    math(EXPR bytes "${bytes} + ${count} * ${unit}")
  endforeach()
  set(${out_var} ${bytes} PARENT_SCOPE)
endfunction()

# Worst stack depth from `root` through the linked image: frames from the .su files under
# build_dir, the call graph from objdump. Sets stack_static (with "~" if a frame on the
# worst path came from a prologue, "?" for recursion or an unknown frame).
function(static_stack elf build_dir root)
  file(GLOB_RECURSE su_files "${build_dir}/CMakeFiles/*.su")
  foreach(su IN LISTS su_files)
    file(STRINGS "${su}" lines)
    foreach(line IN LISTS lines)
      if(line MATCHES ":([A-Za-z_][A-Za-z0-9_.]*)\t([0-9]+)\t")
        set(fn "${CMAKE_MATCH_1}")
        set(bytes "${CMAKE_MATCH_2}")
        if(NOT DEFINED frame_${fn} OR bytes GREATER frame_${fn})
          set(frame_${fn} ${bytes})
        endif()
      endif()
    endforeach()
  endforeach()

  run_step("${OBJDUMP}" -d --no-show-raw-insn "${elf}" OUTPUT disassembly QUIET)
  # One list entry per function ("[", "]" and ";" would confuse CMake lists).
  string(REPLACE ";" "," disassembly "${disassembly}")
  string(REPLACE "[" "(" disassembly "${disassembly}")
  string(REPLACE "]" ")" disassembly "${disassembly}")
  string(REPLACE "\n\n" ";" blocks "${disassembly}")
  set(functions)
  foreach(block IN LISTS blocks)
    if(NOT block MATCHES "^[0-9a-f]+ <([^>]+)>:\n")
      continue()
    endif()
    set(fn "${CMAKE_MATCH_1}")
    list(APPEND functions "${fn}")
    # bl/blx call: the callee's frame comes on top of ours. Any other branch to another
    # function is a tail call, made after our frame is popped.
    string(REGEX MATCHALL "\tb[a-z.]*\t[0-9a-f]+ <[^>+]+>" branches "${block}")
    set(callees)
    set(tail_callees)
    foreach(branch IN LISTS branches)
      string(REGEX REPLACE ".*<([^>+]+)>$" "\\1" callee "${branch}")
      if(callee STREQUAL fn)
        continue()
      elseif(branch MATCHES "^\tblx?\t")
        list(APPEND callees "${callee}")
      else()
        list(APPEND tail_callees "${callee}")
      endif()
    endforeach()
    list(REMOVE_DUPLICATES callees)
    list(REMOVE_DUPLICATES tail_callees)
    set(calls_${fn} "${callees}")
    set(tail_calls_${fn} "${tail_callees}")
    # gcc's .su names a clone "f.constprop" where the symbol is "f.constprop.0".
    if(NOT DEFINED frame_${fn} AND fn MATCHES "^(.*)\\.[0-9]+$" AND DEFINED frame_${CMAKE_MATCH_1})
      set(frame_${fn} ${frame_${CMAKE_MATCH_1}})
    endif()
    if(NOT DEFINED frame_${fn})
      set(bytes 0)
      if(block MATCHES "\t(push|stmdb)(\\.w)?\t(sp!, )?\\{([^}]*)\\}")
        register_list_bytes("${CMAKE_MATCH_4}" pushed)
        math(EXPR bytes "${bytes} + ${pushed}")
      endif()
      if(block MATCHES "\tvpush\t\\{([^}]*)\\}")
        register_list_bytes("${CMAKE_MATCH_1}" pushed)
        math(EXPR bytes "${bytes} + ${pushed}")
      endif()
      if(block MATCHES "\tsub(w|\\.w)?\tsp, (sp, )?#([0-9]+)")
        math(EXPR bytes "${bytes} + ${CMAKE_MATCH_3}")
      endif()
      set(frame_${fn} ${bytes})
      set(estimated_${fn} 1)
    endif()
  endforeach()

  # Within depth_of: sets deepest, deepest_flag and deepest_path to the depth, flag and path
  # of the deepest function in the list variable `callees` (0 and "" for none). A macro, so
  # that what depth_of finds for the callees lands in the calling depth_of's scope.
  macro(deepest_of callees)
    set(deepest 0)
    set(deepest_flag "")
    set(deepest_path "")
    foreach(callee IN LISTS ${callees})
      depth_of("${callee}")
      if(depth_${callee} GREATER deepest)
        set(deepest ${depth_${callee}})
        set(deepest_flag "${flag_${callee}}")
        set(deepest_path "${path_${callee}}")
      endif()
    endforeach()
  endmacro()
  # Depth-first, memoized; a function on the current path again means recursion.
  function(depth_of fn)
    if(DEFINED depth_${fn})
      return()
    endif()
    if(visiting_${fn})
      set(depth_${fn} 0 PARENT_SCOPE)
      set(flag_${fn} "?" PARENT_SCOPE)
      set(path_${fn} "${fn} (recursion)" PARENT_SCOPE)
      return()
    endif()
    set(visiting_${fn} 1)
    deepest_of(calls_${fn})
    set(flag "${deepest_flag}")
    if(NOT DEFINED frame_${fn})
      set(frame_${fn} 0)
      set(flag "?")
    elseif(estimated_${fn} AND NOT flag STREQUAL "?")
      set(flag "~")
    endif()
    math(EXPR total "${frame_${fn}} + ${deepest}")
    set(path "${fn} (${frame_${fn}})")
    if(deepest GREATER 0)
      string(APPEND path " > ${deepest_path}")
    endif()
    deepest_of(tail_calls_${fn})
    if(deepest GREATER total)
      set(total ${deepest})
      set(flag "${deepest_flag}")
      set(path "${fn} (tail call) > ${deepest_path}")
    endif()
    # Results go to the caller's scope and, through it, up to static_stack.
    set(depth_${fn} ${total} PARENT_SCOPE)
    set(flag_${fn} "${flag}" PARENT_SCOPE)
    set(path_${fn} "${path}" PARENT_SCOPE)
    foreach(callee IN LISTS calls_${fn} tail_calls_${fn})
      set(depth_${callee} ${depth_${callee}} PARENT_SCOPE)
      set(flag_${callee} "${flag_${callee}}" PARENT_SCOPE)
      set(path_${callee} "${path_${callee}}" PARENT_SCOPE)
    endforeach()
  endfunction()
  if(NOT root IN_LIST functions)
    message(FATAL_ERROR "${root} not found in ${elf}")
  endif()
  depth_of("${root}")
  message(STATUS "deepest stack path: ${path_${root}}")
  set(stack_static "${flag_${root}}${depth_${root}}" PARENT_SCOPE)
endfunction()

# ---- Build, run, measure ----------------------------------------------------------------
# build_and_run(<dir> <target> <compiler> <model> [<cmake option>...]): configures and builds
# examples/firmware in <dir> for the model with its reference case 0, runs it under
# -icount shift=0 and leaves QEMU's output in <dir>/qemu-icount.log; sets `instructions`
# and `stack_run`. The model is ../shared's <model>.tflite with its reference/<model>/
# unless model_file_<model> and reference_dir_<model> name others (bench_onnx_twins.cmake).
# The firmware compares its output with reference_dir's output_0.bin when there is one and
# reports "result: PASS"; run_qemu.cmake also compares the printed bytes, unless
# no_printed_check_<model> is set (bench_onnx_float.cmake, whose networks' outputs the
# tests check against torch's with the float tolerances of tests/e2e).
function(build_and_run dir target compiler model)
  set(pools "${pools_${model}}")
  if(DEFINED pools_${target}_${model})
    set(pools "${pools_${target}_${model}}")
  endif()
  set(model_file "${models_dir}/${model}.tflite")
  set(reference_dir "${models_dir}/reference/${model}")
  if(DEFINED model_file_${model})
    set(model_file "${model_file_${model}}")
    set(reference_dir "${reference_dir_${model}}")
  endif()
  run_step("${CMAKE_COMMAND}" -S "${source_dir}/examples/firmware" -B "${dir}" -G "${GENERATOR}"
      "-DCMAKE_TOOLCHAIN_FILE=${source_dir}/cmake/toolchains/${target}-${compiler}.cmake"
      "-Daotc_DIR=${AOTC_BUILD_DIR}/aotc-config" "-DAOTC_FW_MODEL=${model_file}"
      -DAOTC_FW_TARGET=${target} "-DAOTC_FW_REFERENCE_DIR=${reference_dir}"
      -DAOTC_FW_CASES=1 "-DAOTC_FW_POOLS=${pools}" ${ARGN} QUIET)
  run_step("${CMAKE_COMMAND}" --build "${dir}" --parallel ${JOBS} QUIET)
  set(printed_check "-DREFERENCE_DIR=${reference_dir}")
  if(no_printed_check_${model})
    set(printed_check "")
  endif()
  run_step("${CMAKE_COMMAND}" "-DELF=${dir}/firmware.elf" -DMACHINE=${machine_${target}} -DICOUNT=ON
      ${printed_check} "-DLOG=${dir}/qemu-icount.log"
      -P "${source_dir}/examples/firmware/cmake/run_qemu.cmake" QUIET)
  file(READ "${dir}/qemu-icount.log" log)
  if(NOT log MATCHES "case 0: status 0, instructions ([0-9]+), stack ([0-9]+) bytes")
    message(FATAL_ERROR "no measurement in ${dir}/qemu-icount.log")
  endif()
  set(instructions ${CMAKE_MATCH_1} PARENT_SCOPE)
  set(stack_run ${CMAKE_MATCH_2} PARENT_SCOPE)
endfunction()

# estimate_cycles(<dir> <function>): the cycle tool on <dir>/firmware.elf, one traced run of
# <function>, into <dir>/cycles.json and <dir>/cycles.txt (the report with every executed
# instruction, whose classes cycle_tables.py sums per layer). Its self-checks (spin loop and
# region against SysTick) must pass.
function(estimate_cycles dir function)
  run_step(/usr/bin/python3 "${cycles_tool}" "${dir}/firmware.elf" --func ${function}
      --metadata "${dir}/model/metadata.json" --json "${dir}/cycles.json" --top-insns 1000000 OUTPUT report QUIET)
  file(WRITE "${dir}/cycles.txt" "${report}")
endfunction()

set(machine_cortex-m4 mps2-an386)
set(machine_cortex-m7 mps2-an500)
set(machine_cortex-m55 mps3-an547)
set(machine_cortex-m0plus mps2-an385)
# cortex-m0plus.toml's pool is 32 KB; vww and resnet are built for an RP2040-class part's 256 KB.
set(pools_cortex-m0plus_vww_96_int8 sram:256K)
set(pools_cortex-m0plus_pretrainedResnet_quant sram:256K)
set(title_cortex-m4 "Cortex-M4F (QEMU mps2-an386, -icount shift=0)")
set(title_cortex-m7 "Cortex-M7 (QEMU mps2-an500, -icount shift=0)")
set(title_cortex-m55 "Cortex-M55 with Helium (QEMU mps3-an547, -icount shift=0, 31.25 instructions per SysTick tick)")
set(title_cortex-m0plus "Cortex-M0+ image (Armv6-M, no DSP) on the Cortex-M3 of QEMU mps2-an385, -icount shift=0")
# Included with BENCH_FIRMWARE_FUNCTIONS_ONLY (bench_onnx_twins.cmake): the functions and
# figures above, without the benchmark below.
if(BENCH_FIRMWARE_FUNCTIONS_ONLY)
  return()
endif()
foreach(target IN LISTS TARGETS)
  if(NOT DEFINED machine_${target})
    message(FATAL_ERROR "target ${target}: no QEMU board known (cortex-m4, cortex-m7, cortex-m55, cortex-m0plus)")
  endif()
endforeach()
list(GET TARGETS 0 main_target)
list(GET COMPILERS 0 first)
set(tables "")
set(summary_rows "")
set(cycle_runs "")
foreach(target IN LISTS TARGETS)
  set(rows "")
  foreach(model IN LISTS MODELS)
    set(instr_list "")
    foreach(compiler IN LISTS COMPILERS)
      set(dir "${WORK_DIR}/${model}-${target}-${compiler}")
      build_and_run("${dir}" ${target} ${compiler} ${model})
      map_sizes("${dir}/firmware.map")
      file(READ "${dir}/model/metadata.json" metadata)
      string(JSON name GET "${metadata}" name)
      set(io 0)
      foreach(kind IN ITEMS inputs outputs)
        string(JSON count LENGTH "${metadata}" ${kind})
        math(EXPR last "${count} - 1")
        foreach(i RANGE ${last})
          string(JSON bytes GET "${metadata}" ${kind} ${i} bytes)
          math(EXPR io "${io} + ${bytes}")
        endforeach()
      endforeach()
      static_stack("${dir}/firmware.elf" "${dir}" "${name}_run")
      if(target STREQUAL "cortex-m4")
        estimate_cycles("${dir}" "${name}_run")
        list(APPEND cycle_runs "${model}:${compiler}:${dir}")
      endif()

      math(EXPR flash "${code} + ${const} + ${data}")
      math(EXPR ram "${data} + ${bss}")
      math(EXPR ram_io "${ram} + ${io}")
      millions(${macs_${model}} macs)
      ratio(${instructions} ${macs} 2 per_mac)
      ratio(${instructions} 1000000 2 instr_m)
      foreach(v code const flash ram ram_io instructions)
        thousands(${${v}} ${v}_text)
      endforeach()
      string(APPEND rows "| ${model} | ${compiler} | ${code_text} | ${const_text} | ${flash_text} | ${ram_text} | ${ram_io_text} | ${stack_static} | ${stack_run} | ${instructions_text} | ${per_mac} |\n")
      list(APPEND instr_list "${instr_m} M (${per_mac})")
      set(flash_${model}_${compiler} ${flash})
      set(ram_io_${model}_${compiler} ${ram_io})
      set(total_${model}_${compiler} ${instructions})

      # The slowest layers: the same firmware with every kernel instrumented (layer_table.cmake).
      if(LAYERS AND target STREQUAL main_target)
        set(layer_dir "${dir}-layers")
        build_and_run("${layer_dir}" ${target} ${compiler} ${model} -DAOTC_FW_PROFILE_LAYERS=ON)
        read_layer_counts("${layer_dir}" ${model} ${compiler})
      endif()
    endforeach()

    if(NOT target STREQUAL main_target OR target STREQUAL "cortex-m0plus")  # no TFLM figures for the M0+
      continue()
    endif()
    if(target STREQUAL "cortex-m55")
      # Against TFLM with CMSIS-NN's Helium kernels on the same board, and the goal of
      # issue #15: at most 0.75x its instructions. ../shared has no such figure for the
      # float32 models (CMSIS-NN has no float kernels): their rows stand alone.
      if(NOT DEFINED tflm_mve_${model})
        continue()
      endif()
      millions(${tflm_mve_${model}} mve)
      ratio(${mve} ${macs} 2 mve_per_mac)
      math(EXPR goal "${mve} * 3 / 4")
      ratio(${goal} 1000000 3 goal_m)
      list(JOIN instr_list " / " instr_text)
      set(cells "")
      foreach(compiler IN LISTS COMPILERS)
        ratio(${total_${model}_${compiler}} ${mve} 2 against)
        string(APPEND cells " ${against}x |")
      endforeach()
      string(APPEND summary_rows "| ${model} | ${macs_${model}} M | ${instr_text} | ${tflm_mve_${model}} M (${mve_per_mac}) |${cells} ${goal_m} M |\n")
      continue()
    endif()
    # TFLM next to aotc (first compiler's flash and RAM; instructions for each compiler).
    millions(${tflm_cmsis_${model}} cmsis)
    ratio(${cmsis} ${macs} 2 cmsis_per_mac)
    math(EXPR tflm_flash "${tflm_interpreter_flash} + ${tflm_flatbuffer_${model}}")
    thousands(${tflm_flash} tflm_flash_text)
    thousands(${flash_${model}_${first}} aotc_flash_text)
    thousands(${ram_io_${model}_${first}} aotc_ram_text)
    thousands(${tflm_arena_${model}} tflm_arena_text)
    list(JOIN instr_list " / " instr_text)
    set(ratios "")
    foreach(compiler IN LISTS COMPILERS)
      ratio(${total_${model}_${compiler}} ${cmsis} 2 r)
      list(APPEND ratios "${r}x")
    endforeach()
    list(JOIN ratios " / " ratio_text)
    string(APPEND summary_rows "| ${model} | ${macs_${model}} M | ${instr_text} | ${ratio_text} | ${tflm_ref_${model}} M | ${tflm_cmsis_${model}} M (${cmsis_per_mac}) | ${aotc_flash_text} | ~${tflm_flash_text} | ${aotc_ram_text} | ${tflm_arena_text} |\n")
  endforeach()
  string(APPEND tables "${title_${target}}, -O2, reference case 0 of each model.\n\n")
  string(APPEND tables "| model | compiler | code B | const B | flash B | RAM B | RAM + I/O B | stack static B | stack run B | instructions | instr/MAC |\n")
  string(APPEND tables "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n${rows}\n")
endforeach()

list(JOIN COMPILERS " / " compilers_text)
set(table "${tables}")
if(main_target STREQUAL "cortex-m55" AND summary_rows STREQUAL "")
  # Only float32 models: no TFLM figures to put next to them.
elseif(main_target STREQUAL "cortex-m55")
  string(APPEND table "Against TensorFlow Lite Micro with CMSIS-NN's Helium (MVE) kernels on the same board (../shared/README.md), and the goal of issue #15 (0.75x those instructions):\n\n")
  string(APPEND table "| model | MACs | aotc instructions (instr/MAC), ${compilers_text} | TFLM CMSIS-NN MVE (instr/MAC) |")
  set(rule "|---|--:|--:|--:|")
  foreach(compiler IN LISTS COMPILERS)
    string(APPEND table " aotc ${compiler} / TFLM |")
    string(APPEND rule "--:|")
  endforeach()
  string(APPEND table " goal |\n${rule}--:|\n${summary_rows}")
elseif(main_target STREQUAL "cortex-m0plus")
  # ../shared/README.md has no TFLite Micro figures for this core.
else()
string(APPEND table "Against TensorFlow Lite Micro on the ${title_${main_target}} (figures from ../shared/README.md; TFLM flash = 75.2 KB interpreter with reference kernels + the model flatbuffer; TFLM RAM = minimum arena on a 32-bit target, which holds the input and output tensors too):\n\n")
string(APPEND table "| model | MACs | aotc instructions (instr/MAC), ${compilers_text} | aotc / TFLM CMSIS-NN, ${compilers_text} | TFLM reference kernels | TFLM CMSIS-NN (instr/MAC) | aotc flash B (${first}) | TFLM flash B | aotc RAM + I/O B (${first}) | TFLM arena B |\n")
string(APPEND table "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n${summary_rows}")
endif()
if(cycle_runs)
  run_step("${CMAKE_COMMAND}" -E env TOP_LAYERS=${TOP_LAYERS} COST_TABLE=${COST_TABLE} /usr/bin/python3 "${CMAKE_CURRENT_LIST_DIR}/cycle_tables.py"
      ${cycle_runs} OUTPUT cycles_text QUIET)
  string(APPEND table "\n${cycles_text}")
endif()
if(LAYERS)
  layer_table(layers_text)
  string(APPEND table "\n${layers_text}")
endif()

message("\n${table}")
if(DEFINED README)
  set(begin "<!-- bench_firmware:begin -->")
  set(end "<!-- bench_firmware:end -->")
  if(NOT main_target STREQUAL "cortex-m4")
    set(begin "<!-- bench_firmware:${main_target}:begin -->")
    set(end "<!-- bench_firmware:${main_target}:end -->")
  endif()
  replace_between_markers("${README}" "${begin}" "${end}" "${table}")
endif()
