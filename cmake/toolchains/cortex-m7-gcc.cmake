# cortex-m7-gcc.cmake: CMake toolchain file for Arm Cortex-M7 (double-precision FPU),
# compiled with arm-none-eabi-gcc.
# Usage: cmake -DCMAKE_TOOLCHAIN_FILE=<this file> ...; pair it with
# aotc_add_model(... TARGET cortex-m7). The CPU flags are those of aotc's targets/cortex-m7.toml.
set(AOTC_ARM_TARGET cortex-m7)
set(AOTC_ARM_COMPILER gcc)
set(AOTC_ARM_TRIPLE thumbv7em-none-eabi)
set(AOTC_ARM_CPU_FLAGS "-mcpu=cortex-m7 -mfloat-abi=hard -mfpu=fpv5-d16 -mthumb")
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
