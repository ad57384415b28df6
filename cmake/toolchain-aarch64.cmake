# Cross build for aarch64-linux-gnu (Debian 12: gcc-aarch64-linux-gnu, qemu-user; the test dependencies from
# Debian's arm64 packages through multiarch: libcunit1-dev:arm64 libjansson-dev:arm64 libsuitesparse-dev:arm64,
# see scripts/install-deps.sh). ctest runs the cross-built tests under qemu-aarch64; the CPU model and the SVE
# vector length come from QEMU_CPU in the environment (scripts/test-sve.sh sets them per run).
#
#   cmake -S . -B build-sve -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
#   QEMU_CPU=max,sve-default-vector-length=32 ctest --test-dir build-sve
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(SPMV_CROSS_TRIPLE aarch64-linux-gnu CACHE STRING "GNU triple of the aarch64 cross compiler")
set(CMAKE_C_COMPILER ${SPMV_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${SPMV_CROSS_TRIPLE}-g++)

# Headers and libraries of the target: the cross toolchain's own folder plus Debian's multiarch folders
# (/usr/include is shared between architectures; libraries live in /usr/lib/aarch64-linux-gnu).
set(CMAKE_FIND_ROOT_PATH /usr/${SPMV_CROSS_TRIPLE})
set(CMAKE_LIBRARY_ARCHITECTURE ${SPMV_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu)

# pkg-config must see the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${SPMV_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# ctest (and add_test with an executable target) prefixes the command with this. With multiarch (libc6:arm64,
# pulled in by the :arm64 test dependencies) qemu finds /lib/ld-linux-aarch64.so.1 and the arm64 libraries by
# itself; without it, -L points qemu at the cross toolchain's libc (not mixed with multiarch: versions differ).
find_program(SPMV_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(SPMV_QEMU_AARCH64)
  if(EXISTS /lib/ld-linux-aarch64.so.1)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${SPMV_QEMU_AARCH64} CACHE STRING "Runs the cross-built tests")
  else()
    set(CMAKE_CROSSCOMPILING_EMULATOR ${SPMV_QEMU_AARCH64} -L /usr/${SPMV_CROSS_TRIPLE} CACHE STRING
        "Runs the cross-built tests")
  endif()
endif()
