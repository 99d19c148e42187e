#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's set-up on machines where nothing was installed before. For Debian 12
# (bookworm) and Debian 13 (trixie): a pristine `debootstrap --variant=minbase` root, extracted afresh
# from a cached tarball on every run (packages of an earlier run can never hide a missing one), with the
# sources a Debian installation has (main, -updates, -security); in it, from a copy of this working tree:
#   1. scripts/setup.sh packages       the very code (and list) of `scripts/setup.sh run`'s step 1
#   2. cmake --preset dev               the README's configure, the worker off (-DKBX_BUILD_WORKER=OFF:
#                                       it links the torch venv's LibTorch, which no Debian package gives)
#   3. cmake --build build --target kbx-workbench kbx     the GUI and the command line
# and PASS or FAIL per release. The CI host has every package already, so only this can see one missing.
#
#   scripts/clean-root-check.sh [bookworm|trixie|all]     needs root, debootstrap and Debian's registry
#
# Environment:
#   KBX_CLEAN_ROOT=1        fail instead of skipping when root, debootstrap or the registry is unavailable
#   KBX_CLEAN_ROOT_CACHE    default /var/cache/kbx-clean-roots: <suite>-base.tar (the pristine root, made
#                           once), apt-<suite>/ (the downloaded .debs, bind-mounted as the root's apt
#                           archives: a repeat run downloads only the package lists), ccache-<suite>/
#                           (the build's ccache, at most 1 GB), and <suite>-root/ (this run's root)
#   KBX_CLEAN_ROOT_TMPFS    1: each root in a tmpfs of its own (2.3 GB of memory at its peak, measured for
#                           both; gone when unmounted, while deleting it from disk took 1 to 1.5 minutes
#                           here, and dpkg's syncs on disk doubled the set-up);
#                           0: on disk, removed after a pass and kept after a failure until the next run;
#                           default 1 when more than 8 GB of memory are available
#   KBX_CLEAN_ROOT_OUT      logs (default build-clean-root/)
#   KBX_CLEAN_ROOT_JOBS     build jobs (default nproc)
#
# Measured on this 2-core machine, shared with another build and test run: cold, with every
# cache empty, `all` took 1669 s: both debootstraps 128 s, Debian 12 744 s (set-up with the downloads
# 43 s, configure 2 s, build 696 s), Debian 13 797 s (38 s, 2 s, 749 s). Warm, sources unchanged since
# the last run: 132 s (each release 66 s: set-up 47-49 s, configure 2 s, build 13-15 s). Warm after
# another developer's commits changed core's headers (17 of 62 files compiled again in each root): 855 s.
# What it is for: with libqt6opengl6-dev taken off setup.sh's list, Debian 12 fails at configure
# ("Qt6Charts could not be found because dependency Qt6OpenGL could not be found"); Debian 13 passes.
#
# Why a copy of the working tree (tracked and untracked files, not the ignored ones) rather than a
# bind mount of it: the checkout's own .venv/ and build*/ would be visible in the root (CMakeLists.txt
# takes .venv/bin/python when it exists), and the dev preset's build/ would be the host's.
set -euo pipefail
ROOT_DIR=$(cd "$(dirname "$0")/.." && pwd)
WHICH=${1:-all}
CACHE=${KBX_CLEAN_ROOT_CACHE:-/var/cache/kbx-clean-roots}
OUT=${KBX_CLEAN_ROOT_OUT:-$ROOT_DIR/build-clean-root}
# The Debian archive and its security archive as this machine's own apt sources name them (one-line
# or deb822 format); KBX_DEBIAN_MIRROR / KBX_DEBIAN_SECURITY override them.
host_uri() {  # host_uri SUFFIX: the first source URI ending in /SUFFIX ("" when none; never fails)
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
    | { grep -oE "https?://[^ ]+/$1/?( |$)" || true; } | head -1 | tr -d ' ' | sed 's:/$::' || true
}
MIRROR=${KBX_DEBIAN_MIRROR:-$(host_uri debian)}
SECURITY=${KBX_DEBIAN_SECURITY:-$(host_uri debian-security)}
SECURITY=${SECURITY:-${MIRROR}-security}
T0=$SECONDS
say() { printf '\033[1m[clean-root]\033[0m %s\n' "$*" >&2; }
phase() { say "[$((SECONDS - T0)) s] $*"; }
skip() {
  if [[ "${KBX_CLEAN_ROOT:-auto}" == 1 ]]; then say "cannot run: $*"; exit 4; fi
  say "skipped: $* (KBX_CLEAN_ROOT=1 makes this an error)"; exit 0
}
case "$WHICH" in
  all) SUITES=(bookworm trixie) ;;
  bookworm|trixie) SUITES=("$WHICH") ;;
  *) say "usage: scripts/clean-root-check.sh [bookworm|trixie|all]"; exit 2 ;;
esac
[[ $(id -u) == 0 ]] || skip "needs root for debootstrap and chroot"
if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap on the host"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1; } \
    || skip "debootstrap not installable"
fi
mkdir -p "$CACHE" "$OUT"
TMPFS=${KBX_CLEAN_ROOT_TMPFS:-auto}
if [[ $TMPFS == auto ]]; then
  TMPFS=0; (($(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) > 8 * 1024 * 1024)) && TMPFS=1
fi

# ---- mounts (scripts/lib/roots.sh: bind, mount_sys, remove_root, unmount_below, cleanup on exit) ----------
# shellcheck source=lib/roots.sh
source "$ROOT_DIR/scripts/lib/roots.sh"

# ---- the pristine root -------------------------------------------------------------------------------
base_tar() {  # SUITE -> BASE_TAR (made once: debootstrap minbase, the installer's sources, nothing else)
  local suite=$1 mk
  BASE_TAR="$CACHE/$suite-base.tar"
  [[ -f "$BASE_TAR" ]] && return 0
  mk="$CACHE/$suite-mk"
  remove_root "$mk"
  mkdir -p "$mk" "$CACHE/apt-$suite"
  phase "$suite: debootstrap --variant=minbase into $mk (once; cached as $BASE_TAR)"
  debootstrap --variant=minbase --cache-dir="$CACHE/apt-$suite" "$suite" "$mk" "$MIRROR" > "$OUT/debootstrap-$suite.log" 2>&1 \
    || { tail -5 "$OUT/debootstrap-$suite.log"; remove_root "$mk"; skip "debootstrap $suite failed (no registry?)"; }
  rm -f "$mk/etc/apt/sources.list.d/debian.sources"
  printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
    "$MIRROR" "$suite" "$MIRROR" "$suite" "$SECURITY" "$suite" > "$mk/etc/apt/sources.list"
  chroot "$mk" apt-get clean
  tar -C "$mk" --numeric-owner -cpf "$BASE_TAR.tmp" .
  mv "$BASE_TAR.tmp" "$BASE_TAR"
  remove_root "$mk"
}

pkg_state() {  # ROOT PACKAGE -> "6.4.2+dfsg-10", "provided by qt6-base-dev 6.8.2+dfsg-9" or "not installed"
  local st by
  st=$(chroot "$1" dpkg-query -W -f '${db:Status-Abbrev}|${Version}' "$2" 2>/dev/null || true)
  if [[ $st == ii* ]]; then echo "${st#*|}"; return; fi
  by=$(chroot "$1" dpkg-query -W -f '${db:Status-Abbrev}|${Package} ${Version}|${Provides}\n' 2>/dev/null \
    | awk -F'|' -v p="$2" '$1 ~ /^ii/ && $3 ~ ("(^|, )" p "( |,|$)") {print $2; exit}')
  if [[ -n $by ]]; then echo "provided by $by"; else echo "not installed"; fi
}

# ---- one release ---------------------------------------------------------------------------------------
RESULTS=()
FAILED=0
run_env=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb
         CCACHE_DIR=/ccache CCACHE_MAXSIZE=1G)
check() {  # SUITE
  local suite=$1 r t tp tc tb log n ver
  t=$SECONDS
  BASE_TAR="$CACHE/$suite-base.tar"
  r="$CACHE/$suite-root"
  remove_root "$r"
  mkdir -p "$r"
  if [[ $TMPFS == 1 ]]; then mount -t tmpfs -o mode=755,size=12G tmpfs "$r"; MOUNTS+=("$r"); fi
  phase "$suite: a fresh root from $(basename "$BASE_TAR") ($r$( ((TMPFS)) && echo ', tmpfs'))"
  tar -C "$r" --numeric-owner -xpf "$BASE_TAR"
  mount_sys "$r"
  printf '#!/bin/sh\nexit 101\n' > "$r/usr/sbin/policy-rc.d"; chmod 755 "$r/usr/sbin/policy-rc.d"  # no services started
  mkdir -p "$CACHE/apt-$suite" "$CACHE/ccache-$suite"
  bind "$CACHE/apt-$suite" "$r/var/cache/apt/archives"
  bind "$CACHE/ccache-$suite" "$r/ccache"
  # The working tree as a fresh clone of it would hold it (plus untracked files not ignored).
  mkdir -p "$r/src"
  if git -C "$ROOT_DIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$ROOT_DIR" && git ls-files -z -co --exclude-standard | xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh \
      | tar --null -T - -cf -) | tar -C "$r/src" -xf -
  else
    tar -C "$ROOT_DIR" --exclude='./build*' --exclude=./.venv --exclude=./.ccache-d13 -cf - . | tar -C "$r/src" -xf -
  fi
  ver=$(cat "$r/etc/debian_version")
  say "$suite: Debian $ver, $(chroot "$r" dpkg-query -W -f '${Package}\n' | wc -l) packages in the pristine root"

  # 1. the README's packages, by setup.sh's own code
  tp=$SECONDS
  log="$OUT/$suite-packages.log"
  phase "$suite: scripts/setup.sh packages"
  if ! chroot "$r" "${run_env[@]}" bash /src/scripts/setup.sh packages > "$log" 2>&1; then
    tail -30 "$log" >&2
    fail "$suite" "scripts/setup.sh packages failed ($log)" "$t"; return 0
  fi
  tp=$((SECONDS - tp))
  grep -E 'optional, no package|installing:' "$log" | sed 's/^/    /' >&2 || true
  n=$(chroot "$r" dpkg-query -W -f '${Package}\n' | wc -l)
  say "$suite: $n packages after set-up ($tp s); libqt6opengl6-dev $(pkg_state "$r" libqt6opengl6-dev)"

  # 2. configure: the dev preset as the README runs it, without the worker
  tc=$SECONDS
  log="$OUT/$suite-configure.log"
  phase "$suite: cmake --preset dev -DKBX_BUILD_WORKER=OFF"
  if ! chroot "$r" "${run_env[@]}" bash -c 'cd /src && cmake --preset dev -DKBX_BUILD_WORKER=OFF' > "$log" 2>&1; then
    grep -B2 -A12 -m3 -E 'CMake Error|Could NOT find' "$log" | head -60 >&2 || tail -40 "$log" >&2
    fail "$suite" "cmake --preset dev failed ($log)" "$t"; return 0
  fi
  tc=$((SECONDS - tc))
  awk '/^-- The following features have been enabled/ {on = 1; next} on && /^-- / {exit} on && NF' "$log" | sed 's/^ *\* /    /' >&2 || true
  say "$suite: configured with qt6-base-dev $(pkg_state "$r" qt6-base-dev)$(grep -q '^KF6SyntaxHighlighting_DIR:PATH=/' "$r/src/build/CMakeCache.txt" && echo ', KF6 KSyntaxHighlighting found' || echo ', no KF6 KSyntaxHighlighting')"
  # Debian 13 has KF6 KSyntaxHighlighting: the optional "?libkf6syntaxhighlighting-dev" must be found there.
  if [[ $suite == trixie ]] && ! grep -q '^KF6SyntaxHighlighting_DIR:PATH=/' "$r/src/build/CMakeCache.txt"; then
    fail "$suite" "KF6 KSyntaxHighlighting was not found on Debian 13 ($log)" "$t"; return 0
  fi

  # 3. build the GUI and the command line
  tb=$SECONDS
  log="$OUT/$suite-build.log"
  phase "$suite: cmake --build build --target kbx-workbench kbx"
  chroot "$r" "${run_env[@]}" ccache -z >/dev/null 2>&1 || true
  if ! chroot "$r" "${run_env[@]}" bash -c \
      "cd /src && cmake --build build -j${KBX_CLEAN_ROOT_JOBS:-$(nproc)} --target kbx-workbench kbx && build/bin/kbx --version" > "$log" 2>&1; then
    grep -m5 -A10 -E 'error:|FAILED:' "$log" | head -60 >&2 || tail -40 "$log" >&2
    fail "$suite" "the build failed ($log)" "$t"; return 0
  fi
  tb=$((SECONDS - tb))
  say "$suite: built $(cd "$r/src/build/bin" && ls kbx-workbench kbx | tr '\n' ' ')($tb s; ccache $(chroot "$r" "${run_env[@]}" \
    ccache -s 2>/dev/null | grep -E '^ *(Hits|Misses):' | head -2 | tr -s ' ' | sed 's/^ //' | paste -sd ';' -))"
  cleanup
  RESULTS+=("PASS $suite (Debian $ver): $((SECONDS - t)) s (set-up $tp s, configure $tc s, build $tb s)")
  remove_root "$r"
}
fail() {  # SUITE WHY T_START
  cleanup
  local kept="KBX_CLEAN_ROOT_TMPFS=0 keeps the root on disk for a look"
  [[ $TMPFS == 1 ]] || kept="the root is kept in $CACHE/$1-root until the next run"
  RESULTS+=("FAIL $1: $2 (after $((SECONDS - $3)) s; $kept)")
  FAILED=1
}

# The pristine roots first: one that cannot be made skips the whole check before any release has run.
for s in "${SUITES[@]}"; do base_tar "$s"; done
for s in "${SUITES[@]}"; do check "$s"; done
for line in "${RESULTS[@]}"; do say "$line"; done
say "total $((SECONDS - T0)) s"
exit "$FAILED"
