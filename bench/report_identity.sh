#!/bin/bash
# SPDX-License-Identifier: MIT
# The output identity check of the report and figure work (bench/results/2026-12-02-scale-1m-b):
#   bench/report_identity.sh KBX [WORKBENCH] DB OUTDIR
# writes every `kbx report` table (text and --json), the summary (text and --json) and, with
# WORKBENCH, every figure's CSV (kbx-workbench --export-figure) of DB into OUTDIR, with the
# generated-at lines and the database path removed. Run it with the old and the new binaries, each on
# its own copy of the same database, then `diff -r` the two folders: no line may differ.
set -u
if [ $# -eq 3 ]; then KBX=$1; WB=""; COPY=$2; OUT=$3; else KBX=$1; WB=$2; COPY=$3; OUT=$4; fi
mkdir -p "$OUT"
for t in method-summary category-method deviance rounds rescued cross-hardware slow-fraction taxonomy utilisation protocol; do
  "$KBX" report --db "$COPY" --table $t --no-quality        | grep -v '^# generated' | sed "s#$COPY#DB#g" > "$OUT/$t.txt"
  "$KBX" report --db "$COPY" --table $t --no-quality --json | grep -v '"generated_at"' | sed "s#$COPY#DB#g" > "$OUT/$t.json"
done
"$KBX" report --db "$COPY" | sed "s#$COPY#DB#g" > "$OUT/summary.txt"
"$KBX" report --db "$COPY" --json | sed "s#$COPY#DB#g" > "$OUT/summary.json"
if [ -n "$WB" ]; then
  for f in $(QT_QPA_PLATFORM=offscreen "$WB" --list-figures 2>/dev/null); do
    QT_QPA_PLATFORM=offscreen "$WB" --export-figure "$f" --db "$COPY" --out "$OUT/fig-$f.csv" > /dev/null 2>&1 || echo "figure $f failed" >&2
    [ -f "$OUT/fig-$f.csv" ] && sed -i "s#$COPY#DB#g; /generated/d" "$OUT/fig-$f.csv"
  done
fi
