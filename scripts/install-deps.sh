#!/usr/bin/env bash
# Install the Debian 12 packages spmv needs to build and test (as root, or through sudo).
set -euo pipefail
# libpfm4-dev: event names for the PMU counters of spmv-bench/spmv-tune --pmu (optional at build time: without it
# the tools say so at run time)
pkgs=(cmake make gcc pkg-config libsuitesparse-dev libcunit1-dev libjansson-dev libpfm4-dev)
# the distributed component spmv::mpi (src/mpi) and its tests under mpirun: Open MPI; SPMV_NO_MPI=1 leaves it out
[ "${SPMV_NO_MPI:-0}" = 1 ] || pkgs+=(openmpi-bin libopenmpi-dev)
# cross build of the SVE kernels, run under qemu (tests only, scripts/test-sve.sh); the tests' libraries for arm64
# come from Debian's arm64 packages through multiarch (they co-install with the amd64 ones)
[ "${SPMV_NO_SVE:-0}" = 1 ] || pkgs+=(gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user
                                     libsuitesparse-dev:arm64 libcunit1-dev:arm64 libjansson-dev:arm64)
# optional, at run time only: spmv-tune --plot draws its PNGs with gnuplot (without it the plots are skipped with a
# message); SPMV_NO_GNUPLOT=1 leaves it out
[ "${SPMV_NO_GNUPLOT:-0}" = 1 ] || pkgs+=(gnuplot-nox)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
if [ "${SPMV_NO_SVE:-0}" != 1 ] && [ "$(dpkg --print-architecture)" != arm64 ] &&
    ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
