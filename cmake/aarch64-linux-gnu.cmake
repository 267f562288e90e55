# SPDX-License-Identifier: MIT
# Cross toolchain for Linux aarch64 with Debian's gcc-aarch64-linux-gnu, run
# under qemu-user (tests/neon/: the NEON back end tested on an x86 machine).
#   cmake -S tests/neon/cross -B build-neon -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# CTest runs each cross-compiled test through CMAKE_CROSSCOMPILING_EMULATOR:
# qemu's "max" CPU has AdvSIMD with dotprod (so the dispatch picks "neon"); -L
# points the guest's dynamic loader at the Debian aarch64 runtime libraries.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(MIO_CROSS_TRIPLE aarch64-linux-gnu)
set(MIO_CROSS_SYSROOT /usr/${MIO_CROSS_TRIPLE})
set(CMAKE_C_COMPILER ${MIO_CROSS_TRIPLE}-gcc)
set(CMAKE_FIND_ROOT_PATH ${MIO_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-cpu;max;-L;${MIO_CROSS_SYSROOT};-E;LD_LIBRARY_PATH=${MIO_CROSS_SYSROOT}/lib)
