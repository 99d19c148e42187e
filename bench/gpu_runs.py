#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The correctness runs whose tables go to bench/results, on a built kbx (on a GPU machine, after
scripts/gpu-run.sh --build-only; on the CPU with --device cpu). Each writes OUT/environment.txt
(date, commit, GPUs, versions) beside its tables and databases.

  bench/gpu_runs.py verdicts OUT [--variants-only]   the fixture set's verdict table (verdicts.md): every
                                                    known-good solution must pass and every known-bad
                                                    variant get its expected class
  bench/gpu_runs.py check OUT [--tasks LIST] [--perf] [--after LISTING...]
                                                    kbx tasks --check (every task's reference and
                                                    known-good solution); with --perf also
                                                    per evaluation the verdict, Triton share and
                                                    speedup (check-perf.md); --after: only the tasks
                                                    that earlier calls' listings, cut short, did not
                                                    show ok
  bench/gpu_runs.py scale OUT [--gpu-sets "0 0,1"]  correctness throughput of the known-good set on each
                                                    GPU set, same submissions and secret seed
  bench/gpu_runs.py smoke OUT                       three known-good kernels with --perf, in minutes:
                                                    the sandbox, the perf stage and attribution on this
                                                    machine before a long run
  bench/gpu_runs.py corpus OUT                      real generated kernels (--versions, default the seed
                                                    corpus's adjudicated versions carried in .bench-carry,
                                                    made by scripts/corpus_adjudicate.py versions) through
                                                    kbx eval under the default protocol and options: the
                                                    verdicts against the separate-process adjudication
                                                    (corpus.md), the protocol table, the stage's s/kernel
  bench/gpu_runs.py exploits OUT                    the exploit and fault suite (scripts/exploit_table.py
                                                    run): exploits-DEVICE.md, every case and canary
  bench/gpu_runs.py stage-ab OUT --variants "A" "B" ...
                                                    the correctness stage under --perf once per variant
                                                    (kbx eval options, e.g. "--extended-start early",
                                                    "--jobs 18"), each stopped at its last correctness
                                                    line: its wall, s/kernel and the processes' summed
                                                    seconds by kind (stage-ab.md); run A B A to see the
                                                    order's effect
  bench/gpu_runs.py repeat DIR --run R [--runs 3]   one run of the perf repeat (bench/perf_repeat.py), one
                                                    device call per run on a warm machine: DIR (e.g.
                                                    .bench-state/repeat) stays there between the calls,
                                                    --archive brings it back each time. The last run writes
                                                    the report, the first
                                                    run's verdicts against the adjudication and its
                                                    protocol table. With --runs 3 run 2 replays run 0's
                                                    autotune choices. --perf-config JSON goes to every
                                                    run's kbx eval (e.g. the placement experiment,
                                                    '{"placement_gap_mb": 2048}'). With --time-limit
                                                    a run starts only if it ends within the limit, by the
                                                    longest run so far or, for the first, --run-estimate S
                                                    (about 440-520 s for the corpus sample on one
                                                    H100/H200); else it exits 3 at once
  bench/gpu_runs.py gputests OUT [--tests REGEX] [--part K/N] [--after LISTING...] [--deadline EPOCH]
                                                    builds the integration tests in --build-dir and runs
                                                    the gpu-labelled ones but those the runs above make
                                                    in full (the fixture set's two suites, the self-check,
                                                    the exploit suite); --part 1/2 then 2/2 splits them
                                                    over two device calls; or --deadline (one test at a
                                                    time, none started that would end after it) and
                                                    --after the earlier calls' gputests.txt (the tests
                                                    passed there left out) in each call; with --deadline
                                                    OUT/gputests.txt grows by each test's output

Common options: --kbx (default build-gpu/bin/kbx, else build/bin/kbx), --device (cuda), --jobs
(default: kbx picks), --gpus (verdicts, check: e.g. all), --time-limit S (each kbx run is stopped
after S seconds; what it committed stays in its database), --archive FILE (afterwards OUT as one
.tar.xz: a device call brings back at most 8 files, so keep OUT outside the call's $OUT and the
archive under it). On cuda, one known-good kernel is judged
first: where the namespace sandbox cannot run on the machine, the run says so in environment.txt
and goes on under the rlimit sandbox (KBX_SANDBOX_NO_NAMESPACES=1). KBX_TREE_COMMIT names the tree
in environment.txt where the machine's copy of .git lags behind the tree it was sent.

On a GPU machine, first `scripts/gpu-run.sh --build-only --targets "kbx kbx-worker kbx_python"` (about
a minute; gputests builds the tests itself; the tables read the databases through the kbx_python
module, scripts/kbxdb.py). Timing precision and cost: bench/perf_bench.py."""
import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOOD = os.path.join(ROOT, "tests", "fixtures", "good")
FIXTURE_SET = os.path.join(ROOT, "scripts", "fixture_set.py")
ADJUDICATE = os.path.join(ROOT, "scripts", "corpus_adjudicate.py")
EXPLOITS = os.path.join(ROOT, "scripts", "exploit_table.py")
PERF_REPEAT = os.path.join(ROOT, "bench", "perf_repeat.py")
CARRY = os.path.join(ROOT, ".bench-carry")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import kbxdb  # noqa: E402
import perf_repeat  # noqa: E402  (bench/, this script's folder)
# The libraries that scripts/gpu-run.sh unpacks from the carried .debs (the build's RPATH names them
# too; the worker's children find them through this).
DEPS_LIB = os.path.join(ROOT, ".deps", "prefix", "usr", "lib", "x86_64-linux-gnu")


def default_kbx():
    for b in ("build-gpu", "build"):
        p = os.path.join(ROOT, b, "bin", "kbx")
        if os.path.exists(p):
            return p
    return os.path.join(ROOT, "build-gpu", "bin", "kbx")


def capture(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        return (r.stdout + r.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{cmd[0]}: {e}"


def host_line(cpuinfo="/proc/cpuinfo", meminfo="/proc/meminfo"):
    """The host's CPU model, usable cores and memory: runs on two machines with the same GPU model
    differed by ~40 % in wall (the correctness stage and the perf stage's host work run on it)."""
    model, mem = "CPU model not known", "memory not known"
    try:
        with open(cpuinfo) as f:
            for line in f:
                if line.startswith("model name") and ":" in line:
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open(meminfo) as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = f"{int(line.split()[1]) / 1048576:.0f} GiB memory"
                    break
    except (OSError, ValueError, IndexError):
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cores} usable core(s), {mem}"


def write_environment(out):
    lines = [f"date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}",
             "commit: " + (os.environ.get("KBX_TREE_COMMIT") or capture(["git", "-C", ROOT, "rev-parse", "HEAD"])),
             capture(["nvidia-smi", "--query-gpu=name,uuid,driver_version,memory.total", "--format=csv,noheader"]),
             "host: " + host_line(),
             capture([sys.executable, "-c", "import sys, torch, triton, numpy; print('python', sys.version.split()[0], "
                      "'torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__, "
                      "'numpy', numpy.__version__)"])]
    path = os.path.join(out, "environment.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return path


def run(cmd, stdout, stderr, limit):
    """Runs cmd with its output in files; returns (exit code, seconds). At the limit kbx gets SIGTERM,
    which it answers by stopping its workers and keeping what it committed (exit code 130)."""
    t0 = time.time()
    with open(stdout, "w") as o, open(stderr, "a") as e:
        e.write("$ " + " ".join(cmd) + "\n")
        e.flush()
        p = subprocess.Popen(cmd, stdout=o, stderr=e)
        try:
            rc = p.wait(timeout=limit or None)
        except subprocess.TimeoutExpired:
            p.terminate()
            try:
                rc = p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
    return rc, time.time() - t0


def tail(path, n):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-n:])


def gpu_args(a):
    """--jobs (else kbx picks from the host's cores, memory and GPUs) and, on cuda, --gpus."""
    return (["--jobs", str(a.jobs)] if a.jobs else []) + (["--gpus", a.gpus] if a.device == "cuda" and a.gpus else [])


def cmd_verdicts(a):
    fixtures = os.path.join(a.out, "fixtures.jsonl")
    subprocess.run([sys.executable, FIXTURE_SET, "build", fixtures, "--device", a.device], check=True)
    if a.variants_only:
        with open(fixtures) as f:
            rows = [l for l in f if json.loads(l)["kind"] == "variant"]
        with open(fixtures, "w") as f:
            f.writelines(rows)
    verdicts = os.path.join(a.out, "verdicts.jsonl")
    rc, wall = run([a.kbx, "eval", fixtures, "--device", a.device, "--json", "--timeout", "60", "--method", "fixtures",
                    "--db", os.path.join(a.out, "fixtures.sqlite")] + gpu_args(a),
                   verdicts, os.path.join(a.out, "eval.log"), a.time_limit)
    print(f"kbx eval rc={rc} wall {wall:.0f} s")
    kind = "known-bad variants" if a.variants_only else "fixture set"
    with open(os.path.join(a.out, "verdicts.md"), "w") as f:
        trc = subprocess.run([sys.executable, FIXTURE_SET, "table", fixtures, verdicts, "--env", a.env,
                              "--title", f"kbx eval --device {a.device} on the {kind}", "--wall", f"{wall:.0f} s"],
                             stdout=f).returncode
    with open(os.path.join(a.out, "verdicts.md")) as f:
        print("".join(l for l in f if l.startswith("Known-good:")), end="")
    return rc or trc


def perf_table(db):
    """Per evaluation of a `kbx tasks --check --perf` database: verdict, Triton share, speedup, worker start."""
    out = ["| task | kernel | verdict | failure | Triton share | geomean speedup | worker (perf/correctness) |",
           "|---|---|---|---|---|---|---|"]
    for e in sorted(kbxdb.evaluations(db), key=lambda e: (e["task"], e["method"])):
        tid, kind, verdict, fc, ev = e["task"], e["method"], e["verdict"], e["failure_class"], e["evidence"] or {}
        perf = ev.get("perf", {})
        share = perf.get("attribution", {}).get("triton_share")
        g = (perf.get("geomean_speedup") or {}).get("estimate")
        out.append(f"| {tid} | {kind} | {verdict} | {fc or ''} | {'' if share is None else f'{100 * share:.0f}%'} | "
                   f"{'' if g is None else f'{g:.3f}'} | {perf.get('worker_start', '')}/{ev.get('worker_start', '')} |")
    return "\n".join(out) + "\n"


def not_ok_entries(listing):
    """The `[i/n] STATUS kind task` blocks of a `kbx tasks --check` listing whose status is not ok,
    each with the indented lines that follow it (the reason)."""
    out, keep = [], False
    with open(listing, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"\[\d+/\d+\] (\S+)", line)
            if m or line.startswith("[perf "):
                keep = bool(m) and m.group(1) != "ok"
                if keep:
                    out.append(line.rstrip())
            elif keep and line.strip() and not line.startswith("self-check:"):
                out.append(line.rstrip())
            elif not line.strip() or line.startswith("self-check:"):
                keep = False
    return out


def listing_matches(listings, pattern):
    """Every match of `pattern` (re.search) in the lines of these listings, in order."""
    for listing in listings:
        with open(listing, errors="replace") as f:
            for line in f:
                m = re.search(pattern, line)
                if m:
                    yield m


def finished_ok(listings):
    """(kind, task) of every `ok` entry in these `kbx tasks --check` listings."""
    return {(m.group(1), m.group(2)) for m in listing_matches(listings, r"^\[\d+/\d+\] ok\s+(\S+)\s+(\S+)")}


def tasks_left(listings, tasks_dir=os.path.join(ROOT, "tasks"), good_dir=os.path.join(ROOT, "tests", "fixtures", "good")):
    """The tasks whose reference, or known-good solution where there is one, no listing shows `ok`
    (a check cut by a time limit goes on with these), in catalogue order."""
    done = finished_ok(listings)
    left = []
    for cat in sorted(os.listdir(tasks_dir)):
        if not cat[:1].isupper() or not os.path.isdir(os.path.join(tasks_dir, cat)):
            continue
        for f in sorted(os.listdir(os.path.join(tasks_dir, cat))):
            if not f.endswith(".py"):
                continue
            task = f"{cat}/{f[:-3]}"
            has_good = os.path.isfile(os.path.join(good_dir, cat, f))
            if ("reference", task) not in done or (has_good and ("known-good", task) not in done):
                left.append(task)
    return left


def cmd_check(a):
    db = os.path.join(a.out, "self-check.sqlite")
    cmd = [a.kbx, "tasks", "--check", "--device", a.device, "--db", db] + gpu_args(a)
    tasks = a.tasks
    if a.after:
        left = tasks_left(a.after)
        if a.tasks:
            left = [t for t in left if t in a.tasks.split(",")]
        print(f"check: {len(left)} task(s) not yet ok in {' '.join(a.after)}")
        if not left:
            return 0
        tasks = ",".join(left)
    if tasks:
        cmd += ["--task", tasks]
    if a.perf:
        cmd += ["--perf"]
    rc, wall = run(cmd, os.path.join(a.out, "self-check.txt"), os.path.join(a.out, "self-check.log"), a.time_limit)
    print(f"kbx tasks --check rc={rc} wall {wall:.0f} s")  # 6: some task failed its check
    print(tail(os.path.join(a.out, "self-check.txt"), 3))
    # Every entry that is not ok, with the lines kbx printed under it, into this output too: the
    # listing itself may not come back from a device machine, the failures must.
    bad = not_ok_entries(os.path.join(a.out, "self-check.txt"))
    if bad:
        print(f"entries not ok ({len(bad)}):")
        print("\n".join(bad))
    if a.perf:
        with open(os.path.join(a.out, "check-perf.md"), "w") as f:
            f.write(perf_table(db))
    return rc


def cmd_scale(a):
    rc_all = 0
    for gset in a.gpu_sets.split():
        name = gset.replace(",", "-")
        jsonl = os.path.join(a.out, f"scale-{name}.jsonl")
        rc, wall = run([a.kbx, "eval", GOOD, "--device", "cuda", "--gpus", gset, "--secret-seed", "11", "--method", f"scale-gpus-{name}", "--json",
                        "--db", os.path.join(a.out, f"scale-{name}.sqlite")] + (["--jobs", str(a.jobs)] if a.jobs else []),
                       jsonl, os.path.join(a.out, f"scale-{name}.log"), a.time_limit)
        with open(jsonl) as f:
            v = [json.loads(l) for l in f if l.strip()]
        line = f"gpus {gset}: rc={rc} wall {wall:.0f} s, {sum(j['verdict'] == 'pass' for j in v)} pass of {len(v)}"
        print(line)
        with open(os.path.join(a.out, "scale.txt"), "a") as f:
            f.write(line + "\n")
        rc_all = rc_all or rc
    return rc_all


def cmd_smoke(a):
    src = os.path.join(a.out, "smoke-src")
    for t in ("Activation/relu", "Reduce/sum", "MatrixMultiply/matmul"):
        if os.path.exists(os.path.join(GOOD, t + ".py")):
            os.makedirs(os.path.join(src, os.path.dirname(t)), exist_ok=True)
            shutil.copy(os.path.join(GOOD, t + ".py"), os.path.join(src, t + ".py"))
    rc, wall = run([a.kbx, "eval", src, "--device", a.device, "--jobs", "3", "--json",
                    "--db", os.path.join(a.out, "smoke.sqlite")] + (["--perf"] if a.device == "cuda" else []),
                   os.path.join(a.out, "smoke.jsonl"), os.path.join(a.out, "smoke.log"), a.time_limit)
    print(f"smoke: kbx eval rc={rc} wall {wall:.0f} s")
    print(tail(os.path.join(a.out, "smoke.log"), 12))
    return rc


def sandbox_probe(a):
    """One known-good kernel under the default sandbox; where it does not pass, the rest of this run
    uses the rlimit sandbox (KBX_SANDBOX_NO_NAMESPACES=1) and environment.txt says why."""
    probe = os.path.join(a.out, "probe")
    src = os.path.join(probe, "src", "Activation")
    os.makedirs(src, exist_ok=True)
    shutil.copy(os.path.join(GOOD, "Activation", "relu.py"), os.path.join(src, "relu.py"))
    jsonl, log = os.path.join(probe, "probe.jsonl"), os.path.join(probe, "probe.log")
    run([a.kbx, "eval", os.path.dirname(src), "--device", a.device, "--json", "--db", os.path.join(probe, "probe.sqlite")],
        jsonl, log, 300)
    with open(jsonl) as f:
        verdicts = [json.loads(l) for l in f if l.strip()]
    with open(log, errors="replace") as f:
        sandbox = next((l.strip() for l in f if "sandbox:" in l), "sandbox: (not reported)")
    if verdicts and verdicts[0].get("verdict") == "pass":
        line = sandbox
    else:
        detail = (verdicts[0].get("detail") or "")[:400] if verdicts else tail(log, 3)
        os.environ["KBX_SANDBOX_NO_NAMESPACES"] = "1"
        line = f"sandbox probe failed under the default sandbox ({detail}): falling back to KBX_SANDBOX_NO_NAMESPACES=1"
    with open(a.env, "a") as f:
        f.write(line + "\n")
    print(line)


def adjudication_table(a, jsonl, md):
    """The verdicts of jsonl against the separate-process adjudication (corpus_adjudicate.py table)."""
    with open(md + ".txt", "w") as f:
        rc = subprocess.run([sys.executable, ADJUDICATE, "table", a.adjudicated, a.versions, jsonl, "--md", md],
                            stdout=f, stderr=subprocess.STDOUT).returncode
    print(tail(md + ".txt", 14))
    return rc


def protocol_table(a, db, txt):
    with open(txt, "w") as f:
        subprocess.run([a.kbx, "report", "--table", "protocol", "--db", db], stdout=f, stderr=subprocess.STDOUT)


def cmd_corpus(a):
    jsonl, log, db = (os.path.join(a.out, "corpus" + x) for x in (".jsonl", ".log", ".sqlite"))
    rc, wall = run([a.kbx, "eval", a.versions, "--device", a.device, "--json", "--db", db] + gpu_args(a), jsonl, log, a.time_limit)
    with open(jsonl) as f:
        n = sum(1 for l in f if l.strip())
    print(f"corpus: kbx eval rc={rc} wall {wall:.0f} s, {n} verdicts, {wall / max(n, 1):.2f} s/kernel")
    with open(log, errors="replace") as f:
        print("".join(l for l in f if l.startswith("kbx:"))[:2000], end="")
    trc = adjudication_table(a, jsonl, os.path.join(a.out, "corpus.md"))
    protocol_table(a, db, os.path.join(a.out, "protocol.txt"))
    return rc or trc


def correctness_stage(cmd, log_path, env=None):
    """Runs `kbx eval --perf` (cmd) and stops it (SIGINT to its process group: kbx keeps what it
    stored) once its correctness stage ended: at the line "kbx: correctness stage ended" (its tail
    work included), or at the last correctness line "[N/N]" for a kbx that does not print it (the
    next line is then a perf line). Returns (rc, seconds to the first progress line, seconds to the
    last correctness line, whether that line came, seconds to the stage's end or None)."""
    t0 = time.time()
    first = last = end = None
    n = None
    done = False
    with open(log_path, "w") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, bufsize=1, start_new_session=True,
                             env=None if not env else {**os.environ, **env})
        for line in p.stderr:
            t = time.time() - t0
            log.write(f"{t:8.2f} {line}")
            if line.startswith("kbx: evaluating") and first is None:
                first = t
                m = re.match(r"kbx: evaluating (\d+)", line)
                n = int(m.group(1)) if m else None
            if line.startswith("kbx: correctness stage ended"):
                end = t
                break
            if done and line.startswith("[perf"):
                break
            if line.startswith("[") and not line.startswith("[perf"):
                last = t
                if n is not None and line.startswith(f"[{n}/{n}]"):
                    done = True
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGINT)
        try:
            rc = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            rc = p.wait()
    return rc, first or 0.0, last or 0.0, done, end


# The stage table's columns in seconds with a tenth (the waits and starts); the process sums are whole seconds.
TENTHS = ("longest wait for a reference", "servers' launch", "servers' start")
STAGE_KINDS = (("contract", "candidate"), ("extended", "candidate_extended"), ("sweep", "autotune_sweep"),
               ("precompile", "precompile"), ("reference", "reference"), ("evaluation walls", "evaluation"))


def stage_sums(db):
    """(evaluations, {kind: summed seconds}) of a run's correctness stage (perf_repeat.py's
    summed_stage_seconds): the candidate's processes by kind, the reference once per task, and the
    sum of the evaluations' own walls (what the jobs' slots were held for)."""
    evs = kbxdb.evaluations(db)
    sums, ref_phases, _ = perf_repeat.summed_stage_seconds(evs)
    out = {kind: sums.get(key, 0.0) for kind, key in STAGE_KINDS}
    # The longest wait for a reference before a contract tier began (the first wave's, as a rule),
    # and the reference servers' own start (process start to device open, kbx_harness/reference.py).
    out["longest wait for a reference"] = max((float((e.get("stage_seconds") or {}).get("contract_started_after") or 0) for e in evs),
                                              default=0.0)
    out["servers' launch"] = ref_phases.get("server_launch", 0.0)  # kbx's launch to the process's start (the fork)
    out["servers' start"] = ref_phases.get("server_hello", 0.0) + ref_phases.get("server_device", 0.0)
    return len(evs), out


def cmd_stage_ab(a):
    if not a.variants:
        print("stage-ab: give --variants, one string of kbx eval options each (\"\" for the defaults)")
        return 2
    rows = []
    for i, v in enumerate(a.variants):
        db = os.path.join(a.out, f"ab-{i}.sqlite")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        words = shlex.split(v)
        # Leading NAME=VALUE words are the run's environment (e.g. KBX_SANDBOX_NO_NAMESPACES=1), the rest kbx options.
        env = {}
        while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
            k, _, val = words.pop(0).partition("=")
            env[k] = val
        cmd = [a.kbx, "eval", a.versions, "--device", a.device, "--perf", "--method", "ab", "--db", db] + gpu_args(a) + words
        rc, first, last, done, end = correctness_stage(cmd, os.path.join(a.out, f"ab-{i}.log"), env)
        n, sums = stage_sums(db) if os.path.exists(db) else (0, {})
        rows.append((i, v or "(defaults)", rc, first, last, done, end, n, sums))
        print(f"stage-ab {i} [{v or '(defaults)'}]: correctness {last:.1f} s for {n} kernels"
              f"{'' if done else ' (its last line did not come)'}"
              f"{f', its last process ended at {end:.1f} s' if end is not None else ''}", flush=True)
    kinds = list(rows[0][8]) if rows and rows[0][8] else []
    L = ["# The correctness stage under --perf, per variant of kbx eval's options", "",
         f"- source: `{a.versions}`; device {a.device}; each run stopped once its correctness stage ended (kbx's line "
         "\"correctness stage ended\", after any precompiles left for the stage's tail; else its last correctness line); "
         "s/kernel is the last correctness line over the kernels; process-seconds summed over every process of the stage", "",
         "| run | options | first line | last correctness line | stage's last process | s/kernel | " + " | ".join(kinds) + " |",
         "|---" * (6 + len(kinds)) + "|"]
    for i, v, rc, first, last, done, end, n, sums in rows:
        L.append(f"| {i} | `{v}` | {first:.1f} s | {last:.1f} s{'' if done else ' (cut)'} | "
                 f"{'-' if end is None else f'{end:.1f} s'} | {last / max(1, n):.3f} | "
                 + " | ".join(f"{sums.get(k, 0.0):.{1 if k in TENTHS else 0}f}" for k in kinds) + " |")
    with open(os.path.join(a.out, "stage-ab.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(L))
    return 0 if all(r[5] for r in rows) else 1


def cmd_exploits(a):
    md = os.path.join(a.out, f"exploits-{a.device}.md")
    rc, wall = run([sys.executable, EXPLOITS, "run", "--device", a.device, "--kbx", a.kbx, "--jobs", "8", "--timeout", "60",
                    "--out", md, "--keep", os.path.join(a.out, "exploits-keep")],
                   os.path.join(a.out, "exploits.log"), os.path.join(a.out, "exploits.err"), a.time_limit)
    print(f"exploits rc={rc} wall {wall:.0f} s")
    if os.path.exists(md):
        with open(md) as f:
            print("".join(l for l in f if any(k in l for k in ("cases:", "canaries", "sandbox:", "| no |")))[:4000], end="")
    return rc


def repeat_command(a):
    """bench/perf_repeat.py's command line for one run of the repeat (kbx eval's own options after --)."""
    cmd = [sys.executable, PERF_REPEAT, a.versions, "--out", a.out, "--kbx", a.kbx, "--device", a.device,
           "--run", str(a.run), "--runs", str(a.runs)] + (["--replay-run", "2"] if a.runs >= 3 else [])
    if a.time_limit:
        cmd += ["--deadline", str(time.time() + a.time_limit)]
        if a.run_estimate:
            cmd += ["--run-estimate", str(a.run_estimate)]
    if a.perf_config:
        cmd += ["--", "--perf-config", a.perf_config]
    return cmd


def cmd_repeat(a):
    cmd = repeat_command(a)
    rc = subprocess.run(cmd).returncode
    if rc == 0 and a.run == a.runs - 1 and os.path.exists(os.path.join(a.out, "repeat.md")):
        adjudication_table(a, os.path.join(a.out, "run-0.jsonl"), os.path.join(a.out, "corpus.md"))
        protocol_table(a, os.path.join(a.out, "run-0.sqlite"), os.path.join(a.out, "protocol.txt"))
    return rc


# The gpu-labelled tests that other subcommands make in full: the self-check (`check`), the exploit
# suite (`exploits`) and the fixture set's two suites (`verdicts`; each alone outlasts a device call).
GPUTESTS_MADE_ELSEWHERE = "self_check_all|Exploits|EveryKnownGoodFixture|EveryKnownBadFixture"


def gpu_test_names(build_dir, regex):
    """The gpu-labelled tests that gputests would run, in ctest's order."""
    cmd = ["ctest", "--test-dir", build_dir, "-N", "-L", "gpu", "-E", GPUTESTS_MADE_ELSEWHERE]
    if regex:
        cmd += ["-R", regex]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [m.group(1) for m in re.finditer(r"Test\s+#\d+: (\S+)", out)]


def part_of(names, part):
    """Every N-th name from the K-th (part "K/N", K from 1): the tests split over device calls."""
    k, n = (int(x) for x in part.split("/"))
    if not 1 <= k <= n:
        raise ValueError(f"--part {part}: K must lie in 1..N")
    return names[k - 1::n]


def passed_tests(listings):
    """The tests that these ctest outputs (gputests.txt of earlier calls) show as Passed."""
    return {m.group(1) for m in listing_matches(listings, r"Test\s+#\d+: (\S+) \.*\s+Passed\b")}


def test_durations(listings):
    """{test: seconds} from ctest outputs, any status: what a test took in an earlier call."""
    return {m.group(1): float(m.group(2)) for m in listing_matches(listings, r"Test\s+#\d+: (\S+) \.*.*?([\d.]+) sec")}


def fits(name, took, default_s, now, deadline):
    """Whether test `name`, expected to take what it took before (else default_s), ends before deadline (0: none)."""
    return not deadline or now + took.get(name, default_s) <= deadline


def cmd_gputests(a):
    t0 = time.time()
    b = subprocess.run(["cmake", "--build", a.build_dir, "-j", str(os.cpu_count() or 2), "--target", "integration_tests"],
                       capture_output=True, text=True)
    print(f"test build: rc={b.returncode} {time.time() - t0:.0f} s")
    if b.returncode:
        print("\n".join(l for l in (b.stdout + b.stderr).splitlines() if "error" in l)[:4000])
        return b.returncode
    names = gpu_test_names(a.build_dir, a.tests)
    if a.part:
        try:
            names = part_of(names, a.part)
        except ValueError as e:
            print(e)
            return 2
    if a.after:
        done = passed_tests(a.after)
        print(f"{len(done & set(names))} selected test(s) passed in {' '.join(a.after)}: left out")
        names = [n for n in names if n not in done]
    if not names:
        print("no gpu test selected" + (" (all passed before)" if a.after else ""))
        return 0 if a.after else 1
    print(f"{len(names)} gpu test(s): " + " ".join(names))
    listing = os.path.join(a.out, "gputests.txt")
    if not a.deadline:
        cmd = ["ctest", "--test-dir", a.build_dir, "-L", "gpu", "--output-on-failure",
               "-R", "^(" + "|".join(re.escape(n) for n in names) + ")$"]
        rc, wall = run(cmd, listing, os.path.join(a.out, "gputests.err"), a.time_limit)
        print(f"ctest rc={rc} wall {wall:.0f} s")
        print(tail(listing, 30))
        return rc
    # With a deadline: one ctest per test, each started only if it is expected to end in time (what
    # it took in the listings given, else --test-estimate), so a device call ends with whole tests.
    # The listing grows by each test's output (earlier calls' stay), so `--after OUT/gputests.txt`
    # goes on in the same OUT.
    took = test_durations(a.after)
    rc_all, ran, left = 0, [], []
    for n in names:
        if not fits(n, took, a.test_estimate, time.time(), a.deadline):
            left.append(n)
            continue
        part = os.path.join(a.out, "gputests-one.txt")
        rc, wall = run(["ctest", "--test-dir", a.build_dir, "-L", "gpu", "--output-on-failure", "-R", f"^{re.escape(n)}$"],
                       part, os.path.join(a.out, "gputests.err"), max(1.0, a.deadline - time.time()))  # one that overruns is cut
        with open(part, errors="replace") as src:
            text = src.read()
        with open(listing, "a") as dst:
            dst.write(text)
        os.remove(part)
        ran.append(n)
        rc_all = rc_all or rc
        status = re.search(r"Test\s+#\d+: \S+ \.*\s*(\**\w+)", text)
        print(f"{n}: {status.group(1).lstrip('*') if status else 'no result'} (rc={rc}, {wall:.0f} s)")
    print(f"ran {len(ran)}, left for a later call (the deadline): {len(left)}" + (": " + " ".join(left) if left else ""))
    return rc_all


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    subs = {name: sub.add_parser(name) for name in ("verdicts", "check", "scale", "smoke", "corpus", "exploits", "repeat", "gputests",
                                                     "stage-ab")}
    for p in subs.values():
        p.add_argument("out")
        p.add_argument("--kbx", default=default_kbx())
        p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
        p.add_argument("--jobs", type=int, default=0, help="kbx --jobs (default: kbx picks from the host)")
        p.add_argument("--gpus", default="", help="kbx --gpus on cuda (verdicts, check; default: kbx's, one GPU)")
        p.add_argument("--time-limit", type=float, default=0, help="stop each kbx run after this many seconds")
        p.add_argument("--archive", default="", help="afterwards, OUT as one .tar.xz here (a device call brings back at most 8 files)")
    subs["verdicts"].add_argument("--variants-only", action="store_true")
    subs["check"].add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    subs["check"].add_argument("--perf", action="store_true")
    subs["check"].add_argument("--after", nargs="+", default=[], metavar="LISTING",
                               help="self-check.txt of earlier calls cut short: check only the tasks they did not finish ok")
    subs["scale"].add_argument("--gpu-sets", default="0 0,1", help="space-separated kbx --gpus values")
    subs["stage-ab"].add_argument("--variants", nargs="+", default=[], metavar="OPTIONS",
                                  help='kbx eval options per run, e.g. "" "--extended-start early" "" (the defaults, early, the defaults); '
                                  'leading NAME=VALUE words set the run\'s environment, e.g. "KBX_SANDBOX_NO_NAMESPACES=1"')
    for name in ("corpus", "repeat", "stage-ab"):
        subs[name].add_argument("--versions", default=os.path.join(CARRY, "versions.jsonl"),
                                help="the submissions (default: .bench-carry/versions.jsonl)")
    for name in ("corpus", "repeat"):
        subs[name].add_argument("--adjudicated", default=os.path.join(CARRY, "adjudicated.json"),
                                help="their separate-process adjudication (default: .bench-carry/adjudicated.json)")
    subs["repeat"].add_argument("--run", type=int, required=True, help="which run (0 .. RUNS-1)")
    subs["repeat"].add_argument("--runs", type=int, default=3, help="runs in all (3: run 2 replays run 0's autotune choices)")
    subs["repeat"].add_argument("--run-estimate", type=float, default=0, metavar="S",
                                help="with --time-limit, the seconds a run takes, for the first run of a repeat: "
                                "a run that would not end within the limit is not started (exit 3)")
    subs["repeat"].add_argument("--perf-config", default="", metavar="JSON",
                                help="kbx eval --perf-config for every run, e.g. '{\"placement_gap_mb\": 2048}' (the placement experiment); "
                                "give it to each call of a repeat alike")
    subs["gputests"].add_argument("--build-dir", default=os.path.join(ROOT, "build-gpu"))
    subs["gputests"].add_argument("--tests", default="", help="only the gpu tests matching this ctest -R expression")
    subs["gputests"].add_argument("--after", nargs="+", default=[], metavar="LISTING",
                                  help="gputests.txt of earlier calls on the same tree: the tests they show Passed are left out, "
                                       "and what the others took there is their estimate for --deadline")
    subs["gputests"].add_argument("--deadline", type=float, default=0, metavar="EPOCH",
                                  help="run the tests one at a time and start none expected to end after this (seconds since the epoch)")
    subs["gputests"].add_argument("--test-estimate", type=float, default=120,
                                  help="with --deadline, the seconds expected of a test no listing timed (default 120)")
    subs["gputests"].add_argument("--part", default="", metavar="K/N",
                                  help="every N-th selected test from the K-th (the tests take ~20-90 s each: "
                                       "about six fit one device call)")
    a = ap.parse_args()
    if not os.path.exists(a.kbx):
        ap.error(f"{a.kbx} does not exist: build first (scripts/gpu-run.sh --build-only, or --kbx PATH)")
    for name in ("versions", "adjudicated"):
        if not os.path.exists(getattr(a, name, ROOT)):
            ap.error(f"{getattr(a, name)} does not exist: make it with scripts/corpus_adjudicate.py versions (bench/README.md)")
    if a.cmd in ("scale", "smoke"):
        a.gpus = ""
    if os.path.isdir(DEPS_LIB):
        os.environ["LD_LIBRARY_PATH"] = DEPS_LIB + (":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")
    os.makedirs(a.out, exist_ok=True)
    a.env = write_environment(a.out)
    if a.device == "cuda" and a.cmd != "gputests":
        sandbox_probe(a)
    rc = {"verdicts": cmd_verdicts, "check": cmd_check, "scale": cmd_scale, "smoke": cmd_smoke, "corpus": cmd_corpus,
          "exploits": cmd_exploits, "repeat": cmd_repeat, "gputests": cmd_gputests, "stage-ab": cmd_stage_ab}[a.cmd](a)
    if a.archive:
        os.makedirs(os.path.dirname(os.path.abspath(a.archive)), exist_ok=True)
        subprocess.run(["tar", "-C", a.out, "-cJf", a.archive, "."], check=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
