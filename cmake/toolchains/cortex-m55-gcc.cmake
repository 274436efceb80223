# cortex-m55-gcc.cmake: CMake toolchain file for Arm Cortex-M55 (Armv8.1-M Mainline, Helium
# vector extension, FPU), compiled with arm-none-eabi-gcc (newlib's v8.1-m.main+mve/hard multilib).
# Usage: cmake -DCMAKE_TOOLCHAIN_FILE=<this file> ...; pair it with
# aotc_add_model(... TARGET cortex-m55). The CPU flags are those of aotc's targets/cortex-m55.toml.
set(AOTC_ARM_TARGET cortex-m55)
set(AOTC_ARM_COMPILER gcc)
set(AOTC_ARM_TRIPLE thumbv8.1m.main-none-eabi)
set(AOTC_ARM_CPU_FLAGS "-mcpu=cortex-m55 -mfloat-abi=hard -mthumb")
include("${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-common.cmake")
