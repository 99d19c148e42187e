#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and tests core + the Qt workbench on Debian 13 (Qt 6.8, KF6 KSyntaxHighlighting), which
# Debian 12 lacks, inside a Debian 13 root made once with debootstrap and reused (a cache).
#   scripts/debian13-check.sh            needs root and Debian's package registry
# Environment: KBX_DEBIAN13=1      fail instead of skipping when root or debootstrap is unavailable
#              KBX_DEBIAN13_ROOT   where the root lives (default /var/cache/kbx-debian13)
# The worker and kbx are not built there (they need the torch venv); their tests run on the host.
# The build's ccache lives inside the root (/var/cache/kbx-ccache there), which outlives a checkout:
# a fresh clone (CI) compiles only what changed.
set -euo pipefail
ROOT_DIR=$(cd "$(dirname "$0")/.." && pwd)
CHROOT=${KBX_DEBIAN13_ROOT:-/var/cache/kbx-debian13}
say() { printf '\033[1m[debian13]\033[0m %s\n' "$*" >&2; }
skip() {
  if [[ "${KBX_DEBIAN13:-auto}" == 1 ]]; then say "cannot run: $*"; exit 4; fi
  say "skipped: $* (KBX_DEBIAN13=1 makes this an error)"; exit 0
}
[[ $(id -u) == 0 ]] || skip "needs root for debootstrap and chroot"
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null 2>&1 || skip "debootstrap not installable"
PKGS="g++ cmake ninja-build pkg-config ccache qt6-base-dev qt6-charts-dev qt6-svg-dev libgl-dev
libkf6syntaxhighlighting-dev libsqlite3-dev libgtest-dev libgmock-dev nlohmann-json3-dev libfmt-dev
libssl-dev libcli11-dev libeigen3-dev fonts-dejavu-core ca-certificates xz-utils"
cleanup() { for m in src proc dev; do umount "$CHROOT/$m" 2>/dev/null || umount -l "$CHROOT/$m" 2>/dev/null || true; done; }
if [[ ! -f "$CHROOT/.kbx-ready" ]]; then
  # a run killed half-way may have left the checkout and /dev bound inside: unmount before removing,
  # and never cross into another file system
  cleanup
  if grep -qs " $CHROOT/" /proc/mounts; then say "cannot unmount what is mounted below $CHROOT"; exit 1; fi
  rm -rf --one-file-system "$CHROOT"; mkdir -p "$CHROOT"
  say "debootstrap trixie into $CHROOT (once)"
  # the Debian archive as this machine's own apt sources name it (KBX_DEBIAN_MIRROR overrides)
  mirror=${KBX_DEBIAN_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
    | { grep -oE "https?://[^ ]+/debian/?( |$)" || true; } | head -1 | tr -d ' ' | sed 's:/$::' || true)}
  debootstrap --variant=minbase trixie "$CHROOT" ${mirror:+"$mirror"} >/dev/null || skip "debootstrap failed (no registry?)"
  touch "$CHROOT/.kbx-ready"
fi
cp /etc/resolv.conf "$CHROOT/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$CHROOT/src" "$CHROOT/proc" "$CHROOT/dev"
trap cleanup EXIT
cleanup
mount -t proc proc "$CHROOT/proc"
mount --bind /dev "$CHROOT/dev"
mount --bind "$ROOT_DIR" "$CHROOT/src"
# shellcheck disable=SC2086
if ! chroot "$CHROOT" dpkg -s $PKGS >/dev/null 2>&1; then
  say "installing Qt 6, KF6 KSyntaxHighlighting and the build tools in the root"
  chroot "$CHROOT" bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(echo $PKGS)" >/dev/null
fi
say "$(chroot "$CHROOT" cat /etc/debian_version): building core + workbench in build-d13/ and running its tests"
chroot "$CHROOT" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 CCACHE_DIR=/var/cache/kbx-ccache CCACHE_BASEDIR=/src CCACHE_NOHASHDIR=1 bash -ec '
  cd /src
  cmake -S . -B build-d13 -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON \
        -DKBX_BUILD_GUI=ON -DKBX_BUILD_WORKER=OFF -DKBX_BUILD_CLI=OFF > build-d13.configure.log 2>&1 || { cat build-d13.configure.log; exit 1; }
  grep -E "KF6SyntaxHighlighting|SyntaxHighlighting" build-d13.configure.log | head -3 || true
  grep -q "KF6SyntaxHighlighting" build-d13/CMakeCache.txt && grep -q "KF6SyntaxHighlighting_DIR:PATH=/" build-d13/CMakeCache.txt \
    || { echo "KF6 KSyntaxHighlighting was not found on Debian 13"; exit 1; }
  cmake --build build-d13 -j"$(nproc)"
  ctest --test-dir build-d13 --output-on-failure -j2 --timeout 900
'
