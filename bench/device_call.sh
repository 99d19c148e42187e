#!/bin/bash
# SPDX-License-Identifier: MIT
# One device call of issue 22's GPU runs, one mode per call, on the device tool's machine (its $OUT comes
# back; carry .deps/debs and .bench-carry, see bench/README.md). The deadline is LIM seconds (default 585)
# from the call's start: no kbx run or gpu test starts that would not end before it, so a call is not cut by
# the tool's 600 s limit with nothing back.
#   bench/device_call.sh build        build kbx, kbx-worker, kbx_python and the integration tests (~100-130 s)
#   bench/device_call.sh rep R        run R (0 or 1) of the corpus repeat with kbx's default options; run 1
#                                     finds run 0's files in .bench-state/def (a warm machine), else in
#                                     .bench-carry/def; a run not expected to end in time (RUN_ESTIMATE,
#                                     default 480 s, before any run was made) is not started
#   bench/device_call.sh kg           one run of the known-good perf bench (every twelfth task, --resume)
#   bench/device_call.sh corpus       the corpus sample without --perf: the correctness stage alone
#   bench/device_call.sh exploits     the exploit table (scripts/exploit_table.py run --device cuda)
#   TESTS=REGEX bench/device_call.sh more   the gpu tests matching REGEX (ctest -R), one at a time
# Each mode builds first where build-gpu/bin/kbx is missing (a fresh machine). steps.log says what ran and when.
set -u
MODE=${1:?mode: build, rep R, kg, corpus, exploits or more}
T0=$(date +%s); LIM=${LIM:-585}
: "${OUT:?OUT: the folder the device tool brings back}"
cd "$(dirname "$0")/.."
export PATH=/opt/torch/.venv/bin:$PATH PYTHONUNBUFFERED=1 KBX_PYTHON=${KBX_PYTHON:-/opt/torch/.venv/bin/python}
export KBX_TREE_COMMIT=${KBX_TREE_COMMIT:-$(cat .bench-carry/tree 2>/dev/null || git rev-parse HEAD)}
step() { echo "[$(( $(date +%s) - T0 ))s] $*" >> "$OUT/steps.log"; }
left() { echo $(( LIM - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,uuid,driver_version,persistence_mode,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
TARGETS="kbx kbx-worker kbx_python"
case $MODE in build|more) TARGETS="$TARGETS integration_tests" ;; esac
if [ ! -x build-gpu/bin/kbx ] || [ "$MODE" = build ] || [ "$MODE" = more ]; then
  scripts/gpu-run.sh --build-only --targets "$TARGETS" /tmp/device-call-build > "$OUT/build.log" 2>&1
  rc=$?; step "build rc $rc"; [ $rc = 0 ] || exit $rc
fi
rc=0
case $MODE in
build) ;;
more)
  python bench/gpu_runs.py gputests /tmp/gt --tests "${TESTS:?TESTS=REGEX}" --deadline $(( T0 + LIM )) --test-estimate 110 \
    > "$OUT/gputests-run.txt" 2>&1; rc=$?
  step "gputests '$TESTS' rc $rc"; cp /tmp/gt/gputests.txt "$OUT/" 2>/dev/null ;;
kg)
  python bench/perf_bench.py - --self-check-only --every 12 --offset 1 --repeats 3 --jobs 12 --resume \
    --kbx build-gpu/bin/kbx --out .bench-state/kg --run-estimate 270 --deadline $(( T0 + LIM )) \
    --archive "$OUT/kg-state.tar.xz" > "$OUT/knowngood-bench.txt" 2>&1; rc=$?
  step "kg bench rc $rc"; cp .bench-state/kg/bench.md "$OUT/knowngood-bench.md" 2>/dev/null ;;
corpus)
  rm -rf /tmp/corpus
  python bench/gpu_runs.py corpus /tmp/corpus --time-limit "$(left)" > "$OUT/corpus.txt" 2>&1; rc=$?
  step "corpus rc $rc"
  cp /tmp/corpus/corpus.md /tmp/corpus/protocol.txt /tmp/corpus/environment.txt "$OUT/" 2>/dev/null
  (cd /tmp/corpus && tar -cJf "$OUT/corpus-files.tar.xz" corpus.log corpus.jsonl corpus.sqlite) ;;
exploits)
  rm -rf /tmp/exploits
  python bench/gpu_runs.py exploits /tmp/exploits --time-limit "$(left)" > "$OUT/exploits.txt" 2>&1; rc=$?
  step "exploits rc $rc"; cp /tmp/exploits/exploits-cuda.md /tmp/exploits/environment.txt "$OUT/" 2>/dev/null ;;
rep)
  RUN=${2:?rep R}; D=.bench-state/def
  [ -d $D ] || [ ! -d .bench-carry/def ] || cp -r .bench-carry/def $D
  python bench/gpu_runs.py repeat $D --run "$RUN" --runs 2 --time-limit "$(( $(left) - 30 ))" \
    --run-estimate "${RUN_ESTIMATE:-480}" > "$OUT/repeat-$RUN.txt" 2>&1; rc=$?
  step "repeat $RUN rc $rc"
  [ $rc = 3 ] || (cd $D && tar --exclude='*.sqlite' -cJf "$OUT/run-$RUN-files.tar.xz" . \
    && xz -T0 -k -c "run-$RUN.sqlite" > "$OUT/run-$RUN.sqlite.xz") ;;
*) echo "device_call.sh: unknown mode $MODE" >&2; exit 2 ;;
esac
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv >> "$OUT/gpu.txt" 2>&1
ls -la "$OUT"
exit $rc
