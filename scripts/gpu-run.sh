#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds core + worker + CLI without Qt on a GPU machine that has no package registry (the H200
# machines: Ubuntu 24.04, torch/triton/pybind11/cmake in a Python venv, no sqlite3.h), from Debian
# .deb files carried in .deps/debs, then runs the unit tests, the GPU-labelled integration tests and
# `kbx eval --device cuda` on every known-good fixture and known-bad variant.
#   scripts/gpu-run.sh OUTDIR          (KBX_GPU_SKIP_CTEST=1: only the verdict table)
set -uo pipefail
OUT=${1:?usage: scripts/gpu-run.sh OUTDIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
mkdir -p "$OUT"
PY=${KBX_PYTHON:-$(command -v python3)}
PREFIX="$ROOT/.deps/prefix"
rm -rf "$PREFIX"; mkdir -p "$PREFIX"
for d in .deps/debs/*.deb; do dpkg -x "$d" "$PREFIX"; done
PYBIND=$("$PY" -c 'import pybind11; print(pybind11.get_cmake_dir())')
{
  echo "date: $(date -u +%FT%TZ)"; nvidia-smi --query-gpu=name,uuid,driver_version,memory.total --format=csv,noheader
  "$PY" -c 'import sys, torch, triton, numpy; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__, "numpy", numpy.__version__)'
  nvcc --version | tail -1; g++ --version | head -1; cmake --version | head -1
} > "$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt"
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON -DKBX_PYTHON="$PY" \
  -DCMAKE_PREFIX_PATH="$PREFIX/usr;$PREFIX/usr/lib/x86_64-linux-gnu/cmake;$PREFIX/usr/share/cmake" \
  -DOPENSSL_ROOT_DIR="$PREFIX/usr" -Dpybind11_DIR="$PYBIND" \
  -DCMAKE_BUILD_RPATH="$PREFIX/usr/lib/x86_64-linux-gnu" > /tmp/kbx-configure.log 2>&1 || { tail -50 /tmp/kbx-configure.log; exit 1; }
cmake --build build-gpu -j"$(nproc)" > /tmp/kbx-build.log 2>&1 || { grep -E "error|Error" /tmp/kbx-build.log | head -40; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
export LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The verdict table: every known-good fixture and every variant, one run each, on the GPU.
"$PY" scripts/fixture_set.py build "$OUT/fixtures.jsonl" --device cuda
t1=$(date +%s)
# Correctness work only: the verdict table and the test suite may share the GPU.
( build-gpu/bin/kbx eval "$OUT/fixtures.jsonl" --device cuda --json --jobs 4 --timeout 60 --method fixtures --db "$OUT/h200-fixtures.sqlite" \
  > "$OUT/verdicts.jsonl" 2> "$OUT/eval.log"; echo "kbx eval rc=$? wall $(( $(date +%s) - t1 )) s" > "$OUT/eval.rc" ) &
if [[ "${KBX_GPU_SKIP_CTEST:-0}" != 1 ]]; then
  ctest --test-dir build-gpu -L "unit|gpu" --output-on-failure -j3 --timeout 900 > "$OUT/ctest-gpu.log" 2>&1
  echo "ctest (unit + gpu): rc=$? after $(( $(date +%s) - t1 )) s"; grep -E "tests passed|Failed|known-good" "$OUT/ctest-gpu.log" | tail -12
fi
wait
cat "$OUT/eval.rc"; tail -3 "$OUT/eval.log"
"$PY" scripts/fixture_set.py table "$OUT/fixtures.jsonl" "$OUT/verdicts.jsonl" --env "$OUT/environment.txt" \
  --title "kbx eval --device cuda on the fixture set" --wall "$(cut -d' ' -f5- "$OUT/eval.rc")" > "$OUT/verdicts.md"
echo "verdict table rc=$?"; head -8 "$OUT/verdicts.md"
