# bench_onnx_float.cmake: executed instructions of one inference of the float32 torch test
# networks (tests/models/<name>: model.onnx and input_0.bin), each compiled by aotc into the
# example firmware and run once on QEMU under -icount shift=0 (bench_firmware.cmake's
# build_and_run). The firmware gets the input only: whether the generated C computes torch's
# output is the tests' question (RealModel.MatchesTorchWithCortexM4Plan, tests/e2e/
# test_models.cc, within rtol 1e-4 and atol 1e-5 of torch's output_0.bin, the same C built for
# the host), since a float network summed in another order can miss the firmware's 1e-5
# relative check on a value near zero without being wrong.
#
#   cmake -DAOTC_BUILD_DIR=build -DWORK_DIR=<dir> -P bench/firmware/bench_onnx_float.cmake
#
# Options as bench_firmware.cmake's: -DNETWORKS=small_cnn;mobilenet_v3;shufflenet
# -DCOMPILERS=gcc -DTARGETS=cortex-m4 (the first compiler and target are measured).
# Activations need more than cortex-m4.toml's default pool: each is built with sram:1M.
cmake_minimum_required(VERSION 3.20)
set(BENCH_FIRMWARE_FUNCTIONS_ONLY ON)
if(NOT DEFINED COMPILERS)
  set(COMPILERS gcc)
endif()
if(NOT DEFINED TARGETS)
  set(TARGETS cortex-m4)
endif()
if(NOT DEFINED NETWORKS)
  set(NETWORKS small_cnn mobilenet_v3 shufflenet)
endif()
if(NOT DEFINED WORK_DIR AND DEFINED AOTC_BUILD_DIR)
  get_filename_component(WORK_DIR "${AOTC_BUILD_DIR}/bench-onnx-float" ABSOLUTE)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/bench_firmware.cmake")

list(GET TARGETS 0 target)
list(GET COMPILERS 0 compiler)
set(table "${title_${target}}, ${compiler} -O2, executed instructions of one inference (input_0.bin):\n\n| network | instructions |\n|---|--:|\n")
foreach(network IN LISTS NETWORKS)
  set(model_file_${network} "${source_dir}/tests/models/${network}/model.onnx")
  set(reference_dir_${network} "${WORK_DIR}/${network}-input")
  file(MAKE_DIRECTORY "${reference_dir_${network}}")
  file(COPY "${source_dir}/tests/models/${network}/input_0.bin" DESTINATION "${reference_dir_${network}}")
  set(pools_${network} sram:1M)
  set(no_printed_check_${network} ON)
  build_and_run("${WORK_DIR}/${network}-${target}-${compiler}" ${target} ${compiler} ${network})
  thousands(${instructions} text)
  string(APPEND table "| ${network} | ${text} |\n")
endforeach()
message("\n${table}")
