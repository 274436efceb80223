# bench_onnx_twins.cmake: executed instructions of the int8 MLPerf Tiny models next to their
# ONNX twins (tests/models/onnx_twins: the same quantized networks, channels-first, with
# QLinearConv and in QDQ form), each compiled by aotc into the example firmware and run once
# on QEMU under -icount shift=0 (bench_firmware.cmake's build_and_run: reference case 0 of
# each model compiled in, its output checked against the model's reference bytes).
#
#   cmake -DAOTC_BUILD_DIR=build -DWORK_DIR=<dir> [-DREADME=tests/models/onnx_twins/README.md]
#         -P bench/firmware/bench_onnx_twins.cmake
#
# Options as bench_firmware.cmake's: -DMODELS=... -DCOMPILERS=gcc -DTARGETS=cortex-m4 (the
# first compiler and target are measured) -DWORK_DIR=<dir> -DGENERATOR=Ninja -DJOBS=2.
# With README the table between <!-- bench_onnx_twins:begin --> and <!-- bench_onnx_twins:end -->
# in that file is replaced.
cmake_minimum_required(VERSION 3.20)
set(BENCH_FIRMWARE_FUNCTIONS_ONLY ON)
if(NOT DEFINED COMPILERS)
  set(COMPILERS gcc)
endif()
if(NOT DEFINED TARGETS)
  set(TARGETS cortex-m4)
endif()
if(NOT DEFINED WORK_DIR AND DEFINED AOTC_BUILD_DIR)
  get_filename_component(WORK_DIR "${AOTC_BUILD_DIR}/bench-onnx-twins" ABSOLUTE)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/bench_firmware.cmake")

list(GET TARGETS 0 target)
list(GET COMPILERS 0 compiler)
set(twins_dir "${source_dir}/tests/models/onnx_twins")
set(forms qlinear qdq)
set(rows "")
foreach(model IN LISTS MODELS)
  build_and_run("${WORK_DIR}/${model}-${target}-${compiler}" ${target} ${compiler} ${model})
  set(tflite ${instructions})
  thousands(${tflite} row)
  set(row "| ${model} | ${row} |")
  set(ratios "")
  foreach(form IN LISTS forms)
    set(twin ${model}_${form})
    set(model_file_${twin} "${twins_dir}/${twin}/model.onnx")
    set(reference_dir_${twin} "${twins_dir}/${twin}")
    build_and_run("${WORK_DIR}/${twin}-${target}-${compiler}" ${target} ${compiler} ${twin})
    thousands(${instructions} text)
    ratio(${instructions} ${tflite} 2 r)
    string(APPEND row " ${text} |")
    string(APPEND ratios " ${r}x |")
  endforeach()
  string(APPEND rows "${row}${ratios}\n")
endforeach()

set(table "${title_${target}}, ${compiler} -O2, executed instructions of one inference (reference case 0 of each model; every output identical to its reference):\n\n")
string(APPEND table "| model | TFLite | ONNX QLinearConv twin | ONNX QDQ twin | QLinearConv / TFLite | QDQ / TFLite |\n")
string(APPEND table "|---|--:|--:|--:|--:|--:|\n${rows}")
message("\n${table}")
if(DEFINED README)
  replace_between_markers("${README}" "<!-- bench_onnx_twins:begin -->" "<!-- bench_onnx_twins:end -->" "${table}")
endif()
