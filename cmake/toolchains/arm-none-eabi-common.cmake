# arm-none-eabi-common.cmake: the part shared by aotc's Cortex-M toolchain files.
#
# Not a toolchain file by itself: cortex-m*-gcc.cmake and cortex-m*-clang.cmake set
#   AOTC_ARM_CPU_FLAGS  -mcpu/-mfloat-abi/-mfpu/-mthumb, the same as targets/<target>.toml
#   AOTC_ARM_TRIPLE     clang's --target (thumbv6m-none-eabi, thumbv7em-none-eabi)
#   AOTC_ARM_COMPILER   gcc or clang
#   AOTC_ARM_TARGET     the aotc target name (cortex-m4, ...)
# and include this file.
#
# Both compilers use newlib from Debian's libnewlib-arm-none-eabi. gcc compiles and links
# as usual. clang compiles (with --target and newlib's headers through --sysroot) but has
# no bare-metal runtime of its own here, so executables are linked by arm-none-eabi-gcc,
# which picks the matching newlib/libgcc multilib from the CPU flags. -fshort-enums gives
# clang the enum size of the arm-none-eabi ABI that newlib and libgcc were built with.
#
# Link options such as -T <linker script>, --specs=rdimon.specs or -nostartfiles are the
# firmware project's choice (target_link_options); nothing here assumes a board.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
# No board is known here, so CMake's compiler checks must not try to link a program.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

find_program(AOTC_ARM_GCC arm-none-eabi-gcc)
if(NOT AOTC_ARM_GCC)
  message(FATAL_ERROR "arm-none-eabi-gcc not found (Debian: apt-get install gcc-arm-none-eabi "
                      "libnewlib-arm-none-eabi)")
endif()
get_filename_component(_aotc_arm_bin "${AOTC_ARM_GCC}" DIRECTORY)
# newlib's headers and libraries (Debian: /usr/lib/arm-none-eabi).
get_filename_component(AOTC_ARM_SYSROOT "${_aotc_arm_bin}/../lib/arm-none-eabi" ABSOLUTE)

if(AOTC_ARM_COMPILER STREQUAL "gcc")
  set(CMAKE_C_COMPILER "${AOTC_ARM_GCC}")
  set(CMAKE_ASM_COMPILER "${AOTC_ARM_GCC}")
  set(CMAKE_C_FLAGS_INIT "${AOTC_ARM_CPU_FLAGS}")
  set(CMAKE_ASM_FLAGS_INIT "${AOTC_ARM_CPU_FLAGS}")
elseif(AOTC_ARM_COMPILER STREQUAL "clang")
  find_program(AOTC_ARM_CLANG NAMES clang clang-14)
  if(NOT AOTC_ARM_CLANG)
    message(FATAL_ERROR "clang not found")
  endif()
  set(CMAKE_C_COMPILER "${AOTC_ARM_CLANG}")
  set(CMAKE_ASM_COMPILER "${AOTC_ARM_CLANG}")
  set(CMAKE_C_COMPILER_TARGET ${AOTC_ARM_TRIPLE})
  set(CMAKE_ASM_COMPILER_TARGET ${AOTC_ARM_TRIPLE})
  set(CMAKE_C_FLAGS_INIT "${AOTC_ARM_CPU_FLAGS} -fshort-enums --sysroot=${AOTC_ARM_SYSROOT}")
  set(CMAKE_ASM_FLAGS_INIT "${AOTC_ARM_CPU_FLAGS}")
  # Link with arm-none-eabi-gcc. Only the CPU flags are passed (they select the multilib):
  # the compile flags are clang's (--target, --sysroot) and gcc would reject some of them.
  set(CMAKE_C_LINK_EXECUTABLE
    "${AOTC_ARM_GCC} ${AOTC_ARM_CPU_FLAGS} -Wl,-z,noexecstack <CMAKE_C_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
  set(CMAKE_ASM_LINK_EXECUTABLE "${CMAKE_C_LINK_EXECUTABLE}")
else()
  message(FATAL_ERROR "AOTC_ARM_COMPILER must be gcc or clang, not '${AOTC_ARM_COMPILER}'")
endif()

# Binary utilities from the GNU toolchain for both compilers: AOTC_ARM_SIZE, AOTC_ARM_OBJCOPY,
# AOTC_ARM_OBJDUMP, AOTC_ARM_NM.
foreach(tool IN ITEMS size objcopy objdump nm)
  string(TOUPPER "${tool}" upper)
  find_program(AOTC_ARM_${upper} arm-none-eabi-${tool} HINTS "${_aotc_arm_bin}")
endforeach()

# Programs (aotc, cmake) run on the build machine; libraries and headers come from the
# cross toolchain; packages (find_package(aotc)) are looked up on the build machine too.
set(CMAKE_FIND_ROOT_PATH "${AOTC_ARM_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
