#!/usr/bin/env bash
# Prove that README's two commands work on a fresh Debian 12: debootstrap a minimal root (--variant=minbase
# bookworm), put a clean clone of this repository's committed HEAD in it, and run, inside a chroot and timed,
#   1. scripts/install-deps.sh && cmake -S . -B build && cmake --build build -j && build/tools/spmv-tune ARGS
#   2. scripts/test.sh
#   3. the rest of CI (.ci/run after scripts/test.sh): scripts/test-sanitize.sh && scripts/fuzz.sh 60
#      (SPMV_FRESH_CI=0 leaves it out)
# ARGS: SPMV_FRESH_TUNE_ARGS (default "--max-time 20": README runs the tuner without arguments, the check bounds it).
#
# usage (as root): scripts/check-fresh-debian.sh [ROOT_DIR]      (default /var/tmp/spmv-fresh-debian)
#
# Only the committed state is checked (git clone of HEAD's branch): untracked build folders cannot leak in. The
# shared matrices (../shared/matrices next to the repository) are bind-mounted read-only at the same relative place,
# so the tests that read them run. The host's apt sources (and the keyrings they name) and resolv.conf are copied
# in; the mirror for debootstrap is the first Debian mirror of the host's sources (SPMV_DEBIAN_MIRROR overrides it).
# Everything runs in a private mount namespace (unshare), so the bind mounts of /proc, /sys, /dev go away with it.
# The root is deleted first when it exists, and kept afterwards (SPMV_FRESH_CLEAN=1 deletes it at the end).
# Needs: debootstrap (installed with apt-get when missing), unshare (util-linux), git. About 4 GB of disk.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-/var/tmp/spmv-fresh-debian}
tune_args=${SPMV_FRESH_TUNE_ARGS:---max-time 20}

if [ "$(id -u)" != 0 ]; then
    echo "check-fresh-debian: needs root (debootstrap, chroot, mount)" >&2; exit 2
fi
case $root in /|/usr|/usr/*|/etc|/etc/*|/home|"$here"|"$here"/*)
    echo "check-fresh-debian: refusing root folder '$root'" >&2; exit 2 ;;
esac

# ---------------------------------------------------------------- inside the private mount namespace
if [ "${SPMV_FRESH_INNER:-0}" != 1 ]; then
    command -v debootstrap >/dev/null || {
        echo "check-fresh-debian: installing debootstrap"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap; }
    SPMV_FRESH_INNER=1 exec unshare --mount --propagation private "$0" "$@"
fi

t0=$(date +%s)
log() { echo "check-fresh-debian [$(($(date +%s) - t0)) s]: $*"; }

# the mirror: the host's first Debian archive (not -security), else deb.debian.org
mirror=${SPMV_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        grep -vE '^[[:space:]]*#' | grep -oE '(https?|file)://[^ ]*debian/?' | grep -v security | head -1 || true)
    mirror=${mirror:-http://deb.debian.org/debian}
fi

branch=$(git -C "$here" rev-parse --abbrev-ref HEAD)
commit=$(git -C "$here" rev-parse --short HEAD)
git -C "$here" diff --quiet HEAD || log "note: uncommitted changes in $here are not part of the check"

if [ -e "$root" ]; then
    log "removing the old root $root"
    rm -rf --one-file-system "$root"
fi
mkdir -p "$root"
log "debootstrap --variant=minbase bookworm $root $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 || {
    tail -30 "$root.debootstrap.log"; log "debootstrap failed"; exit 1; }
log "debootstrap done ($(du -sh --one-file-system "$root" | cut -f1))"

# apt sources, their keyrings, name resolution
cp /etc/resolv.conf "$root/etc/resolv.conf"
if [ -f /etc/apt/sources.list ]; then cp /etc/apt/sources.list "$root/etc/apt/sources.list"; fi
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    cp "$f" "$root/etc/apt/sources.list.d/"
    # the keyrings a source names (Signed-By: / signed-by=) must exist inside too
    for k in $(grep -oiE '(signed-by[:=] *)[^] ]+' "$f" | sed -E 's/^[Ss]igned-[Bb]y[:=] *//'); do
        [ -f "$k" ] && { mkdir -p "$root$(dirname "$k")"; cp -n "$k" "$root$k"; }
    done
done
# the host's sources replace debootstrap's one-line sources.list when they name the same archive twice
if [ -f "$root/etc/apt/sources.list" ] && ls "$root"/etc/apt/sources.list.d/*.sources >/dev/null 2>&1 &&
    ! [ -f /etc/apt/sources.list ]; then
    rm -f "$root/etc/apt/sources.list"
fi

# the repository: a clean clone of the committed HEAD, at work/spmv; the shared matrices at work/shared
mkdir -p "$root/work"
git clone -q --no-local --branch "$branch" "$here" "$root/work/spmv"
log "cloned $branch at $commit into $root/work/spmv"
shared=$(cd "$here/.." && pwd)/shared
if [ -d "$shared" ]; then
    mkdir -p "$root/work/shared"
    mount --bind "$shared" "$root/work/shared"
    mount -o remount,bind,ro "$root/work/shared"
else
    log "note: no $shared: the tests that read the shared matrices are skipped"
fi

mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"

# A login-like environment of a fresh machine: nothing from the caller's environment but the terminal.
run_in_root() { # label command...
    local label=$1; shift
    local rc=0 s e
    s=$(date +%s.%N)
    chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/bash -c "cd /work/spmv && $*" || rc=$?
    e=$(date +%s.%N)
    times+=("$(awk -v l="$label" -v s="$s" -v e="$e" -v rc="$rc" -v c="$*" \
        'BEGIN { printf "%-10s %7.1f s (%.1f min)  exit %d  %s", l, e - s, (e - s) / 60, rc, c }')")
    return $rc
}
times=()
status=0
cmd1="scripts/install-deps.sh && cmake -S . -B build && cmake --build build -j && build/tools/spmv-tune $tune_args"
log "command 1: $cmd1"
run_in_root "command 1" "$cmd1" || status=1
if [ $status = 0 ]; then
    log "command 2: scripts/test.sh"
    run_in_root "command 2" "scripts/test.sh" || status=1
fi
if [ $status = 0 ] && [ "${SPMV_FRESH_CI:-1}" = 1 ]; then
    log "CI legs: scripts/test-sanitize.sh && scripts/fuzz.sh 60"
    run_in_root "CI legs" "scripts/test-sanitize.sh && scripts/fuzz.sh 60" || status=1
fi

echo
echo "check-fresh-debian: Debian $(cat "$root/etc/debian_version") minbase root, spmv $branch at $commit, $(nproc) CPUs"
printf '  %s\n' "${times[@]}"
[ "${SPMV_FRESH_CLEAN:-0}" = 1 ] && { umount -R "$root/work/shared" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" 2>/dev/null || true
                                      rm -rf --one-file-system "$root"; }
if [ $status = 0 ]; then echo "check-fresh-debian: README's two commands$([ "${SPMV_FRESH_CI:-1}" = 1 ] && echo " and the CI legs") passed"; else echo "check-fresh-debian: FAILED"; fi
exit $status
