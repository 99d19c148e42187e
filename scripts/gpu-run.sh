#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build and test on a GPU machine that has no package registry.
#   scripts/gpu-run.sh [--build-only] [--targets "T..."] [--long] [--tests REGEX] [--build-dir DIR] [OUTDIR]
#
# The machine needs: g++ (C++20), an NVIDIA driver, a Python (KBX_PYTHON, else python3) that imports
# torch, triton, numpy and pybind11 and has cmake (and ideally ninja) on PATH, e.g. a venv with
# `pip install -r requirements.txt pybind11 cmake ninja`. The C++ libraries that the build needs and
# such a machine lacks (SQLite, nlohmann-json, fmt, OpenSSL, Eigen, CLI11, GoogleTest) come as
# Debian 12 .deb files in .deps/debs, fetched on a Debian 12 machine with scripts/fetch-gpu-debs.sh
# and carried with the checkout (.deps/ is ignored by git; carry .deps/debs, about 9 MB: .deps/prefix,
# about 45 MB, is made anew on every run). `dpkg -x` unpacks them into .deps/prefix without root; the
# build finds them there and runs with their libraries (RPATH, LD_LIBRARY_PATH).
#
# Steps: unpack, configure DIR (default build-gpu; no Qt: core, kbx-worker, kbx, the tests), build,
# then `ctest -L "unit|gpu"` without the long GPU runs (the whole-benchmark self-check and the
# fixture-set tests, which take most of a 10-minute device call on their own; --long keeps them).
# --tests REGEX runs only the tests matching REGEX (ctest -R) instead. --targets builds only those
# CMake targets (e.g. "kbx kbx-worker kbx_python", about a minute on a 16-core machine, for bench/gpu_runs.py; the bench scripts read databases through the kbx_python module).
# OUTDIR (default DIR/gpu-run) receives environment.txt and ctest.log.
# Benchmarks, verdict tables and the acceptance runs on the same build: bench/README.md.
set -uo pipefail
BUILD_ONLY=0 LONG=0 TESTS="" TARGETS="" BUILD=build-gpu OUT=""
while (($#)); do
  case "$1" in
    --build-only) BUILD_ONLY=1 ;;
    --long) LONG=1 ;;
    --tests) TESTS=${2:?--tests needs a regex}; shift ;;
    --targets) TARGETS=${2:?--targets needs target names}; shift ;;
    --build-dir) BUILD=${2:?--build-dir needs a directory}; shift ;;
    -h|--help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-run.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    *) OUT=$1 ;;
  esac
  shift
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=${OUT:-$BUILD/gpu-run}
mkdir -p "$OUT"
PY=${KBX_PYTHON:-$(command -v python3)}
say() { printf '[gpu-run] %s\n' "$*"; }

# ---- 1. the carried .debs ------------------------------------------------------------------------
PREFIX="$ROOT/.deps/prefix"
shopt -s nullglob
debs=(.deps/debs/*.deb)
((${#debs[@]})) || { say "no .deb files in .deps/debs: run scripts/fetch-gpu-debs.sh on Debian 12 and carry .deps/"; exit 4; }
rm -rf "$PREFIX"; mkdir -p "$PREFIX"
for d in "${debs[@]}"; do dpkg -x "$d" "$PREFIX" || { say "cannot unpack $d"; exit 4; }; done
LIBDIR="$PREFIX/usr/lib/x86_64-linux-gnu"

# ---- 2. what this machine is (kept beside the results) -------------------------------------------
{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: ${KBX_TREE_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  nvidia-smi --query-gpu=name,uuid,driver_version,memory.total --format=csv,noheader
  "$PY" -c 'import sys, torch, triton, numpy; print("python", sys.version.split()[0], "torch", torch.__version__,
"cuda", torch.version.cuda, "triton", triton.__version__, "numpy", numpy.__version__)'
  g++ --version | head -1; cmake --version | head -1
} > "$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt"

# ---- 3. configure and build ----------------------------------------------------------------------
# pybind11 from the venv (pip); without it, CMake looks for a system one.
PYBIND=$("$PY" -c 'import pybind11; print(pybind11.get_cmake_dir())' 2>/dev/null)
GEN=Ninja; command -v ninja >/dev/null || GEN="Unix Makefiles"
t0=$(date +%s)
cmake -S . -B "$BUILD" -G "$GEN" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON -DKBX_BUILD_GUI=OFF \
  -DKBX_PYTHON="$PY" ${PYBIND:+-Dpybind11_DIR="$PYBIND"} -DOPENSSL_ROOT_DIR="$PREFIX/usr" \
  -DCMAKE_PREFIX_PATH="$PREFIX/usr;$LIBDIR/cmake;$PREFIX/usr/share/cmake" \
  -DCMAKE_BUILD_RPATH="$LIBDIR" > "$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 4; }
# shellcheck disable=SC2086
cmake --build "$BUILD" -j"$(nproc)" ${TARGETS:+--target $TARGETS} > "$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
say "build: $(( $(date +%s) - t0 )) s ($BUILD/bin: $(ls "$BUILD/bin" | paste -sd' ' -))"
((BUILD_ONLY)) && exit 0

# ---- 4. tests ------------------------------------------------------------------------------------
export LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
args=(-L "unit|gpu")
if [[ -n $TESTS ]]; then
  args=(-R "$TESTS")
elif ((!LONG)); then
  args+=(-E "self_check_all|EveryKnownGoodFixturePasses|EveryKnownBadFixtureGetsItsClass")
fi
t1=$(date +%s)
ctest --test-dir "$BUILD" "${args[@]}" --output-on-failure -j4 --timeout 900 > "$OUT/ctest.log" 2>&1
rc=$?
say "ctest ${args[*]}: rc=$rc after $(( $(date +%s) - t1 )) s"
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|\*\*\*" "$OUT/ctest.log" | tail -20
exit $rc
