#!/bin/bash
# Call B: build, then the correctness stage under --perf with the default options, one run after
# another, each one's table copied out as soon as it ends (the call may be cut by the device time).
T0=$(date +%s)
export PATH=/opt/torch/.venv/bin:$PATH PYTHONUNBUFFERED=1 KBX_TREE_COMMIT=$(cat .bench-carry/tree)
export KBX_PYTHON=/opt/torch/.venv/bin/python
mkdir -p /tmp/callB
nvidia-smi -q | grep -iE "persistence|Product Name|Driver Version|GPU UUID" | head -6 > $OUT/gpu.txt 2>&1
scripts/gpu-run.sh --build-only --targets "kbx kbx-worker kbx_python" /tmp/callB/build > $OUT/build.log 2>&1
echo "build rc $? $(( $(date +%s) - T0 )) s" >> $OUT/callB-steps.log
for R in 0 1 2; do
  python bench/gpu_runs.py stage-ab .bench-state/ab$R --variants "" > /tmp/callB/stage-ab-$R.txt 2>&1
  echo "stage-ab $R rc $? $(( $(date +%s) - T0 )) s" >> $OUT/callB-steps.log
  cp .bench-state/ab$R/stage-ab.md $OUT/stage-ab-$R.md
  mkdir -p /tmp/callB/dbs; cp .bench-state/ab$R/ab-0.sqlite /tmp/callB/dbs/ab-$R.sqlite; cp .bench-state/ab$R/environment.txt /tmp/callB/dbs/; cp .bench-state/ab$R/ab-0.log /tmp/callB/dbs/ab-$R.log
  tar -C /tmp/callB/dbs -cJf $OUT/ab-dbs.tar.xz .
done
ls -la $OUT
