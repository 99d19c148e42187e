#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install test of the .deb packages. Packages the Debian 12 build tree of this host and, in
# the Debian 13 build root of scripts/debian13-check.sh, the Debian 13 build tree it made (kbx and the
# worker added); installs each .deb with apt into a CLEAN debootstrap root (a cached minimal base,
# copied afresh for every run; never a build root), and there, from the installed files only, as an
# ordinary user:
#   the installed layout; kbx --version; kbx tasks (all tasks of the index); kbx eval without a Python
#   environment (exit 4, names kbx setup-python); kbx setup-python --no-install (a venv of the Python
#   the worker embeds, recorded); the worker launcher's message for a venv without torch;
#   Debian 12: kbx eval --device cpu on three records of the bundled example (verdicts as the fixtures
#   say) with the host's venv as KBX_PYTHON, and kbx report's code quality through the recorded
#   interpreter (core/quality.cpp);
#   Debian 13: kbx setup-python for real (the default venv, recorded) from cached wheels of torch (the
#   release the worker links, PyPI's Linux build), triton, numpy, radon for Python 3.13, then the same
#   kbx eval --device cpu (no KBX_PYTHON: the recorded venv) and code-quality check; without those
#   wheels (no registry, KBX_PACKAGE_TEST unset) only the worker binary with a stand-in torch;
#   kbx report on the installed demo database and on another read-only database of root's (counts,
#   --table): read-only by itself, the files unchanged, no journal beside them; kbx merge and kbx eval
#   into the demo refused with a clear message (exit 5);
#   kbx-workbench --list-figures, --export-figure (SVG and PNG) offscreen on the installed demo database
#   (read-only: the workbench uses the user's own copy), a clear refusal of another read-only database,
#   and the window offscreen for a few seconds (it opens the user's copy of the demo).
# On each .deb file: dpkg -I, lintian of its own Debian release (no errors; warnings listed),
# appstreamcli validate --no-net, desktop-file-validate.
#
#   scripts/package-test.sh [all|deb12|deb13]      needs root, debootstrap and Debian's package registry
#
# Environment:
#   KBX_PACKAGE_TEST=1   fail instead of skipping when root, debootstrap or the registry is unavailable
#                        (also when PyPI is, for the Debian 13 wheels; otherwise Debian 13 runs without eval)
#   KBX_PKG_CACHE        debootstrap bases, apt archives, the Debian 13 ccache and the Python 3.13 wheels
#                        (wheels-cp313/, about 2.7 GB, fetched once with pip; default /var/cache/kbx-pkg)
#   KBX_PKG_BUILD        the Debian 12 build tree to package (default build/, as scripts/setup.sh makes it;
#                        configured with the dev preset when missing)
#   KBX_PKG_BUILD13      the Debian 13 build tree, relative to the source tree (default build-d13, the
#                        one scripts/debian13-check.sh builds; made when missing). It is reconfigured
#                        with the CLI and the worker (KBX_BUILD_CLI/KBX_BUILD_WORKER=ON), only the
#                        installed targets are built, and its own settings are put back afterwards.
#   KBX_PKG_VENV         the worker's Python environment for the Debian 12 eval: a venv of Debian's
#                        python3.11 with requirements.txt (default .venv, made by scripts/setup.sh). It is
#                        bind-mounted read-only at /opt/kbx-venv and named by KBX_PYTHON: the documented
#                        stand-in for `kbx setup-python`, which would download torch (GBs) in every run.
#                        Its torch's lib/ and include/ are also the LibTorch the Debian 13 worker links,
#                        and its pip downloads the Debian 13 wheels.
#   KBX_DEBIAN13_ROOT    the Debian 13 build root (default /var/cache/kbx-debian13)
#   KBX_PKG_OUT          where the .deb files and logs are left (default build-packages/)
#   KBX_PKG_NO_BUILD=1   package the Debian 12 build tree as it is (no cmake --build first)
set -euo pipefail
ROOT_DIR=$(cd "$(dirname "$0")/.." && pwd)
WHICH=${1:-all}
CACHE=${KBX_PKG_CACHE:-/var/cache/kbx-pkg}
OUT=${KBX_PKG_OUT:-$ROOT_DIR/build-packages}
D13=${KBX_DEBIAN13_ROOT:-/var/cache/kbx-debian13}
BUILD13=${KBX_PKG_BUILD13:-build-d13}
MIRROR=http://deb.debian.org/debian
T0=$SECONDS
say() { printf '\033[1m[package-test]\033[0m %s\n' "$*" >&2; }
phase() { say "[$((SECONDS - T0)) s] $*"; }
die() { say "FAILED: $*"; exit 1; }
skip() {
  if [[ "${KBX_PACKAGE_TEST:-auto}" == 1 ]]; then say "cannot run: $*"; exit 4; fi
  say "skipped: $* (KBX_PACKAGE_TEST=1 makes this an error)"; exit 0
}
case "$WHICH" in all|deb12|deb13) ;; *) say "usage: scripts/package-test.sh [all|deb12|deb13]"; exit 2 ;; esac
[[ $BUILD13 != /* && $BUILD13 != *..* ]] || die "KBX_PKG_BUILD13 is a path relative to the source tree"
[[ $(id -u) == 0 ]] || skip "needs root for debootstrap and chroot"
host_tools=()
command -v debootstrap >/dev/null || host_tools+=(debootstrap)
command -v lintian >/dev/null || host_tools+=(lintian)
command -v appstreamcli >/dev/null || host_tools+=(appstream)
command -v desktop-file-validate >/dev/null || host_tools+=(desktop-file-utils)
if ((${#host_tools[@]})); then
  say "installing on the host: ${host_tools[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${host_tools[@]}" >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${host_tools[@]}" >/dev/null 2>&1; } \
    || skip "cannot install ${host_tools[*]}"
fi
mkdir -p "$CACHE" "$OUT"
TIMES=()
PASSED=0  # checks passed (each failure stops the test with an error)

# ---- mounts (scripts/lib/roots.sh: bind, mount_sys, remove_root, unmount_below, cleanup on exit) ----------
# shellcheck source=lib/roots.sh
source "$ROOT_DIR/scripts/lib/roots.sh"

# ---- clean roots -------------------------------------------------------------------------------------
# A minimal base per suite (debootstrap --variant=minbase plus an ordinary user), made once; every test
# installs into a fresh copy of it, so nothing of an earlier run or of a build root is there.
base_root() {  # SUITE -> BASE
  BASE="$CACHE/$1-base"
  if [[ ! -f "$BASE/.kbx-ready" ]]; then
    remove_root "$BASE"
    mkdir -p "$BASE" "$CACHE/apt-$1"
    phase "debootstrap --variant=minbase $1 into $BASE (once; cached)"
    # The apt cache keeps the base's packages too: a base made again downloads nothing.
    debootstrap --variant=minbase --cache-dir="$CACHE/apt-$1" "$1" "$BASE" "$MIRROR" > "$OUT/debootstrap-$1.log" 2>&1 \
      || { tail -5 "$OUT/debootstrap-$1.log"; remove_root "$BASE"; skip "debootstrap $1 failed (no registry?)"; }
    chroot "$BASE" useradd --create-home --shell /bin/bash kbxuser
    chroot "$BASE" apt-get clean
    touch "$BASE/.kbx-ready"
  fi
}
fresh_root() {  # SUITE -> TESTROOT (a fresh copy of the base)
  base_root "$1"
  TESTROOT="$CACHE/$1-test"
  remove_root "$TESTROOT"
  cp -a "$BASE" "$TESTROOT"
}

# ---- checks of the .deb file itself ------------------------------------------------------------------
check_file() {  # DEB LINTIAN_ROOT (a root whose lintian is of the package's Debian release; empty: the host's)
  local deb=$1 lroot=$2 x lint
  phase "$(basename "$deb"): dpkg -I"
  dpkg-deb -I "$deb" | tee "$OUT/$(basename "$deb" .deb).info" | sed 's/^/    /' >&2
  x=$(mktemp -d)
  dpkg-deb -x "$deb" "$x"
  appstreamcli validate --no-net "$x"/usr/share/metainfo/*.metainfo.xml >&2 || die "appstreamcli validate failed"
  desktop-file-validate "$x/usr/share/applications/kbx-workbench.desktop" >&2 || die "desktop-file-validate failed"
  rm -rf "$x"
  if [[ -n "$lroot" ]]; then
    phase "$(basename "$deb"): lintian ($(chroot "$lroot" dpkg-query -W -f '${Version}' lintian) in the Debian 13 root)"
    cp "$deb" "$lroot/tmp/"
    lint=$(chroot "$lroot" lintian --tag-display-limit 0 "/tmp/$(basename "$deb")" 2>&1 || true)
    rm -f "$lroot/tmp/$(basename "$deb")"
  else
    phase "$(basename "$deb"): lintian ($(dpkg-query -W -f '${Version}' lintian))"
    lint=$(lintian --tag-display-limit 0 "$deb" 2>&1 || true)
  fi
  echo "$lint" > "$OUT/$(basename "$deb" .deb).lintian"
  echo "$lint" | sed 's/^/    /' >&2
  say "lintian: $(grep -c '^E:' <<<"$lint" || true) errors, $(grep -c '^W:' <<<"$lint" || true) warnings"
  if grep -q '^E:' <<<"$lint"; then die "lintian reports errors for $(basename "$deb")"; fi
  PASSED=$((PASSED + 3))  # appstreamcli, desktop-file-validate, lintian
}

# ---- install a .deb into a clean root and check it from the installed files only ----------------------
check_deb() {  # SUITE DEB PYVER WITH_EVAL (venv: the host's venv; setup: kbx setup-python from cached wheels; 0: none)
  local suite=$1 deb=$2 pyver=$3 with_eval=$4 root ntasks t
  t=$SECONDS
  fresh_root "$suite"
  root=$TESTROOT
  mount_sys "$root"
  mkdir -p "$CACHE/apt-$suite"
  bind "$CACHE/apt-$suite" "$root/var/cache/apt/archives"
  cp "$deb" "$root/tmp/"
  # Only the package's own dependencies (no Recommends: they must be enough), plus bubblewrap (the
  # candidate sandbox a normal install gets through Recommends) and, for the eval's venv (KBX_PKG_VENV,
  # whose bin/python is /usr/bin/python3), Debian's python3.
  local extra=""
  [[ "$with_eval" == venv ]] && extra="bubblewrap python3"
  [[ "$with_eval" == setup ]] && extra="bubblewrap"
  phase "$suite: apt install $(basename "$deb") into a clean root ($root)"
  chroot "$root" env DEBIAN_FRONTEND=noninteractive bash -c \
    "apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/$(basename "$deb") $extra" \
    > "$OUT/install-$suite.log" 2>&1 || { tail -30 "$OUT/install-$suite.log"; die "$suite: apt could not install $(basename "$deb")"; }
  say "$suite: $(chroot "$root" dpkg-query -W -f '${Package}\n' | wc -l) packages in the test root after the install"
  # No source tree, no build tree in there; only the venv (Debian 12) or the wheels (Debian 13) named
  # below are bind-mounted, read-only.
  [[ ! -e "$root/src" && ! -e "$root$ROOT_DIR" ]] || die "$suite: a source tree is visible in the test root"
  local venv_env=() libtorch_env=()
  if [[ "$with_eval" == venv ]]; then
    bind "$VENV" "$root/opt/kbx-venv" ro
    venv_env=("KBX_TEST_PYTHON=/opt/kbx-venv/bin/python")
  elif [[ "$with_eval" == setup ]]; then
    # The wheels kbx setup-python installs from (no network in the test): torch of the release the
    # worker links, for this Python, and what it needs to import (wheels313 below).
    bind "$WHEELS313" "$root/opt/kbx-wheels" ro
    venv_env=("KBX_TEST_WHEELS=/opt/kbx-wheels" "KBX_TEST_EXTRA_REQS=$EXTRA313" "KBX_TEST_TORCH_VERSION=${TVER%%+*}")
  else
    # The LibTorch the worker links (of the torch release it was built against): Python-independent.
    bind "$TORCHDIR/lib" "$root/opt/kbx-libtorch/lib" ro
    libtorch_env=("KBX_TEST_LIBTORCH=/opt/kbx-libtorch/lib" "KBX_TEST_TORCH_VERSION=${TVER%%+*}")
  fi
  # Another database the user cannot write (root's, in a root-owned directory).
  mkdir -p "$root/srv/ro"
  cp "$root/usr/share/kbx/demo.sqlite" "$root/srv/ro/results.sqlite"
  chmod 0444 "$root/srv/ro/results.sqlite"; chmod 0555 "$root/srv/ro"
  ntasks=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["tasks"]) if isinstance(d,dict) and "tasks" in d else len(d))' \
           "$ROOT_DIR/tasks/index.json")
  phase "$suite: running the installed kbx, kbx-worker and kbx-workbench as an ordinary user"
  if ! chroot --userspec=kbxuser:kbxuser "$root" env -i PATH=/usr/bin:/bin HOME=/home/kbxuser LANG=C.UTF-8 USER=kbxuser XDG_RUNTIME_DIR=/tmp/runtime-kbxuser \
    NTASKS="$ntasks" PYVER="$pyver" WITH_EVAL="$with_eval" "${venv_env[@]}" "${libtorch_env[@]}" bash -euo pipefail -c '
    cd "$HOME"
    mkdir -m 0700 -p "$XDG_RUNTIME_DIR"
    ok() { echo "  ok: $*"; }
    bad() { echo "  FAILED: $*"; exit 1; }
    for f in /usr/bin/kbx /usr/bin/kbx-workbench /usr/libexec/kbx/kbx-worker /usr/libexec/kbx/bin/kbx-worker \
             /usr/libexec/kbx/harness/kbx_harness/candidate.py /usr/share/kbx/tasks/index.json /usr/share/kbx/demo.sqlite \
             /usr/share/kbx/tasks/contracts.json /usr/share/kbx/tasks/queue_prior.json \
             /usr/share/kbx/tasks/worker/harness/quality.py \
             /usr/share/kbx/syntax/triton.xml /usr/share/kbx/examples/submission.jsonl /usr/share/kbx/requirements.txt \
             /usr/share/applications/kbx-workbench.desktop /usr/share/metainfo/io.github.kbx.workbench.metainfo.xml \
             /usr/share/icons/hicolor/scalable/apps/kbx-workbench.svg /usr/share/icons/hicolor/48x48/apps/kbx-workbench.png \
             /usr/share/icons/hicolor/256x256/apps/kbx-workbench.png /usr/share/doc/kbx-workbench/copyright \
             /usr/share/doc/kbx-workbench/changelog.Debian.gz; do
      [[ -e $f ]] || bad "$f is not installed"
    done
    [[ ! -w /usr/share/kbx/demo.sqlite ]] || bad "the installed demo database is writable for a user"
    ok "installed layout (the demo database read-only for users)"
    v=$(kbx --version); [[ $v == kbx* ]] || bad "kbx --version: $v"; ok "$v"
    n=$(kbx tasks --json | "python$PYVER" -c "import json,sys; print(len(json.load(sys.stdin)))")
    [[ $n == "$NTASKS" ]] || bad "kbx tasks lists $n tasks, the index has $NTASKS"
    ok "kbx tasks: $n tasks"
    # Without a Python environment: a clear error that names kbx setup-python.
    set +e; msg=$(kbx eval /usr/share/kbx/examples/submission.jsonl --device cpu --db /tmp/none.sqlite 2>&1); rc=$?; set -e
    [[ $rc == 4 && $msg == *"kbx setup-python"* ]] || bad "kbx eval without a venv: exit $rc: $msg"
    ok "kbx eval without a Python environment: exit 4, names kbx setup-python"
    # kbx setup-python makes the venv with the Python the worker embeds (no downloads: --no-install).
    XDG_CONFIG_HOME=/tmp/cfg kbx setup-python --venv /tmp/sp-venv --no-install > /tmp/sp.log 2>&1 || { cat /tmp/sp.log; bad "kbx setup-python --no-install"; }
    [[ "$(/tmp/sp-venv/bin/python -c "import sys; print(\"%d.%d\" % sys.version_info[:2])")" == "$PYVER" ]] || bad "setup-python venv is not Python $PYVER"
    [[ "$(cat /tmp/cfg/kbx/python)" == /tmp/sp-venv/bin/python ]] || bad "setup-python did not record /tmp/sp-venv/bin/python"
    set +e; msg=$(XDG_CONFIG_HOME=/tmp/cfg /usr/libexec/kbx/kbx-worker probe 2>&1); rc=$?; set -e
    [[ $rc == 66 && $msg == *"kbx setup-python"* ]] || bad "worker with a venv without torch: exit $rc: $msg"
    ok "kbx setup-python --no-install: Python $PYVER venv recorded; the worker launcher says torch is missing"
    if [[ $WITH_EVAL == setup ]]; then
      # The real kbx setup-python, as a user runs it (the default venv ~/.local/share/kbx/venv, recorded
      # in ~/.config/kbx/python), from the cached wheels: the installed requirements.txt plus torch'"'"'s
      # own dependencies pinned (pip --no-deps: PyPI'"'"'s torch asks for triton 3.7.1 and NVIDIA library
      # versions that conflict with the requirements file or are not all on PyPI; packaging/README.md).
      { cat /usr/share/kbx/requirements.txt; printf "%s\n" $KBX_TEST_EXTRA_REQS; } > /tmp/setup-requirements.txt
      t0=$SECONDS
      kbx setup-python --requirements /tmp/setup-requirements.txt --pip-arg=--no-index --pip-arg=--find-links=$KBX_TEST_WHEELS \
        --pip-arg=--no-deps --pip-arg=--quiet > /tmp/setup.log 2>&1 || { tail -30 /tmp/setup.log; bad "kbx setup-python from the cached wheels"; }
      venvpy=$HOME/.local/share/kbx/venv/bin/python
      [[ "$(cat "$HOME/.config/kbx/python")" == "$venvpy" ]] || bad "kbx setup-python did not record $venvpy"
      grep -q "torch $KBX_TEST_TORCH_VERSION" /tmp/setup.log || bad "kbx setup-python: no torch $KBX_TEST_TORCH_VERSION: $(tail -5 /tmp/setup.log)"
      ok "kbx setup-python: $(grep -o "torch [0-9].*" /tmp/setup.log | head -1) in $((SECONDS - t0)) s, recorded $venvpy"
    fi
    if [[ $WITH_EVAL != 0 ]]; then
      # The interpreter of the eval: Debian 12 the host venv named by KBX_PYTHON, Debian 13 none named
      # (kbx finds the venv kbx setup-python recorded).
      qpy=${KBX_TEST_PYTHON:-$HOME/.local/share/kbx/venv/bin/python}
      "python$PYVER" - <<PY
import json
keep = []
for line in open("/usr/share/kbx/examples/submission.jsonl"):
    r = json.loads(line)
    first = r["predict"].splitlines()[0]
    expect = first.split("expect=")[1].split()[0] if "expect=" in first else "pass"
    key = (r["file"], expect)
    if key in {("Activation/relu.py", "pass"), ("Activation/leaky_relu.py", "value_mismatch"),
               ("Activation/relu.py", "not_triton_kernel")} and key not in [(k["file"], e) for k, e in keep]:
        keep.append((r, expect))
with open("/tmp/example.jsonl", "w") as out, open("/tmp/expect.txt", "w") as ex:
    for r, e in keep:
        out.write(json.dumps(r) + "\n"); ex.write(e + "\n")
PY
      [[ $(wc -l < /tmp/example.jsonl) == 3 ]] || bad "the bundled example lacks the three records this test evaluates"
      env ${KBX_TEST_PYTHON:+KBX_PYTHON=$KBX_TEST_PYTHON} kbx eval /tmp/example.jsonl --device cpu --json --jobs 2 --method pkgtest \
        > /tmp/eval.json 2> /tmp/eval.err || { tail -20 /tmp/eval.err; bad "kbx eval exit $?"; }
      "python$PYVER" - <<PY || bad "verdicts differ from the fixtures expectations"
import json
got = [json.loads(l) for l in open("/tmp/eval.json") if l.strip()]
want = [l.strip() for l in open("/tmp/expect.txt")]
have = sorted((g["verdict"] if g["verdict"] != "fail" else g["failure_class"]) for g in got)
print("    verdicts:", have, "expected:", sorted(want))
assert have == sorted(want)
PY
      db=$HOME/.local/share/kbx/kbx.sqlite
      [[ -f $db ]] || bad "no database at the default place $db"
      kbx report --db "$db" | grep -q pkgtest || bad "kbx report does not show the run"
      ok "kbx eval --device cpu: verdicts as expected, stored in $db"
      # Code quality (radon) runs in the interpreter kbx setup-python recorded, not in python3 on PATH
      # (which has no radon here): a recorded wrapper of the venv that notes each use.
      mkdir -p /tmp/cfgq/kbx
      printf "#!/bin/sh\necho used >> /tmp/quality-python.log\nexec %s \"\$@\"\n" "$qpy" > /tmp/quality-python
      chmod +x /tmp/quality-python
      echo /tmp/quality-python > /tmp/cfgq/kbx/python
      XDG_CONFIG_HOME=/tmp/cfgq kbx report --db "$db" --table method-summary --json > /tmp/quality.json 2> /tmp/quality.err \
        || { cat /tmp/quality.err; bad "kbx report --table method-summary"; }
      [[ -s /tmp/quality-python.log ]] || bad "kbx report did not run the recorded interpreter for radon: $(cat /tmp/quality.err)"
      grep -q "radon " /tmp/quality.json || bad "no radon code quality in the report: $(cat /tmp/quality.err)"
      ok "kbx report: code quality measured with radon through the recorded interpreter"
    else
      # No torch for this Python here: the worker binary itself. Its libraries resolve (LibTorch of the
      # release it was built against), and its embedded Python $PYVER starts from the installed harness.
      missing=$(LD_LIBRARY_PATH=$KBX_TEST_LIBTORCH ldd /usr/libexec/kbx/bin/kbx-worker | grep "not found" || true)
      [[ -z $missing ]] || bad "kbx-worker: libraries not found: $missing"
      # A stand-in torch package in the setup-python venv: its lib/ is that LibTorch (the launcher
      # checks it), its __init__ reports the interpreter that imports it and stops there.
      sp=/tmp/sp-venv/lib/python$PYVER/site-packages
      mkdir -p "$sp/torch" "$sp/torch-$KBX_TEST_TORCH_VERSION.dist-info"
      ln -s "$KBX_TEST_LIBTORCH" "$sp/torch/lib"
      printf "import sys\nraise ImportError(\"kbx-pkgtest: embedded Python %%d.%%d, prefix %%s\" %% (sys.version_info[0], sys.version_info[1], sys.prefix))\n" > "$sp/torch/__init__.py"
      set +e; XDG_CONFIG_HOME=/tmp/cfg /usr/libexec/kbx/kbx-worker probe > /tmp/probe.out 2> /tmp/probe.err 3>&1; rc=$?; set -e
      grep -aq "kbx-pkgtest: embedded Python $PYVER, prefix /tmp/sp-venv" /tmp/probe.out /tmp/probe.err \
        || bad "kbx-worker probe (exit $rc): its embedded Python $PYVER did not import the venv'"'"'s torch: $(head -c 600 /tmp/probe.err) $(head -c 600 /tmp/probe.out | tr -d "\0")"
      ok "kbx-worker: libraries resolve (LibTorch $KBX_TEST_TORCH_VERSION); its embedded Python $PYVER starts on the setup-python venv and imports from it (exit $rc: no real torch for it here)"
    fi
    # The installed demo as it is (root'"'"'s, read-only for users): kbx report opens it read-only by itself
    # (kbx::Store, OpenMode::Auto): counts and a table, nothing written, no journal beside it; the same
    # for another database of root'"'"'s. Writing commands on it are refused (exit 5) before anything runs.
    demo=/usr/share/kbx/demo.sqlite
    before=$(sha256sum "$demo"; stat -c "%y %s" "$demo")
    kbx report --db "$demo" > /tmp/ro-report.txt 2> /tmp/ro-report.err || { cat /tmp/ro-report.err; bad "kbx report --db $demo"; }
    grep -q "^== " /tmp/ro-report.txt || bad "kbx report --db $demo printed no table: $(head -c 300 /tmp/ro-report.txt)"
    kbx report --db "$demo" --table method-summary > /tmp/ro-table.txt 2> /tmp/ro-table.err || { cat /tmp/ro-table.err; bad "kbx report --table method-summary --db $demo"; }
    grep -q "correct" /tmp/ro-table.txt || bad "kbx report --table method-summary --db $demo: $(head -c 300 /tmp/ro-table.txt)"
    kbx report --db /srv/ro/results.sqlite --table taxonomy --csv > /tmp/ro-other.csv 2> /tmp/ro-other.err || { cat /tmp/ro-other.err; bad "kbx report on another read-only database"; }
    ! grep -qi "readonly" /tmp/ro-report.err /tmp/ro-table.err /tmp/ro-other.err || bad "SQLite complained: $(cat /tmp/ro-*.err)"
    cp "$demo" /tmp/mine.sqlite
    set +e; msg=$(kbx merge "$demo" /tmp/mine.sqlite 2>&1); rc=$?; set -e
    [[ $rc == 5 && $msg == *"$demo is read-only for you"* && $msg == *"copy it"* ]] || bad "kbx merge into $demo: exit $rc: $msg"
    set +e; msg=$(kbx eval /usr/share/kbx/examples/submission.jsonl --device cpu --db "$demo" 2>&1); rc=$?; set -e
    [[ $rc == 5 && $msg == *"$demo is read-only for you"* ]] || bad "kbx eval into $demo: exit $rc: $msg"
    [[ "$(sha256sum "$demo"; stat -c "%y %s" "$demo")" == "$before" ]] || bad "$demo changed"
    ! ls "$demo"-* /srv/ro/results.sqlite-* 2>/dev/null || bad "a journal beside a read-only database"
    ok "kbx report on the installed demo and on another read-only database (counts, method-summary, taxonomy): read-only by itself, files unchanged, no journal; kbx merge and eval into it refused (exit 5)"
    figs=$(kbx-workbench --list-figures)
    fig=$(echo "$figs" | head -1)
    [[ -n $fig ]] || bad "kbx-workbench --list-figures printed nothing"
    # The installed demo database, as it is (read-only): the workbench works on the user'"'"'s copy.
    for ext in svg png; do
      kbx-workbench --export-figure "$fig" --db /usr/share/kbx/demo.sqlite --out /tmp/fig.$ext 2>/tmp/fig.err || { cat /tmp/fig.err; bad "export $ext"; }
      [[ $(stat -c %s /tmp/fig.$ext) -gt 2000 ]] || bad "/tmp/fig.$ext is too small"
    done
    grep -q "using your copy $HOME/.local/share/kbx/demo.sqlite" /tmp/fig.err || bad "export did not say it used the copy: $(cat /tmp/fig.err)"
    [[ -f $HOME/.local/share/kbx/demo.sqlite && -f $HOME/.local/share/kbx/demo.sqlite.origin ]] || bad "no copy of the demo in ~/.local/share/kbx"
    ! ls /usr/share/kbx/demo.sqlite-* 2>/dev/null || bad "a journal beside the installed demo"
    head -c 200 /tmp/fig.svg | grep -q "<svg\|<?xml" || bad "fig.svg is not SVG"
    [[ $(head -c 4 /tmp/fig.png | od -An -c | tr -d " ") == *PNG* ]] || bad "fig.png is not PNG"
    ok "kbx-workbench --export-figure $fig offscreen from the installed demo (the user'"'"'s copy): SVG $(stat -c %s /tmp/fig.svg) B, PNG $(stat -c %s /tmp/fig.png) B"
    set +e; kbx-workbench --export-figure "$fig" --db /srv/ro/results.sqlite --out /tmp/ro.svg 2>/tmp/ro.err; rc=$?; set -e
    [[ $rc == 1 && ! -e /tmp/ro.svg ]] && grep -q "read-only for you" /tmp/ro.err || bad "a read-only database: exit $rc, $(cat /tmp/ro.err)"
    ok "a database the user cannot write: refused, \"$(head -c 90 /tmp/ro.err)...\""
    # The window, offscreen, without arguments: it opens the demo (the user'"'"'s copy) and records it.
    set +e; QT_QPA_PLATFORM=offscreen timeout -s TERM 12 kbx-workbench > /tmp/gui.log 2>&1; rc=$?; set -e
    [[ $rc == 124 ]] || { cat /tmp/gui.log; bad "kbx-workbench (the window, offscreen) exited with $rc before it was stopped"; }
    grep -q "^last=$HOME/.local/share/kbx/demo.sqlite" "$HOME/.config/kbx/kbx-workbench.conf" \
      || bad "the window did not open the demo copy: $(cat "$HOME/.config/kbx/kbx-workbench.conf" 2>&1)"
    ok "kbx-workbench window offscreen: ran until stopped, opened $HOME/.local/share/kbx/demo.sqlite"
  ' 2>&1 | tee "$OUT/checks-$suite.log" >&2; then
    die "$suite: the installed package failed its checks (log: $OUT/checks-$suite.log)"
  fi
  PASSED=$((PASSED + $(grep -c '^  ok: ' "$OUT/checks-$suite.log")))
  cleanup
  remove_root "$root"
  TIMES+=("$suite install test: $((SECONDS - t)) s")
}

# ---- Debian 12: package the host's build tree ---------------------------------------------------------
deb12() {
  local b=${KBX_PKG_BUILD:-$ROOT_DIR/build} t=$SECONDS
  VENV=${KBX_PKG_VENV:-$ROOT_DIR/.venv}
  [[ -x "$VENV/bin/python" ]] || die "no venv at $VENV (scripts/setup.sh makes .venv; or set KBX_PKG_VENV)"
  grep -q '^VERSION_CODENAME=bookworm' /etc/os-release || say "note: this host is not Debian 12; its build tree is packaged as the bookworm package anyway"
  if [[ ! -f "$b/CPackConfig.cmake" ]]; then
    [[ "$b" == "$ROOT_DIR/build" ]] || die "$b is not a configured build tree"
    (cd "$ROOT_DIR" && cmake --preset dev -DKBX_PYTHON="$VENV/bin/python" >/dev/null)
  fi
  grep -q "KBX_BUILD_GUI:BOOL=ON" "$b/CMakeCache.txt" || die "$b is built without the GUI (KBX_BUILD_GUI=ON is needed)"
  phase "Debian 12: building (up to date after scripts/setup.sh) and packaging $b"
  [[ "${KBX_PKG_NO_BUILD:-0}" == 1 ]] || cmake --build "$b" -j"$(nproc)" > "$OUT/build-deb12.log" 2>&1 || { tail -30 "$OUT/build-deb12.log"; die "build of $b failed"; }
  rm -rf "$b/packages"
  (cd "$b" && cpack -G DEB -B "$b/packages" > "$OUT/cpack-deb12.log" 2>&1) || { tail -30 "$OUT/cpack-deb12.log"; die "cpack failed"; }
  local deb
  deb=$(ls "$b"/packages/kbx-workbench_*_*.deb)
  cp "$deb" "$OUT/"
  TIMES+=("deb12 build + cpack: $((SECONDS - t)) s")
  t=$SECONDS
  check_file "$deb" ""
  TIMES+=("deb12 file checks: $((SECONDS - t)) s")
  check_deb bookworm "$deb" 3.11 venv
}

# ---- Debian 13: torch for Python 3.13 ------------------------------------------------------------------
# What kbx setup-python installs in the Debian 13 test root, downloaded once with the host's pip (PyPI)
# and kept in $CACHE/wheels-cp313: the installed requirements.txt (torch of the release the worker links,
# triton, numpy) for Python 3.13, and, pinned, what PyPI's torch (its CUDA build, the only Linux wheel
# there) needs to import on a CPU: its Python dependencies and the NVIDIA libraries its libraries link
# (not the versions torch's metadata pins: nvidia-cudnn-cu13 9.20.0.48 is not on PyPI, and torch asks for
# triton 3.7.1 where requirements.txt has 3.6.0, so pip installs them with --no-deps). About 2.7 GB.
EXTRA313="filelock==4.3.1 typing-extensions==4.16.0 setuptools==84.2.1 sympy==1.14.0 mpmath==1.3.0 networkx==3.7
jinja2==3.1.6 markupsafe==3.0.4 fsspec==2026.9.0 radon==6.0.1 mando==0.7.1 colorama==0.4.6 six==1.17.0
nvidia-cuda-runtime==13.0.96 nvidia-cublas==13.1.1.3 nvidia-cuda-cupti==13.0.85 nvidia-cuda-nvrtc==13.0.88
nvidia-cufft==12.0.0.61 nvidia-cufile==1.15.1.6 nvidia-curand==10.4.0.35 nvidia-cusolver==12.0.4.66
nvidia-cusparse==12.6.3.3 nvidia-cusparselt-cu13==0.8.1 nvidia-nccl-cu13==2.29.7 nvidia-nvjitlink==13.5.37
nvidia-nvshmem-cu13==3.4.5 nvidia-nvtx==13.0.85 nvidia-cudnn-cu13==9.28.1.4"
EXTRA313=$(echo $EXTRA313)
WHEELS313=""
wheels313() {  # -> WHEELS313 (the folder), or empty when they cannot be had and KBX_PACKAGE_TEST is not 1
  local dir=$CACHE/wheels-cp313 specs want
  specs="$(grep -vE '^[[:space:]]*(#|$)' "$ROOT_DIR/requirements.txt" | sed 's/[[:space:]]*#.*//') $EXTRA313"
  want=$(printf '%s\n' $specs | sort)
  grep -qx "torch==${TVER%%+*}" <<<"$want" || die "requirements.txt does not pin torch==${TVER%%+*}, the release the worker links"
  if [[ -f "$dir/.kbx-ready" && "$(cat "$dir/.kbx-ready")" == "$want" ]]; then
    WHEELS313=$dir
    say "wheels for Python 3.13: $(ls "$dir"/*.whl | wc -l) in $dir (cached; nothing downloaded)"
    return 0
  fi
  phase "downloading the wheels of kbx setup-python for Python 3.13 into $dir (once; cached; about 2.7 GB)"
  mkdir -p "$dir"
  rm -f "$dir/.kbx-ready"
  # shellcheck disable=SC2086
  if "$VENV/bin/python" -m pip download --disable-pip-version-check --python-version 3.13 --only-binary=:all: --no-deps \
       -d "$dir" $specs > "$OUT/wheels-cp313.log" 2>&1; then
    echo "$want" > "$dir/.kbx-ready"
    WHEELS313=$dir
    return 0
  fi
  tail -5 "$OUT/wheels-cp313.log" >&2
  if [[ "${KBX_PACKAGE_TEST:-auto}" == 1 ]]; then say "cannot run: pip download of the Python 3.13 wheels failed (no registry?)"; exit 4; fi
  say "skipped: kbx setup-python and kbx eval on Debian 13 (pip download of the Python 3.13 wheels failed: no registry?); the worker is checked with a stand-in torch instead (KBX_PACKAGE_TEST=1 makes this an error)"
}

# ---- Debian 13: build and package in the Debian 13 build root ------------------------------------------
deb13() {
  local t=$SECONDS
  wheels313
  TIMES+=("deb13 wheels for Python 3.13: $((SECONDS - t)) s")
  t=$SECONDS
  # What scripts/debian13-check.sh installs (the tree it builds is reused), plus the worker's and kbx's
  # build dependencies, dpkg-dev (dpkg-shlibdeps) and lintian of Debian 13.
  local pkgs="g++ cmake ninja-build pkg-config ccache qt6-base-dev qt6-charts-dev qt6-svg-dev libgl-dev
libkf6syntaxhighlighting-dev libsqlite3-dev libgtest-dev libgmock-dev nlohmann-json3-dev libfmt-dev libssl-dev
libcli11-dev libeigen3-dev fonts-dejavu-core ca-certificates python3-dev python3-venv pybind11-dev dpkg-dev file lintian"
  if [[ ! -f "$D13/.kbx-ready" ]]; then
    # As scripts/debian13-check.sh makes it (the same marker), so that it reuses this root.
    remove_root "$D13"; mkdir -p "$D13" "$CACHE/apt-trixie"
    phase "debootstrap --variant=minbase trixie into the Debian 13 build root $D13 (once; cached)"
    debootstrap --variant=minbase --cache-dir="$CACHE/apt-trixie" trixie "$D13" "$MIRROR" > "$OUT/debootstrap-d13.log" 2>&1 \
      || { tail -5 "$OUT/debootstrap-d13.log"; remove_root "$D13"; skip "debootstrap trixie failed (no registry?)"; }
    touch "$D13/.kbx-ready"
  fi
  if [[ -n "$(mounted_below "$D13")" ]]; then
    # Left by a run that was killed, unless a process works in the root now (debian13-check.sh).
    local p
    for p in /proc/[0-9]*; do
      [[ "$(readlink "$p/root" 2>/dev/null)" == "$(readlink -f "$D13")"* ]] && die "$D13 is in use (process ${p#/proc/}): is scripts/debian13-check.sh running?"
    done
    say "unmounting what an interrupted run left mounted in $D13"
    unmount_below "$D13"
  fi
  mount_sys "$D13"
  mkdir -p "$CACHE/apt-trixie"
  bind "$CACHE/apt-trixie" "$D13/var/cache/apt/archives"
  bind "$ROOT_DIR" "$D13/src"
  # LibTorch for the worker: the Python-independent part (include/, lib/) of the venv's torch wheel,
  # the same release kbx setup-python installs on Debian 13 for Python 3.13.
  bind "$TORCHDIR" "$D13/opt/kbx-libtorch" ro
  mkdir -p "$CACHE/ccache-d13"
  bind "$CACHE/ccache-d13" "$D13/var/cache/kbx-ccache"
  # shellcheck disable=SC2086
  if ! chroot "$D13" dpkg -s $pkgs >/dev/null 2>&1; then
    phase "Debian 13 build root: installing the build dependencies and lintian"
    chroot "$D13" env DEBIAN_FRONTEND=noninteractive bash -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $(echo $pkgs)" \
      > "$OUT/d13-apt.log" 2>&1 || { tail -20 "$OUT/d13-apt.log"; die "apt in the Debian 13 build root failed"; }
  fi
  local fresh=0
  [[ -f "$ROOT_DIR/$BUILD13/CMakeCache.txt" ]] || fresh=1
  phase "Debian 13: building kbx, kbx-worker (Python 3.13, LibTorch $TVER) and kbx-workbench in $BUILD13/ ($([[ $fresh == 1 ]] && echo "a new tree" || echo "the tree of scripts/debian13-check.sh, CLI and worker added")) and packaging"
  chroot "$D13" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 CCACHE_DIR=/var/cache/kbx-ccache \
    TVER="$TVER" TABI="$TABI" B="$BUILD13" FRESH="$fresh" NPROC="$(nproc)" bash -ec '
    # A build-only venv whose "torch" is the LibTorch above (cmake/FindTorchWheel.cmake asks the
    # interpreter for torch'"'"'s directory, version and ABI); nothing of it is packaged.
    v=/opt/kbx-buildvenv
    [[ -x $v/bin/python ]] || python3 -m venv $v
    sp=$($v/bin/python -c "import sysconfig; print(sysconfig.get_paths()[\"purelib\"])")
    mkdir -p $sp/torch
    ln -sfn /opt/kbx-libtorch/include $sp/torch/include
    ln -sfn /opt/kbx-libtorch/lib $sp/torch/lib
    cat > $sp/torch/__init__.py <<PY
# Build-time description of the LibTorch at /opt/kbx-libtorch (scripts/package-test.sh).
__version__ = "$TVER"
class version:
    cuda = None
def compiled_with_cxx11_abi():
    return bool($TABI)
PY
    cd /src
    args=(-DKBX_BUILD_GUI=ON -DKBX_BUILD_CLI=ON -DKBX_BUILD_WORKER=ON -DKBX_PYTHON=$v/bin/python
          -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON)
    # debian13-check.sh'"'"'s tree gets its own settings back afterwards (what it builds and tests stays
    # as it was; only its core is compiled again, a ccache hit from the second time on).
    restore=()
    if [[ $FRESH == 1 ]]; then
      args+=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF -DKBX_BUILD_PYTHON=OFF)
    else
      for var in KBX_BUILD_CLI KBX_BUILD_WORKER KBX_PYTHON CMAKE_SKIP_INSTALL_ALL_DEPENDENCY; do
        line=$(grep -E "^$var:[A-Z]+=" "$B/CMakeCache.txt" || true)
        if [[ -n $line ]]; then restore+=("-D$line"); else restore+=("-U$var"); fi
      done
    fi
    cmake -S . -B "$B" "${args[@]}" > "$B.package-configure.log" 2>&1 || { cat "$B.package-configure.log"; exit 1; }
    grep -q "KF6SyntaxHighlighting_DIR:PATH=/" "$B/CMakeCache.txt" || { echo "KF6 KSyntaxHighlighting not found"; exit 1; }
    # Only what is installed (the tests of the tree are debian13-check.sh'"'"'s business).
    cmake --build "$B" -j"$NPROC" --target kbx kbx-worker kbx-workbench kbx-icons > "$B/package-build.log" 2>&1 \
      || { tail -40 "$B/package-build.log"; exit 1; }
    rm -rf "$B/packages"
    (cd "$B" && cpack -G DEB -B "/src/$B/packages" > cpack.log 2>&1) || { tail -30 "$B/cpack.log"; exit 1; }
    if ((${#restore[@]})); then
      cmake -S . -B "$B" "${restore[@]}" > "$B.package-restore.log" 2>&1 || { cat "$B.package-restore.log"; exit 1; }
      # Nor does it keep the programs it does not build: its GUI tests would find a kbx-worker beside
      # them (linked to the LibTorch mounted only here) and try to run it.
      rm -f "$B/bin/kbx" "$B/bin/kbx-worker"
    fi
  ' || die "Debian 13 build or cpack failed"
  local deb
  deb=$(ls "$ROOT_DIR/$BUILD13"/packages/kbx-workbench_*_*.deb)
  cp "$deb" "$OUT/"
  TIMES+=("deb13 build root + build + cpack: $((SECONDS - t)) s")
  t=$SECONDS
  grep -q "libkf6syntaxhighlighting" <(dpkg-deb -f "$deb" Depends) || die "the Debian 13 .deb does not depend on KF6 KSyntaxHighlighting"
  grep -q "python3.13" <(dpkg-deb -f "$deb" Depends) || die "the Debian 13 .deb does not depend on python3.13"
  check_file "$deb" "$D13"
  cleanup
  TIMES+=("deb13 file checks: $((SECONDS - t)) s")
  # kbx setup-python and kbx eval with torch for Python 3.13 from the cached wheels; without them (no
  # registry, KBX_PACKAGE_TEST unset) the worker binary with a stand-in torch only.
  check_deb trixie "$deb" 3.13 "$([[ -n $WHEELS313 ]] && echo setup || echo 0)"
}

# The LibTorch of the venv's torch (the Debian 13 worker links it; its release names the torch it needs).
VENV=${KBX_PKG_VENV:-$ROOT_DIR/.venv}
[[ -x "$VENV/bin/python" ]] || die "no venv at $VENV (scripts/setup.sh makes .venv; or set KBX_PKG_VENV)"
read -r TORCHDIR TVER TABI < <("$VENV/bin/python" -c 'import os, torch; print(os.path.dirname(torch.__file__), torch.__version__, int(torch.compiled_with_cxx11_abi()))') \
  || die "$VENV/bin/python cannot import torch"

[[ "$WHICH" == all || "$WHICH" == deb12 ]] && deb12
[[ "$WHICH" == all || "$WHICH" == deb13 ]] && deb13
for x in "${TIMES[@]}"; do say "  $x"; done
say "passed ($WHICH) in $((SECONDS - T0)) s; packages, dpkg -I, lintian and logs in $OUT"
echo "package-test: $PASSED passed, 0 failed"
