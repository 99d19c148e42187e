#!/bin/bash
# SPDX-License-Identifier: MIT
# Cross-card tables of a results folder's corpus pair, re-made from committed files on any machine with
# the kbx_python module built (scripts/setup.sh build): each of the folder's runs (run-R.sqlite.xz and
# runs.json in HERE) against each earlier run given on stdin, one per line as
#   name|earlier run's sqlite.xz|its wall s|its correctness wall s|its GPU uuid
# (walls from the earlier folder's README or repeat.md; the stage table only). Writes
# HERE/cross-<name>-run<R>.md, made by bench/perf_repeat.py --no-run with the earlier run as run 0 and
# the folder's run R as run 1. The folders' reread.sh say which runs they compare.
#   bench/cross_runs.sh HERE < earlier-runs
set -e
HERE=$(cd "${1:?HERE: the results folder with run-R.sqlite.xz and runs.json}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d); trap 'rm -rf $T' EXIT
cd "$ROOT"
[ -f .bench-carry/versions.jsonl ] || python3 scripts/corpus_adjudicate.py versions ../shared/data/kbx-corpus-sample.jsonl \
  .bench-carry/versions.jsonl --only ../shared/data/kbx-corpus-sample-adjudicated.json
while IFS='|' read -r name db wall cwall gpu; do
  [ -n "$name" ] || continue
  for RUN in 0 1; do
    d=$T/$name-$RUN; mkdir -p $d
    xz -dkc "$db" > $d/run-0.sqlite; xz -dkc "$HERE/run-$RUN.sqlite.xz" > $d/run-1.sqlite
    python3 - "$d" "$HERE/runs.json" "$RUN" "$name" "$wall" "$cwall" "$gpu" <<'PY'
import json, sys
d, mine, run, name, wall, cwall, gpu = sys.argv[1:]
here = json.load(open(mine))[int(run)]
runs = [{"rc": 0, "wall": float(wall), "correct_wall": float(cwall), "first": f"(earlier run {name})", "first_at": None,
         "db": f"{d}/run-0.sqlite", "gpus": [gpu]},
        dict(here, db=f"{d}/run-1.sqlite", first=f"(run {run} of this folder) " + here["first"])]
json.dump(runs, open(f"{d}/runs.json", "w"), indent=1)
PY
    python3 bench/perf_repeat.py .bench-carry/versions.jsonl --out $d --no-run > /dev/null
    cp $d/repeat.md "$HERE/cross-$name-run$RUN.md"
  done
done
echo "wrote the cross-*.md tables in $HERE"
