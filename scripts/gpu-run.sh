#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds core + worker + CLI without Qt on a GPU machine that has no package registry (the H200
# machines: Ubuntu 24.04, torch/triton/pybind11/cmake in a Python venv, no sqlite3.h), from Debian
# .deb files carried in .deps/debs, then runs the unit tests, the GPU-labelled integration tests and
# `kbx eval --device cuda` on every known-good fixture and known-bad variant.
#   scripts/gpu-run.sh OUTDIR [MODE]
# MODE  all    (default) verdict table of every fixture and variant + ctest -L "unit|gpu"
#       check  kbx tasks --check on every task: 176 references + every known-good solution,
#              results kept in OUTDIR/h200-selfcheck.sqlite (the full-benchmark acceptance run)
#       perf   the variants' verdict table, the GPU tests that the check does not cover, and
#              bench/perf_bench.py on a sample of known-good solutions (KBX_BENCH_N, default 12)
#       fullbench  bench/perf_bench.py --self-check-only on EVERY task with a known-good solution,
#              3 runs on all GPUs, spread over several device calls: each run is split into
#              KBX_BENCH_PARTS parts (default 2); finished parts stay in .bench-state/full (ignored,
#              kept while the machine stays warm; KBX_BENCH_RESTORE=TARBALL restores them on a fresh
#              machine) and a part that would not end by KBX_GPU_DEADLINE (seconds after the call's
#              start, default 570) is not started. Each call leaves $OUT/bench.md (the runs so far) and
#              $OUT/state.tar.xz. KBX_BENCH_EVERY=K with KBX_BENCH_OFFSET="O1 O2 ...": every K-th task from
#              the O-th, one bench per offset in turn (own state, $OUT/bench-oO.md, state-oO.tar.xz;
#              KBX_BENCH_RESTORE_DIR=DIR restores DIR/state-oO.tar.xz). KBX_VERIFY_TASKS=LIST: first, the
#              perf self-check of these tasks as in MODE verify. KBX_BENCH_POSTTEST=FILTER: afterwards, with the time left, these GPU
#              integration tests (posttest.log; KBX_BENCH_TIE_TEST=1: the noise band / tie test).
#              KBX_BENCH_DIAG=1: first, the threads and driver libraries after the zygote's imports.
#              KBX_BENCH_AB=1: first, the correctness stage of every third known-good solution with and
#              without the warm worker (ab.txt, ab.sqlite.xz).
#              KBX_BENCH_PRETEST=FILTER: first, these GPU integration tests (pretest.log).
#              KBX_BENCH_PERF_CONFIG=JSON: kbx --perf-config for every run (e.g. '{"precompile": false}').
# KBX_GPU_SKIP_CTEST=1: leave ctest out. KBX_GPU_JOBS: parallel candidates (default 14).
set -uo pipefail
T_CALL=$(date +%s)
OUT=${1:?usage: scripts/gpu-run.sh OUTDIR [all|check|perf]}
MODE=${2:-all}
JOBS=${KBX_GPU_JOBS:-14}
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
# KBX_GPU_TARGETS: build only these targets (default: everything).
cmake --build build-gpu -j"$(nproc)" ${KBX_GPU_TARGETS:+--target $KBX_GPU_TARGETS} > /tmp/kbx-build.log 2>&1 || { grep -E "error|Error" /tmp/kbx-build.log | head -40; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
export LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [[ $MODE == smoke ]]; then
  # A few minutes: the sandbox, the perf stage and attribution on this GPU before the long runs.
  mkdir -p "$OUT/smoke"; for f in Activation/relu Reduce/sum MatrixMultiply/matmul; do
    [[ -f tests/fixtures/good/$f.py ]] && { mkdir -p "$OUT/smoke/$(dirname $f)"; cp tests/fixtures/good/$f.py "$OUT/smoke/$f.py"; }; done
  t1=$(date +%s)
  build-gpu/bin/kbx eval "$OUT/smoke" --device cuda --perf --jobs 3 --json --db "$OUT/smoke.sqlite" > "$OUT/smoke.jsonl" 2> "$OUT/smoke.log"
  echo "smoke eval rc=$? wall $(( $(date +%s) - t1 )) s"; cat "$OUT/smoke.log" | tail -12
  build-gpu/bin/integration_tests --gtest_filter='Perf.*' > "$OUT/perf-tests.log" 2>&1 <<< "" ; echo "Perf tests rc=$?"
  KBX_TEST_DEVICE=cuda build-gpu/bin/integration_tests --gtest_filter='Perf.*' >> "$OUT/perf-tests.log" 2>&1; echo "gpu Perf tests rc=$?"
  grep -E "OK|FAILED|Failure|Expected|Which is|actual" "$OUT/perf-tests.log" | head -30
  exit 0
fi
# The perf self-check of KBX_VERIFY_TASKS on all GPUs: verdicts, Triton shares, speedups (verify.*).
verify_tasks() {
  t1=$(date +%s)
  build-gpu/bin/kbx tasks --check --device cuda --perf --gpus "$gpus" --jobs 8 --task "${KBX_VERIFY_TASKS:?}" \
    --db "$OUT/verify.sqlite" > "$OUT/verify.txt" 2> "$OUT/verify.log"
  echo "kbx tasks --check --perf rc=$? wall $(( $(date +%s) - t1 )) s"; tail -3 "$OUT/verify.txt"
  "$PY" - "$OUT/verify.sqlite" <<'PYEOF' | tee "$OUT/verify-perf.md"
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
print("| task | kernel | verdict | failure | Triton share | geomean speedup | worker |")
print("|---|---|---|---|---|---|---|")
for tid, kind, verdict, fc, ev in con.execute(
        "SELECT e.task_id, m.name, e.verdict, e.failure_class, e.evidence FROM evaluations e "
        "JOIN submissions s ON s.id = e.submission_id JOIN methods m ON m.id = s.method_id ORDER BY e.task_id, m.name"):
    ev = json.loads(ev or "{}")
    perf = ev.get("perf", {})
    att = perf.get("attribution", {})
    share = att.get("triton_share")
    g = (perf.get("geomean_speedup") or {}).get("estimate")
    print(f"| {tid} | {kind} | {verdict} | {fc or ''} | {'' if share is None else f'{100*share:.0f}%'} | "
          f"{'' if g is None else f'{g:.3f}'} | {perf.get('worker_start', '')}/{ev.get('worker_start', '')} |")
PYEOF
  xz -T0 "$OUT/verify.sqlite"
}
if [[ $MODE == verify ]]; then
  # After a change to the perf stage or the worker start: the perf self-check of KBX_VERIFY_TASKS on
  # all GPUs (verdicts, Triton shares, speedups), then the GPU tests (KBX_VERIFY_TESTS) in the time left.
  end=$(( T_CALL + ${KBX_GPU_DEADLINE:-570} )); left() { echo $(( end - $(date +%s) )); }
  gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
  cmake --build build-gpu -j"$(nproc)" --target integration_tests > /tmp/kbx-build-it.log 2>&1 || tail -20 /tmp/kbx-build-it.log
  verify_tasks
  KBX_TEST_DEVICE=cuda timeout "$(( $(left) - 10 ))" build-gpu/bin/integration_tests --gtest_filter="${KBX_VERIFY_TESTS:-Perf.*}" \
    > "$OUT/verify-tests.log" 2>&1
  echo "gpu tests rc=$?"; grep -E "^\[ +(OK|FAILED|SKIPPED) |Failure|Which is|Actual|Expected" "$OUT/verify-tests.log" | head -30
  echo "call wall $(( $(date +%s) - T_CALL )) s"
  exit 0
fi
if [[ $MODE == fullbench ]]; then
  end=$(( T_CALL + ${KBX_GPU_DEADLINE:-570} )); left() { echo $(( end - $(date +%s) )); }
  EVERY=${KBX_BENCH_EVERY:-1}
  gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
  # KBX_VERIFY_TASKS: first, the perf self-check of these tasks (as in MODE verify).
  [[ -n "${KBX_VERIFY_TASKS:-}" ]] && verify_tasks
  if [[ "${KBX_BENCH_DIAG:-0}" == 1 ]]; then
    # What a warm worker's children would inherit on this torch build: threads and GPU driver libraries
    # present after the zygote's imports (the warm perf stall of 2026-11-30-h200x2-warm).
    PYTHONPATH=tasks/worker/python timeout 60 "$PY" -c 'import importlib, time; from kbx_harness import zygote as z
t0 = time.time(); [importlib.import_module(m) for m in z.PRELOAD]
import torch; print(f"imports {time.time() - t0:.1f} s; cuda initialised: {torch.cuda.is_initialized()}; {z.inherited_state()}")' \
      2>&1 | tee "$OUT/zygote-diag.txt"
  fi
  if [[ "${KBX_BENCH_AB:-0}" == 1 ]]; then
    # Warm worker against cold starts, side by side in one call: the correctness stage of every
    # third known-good solution on all GPUs, same secret seed, each order once (cold, warm, warm, cold).
    mkdir -p "$OUT/ab-src"
    for f in $(ls tests/fixtures/good/*/*.py | sort | awk 'NR % 3 == 1'); do
      c=$(basename "$(dirname "$f")"); mkdir -p "$OUT/ab-src/$c"; cp "$f" "$OUT/ab-src/$c/"; done
    for w in ${KBX_BENCH_AB_ORDER:-off on on off}; do
      t1=$(date +%s.%N)
      build-gpu/bin/kbx eval "$OUT/ab-src" --device cuda --gpus "$gpus" --jobs "${KBX_BENCH_JOBS:-12}" --secret-seed 7 \
        --warm-workers $w --method "ab-$w" --json --db "$OUT/ab.sqlite" > "$OUT/ab-$w.jsonl" 2>> "$OUT/ab.log"
      rc=$?; t2=$(date +%s.%N)
      echo "ab warm=$w rc=$rc wall $("$PY" -c "print(round($t2 - $t1, 1))") s, $(grep -c '"verdict":"pass"' "$OUT/ab-$w.jsonl") pass of $(wc -l < "$OUT/ab-$w.jsonl")" | tee -a "$OUT/ab.txt"
    done
    rm -rf "$OUT/ab-src" "$OUT"/ab-*.jsonl; xz -T0 "$OUT/ab.sqlite"
  fi
  if [[ -n "${KBX_BENCH_PRETEST:-}" ]]; then
    cmake --build build-gpu -j"$(nproc)" --target integration_tests > /tmp/kbx-build-it.log 2>&1 || tail -20 /tmp/kbx-build-it.log
    KBX_TEST_DEVICE=cuda timeout "$(( $(left) - 60 ))" build-gpu/bin/integration_tests --gtest_filter="$KBX_BENCH_PRETEST" \
      > "$OUT/pretest.log" 2>&1
    echo "gpu tests ($KBX_BENCH_PRETEST) rc=$?"; grep -E "^\[ +(OK|FAILED|SKIPPED) |Failure|Which is|Actual|Expected" "$OUT/pretest.log" | head -20
  fi
  # KBX_BENCH_EVERY=K: every K-th task with a known-good solution only (default all of them), from the
  # KBX_BENCH_OFFSET-th (1..K, default 1): EVERY=3 with OFFSET=1, 2, 3 are the three thirds. OFFSET may
  # list several ("3 2"): their benches run one after the other, each with its own state
  # (.bench-state/full-eK-oO) and files ($OUT/bench-oO.md, state-oO.tar.xz; no suffix when K=1).
  offs=${KBX_BENCH_OFFSET:-1}; for OFF in ${offs//,/ }; do
    if [[ $EVERY == 1 ]]; then ST="$ROOT/.bench-state/full"; sfx=""; else ST="$ROOT/.bench-state/full-e$EVERY-o$OFF"; sfx="-o$OFF"; fi
    mkdir -p "$ST"
    # KBX_BENCH_RESTORE=TARBALL (one offset) or KBX_BENCH_RESTORE_DIR=DIR holding state-oO.tar.xz: the
    # finished runs of an earlier call, restored only where this machine has none (a fresh machine).
    rs=${KBX_BENCH_RESTORE:-}; [[ -n "${KBX_BENCH_RESTORE_DIR:-}" ]] && rs="$KBX_BENCH_RESTORE_DIR/state$sfx.tar.xz"
    if [[ -n $rs && -f $rs && ! -f "$ST/unit_walls.json" ]]; then
      tar -xJf "$rs" -C "$ST" && echo "restored $(ls "$ST" | grep -c '\.done$') finished parts/runs from $rs"
    fi
    tasks=$(ls tests/fixtures/good/*/*.py | sort | awk -v k="$EVERY" -v o="$OFF" 'NR % k == o % k' \
      | sed 's#tests/fixtures/good/##; s#\.py$##' | paste -sd, -)
    t3=$(date +%s)
    PYTHONUNBUFFERED=1 timeout "$(( $(left) - 25 ))" "$PY" bench/perf_bench.py - --self-check-only --out "$ST" --repeats 3 \
      --parts "${KBX_BENCH_PARTS:-2}" --jobs "${KBX_BENCH_JOBS:-12}" --gpus "$gpus" --tasks "$tasks" --kbx build-gpu/bin/kbx \
      --resume --deadline "$(( end - 25 ))" --run-estimate "${KBX_RUN_ESTIMATE:-420}" \
      ${KBX_BENCH_PERF_CONFIG:+--perf-config "$KBX_BENCH_PERF_CONFIG"} > "$OUT/bench$sfx.txt" 2>&1
    echo "bench (offset $OFF of $EVERY) rc=$? after $(( $(date +%s) - t3 )) s (GPUs $gpus)"
    grep -E "^self-check|^- shapes|within|Wall time" "$OUT/bench$sfx.txt"
    cp "$ST/bench.md" "$OUT/bench$sfx.md" 2>/dev/null; cp "$ST/bench.log" "$OUT/bench$sfx.log" 2>/dev/null
    # The state without the part databases already merged into their run's database.
    ( cd "$ST" && ls | grep -vE '^self-check-[0-9]+-[0-9]+\.sqlite$' > /tmp/kbx-state.lst
      for r in 0 1 2; do [[ -f self-check-$r.done ]] || grep -E "^self-check-$r-[0-9]+\.sqlite$" <(ls) >> /tmp/kbx-state.lst; done
      tar -cf - -T /tmp/kbx-state.lst | xz -T0 -6 > "$OUT/state$sfx.tar.xz" )
  done
  post=${KBX_BENCH_POSTTEST:-}; [[ "${KBX_BENCH_TIE_TEST:-0}" == 1 ]] && post=${post:-Perf.TheTasksOwnSelfSpeedup*}
  if [[ -n "$post" && $(left) -gt 120 ]]; then
    cmake --build build-gpu -j"$(nproc)" --target integration_tests > /tmp/kbx-build-it.log 2>&1 || tail -20 /tmp/kbx-build-it.log
    KBX_TEST_DEVICE=cuda timeout "$(( $(left) - 20 ))" build-gpu/bin/integration_tests --gtest_filter="$post" \
      > "$OUT/posttest.log" 2>&1
    echo "gpu tests ($post) rc=$?"; grep -E "^\[ +(OK|FAILED|SKIPPED) |Failure|Which is|Actual|Expected" "$OUT/posttest.log" | head -30
  fi
  ls -la "$OUT"; echo "call wall $(( $(date +%s) - T_CALL )) s"
  exit 0
fi
if [[ $MODE == diag ]]; then
  # Issue 7: the exploit table on the GPU; issue 6: the perf worker's fixed costs and phases.
  t1=$(date +%s)
  "$PY" scripts/exploit_table.py run --device cuda --kbx build-gpu/bin/kbx --jobs 8 --timeout 30 \
    --out "$OUT/exploits-cuda.md" --keep "$OUT/exploits" > "$OUT/exploits.log" 2>&1
  echo "exploit table rc=$? wall $(( $(date +%s) - t1 )) s"; grep -E "^- (cases|processes|kbx exit)" "$OUT/exploits-cuda.md"
  grep -E "\| no \|" "$OUT/exploits-cuda.md" | head -20
  "$PY" bench/perf_overheads.py --repeats 3 > "$OUT/overheads.md" 2>&1; cat "$OUT/overheads.md"
  mkdir -p "$OUT/bench-src"
  for f in $(ls tests/fixtures/good/*/*.py | sort | awk "NR % ${KBX_BENCH_EVERY:-19} == 1"); do
    c=$(basename "$(dirname "$f")"); mkdir -p "$OUT/bench-src/$c"; cp "$f" "$OUT/bench-src/$c/"; done
  t3=$(date +%s)
  "$PY" bench/perf_bench.py "$OUT/bench-src" --out "$OUT/bench" --repeats 1 --jobs 8 --gpus 0 \
    --kbx build-gpu/bin/kbx ${KBX_BENCH_ARGS:-} > "$OUT/bench.txt" 2>&1
  echo "bench rc=$? after $(( $(date +%s) - t3 )) s"; grep -A12 "by phase" "$OUT/bench.txt"; grep -E "^\| [A-Z]" "$OUT/bench.txt" | head -12
  exit 0
fi
if [[ $MODE == final ]]; then
  # One device call for issues 6 and 7 (KBX_GPU_DEADLINE: seconds from now that all of it must fit in):
  # the perf bench (3 repeats), the GPU perf tests, then the exploit table with the time left.
  end=$(( t0 + ${KBX_GPU_DEADLINE:-570} )); left() { echo $(( end - $(date +%s) )); }
  tasks=$(ls tests/fixtures/good/*/*.py | sort | awk "NR % ${KBX_BENCH_EVERY:-8} == 1" | sed 's#tests/fixtures/good/##; s#\.py$##' | paste -sd, -)
  t3=$(date +%s)
  timeout "$(( $(left) - 150 ))" "$PY" bench/perf_bench.py - --self-check-only --out "$OUT/bench" --repeats 3 --jobs 12 --gpus 0,1 \
    --tasks "$tasks" --kbx build-gpu/bin/kbx > "$OUT/bench.txt" 2>&1
  echo "bench rc=$? after $(( $(date +%s) - t3 )) s"; grep -E "^- shapes|within|Wall time" "$OUT/bench.txt"; grep -A14 "by phase" "$OUT/bench.txt" | tail -11
  KBX_TEST_DEVICE=cuda timeout "$(( $(left) - 60 ))" build-gpu/bin/integration_tests --gtest_filter='Perf.*' > "$OUT/perf-tests.log" 2>&1
  echo "gpu Perf tests rc=$?"; grep -E "^\[ +(OK|FAILED|SKIPPED) |Failure|Which is|Actual|Expected" "$OUT/perf-tests.log" | head -20
  t1=$(date +%s)
  timeout "$(( $(left) - 5 ))" "$PY" scripts/exploit_table.py run --device cuda --kbx build-gpu/bin/kbx --jobs 12 --timeout 20 \
    --out "$OUT/exploits-cuda.md" --keep "$OUT/exploits" > "$OUT/exploits.log" 2>&1
  echo "exploit table rc=$? wall $(( $(date +%s) - t1 )) s"; grep -E "^- (cases|processes|kbx exit)" "$OUT/exploits-cuda.md"
  grep -E "\*\*NO\*\*" "$OUT/exploits-cuda.md" | head -20
  exit 0
fi
if [[ $MODE == recheck ]]; then
  # After fixes: the self-check of the tasks in KBX_RECHECK_TASKS, then the GPU perf tests.
  t1=$(date +%s)
  build-gpu/bin/kbx tasks --check --device cuda --jobs "$JOBS" --task "${KBX_RECHECK_TASKS:?}" --db "$OUT/h200-recheck.sqlite" \
    > "$OUT/recheck.txt" 2> "$OUT/recheck.log"
  echo "kbx tasks --check (recheck) rc=$? wall $(( $(date +%s) - t1 )) s"; cat "$OUT/recheck.txt"
  KBX_TEST_DEVICE=cuda build-gpu/bin/integration_tests --gtest_filter='Perf.*' > "$OUT/perf-tests.log" 2>&1; echo "gpu Perf tests rc=$?"
  grep -E "^\[ +(OK|FAILED)|Failure|Which is|Actual" "$OUT/perf-tests.log" | head -20
  exit 0
fi
if [[ $MODE == scale ]]; then
  # Issue 8: correctness throughput on one GPU and on two, same submissions (every known-good
  # solution), same secret seed, --jobs per GPU; Triton's cache is per candidate, so the second run
  # compiles everything again like the first.
  for g in 0 0,1; do
    n=${g//,/-}; t1=$(date +%s)
    build-gpu/bin/kbx eval tests/fixtures/good --device cuda --gpus "$g" --jobs "$JOBS" --secret-seed 11 --method "scale-gpus-$n" \
      --json --db "$OUT/scale-$n.sqlite" > "$OUT/scale-$n.jsonl" 2> "$OUT/scale-$n.log"
    echo "gpus $g: rc=$? wall $(( $(date +%s) - t1 )) s, $(grep -c '"verdict":"pass"' "$OUT/scale-$n.jsonl") pass of $(wc -l < "$OUT/scale-$n.jsonl")" | tee -a "$OUT/scale.txt"
  done
  exit 0
fi
if [[ $MODE == perfbench ]]; then
  # Issue 6: timing precision (3 runs) and the reference's self-speedup on a sample of tasks
  # (every third task with a known-good solution), both GPUs timing one kernel each at a time.
  tasks=$(ls tests/fixtures/good/*/*.py | sort | awk "NR % ${KBX_BENCH_EVERY:-3} == 1" | sed 's#tests/fixtures/good/##; s#\.py$##' | paste -sd, -)
  echo "$tasks" > "$OUT/bench-tasks.txt"
  t3=$(date +%s)
  "$PY" bench/perf_bench.py - --self-check-only --out "$OUT/bench" --repeats "${KBX_BENCH_REPEATS:-3}" --jobs "${KBX_BENCH_JOBS:-8}" \
    --gpus "${KBX_BENCH_GPUS:-0,1}" --tasks "$tasks" --kbx build-gpu/bin/kbx ${KBX_BENCH_ARGS:-} > "$OUT/bench.txt" 2>&1
  echo "bench rc=$? after $(( $(date +%s) - t3 )) s"; tail -30 "$OUT/bench.txt"
  exit 0
fi
if [[ $MODE == check ]]; then
  t1=$(date +%s)
  build-gpu/bin/kbx tasks --check --device cuda --jobs "$JOBS" --db "$OUT/h200-selfcheck.sqlite" > "$OUT/self-check.txt" 2> "$OUT/self-check.log"
  echo "kbx tasks --check rc=$? wall $(( $(date +%s) - t1 )) s" | tee "$OUT/self-check.rc"
  tail -1 "$OUT/self-check.txt"; grep FAIL "$OUT/self-check.txt" | head -40
  exit 0
fi
if [[ $MODE == perf ]]; then
  t1=$(date +%s)
  "$PY" scripts/fixture_set.py build "$OUT/fixtures-all.jsonl" --device cuda
  grep '"kind": "variant"' "$OUT/fixtures-all.jsonl" > "$OUT/variants.jsonl"
  build-gpu/bin/kbx eval "$OUT/variants.jsonl" --device cuda --json --jobs "$JOBS" --timeout 60 --db "$OUT/h200-variants.sqlite" \
    > "$OUT/variants-verdicts.jsonl" 2> "$OUT/variants.log"
  echo "variants: rc=$? wall $(( $(date +%s) - t1 )) s"; tail -1 "$OUT/variants.log"
  "$PY" scripts/fixture_set.py table "$OUT/variants.jsonl" "$OUT/variants-verdicts.jsonl" --env "$OUT/environment.txt" \
    --title "kbx eval --device cuda on the known-bad variants" --wall "$(( $(date +%s) - t1 )) s" > "$OUT/variants.md"
  head -14 "$OUT/variants.md" | tail -3
  if [[ "${KBX_GPU_SKIP_CTEST:-0}" != 1 ]]; then
    t2=$(date +%s)
    ctest --test-dir build-gpu -L "unit|gpu" -E "self_check_all|EveryKnownGoodFixturePasses|EveryKnownBadFixtureGetsItsClass" \
      --output-on-failure -j4 --timeout 600 > "$OUT/ctest-gpu.log" 2>&1
    echo "ctest (unit + gpu, without the runs above): rc=$? after $(( $(date +%s) - t2 )) s"; grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest-gpu.log" | tail -12
  fi
  # Timing precision and cost: a sample of known-good solutions, every category first.
  mkdir -p "$OUT/bench-src"
  n=0
  for cat in $(ls tests/fixtures/good); do
    f=$(ls tests/fixtures/good/$cat/*.py | head -1); mkdir -p "$OUT/bench-src/$cat"; cp "$f" "$OUT/bench-src/$cat/"; n=$((n+1))
    [[ $n -ge ${KBX_BENCH_N:-12} ]] && break
  done
  t3=$(date +%s)
  "$PY" bench/perf_bench.py "$OUT/bench-src" --out "$OUT/bench" --repeats "${KBX_BENCH_REPEATS:-3}" --jobs 8 \
    --kbx build-gpu/bin/kbx ${KBX_BENCH_ARGS:-} > "$OUT/bench.txt" 2>&1
  echo "bench rc=$? after $(( $(date +%s) - t3 )) s"; tail -25 "$OUT/bench.txt"
  exit 0
fi
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
