#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-command set-up for a fresh Debian 12 or Debian 13 machine (both proven in pristine roots by
# scripts/clean-root-check.sh, part of `test`; Ubuntu 24.04 is not tested):
#   scripts/setup.sh run    install what is missing, build, then start the main job
#   scripts/setup.sh test   install what is missing, build, then run the whole test suite
#   scripts/setup.sh build  install what is missing and build
#   scripts/setup.sh packages [run|build|test]
#                           only step 1: install the system packages that mode installs (default run;
#                           build the same, test adds the Slurm ones), then stop. The clean-root check
#                           (scripts/clean-root-check.sh) runs exactly this in pristine Debian roots.
# Environment: KBX_PYTHON=/path/to/python   use an existing venv instead of .venv (e.g. a GPU image)
#              KBX_SKIP_APT=1               never call apt (dependencies provided otherwise)
#              KBX_CMAKE_ARGS="..."         extra configure arguments
#              KBX_SLURM_TEST=0             test: skip the Slurm backend test (scripts/slurm-test.sh)
#              KBX_PACKAGE_TEST=0           test: skip the .deb install test (scripts/package-test.sh; default: both
#                                           Debian 12 and 13; =deb12 or =deb13 only one; =1 fails where it cannot run)
#              KBX_ASAN_CI=0                test: skip core's unit tests under ASan + UBSan (preset core-asan)
#              KBX_CLEAN_ROOT=0             test: skip the clean-root set-up check (scripts/clean-root-check.sh;
#                                           =1 fails where it cannot run)
set -euo pipefail
MODE=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }
PKG_MODE=$MODE  # whose package list step 1 installs
case "$MODE" in
  run|test|build) ;;
  packages)
    PKG_MODE=${2:-run}
    case "$PKG_MODE" in run|test|build) ;; *) say "usage: scripts/setup.sh packages [run|build|test]"; exit 2 ;; esac ;;
  *) say "unknown mode $MODE (run|test|build|packages)"; exit 2 ;;
esac

# ---- 1. system packages -------------------------------------------------------------------------
# "a|b": the first name the package registry knows (Debian 12 and 13 name Qt's add-ons differently);
# "?x": only where the registry has it as a package of its own (KF6 KSyntaxHighlighting: Debian 13 and
# later; libqt6opengl6-dev: Qt6Charts' CMake package needs Qt6OpenGL, which Debian 12's qt6-base-dev
# only recommends, while Debian 13's qt6-base-dev holds and Provides it). scripts/clean-root-check.sh
# installs this list in pristine Debian 12 and 13 roots, configures and builds.
PKGS="build-essential cmake ninja-build pkg-config ccache libsqlite3-dev libgtest-dev libgmock-dev
nlohmann-json3-dev libcli11-dev libfmt-dev pybind11-dev python3-dev python3-venv python3-pip libssl-dev libeigen3-dev bubblewrap
qt6-base-dev ?libqt6opengl6-dev qt6-charts-dev|libqt6charts6-dev qt6-svg-dev|libqt6svg6-dev libgl-dev fonts-dejavu-core
?libkf6syntaxhighlighting-dev
clang libclang-rt-dev xz-utils"
# test: a one-node Slurm cluster on localhost for scripts/slurm-test.sh (kbx eval --backend slurm).
[[ $PKG_MODE == test ]] && PKGS="$PKGS ?munge ?slurmctld ?slurmd ?slurm-client"
# Installed means dpkg's "ii": a package removed but not purged ("rc") is not.
installed() { [[ "$(dpkg-query -W -f '${db:Status-Abbrev}' "$1" 2>/dev/null)" == ii* ]]; }
known() { [[ -n "$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" {print $2}')" ]]; }
resolve() {  # -> missing: the names to install, one per entry of PKGS not installed yet
  local want alt pick optional
  missing=(); skipped=()
  for want in $PKGS; do
    optional=0; [[ $want == \?* ]] && { optional=1; want=${want#\?}; }
    pick=""
    for alt in ${want//|/ }; do
      if installed "$alt"; then pick=installed; break; fi
      if known "$alt"; then pick=$alt; break; fi
    done
    if [[ -z $pick ]]; then
      ((optional)) && { skipped+=("$want"); continue; }
      pick=${want%%|*}  # unknown to the registry: apt will say so
    fi
    [[ $pick != installed ]] && missing+=("$pick")
  done
  return 0
}
if [[ "${KBX_SKIP_APT:-0}" != 1 ]] && command -v dpkg >/dev/null; then
  resolve
  if ((${#missing[@]})); then
    if [[ $(id -u) == 0 ]]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
      say "missing packages: ${missing[*]} (run as root or install them)"; exit 4; fi
    # The names are chosen again on fresh lists: on a new machine (or image) whose lists are empty or
    # old, every "?x" would look absent and every "a|b" would fall back to a.
    $SUDO apt-get update -qq
    resolve
    ((${#skipped[@]})) && say "optional, no package of that name in this registry: ${skipped[*]}"
    say "installing: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi
[[ $MODE == packages ]] && { say "system packages done (${PKG_MODE}'s list)"; exit 0; }

# ---- 2. Python venv (torch, triton, numpy) ------------------------------------------------------
if [[ -n "${KBX_PYTHON:-}" ]]; then
  PY=$KBX_PYTHON
else
  PY="$ROOT/.venv/bin/python"
  if [[ ! -x "$PY" ]]; then
    say "creating .venv"
    /usr/bin/python3 -m venv "$ROOT/.venv"
  fi
  stamp="$ROOT/.venv/.kbx-requirements"
  want=$(sha256sum requirements.txt | cut -d' ' -f1)
  if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
    say "installing Python requirements into .venv"
    "$PY" -m pip install -q --disable-pip-version-check -r requirements.txt
    echo "$want" > "$stamp"
  fi
  # radon (code quality in kbx report; parses, never runs, the candidates): n/a in reports without it.
  "$PY" -c 'import radon' 2>/dev/null || "$PY" -m pip install -q --disable-pip-version-check radon==6.0.1 || say "radon not installed: code quality will be n/a"
fi
"$PY" -c 'import torch, triton, numpy' || { say "the venv at $PY cannot import torch/triton/numpy"; exit 4; }

# ---- 3. configure and build ---------------------------------------------------------------------
# ccache (found by CMake when installed) keyed on paths relative to this checkout, so that a fresh
# clone in another directory (CI clones anew each run) hits what an earlier build cached.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
say "building (preset dev, build/)"
# shellcheck disable=SC2086
cmake --preset dev -DKBX_PYTHON="$PY" ${KBX_CMAKE_ARGS:-} >build.configure.log 2>&1 || { cat build.configure.log; exit 4; }
grep -A40 -- "-- The following features" build.configure.log | grep -v '^$' | head -30 >&2 || true
cmake --build build -j"$(nproc)"
ls build/bin >&2

# ---- 4. the job ----------------------------------------------------------------------------------
case "$MODE" in
  run)
    demo="$ROOT/resources/demo/demo.sqlite"
    if [[ -x build/bin/kbx-workbench && ( -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ) ]]; then
      say "starting the workbench on the bundled demo database ($demo)"
      exec build/bin/kbx-workbench --db "$demo"
    fi
    say "no display (or no GUI build): the bundled demo database in the terminal instead"
    build/bin/kbx report --db "$demo"
    say "evaluating the bundled example submission on the best device found"
    db="${KBX_DB:-$ROOT/build/example.sqlite}"
    build/bin/kbx eval resources/examples/submission.jsonl --device auto --method example --db "$db" --jobs 2 || exit $?
    exec build/bin/kbx report --db "$db"
    ;;
  test)
    say "running the test suite"
    ctest --test-dir build --output-on-failure -j2 --timeout 1500
    # kbx eval --backend slurm on a one-node Slurm cluster started for it (KBX_SLURM_TEST=0 skips; needs root).
    scripts/slurm-test.sh "$ROOT/build"
    # The libFuzzer targets (tests/fuzz, docs/FUZZING.md): importers and the worker protocol decoder,
    # a bounded run per target on the committed seeds, in a clang build of their own.
    if [[ "${KBX_FUZZ_CI:-1}" != 0 ]]; then
      say "fuzzing: ${KBX_FUZZ_SECONDS:-10} s per target (clang, build-fuzz/)"
      cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DKBX_FUZZ=ON \
        -DKBX_BUILD_WORKER=OFF -DKBX_BUILD_CLI=OFF -DKBX_BUILD_GUI=OFF -DBUILD_TESTING=OFF \
        -DKBX_FUZZ_SECONDS="${KBX_FUZZ_SECONDS:-10}" >build-fuzz.configure.log 2>&1 || { cat build-fuzz.configure.log; exit 4; }
      cmake --build build-fuzz -j"$(nproc)" --target kbx_fuzzers
      ctest --test-dir build-fuzz -L fuzz --output-on-failure -j2
    fi
    # Core's unit tests once more under ASan + UBSan (preset core-asan: core alone, Debug; no worker,
    # CLI or GUI), so a memory error in the store, the importers or the statistics fails CI.
    if [[ "${KBX_ASAN_CI:-1}" != 0 ]]; then
      say "core unit tests under ASan + UBSan (build-asan-core/)"
      cmake --preset core-asan >build-asan-core.configure.log 2>&1 || { cat build-asan-core.configure.log; exit 4; }
      cmake --build --preset core-asan -j"$(nproc)"
      ctest --preset core-asan
    fi
    # The GUI once more on Debian 13 (Qt 6.8 + KF6 KSyntaxHighlighting), in a chroot of our own.
    if [[ "${KBX_DEBIAN13:-auto}" != 0 ]]; then
      scripts/debian13-check.sh
    fi
    # The set-up itself where nothing was installed before: step 1 of this script alone (setup.sh packages),
    # the dev configure and the GUI and kbx build in pristine Debian 12 and 13 roots, fresh every run
    # (scripts/clean-root-check.sh; caches in /var/cache/kbx-clean-roots). KBX_CLEAN_ROOT=0 skips it.
    if [[ "${KBX_CLEAN_ROOT:-auto}" != 0 ]]; then
      scripts/clean-root-check.sh all
    else
      say "clean-root set-up check skipped (KBX_CLEAN_ROOT=0)"
    fi
    # The .deb packages for Debian 12 (this build/) and 13 (the Debian 13 root's build-d13/, kbx and the
    # worker added), each installed into a clean debootstrap root and run from the installed files only
    # (packaging/README.md). Last: it reuses both build trees. KBX_PACKAGE_TEST=0 skips it.
    pyvenv=$(dirname "$(dirname "$PY")")
    [[ -f "$pyvenv/pyvenv.cfg" ]] && export KBX_PKG_VENV="${KBX_PKG_VENV:-$pyvenv}"
    # Without the Debian 13 check (KBX_DEBIAN13=0) the package test is Debian 12's alone by default.
    pkg_default=all; [[ "${KBX_DEBIAN13:-auto}" == 0 ]] && pkg_default=deb12
    case "${KBX_PACKAGE_TEST:-$pkg_default}" in
      0) say "package install test skipped (KBX_PACKAGE_TEST=0)" ;;
      deb12|deb13) KBX_PKG_BUILD="$ROOT/build" exec scripts/package-test.sh "$KBX_PACKAGE_TEST" ;;
      *) KBX_PKG_BUILD="$ROOT/build" exec scripts/package-test.sh "$pkg_default" ;;
    esac
    ;;
  build) ;;
esac
