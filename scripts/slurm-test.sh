#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kbx eval --backend slurm against a real Slurm: a one-node cluster on localhost (CPU only), started
# here and stopped at the end. Evaluates 6 submissions (5 known-good, 1 known-bad) in 3 shards on
# the CPU (Triton interpreter), cancels one array task while it runs (the backend re-submits it),
# then breaks one finished shard and continues the run with --resubmit (its new copy replaces the
# old one in the merge), and checks:
#   - the merged database holds exactly the verdicts and failure classes of a local kbx eval of the
#     same submissions (per task and code SHA-256), each submission evaluated once;
#   - every shard's run records its node (provenance.slurm.node);
#   - kbx merge of the shard databases once more changes no row count;
#   - Ctrl-C of the backend scancels its array tasks and exits 130.
# Needs root (munged, slurmctld and slurmd run here) and Debian's munge, slurmctld, slurmd and
# slurm-client (scripts/setup.sh test installs them). Without them it says so and exits 0.
#   scripts/slurm-test.sh [BUILD_DIR]      (default build/; KBX_SLURM_TEST=0 skips)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
KBX="$BUILD/bin/kbx"
say() { printf '\033[1m[slurm-test]\033[0m %s\n' "$*" >&2; }
skip() { say "SKIPPED: $*"; exit 0; }
fail() { say "FAILED: $*"; exit 1; }

[[ "${KBX_SLURM_TEST:-1}" == 0 ]] && skip "KBX_SLURM_TEST=0"
[[ $(id -u) == 0 ]] || skip "needs root (it starts munged, slurmctld and slurmd)"
for t in munged slurmctld slurmd sbatch squeue scancel; do
  command -v "$t" >/dev/null || [[ -x /usr/sbin/$t ]] || skip "$t is not installed (apt-get install munge slurmctld slurmd slurm-client)"
done
[[ -x "$KBX" && -x "$BUILD/bin/kbx-worker" ]] || fail "$KBX or kbx-worker missing (build first)"
PY=${KBX_PYTHON:-$ROOT/.venv/bin/python}
[[ -x "$PY" ]] || PY=python3
export PATH="$PATH:/usr/sbin:/sbin"
T0=$(date +%s)

TMP=$(mktemp -d /tmp/kbx-slurm-test.XXXXXX)
chmod 755 "$TMP"
PIDS=()
cleanup() {
  local rc=$?
  for f in "$TMP/slurmd.pid" "$TMP/slurmctld.pid" "$TMP/munged.pid"; do
    [[ -s $f ]] && kill "$(cat "$f")" 2>/dev/null || true
  done
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 1
  for f in "$TMP/slurmd.pid" "$TMP/slurmctld.pid" "$TMP/munged.pid"; do
    [[ -s $f ]] && kill -9 "$(cat "$f")" 2>/dev/null || true
  done
  if ((rc != 0)); then
    for log in slurmctld.log slurmd.log munged.log driver1.log driver2.log driver4.log; do
      [[ -f $TMP/$log ]] && { say "---- $log (last 40 lines)"; tail -40 "$TMP/$log" >&2; }
    done
    for log in "$TMP"/work/logs/*.out; do [[ -f $log ]] && { say "---- $log"; tail -20 "$log" >&2; }; done
    say "left $TMP for inspection"
  else
    rm -rf "$TMP"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- a one-node cluster ------------------------------------------------------------------------------
HOST=$(hostname -s)
CPUS=$(nproc)
MEM=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
mkdir -p "$TMP/munge" "$TMP/munge-run" "$TMP/state" "$TMP/spool"
chmod 700 "$TMP/munge"
chmod 755 "$TMP/munge-run"  # clients (slurmstepd, sbatch) reach the socket through it
# A key of our own for this cluster (munged insists on 0600 and an owner of its own).
head -c 1024 /dev/urandom > "$TMP/munge/munge.key"
chmod 600 "$TMP/munge/munge.key"
munged --force --key-file="$TMP/munge/munge.key" --socket="$TMP/munge-run/munge.sock" \
  --pid-file="$TMP/munged.pid" --log-file="$TMP/munged.log" --seed-file="$TMP/munge/munge.seed" \
  || fail "munged did not start"
PORT_CTLD=$((20000 + RANDOM % 20000)); PORT_D=$((PORT_CTLD + 1))
cat > "$TMP/slurm.conf" <<EOF
ClusterName=kbxtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT_CTLD
SlurmdPort=$PORT_D
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$TMP/munge-run/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/slurmctld.log
SlurmdLogFile=$TMP/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
MinJobAge=600
KillWait=5
SlurmdTimeout=60
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=kbx Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$TMP/slurm.conf"
slurmctld -c -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N "$HOST" || fail "slurmd did not start"
for _ in $(seq 60); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -1 || true)
  [[ $state == idle ]] && break
  sleep 1
done
[[ ${state:-} == idle ]] || fail "the node did not become idle (state '${state:-none}')"
say "one-node cluster up on $HOST ($CPUS CPUs) in $(( $(date +%s) - T0 ))s"

# ---- the submissions: 5 known-good solutions and 1 known-bad variant -----------------------------
SUBS="$TMP/subs.jsonl"
"$PY" - "$ROOT" "$SUBS" <<'EOF'
import json, sys
root, out = sys.argv[1], sys.argv[2]
good = ["Activation/relu", "Activation/leaky_relu", "Activation/sigmoid", "Activation/tanh", "Activation/gelu"]
with open(out, "w") as f:
    for t in good:
        f.write(json.dumps({"predict": open(f"{root}/tests/fixtures/good/{t}.py").read(), "file": t + ".py"}) + "\n")
    f.write(json.dumps({"predict": open(f"{root}/tests/fixtures/variants/value_mismatch.py").read(),
                        "file": "Activation/leaky_relu.py"}) + "\n")
EOF
COMMON=(--device cpu --method slurm-test --secret-seed 4242)

# The reference: a local run of the same submissions.
"$KBX" eval "$SUBS" "${COMMON[@]}" --db "$TMP/local.sqlite" --jobs 2 2> "$TMP/local.log" || { cat "$TMP/local.log" >&2; fail "local kbx eval"; }
say "local run done ($(( $(date +%s) - T0 ))s)"

# ---- 1. sharded run; one array task cancelled while it runs: the backend re-submits it --------------
WORK="$TMP/work"
"$KBX" eval "$SUBS" "${COMMON[@]}" --backend slurm --shards 3 --work-dir "$WORK" --db "$TMP/merged.sqlite" --poll 0.5 \
  > "$TMP/driver1.out" 2> "$TMP/driver1.log" &
DRIVER=$!
PIDS+=("$DRIVER")
job=""
for _ in $(seq 120); do
  [[ -f $WORK/run.json ]] && job=$("$PY" -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"]; print(j[0]["job_id"] if j else "")' "$WORK/run.json")
  if [[ -n $job ]] && squeue -h -r -j "$job" -o "%i %T" 2>/dev/null | grep -q "^${job}_1 RUNNING"; then break; fi
  sleep 0.5
done
squeue -h -r -j "$job" -o "%i %T" | grep -q "^${job}_1 RUNNING" || fail "array task ${job}_1 never ran"
sleep 2  # inside kbx eval by now (the worker probe alone takes longer)
[[ -f $WORK/shard-1.rc ]] && fail "shard 1 finished before it could be cancelled"
scancel "${job}_1"
say "cancelled array task ${job}_1 while it ran"
rc=0; wait "$DRIVER" || rc=$?
cat "$TMP/driver1.log" >&2
((rc == 0)) || fail "the Slurm backend exited $rc"
grep -q "shard 1/3 failed" "$TMP/driver1.log" || fail "the driver did not see shard 1 fail"
grep -q "re-submitting it from scratch" "$TMP/driver1.log" || fail "the driver did not re-submit shard 1"
say "run 1 done ($(( $(date +%s) - T0 ))s)"

check_equal() {  # the merged verdicts are the local run's
  "$PY" - "$TMP/local.sqlite" "$TMP/merged.sqlite" <<'EOF'
import sqlite3, sys
q = """SELECT e.task_id, c.code_hash, e.verdict, coalesce(e.failure_class, '') FROM evaluations e
       JOIN submissions s ON s.id = e.submission_id JOIN candidates c ON c.id = s.candidate_id"""
def rows(p):
    r = sorted(sqlite3.connect(p).execute(q).fetchall())
    return r
local, merged = rows(sys.argv[1]), rows(sys.argv[2])
if len(local) != 6 or local != merged:
    sys.exit(f"local run and merged shards differ:\n  local  {local}\n  merged {merged}")
if not any(r[2] == "fail" and r[3] == "value_mismatch" for r in merged) or sum(r[2] == "pass" for r in merged) != 5:
    sys.exit(f"unexpected verdicts: {merged}")
con = sqlite3.connect(sys.argv[2])
runs = con.execute("SELECT json_extract(args, '$.shard'), json_extract(provenance, '$.slurm.node'), status FROM runs ORDER BY 1").fetchall()
if [r[0] for r in runs] != ["0/3", "1/3", "2/3"] or any(not r[1] or r[2] != "finished" for r in runs):
    sys.exit(f"runs of the merged database: {runs}")
print(f"merged == local: {len(merged)} verdicts; runs {runs}")
EOF
}
counts() {
  "$PY" - "$TMP/merged.sqlite" <<'EOF'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
print(" ".join(f"{t}={con.execute(f'SELECT count(*) FROM {t}').fetchone()[0]}" for t in
      ("methods", "candidates", "submissions", "runs", "evaluations", "case_results", "timings", "merge_ledger")))
EOF
}
check_equal || fail "run 1: merged result differs from the local run"

# ---- 2. a shard that "died" after its run: --resubmit re-runs it and the merge replaces it -------
rm -f "$WORK/shard-2.rc"
before=$(counts)
rc=0
"$KBX" eval --backend slurm --resubmit "$WORK" --poll 0.5 > "$TMP/driver2.out" 2> "$TMP/driver2.log" || rc=$?
cat "$TMP/driver2.log" >&2
((rc == 0)) || fail "--resubmit exited $rc"
grep -q "shard 2/3: its kbx eval did not end" "$TMP/driver2.log" || fail "--resubmit did not pick shard 2"
grep -q "shard 2/3 .*replaced an earlier copy" "$TMP/driver2.log" || fail "the re-run of shard 2 did not replace its earlier copy"
grep -q "shard 0/3 .*already merged" "$TMP/driver2.log" || fail "shard 0 was merged again"
after=$(counts)
[[ $before == "$after" ]] || fail "row counts changed by the re-run: $before -> $after"
check_equal || fail "run 2: merged result differs from the local run"

# ---- 3. merging the shards once more changes nothing ---------------------------------------------
"$KBX" merge "$TMP/merged.sqlite" "$WORK"/shard-*.sqlite 2> "$TMP/merge3.log" || { cat "$TMP/merge3.log" >&2; fail "kbx merge"; }
again=$(counts)
[[ $after == "$again" ]] || fail "merging twice changed row counts: $after -> $again"
grep -q "0 run(s) added, 0 replaced, 1 already merged" "$TMP/merge3.log" || { cat "$TMP/merge3.log" >&2; fail "kbx merge did not say 'already merged'"; }
say "row counts: $again"

# ---- 4. Ctrl-C of the driver cancels its array tasks (scancel) -----------------------------------------
"$KBX" eval "$SUBS" "${COMMON[@]}" --backend slurm --shards 2 --work-dir "$TMP/work4" --db "$TMP/cancelled.sqlite" --poll 0.5 \
  > "$TMP/driver4.out" 2> "$TMP/driver4.log" &
DRIVER=$!
PIDS+=("$DRIVER")
for _ in $(seq 120); do
  grep -q "RUNNING" "$TMP/driver4.log" 2>/dev/null && break
  sleep 0.5
done
kill -INT "$DRIVER"
rc=0; wait "$DRIVER" || rc=$?
cat "$TMP/driver4.log" >&2
((rc == 130)) || fail "the interrupted driver exited $rc, not 130"
job4=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["job_id"])' "$TMP/work4/run.json")
for _ in $(seq 40); do  # COMPLETING too: a task still completing is not yet CANCELLED in squeue (a CI run failed so)
  left=$(squeue -h -r -j "$job4" -t PENDING,RUNNING,CONFIGURING,COMPLETING -o %i 2>/dev/null | wc -l)
  ((left == 0)) && break
  sleep 0.5
done
((left == 0)) || fail "array job $job4 still has $left task(s) after Ctrl-C"
squeue -h -r -t all -j "$job4" -o "%i %T" | grep -q CANCELLED || fail "no task of $job4 was cancelled"
[[ ! -e $TMP/cancelled.sqlite ]] || fail "the interrupted run merged something"
say "Ctrl-C cancelled array job $job4"
say "PASSED in $(( $(date +%s) - T0 ))s"
