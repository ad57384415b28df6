#!/usr/bin/env bash
# Install the Debian 12 packages spmv needs to build and test (as root, or through sudo). Everything README's two
# commands need on a fresh (debootstrap --variant=minbase) Debian 12 root: scripts/check-fresh-debian.sh proves it.
# Packages are installed with --no-install-recommends, so every package a build step needs is named here, recommended
# or not (gcc only recommends libc6-dev, gcc-aarch64-linux-gnu only recommends libc6-dev-arm64-cross).
set -euo pipefail
# the build: compilers, CMake, the C library's headers and start files
pkgs=(cmake make gcc libc6-dev pkg-config)
# libraries: SuiteSparse (CHOLMOD reads Matrix Market files, CXSparse builds the RCM graph); the tests' CUnit and
# Jansson; libpfm4-dev: event names for the PMU counters of spmv-bench/spmv-tune --pmu (optional at build time:
# without it the tools say so at run time)
pkgs+=(libsuitesparse-dev libcunit1-dev libjansson-dev libpfm4-dev)
# the API reference: cmake --build build --target docs
pkgs+=(doxygen)
# the sanitizer leg (scripts/test-sanitize.sh) and the libFuzzer harnesses: clang with its runtimes (ASan, UBSan,
# libFuzzer: libclang-rt-14-dev), its OpenMP runtime (libomp-14-dev) and llvm-symbolizer for readable stack traces
# (llvm-14); SPMV_NO_CLANG=1 leaves them out
[ "${SPMV_NO_CLANG:-0}" = 1 ] || pkgs+=(clang libclang-rt-14-dev libomp-14-dev llvm-14)
# matrices/get-suitesparse.sh downloads over https
pkgs+=(curl ca-certificates)
# the distributed component spmv::mpi (src/mpi) and its tests under mpirun: Open MPI; SPMV_NO_MPI=1 leaves it out
[ "${SPMV_NO_MPI:-0}" = 1 ] || pkgs+=(openmpi-bin libopenmpi-dev)
# cross build of the SVE kernels, run under qemu (tests only, scripts/test-sve.sh): the cross compiler with its C
# library (libc6-dev-arm64-cross: crt1.o, crti.o, libc.so; only recommended by gcc-aarch64-linux-gnu); the tests'
# libraries for arm64 come from Debian's arm64 packages through multiarch (they co-install with the amd64 ones)
[ "${SPMV_NO_SVE:-0}" = 1 ] || pkgs+=(gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
                                     libsuitesparse-dev:arm64 libcunit1-dev:arm64 libjansson-dev:arm64)
# optional, at run time only: spmv-tune --plot draws its PNGs with gnuplot (without it the plots are skipped with a
# message); SPMV_NO_GNUPLOT=1 leaves it out
[ "${SPMV_NO_GNUPLOT:-0}" = 1 ] || pkgs+=(gnuplot-nox)
# installed: the package (NAME or NAME:ARCH; NAME means the native architecture, or "all") is in state
# "installed" -- dpkg -s also succeeds for a removed package that kept its configuration files, and a multiarch
# package (libsuitesparse-dev) is listed once per architecture
native=$(dpkg --print-architecture)
installed() {
    local name=${1%%:*} arch=${1#*:}
    [ "$arch" = "$1" ] && arch=$native
    dpkg-query -W -f='${db:Status-Status} ${Architecture}\n' "$name" 2>/dev/null | grep -qxE "installed ($arch|all)"
}
missing=()
for p in "${pkgs[@]}"; do installed "$p" || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
if [ "${SPMV_NO_SVE:-0}" != 1 ] && [ "$(dpkg --print-architecture)" != arm64 ] &&
    ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
