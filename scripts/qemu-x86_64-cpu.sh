#!/usr/bin/env bash
# Runs a native x86-64 program under qemu-x86_64 (qemu-user) as the CPU model named in QEMU_CPU (qemu reads it from
# the environment, e.g. QEMU_CPU=EPYC-Milan: AMD Zen 3, AVX2 and FMA, no AVX-512). scripts/test-cpu-model.sh makes
# ctest run the tests through it (CMAKE_CROSSCOMPILING_EMULATOR). qemu's warnings about model features its TCG
# does not emulate (pcid, rdseed, ...; none that spmv uses) are dropped; the program's own output, stderr
# included, and its exit status pass through.
#   QEMU_CPU=EPYC-Milan scripts/qemu-x86_64-cpu.sh build/tests/test_kernels
set -uo pipefail
: "${QEMU_CPU:?set QEMU_CPU to a model of qemu-x86_64 -cpu help}"
exec 3>&1
qemu-x86_64 "$@" 2>&1 1>&3 3>&- | grep -v "TCG doesn't support requested feature" >&2
exit "${PIPESTATUS[0]}"
