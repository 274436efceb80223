# cortex-m0plus-clang.cmake: CMake toolchain file for Arm Cortex-M0+ (Armv6-M, no FPU),
# compiled with clang --target=thumbv6m-none-eabi, linked by arm-none-eabi-gcc.
# Usage: cmake -DCMAKE_TOOLCHAIN_FILE=<this file> ...; pair it with
# aotc_add_model(... TARGET cortex-m0plus). The CPU flags are those of aotc's targets/cortex-m0plus.toml.
set(AOTC_ARM_TARGET cortex-m0plus)
set(AOTC_ARM_COMPILER clang)
set(AOTC_ARM_TRIPLE thumbv6m-none-eabi)
set(AOTC_ARM_CPU_FLAGS "-mcpu=cortex-m0plus -mfloat-abi=soft -mthumb")
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
