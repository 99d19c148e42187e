#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest packaging_install: `cmake --install` of this build tree into a temporary prefix, then the
# installed programs, run from that prefix with no development fallbacks (no KBX_* variables):
#   - they read the installed task suite, not the source tree's (a task dropped from the installed
#     index.json is missing from `kbx tasks`);
#   - the worker launcher finds the venv (KBX_PYTHON), its LibTorch and the installed harness (probe);
#   - `kbx eval --device cpu` on the bundled example's known-good ReLU passes;
#   - without a Python environment kbx eval exits 4 and names kbx setup-python;
#   - kbx report's code quality runs radon with the interpreter kbx setup-python recorded;
#   - kbx setup-python --no-install records its venv; bad input: exit 2/4 and nothing recorded.
#   install_test.sh BUILD_DIR VENV_PYTHON
set -euo pipefail
BUILD=$1
VPY=$2
T=$(mktemp -d /tmp/kbx-install-test.XXXXXX)
chmod 755 "$T"  # as root, candidates run under a uid of their own, which must reach the prefix
trap 'rm -rf "$T"' EXIT
fail() { echo "FAILED: $*" >&2; exit 1; }
cmake --install "$BUILD" --prefix "$T/prefix" > "$T/install.log" 2>&1 || { cat "$T/install.log"; fail "cmake --install"; }
P=$T/prefix
for f in bin/kbx libexec/kbx/kbx-worker libexec/kbx/bin/kbx-worker libexec/kbx/harness/kbx_harness/candidate.py \
         share/kbx/tasks/index.json share/kbx/examples/submission.jsonl share/kbx/requirements.txt share/kbx/syntax/triton.xml; do
  [[ -e $P/$f ]] || fail "$f not installed"
done
# The installed binaries carry no RUNPATH into the build machine's venv.
if readelf -d "$P/libexec/kbx/bin/kbx-worker" | grep -q "RUNPATH\|RPATH"; then fail "the installed worker has an RPATH"; fi
run() { env -i PATH=/usr/bin:/bin HOME="$T/home" LANG=C.UTF-8 "$@"; }
mkdir -p "$T/home"

# Installed tasks, not the source tree's: drop one task from the installed index.
n_src=$(run "$P/bin/kbx" tasks --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
python3 - "$P/share/kbx/tasks/index.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p)); d["tasks"] = d["tasks"][1:]; json.dump(d, open(p, "w"))
PY
n_inst=$(run "$P/bin/kbx" tasks --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[[ $n_inst == $((n_src - 1)) ]] || fail "kbx tasks: $n_inst tasks after dropping one of $n_src: not the installed index"
echo "ok: installed kbx reads PREFIX/share/kbx/tasks ($n_inst tasks)"

# The launcher: venv, LibTorch, installed harness.
# Frames go to fd 3 (stdout only where fd 3 is not open: under ctest it may be): capture fd 3.
run KBX_PYTHON="$VPY" "$P/libexec/kbx/kbx-worker" probe 3> "$T/probe.out" > /dev/null 2>"$T/probe.err" || { cat "$T/probe.err"; fail "worker probe"; }
grep -aq '"type":"result"' "$T/probe.out" && grep -aq '"torch":"' "$T/probe.out" || fail "worker probe printed: $(tr -d '\0' < "$T/probe.out")"
echo "ok: installed worker probe"

# No Python environment: a clear error.
set +e; msg=$(run "$P/bin/kbx" eval "$P/share/kbx/examples/submission.jsonl" --device cpu --db "$T/none.sqlite" 2>&1); rc=$?; set -e
[[ $rc == 4 && $msg == *"kbx setup-python"* ]] || fail "kbx eval without a venv: exit $rc: $msg"
echo "ok: without a venv kbx eval exits 4 and names kbx setup-python"

# The bundled example's known-good ReLU passes through the installed programs.
head -1 "$P/share/kbx/examples/submission.jsonl" > "$T/relu.jsonl"
grep -q '"file": "Activation/relu.py"' "$T/relu.jsonl" || fail "the example's first record is not the ReLU"
run KBX_PYTHON="$VPY" "$P/bin/kbx" eval "$T/relu.jsonl" --device cpu --json --db "$T/e.sqlite" > "$T/eval.json" 2> "$T/eval.err" \
  || { tail -20 "$T/eval.err"; fail "kbx eval"; }
python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read()); assert r["verdict"] == "pass", r' "$T/eval.json" \
  || fail "ReLU: $(cat "$T/eval.json")"
echo "ok: installed kbx eval --device cpu: the ReLU passes"

# Code quality (kbx report, radon) runs in the interpreter kbx setup-python recorded (core/quality.cpp
# finds it through kbx::findPython), never the build machine's venv compiled into kbx: a recorded
# wrapper of the venv that notes each use.
mkdir -p "$T/cfgq/kbx"
printf '#!/bin/sh\necho used >> "%s"\nexec "%s" "$@"\n' "$T/quality-python.log" "$VPY" > "$T/quality-python"
chmod +x "$T/quality-python"
echo "$T/quality-python" > "$T/cfgq/kbx/python"
run XDG_CONFIG_HOME="$T/cfgq" "$P/bin/kbx" report --db "$T/e.sqlite" --table method-summary --json > "$T/quality.json" 2> "$T/quality.err" \
  || { cat "$T/quality.err"; fail "kbx report --table method-summary"; }
[[ -s $T/quality-python.log ]] || fail "kbx report did not run radon with the recorded interpreter: $(cat "$T/quality.err")"
if "$VPY" -c 'import radon' 2>/dev/null; then
  grep -q '"radon ' "$T/quality.json" || fail "no radon code quality in the report: $(cat "$T/quality.err")"
fi
echo "ok: installed kbx report measures code quality with the interpreter kbx setup-python recorded"

# kbx setup-python: --no-install records; bad input leaves nothing behind.
run XDG_CONFIG_HOME="$T/cfg" "$P/bin/kbx" setup-python --venv "$T/v" --no-install --python "$(readlink -f /usr/bin/python3)" > "$T/sp.log" 2>&1 \
  || { cat "$T/sp.log"; fail "setup-python --no-install"; }
[[ -x $T/v/bin/python && "$(cat "$T/cfg/kbx/python")" == "$T/v/bin/python" ]] || fail "setup-python did not make and record $T/v"
set +e
run XDG_CONFIG_HOME="$T/cfg2" "$P/bin/kbx" setup-python --venv "$T/v2" --python /nonexistent/python3 > "$T/sp2.log" 2>&1; rc=$?
set -e
[[ $rc == 4 && ! -e $T/v2 && ! -e $T/cfg2/kbx/python ]] || fail "setup-python with a missing interpreter: exit $rc, $(cat "$T/sp2.log")"
mkdir -p "$T/notvenv"; touch "$T/notvenv/x"
set +e
run XDG_CONFIG_HOME="$T/cfg3" "$P/bin/kbx" setup-python --venv "$T/notvenv" --no-install > "$T/sp3.log" 2>&1; rc=$?
set -e
[[ $rc == 2 && -e $T/notvenv/x && ! -e $T/cfg3/kbx/python ]] || fail "setup-python into a non-venv directory: exit $rc, $(cat "$T/sp3.log")"
echo "ok: kbx setup-python records its venv; refuses a missing interpreter (4) and a non-venv directory (2)"
echo "packaging_install: 6 passed, 0 failed"
