#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The correctness runs whose tables go to bench/results, on a built kbx (on a GPU machine, after
scripts/gpu-run.sh --build-only; on the CPU with --device cpu). Each writes OUT/environment.txt
(date, commit, GPUs, versions) beside its tables and databases.

  bench/gpu_runs.py verdicts OUT [--variants-only]   the fixture set's verdict table (verdicts.md): every
                                                    known-good solution must pass and every known-bad
                                                    variant get its expected class
  bench/gpu_runs.py check OUT [--tasks LIST] [--perf] kbx tasks --check (every task's reference and
                                                    known-good solution); with --perf also
                                                    per evaluation the verdict, Triton share and
                                                    speedup (check-perf.md)
  bench/gpu_runs.py scale OUT [--gpu-sets "0 0,1"]  correctness throughput of the known-good set on each
                                                    GPU set, same submissions and secret seed
  bench/gpu_runs.py smoke OUT                       three known-good kernels with --perf, in minutes:
                                                    the sandbox, the perf stage and attribution on this
                                                    machine before a long run

Common options: --kbx (default build-gpu/bin/kbx, else build/bin/kbx), --device (cuda), --jobs
(default: kbx picks), --gpus (verdicts, check: e.g. all), --time-limit S (each kbx run is stopped after S seconds; what it committed stays in its database).
Timing precision and cost: bench/perf_bench.py. The exploit suite: scripts/exploit_table.py run."""
import argparse
import datetime
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOOD = os.path.join(ROOT, "tests", "fixtures", "good")
FIXTURE_SET = os.path.join(ROOT, "scripts", "fixture_set.py")


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


def write_environment(out):
    lines = [f"date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}",
             "commit: " + capture(["git", "-C", ROOT, "rev-parse", "HEAD"]),
             capture(["nvidia-smi", "--query-gpu=name,uuid,driver_version,memory.total", "--format=csv,noheader"]),
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
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = ["| task | kernel | verdict | failure | Triton share | geomean speedup | worker (perf/correctness) |",
           "|---|---|---|---|---|---|---|"]
    for tid, kind, verdict, fc, ev in con.execute(
            "SELECT e.task_id, m.name, e.verdict, e.failure_class, e.evidence FROM evaluations e "
            "JOIN submissions s ON s.id = e.submission_id JOIN methods m ON m.id = s.method_id "
            "ORDER BY e.task_id, m.name"):
        ev = json.loads(ev or "{}")
        perf = ev.get("perf", {})
        share = perf.get("attribution", {}).get("triton_share")
        g = (perf.get("geomean_speedup") or {}).get("estimate")
        out.append(f"| {tid} | {kind} | {verdict} | {fc or ''} | {'' if share is None else f'{100 * share:.0f}%'} | "
                   f"{'' if g is None else f'{g:.3f}'} | {perf.get('worker_start', '')}/{ev.get('worker_start', '')} |")
    return "\n".join(out) + "\n"


def cmd_check(a):
    db = os.path.join(a.out, "self-check.sqlite")
    cmd = [a.kbx, "tasks", "--check", "--device", a.device, "--db", db] + gpu_args(a)
    if a.tasks:
        cmd += ["--task", a.tasks]
    if a.perf:
        cmd += ["--perf"]
    rc, wall = run(cmd, os.path.join(a.out, "self-check.txt"), os.path.join(a.out, "self-check.log"), a.time_limit)
    print(f"kbx tasks --check rc={rc} wall {wall:.0f} s")  # 6: some task failed its check
    print(tail(os.path.join(a.out, "self-check.txt"), 3))
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    subs = {name: sub.add_parser(name) for name in ("verdicts", "check", "scale", "smoke")}
    for p in subs.values():
        p.add_argument("out")
        p.add_argument("--kbx", default=default_kbx())
        p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
        p.add_argument("--jobs", type=int, default=0, help="kbx --jobs (default: kbx picks from the host)")
        p.add_argument("--gpus", default="", help="kbx --gpus on cuda (verdicts, check; default: kbx's, one GPU)")
        p.add_argument("--time-limit", type=float, default=0, help="stop each kbx run after this many seconds")
    subs["verdicts"].add_argument("--variants-only", action="store_true")
    subs["check"].add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    subs["check"].add_argument("--perf", action="store_true")
    subs["scale"].add_argument("--gpu-sets", default="0 0,1", help="space-separated kbx --gpus values")
    a = ap.parse_args()
    if not os.path.exists(a.kbx):
        ap.error(f"{a.kbx} does not exist: build first (scripts/gpu-run.sh --build-only, or --kbx PATH)")
    if a.cmd in ("scale", "smoke"):
        a.gpus = ""
    os.makedirs(a.out, exist_ok=True)
    a.env = write_environment(a.out)
    return {"verdicts": cmd_verdicts, "check": cmd_check, "scale": cmd_scale, "smoke": cmd_smoke}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
