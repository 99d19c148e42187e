#!/usr/bin/env python3
# A/B of --extended-start on the correctness stage under --perf (session tool, not committed):
# each run is stopped once its last correctness line is printed.
import json, os, signal, sqlite3, subprocess, sys, time
kbx, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
variants = sys.argv[4].split(",")
res = open(os.path.join(out, "ab.txt"), "a")
for i, v in enumerate(variants):
    db = f"/tmp/ab-{i}.sqlite"
    for suf in ("", "-wal", "-shm"):
        if os.path.exists(db + suf):
            os.remove(db + suf)
    cmd = [kbx, "eval", src, "--device", "cuda", "--perf", "--method", "ab", "--db", db, "--extended-start", v]
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, bufsize=1, start_new_session=True)
    first = last = None
    n = None
    for line in p.stderr:
        t = time.time() - t0
        if line.startswith("kbx: evaluating") and first is None:
            first = t
            n = int(line.split()[2])
        if line.startswith("[") and not line.startswith("[perf"):
            last = t
            if line.startswith(f"[{n}/{n}]"):
                break
    os.killpg(p.pid, signal.SIGINT)
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    time.sleep(3)
    con = sqlite3.connect(db)
    rows = con.execute("select stage_seconds, exe_ok from evaluations").fetchall()
    tot = {}
    for st, ok in rows:
        st = json.loads(st)
        for k in ("candidate", "candidate_extended", "autotune_sweep", "precompile", "reference", "judge", "evaluation"):
            if isinstance(st.get(k), (int, float)):
                tot[k] = tot.get(k, 0) + st[k]
    line = (f"run {i} --extended-start {v}: first line {first:.1f} s, last correctness line {last:.1f} s, "
            f"{len(rows)} evaluations, {last / max(1, len(rows)):.3f} s/kernel; sums " +
            ", ".join(f"{k} {x:.0f}" for k, x in tot.items()))
    print(line, flush=True)
    res.write(line + "\n")
    res.flush()
