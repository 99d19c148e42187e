#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install test of the .deb packages (issue 9). Builds the .deb for Debian 12 (this host) and, in the
# Debian 13 build root of scripts/debian13-check.sh, the .deb for Debian 13; installs each into a CLEAN
# debootstrap root (a cached minimal base, copied afresh for every run; never the build root), and
# there, from the installed files only, as an ordinary user:
#   kbx --version; kbx tasks (all tasks of the index); kbx setup-python --no-install (a venv made with
#   the Python the worker embeds); kbx eval without a Python environment (exit 4, "kbx setup-python");
#   kbx eval --device cpu on records of the bundled example (Debian 12; verdicts as the fixtures say);
#   kbx-workbench --list-figures and --export-figure (SVG and PNG) offscreen on the bundled demo database.
# On the host: lintian (no errors; warnings are listed), appstreamcli validate --no-net, dpkg -I.
#
#   scripts/package-test.sh [all|deb12|deb13]      needs root, debootstrap and Debian's package registry
#
# Environment:
#   KBX_PACKAGE_TEST=1   fail instead of skipping when root or debootstrap is unavailable
#   KBX_PKG_CACHE        base roots, apt archives, ccache (default /var/cache/kbx-pkg)
#   KBX_PKG_BUILD        the Debian 12 build tree to package (default build/, as scripts/setup.sh makes it;
#                        configured with the dev preset when missing)
#   KBX_PKG_VENV         the worker's Python environment for the Debian 12 eval: a venv of Debian's
#                        python3.11 with requirements.txt (default .venv, made by scripts/setup.sh). It is
#                        bind-mounted read-only at /opt/kbx-venv and named by KBX_PYTHON: the documented
#                        shortcut for `kbx setup-python`, which would download torch (GBs) in every run.
#   KBX_DEBIAN13_ROOT    the Debian 13 build root (default /var/cache/kbx-debian13)
#   KBX_PKG_OUT          where the .deb files are left (default build-packages/)
#   KBX_PKG_NO_BUILD=1   package the Debian 12 build tree as it is (no cmake --build first)
set -euo pipefail
ROOT_DIR=$(cd "$(dirname "$0")/.." && pwd)
WHICH=${1:-all}
CACHE=${KBX_PKG_CACHE:-/var/cache/kbx-pkg}
OUT=${KBX_PKG_OUT:-$ROOT_DIR/build-packages}
D13=${KBX_DEBIAN13_ROOT:-/var/cache/kbx-debian13}
say() { printf '\033[1m[package-test]\033[0m %s\n' "$*" >&2; }
die() { say "FAILED: $*"; exit 1; }
skip() {
  if [[ "${KBX_PACKAGE_TEST:-auto}" == 1 ]]; then say "cannot run: $*"; exit 4; fi
  say "skipped: $* (KBX_PACKAGE_TEST=1 makes this an error)"; exit 0
}
case "$WHICH" in all|deb12|deb13) ;; *) say "usage: scripts/package-test.sh [all|deb12|deb13]"; exit 2 ;; esac
[[ $(id -u) == 0 ]] || skip "needs root for debootstrap and chroot"
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null 2>&1 || skip "debootstrap not installable"
command -v lintian >/dev/null || apt-get install -y -qq --no-install-recommends lintian >/dev/null 2>&1 || skip "lintian not installable"
command -v appstreamcli >/dev/null || apt-get install -y -qq --no-install-recommends appstream >/dev/null 2>&1 || skip "appstream not installable"
command -v desktop-file-validate >/dev/null || apt-get install -y -qq --no-install-recommends desktop-file-utils >/dev/null 2>&1 || skip "desktop-file-utils not installable"
mkdir -p "$CACHE" "$OUT"
T0=$SECONDS

MOUNTS=()
cleanup() {
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    umount "${MOUNTS[$i]}" 2>/dev/null || umount -l "${MOUNTS[$i]}" 2>/dev/null || true
  done
  MOUNTS=()
}
trap cleanup EXIT
bind() {  # bind SRC DST [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  [[ "${3:-}" == ro ]] && mount -o remount,bind,ro "$2"
  MOUNTS+=("$2")
}
mount_sys() {  # the kernel file systems of a root
  mkdir -p "$1/proc" "$1/dev"
  mount -t proc proc "$1/proc"; MOUNTS+=("$1/proc")
  bind /dev "$1/dev"
  mkdir -p "$1/dev/shm"
  cp /etc/resolv.conf "$1/etc/resolv.conf" 2>/dev/null || true
}

# ---- clean roots -------------------------------------------------------------------------------------
# A minimal base per suite, made once (debootstrap) with an ordinary user; every test installs into a
# fresh copy of it, so nothing of an earlier run or of a build root is there.
base_root() {  # SUITE -> BASE (the base's path)
  local suite=$1
  BASE="$CACHE/$1-base"
  local base=$BASE
  if [[ ! -f "$base/.kbx-ready" ]]; then
    rm -rf "$base"; mkdir -p "$base"
    say "debootstrap $suite into $base (once)"
    debootstrap --variant=minbase "$suite" "$base" http://deb.debian.org/debian >/dev/null \
      || { rm -rf "$base"; skip "debootstrap $suite failed (no registry?)"; }
    chroot "$base" useradd --create-home --shell /bin/bash kbxuser
    touch "$base/.kbx-ready"
  fi
}
fresh_root() {  # SUITE -> TESTROOT (a fresh copy of the base)
  base_root "$1"
  TESTROOT="$CACHE/$1-test"
  rm -rf "$TESTROOT"
  cp -a "$BASE" "$TESTROOT"
}

# ---- install a .deb into a clean root and check it from the installed files only -----------------------
check_deb() {  # SUITE DEB PYVER WITH_EVAL
  local suite=$1 deb=$2 pyver=$3 with_eval=$4 root
  fresh_root "$suite"
  root=$TESTROOT
  mount_sys "$root"
  mkdir -p "$CACHE/apt-$suite"
  bind "$CACHE/apt-$suite" "$root/var/cache/apt/archives"
  cp "$deb" "$root/tmp/"
  # The eval's venv (KBX_PKG_VENV) links bin/python to /usr/bin/python3: Debian's python3 with it.
  local extra=""
  [[ "$with_eval" == 1 ]] && extra=python3
  say "$suite: apt install $(basename "$deb") into a clean root ($root)"
  chroot "$root" bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb") $extra" \
    > "$OUT/install-$suite.log" 2>&1 || { tail -30 "$OUT/install-$suite.log"; die "$suite: apt could not install $(basename "$deb")"; }
  # No source tree, no build tree, no host venv in there (but the one named by KBX_PYTHON below).
  [[ ! -e "$root/src" || -z "$(ls -A "$root/src" 2>/dev/null)" ]] || die "$suite: a source tree is visible in the test root"
  local venv_env=""
  if [[ "$with_eval" == 1 ]]; then
    bind "$VENV" "$root/opt/kbx-venv" ro
    venv_env="KBX_TEST_PYTHON=/opt/kbx-venv/bin/python"
  fi
  local ntasks
  ntasks=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["tasks"]) if isinstance(d,dict) and "tasks" in d else len(d))' \
           "$ROOT_DIR/tasks/index.json")
  say "$suite: running the installed kbx, kbx-worker and kbx-workbench as an ordinary user"
  chroot --userspec=kbxuser:kbxuser "$root" env -i PATH=/usr/bin:/bin HOME=/home/kbxuser LANG=C.UTF-8 USER=kbxuser \
    NTASKS="$ntasks" PYVER="$pyver" WITH_EVAL="$with_eval" $venv_env bash -euo pipefail -c '
    cd "$HOME"
    ok() { echo "  ok: $*"; }
    bad() { echo "  FAILED: $*"; exit 1; }
    for f in /usr/bin/kbx /usr/bin/kbx-workbench /usr/libexec/kbx/kbx-worker /usr/libexec/kbx/bin/kbx-worker \
             /usr/libexec/kbx/harness/kbx_harness/candidate.py /usr/share/kbx/tasks/index.json /usr/share/kbx/demo.sqlite \
             /usr/share/kbx/syntax/triton.xml /usr/share/kbx/examples/submission.jsonl /usr/share/kbx/requirements.txt \
             /usr/share/applications/kbx-workbench.desktop /usr/share/metainfo/io.github.kbx.workbench.metainfo.xml \
             /usr/share/icons/hicolor/scalable/apps/kbx-workbench.svg /usr/share/icons/hicolor/48x48/apps/kbx-workbench.png \
             /usr/share/icons/hicolor/256x256/apps/kbx-workbench.png /usr/share/doc/kbx-workbench/copyright; do
      [[ -e $f ]] || bad "$f is not installed"
    done
    ok "installed layout"
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
    ok "kbx setup-python --no-install: Python $PYVER venv recorded; the worker says torch is missing"
    if [[ $WITH_EVAL == 1 ]]; then
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
      KBX_PYTHON=$KBX_TEST_PYTHON kbx eval /tmp/example.jsonl --device cpu --json --jobs 2 --method pkgtest > /tmp/eval.json 2> /tmp/eval.err \
        || { tail -20 /tmp/eval.err; bad "kbx eval exit $?"; }
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
    fi
    figs=$(kbx-workbench --list-figures)
    fig=$(echo "$figs" | head -1)
    [[ -n $fig ]] || bad "kbx-workbench --list-figures printed nothing"
    # A copy: kbx-workbench opens its database writable, and /usr/share/kbx/demo.sqlite is read-only
    # for users ("attempt to write a readonly database"; reported, to be fixed in the workbench).
    cp /usr/share/kbx/demo.sqlite "$HOME/demo.sqlite"
    for ext in svg png; do
      kbx-workbench --export-figure "$fig" --db "$HOME/demo.sqlite" --out /tmp/fig.$ext 2>/tmp/fig.err || { cat /tmp/fig.err; bad "export $ext"; }
      [[ $(stat -c %s /tmp/fig.$ext) -gt 2000 ]] || bad "/tmp/fig.$ext is too small"
    done
    head -c 200 /tmp/fig.svg | grep -q "<svg\|<?xml" || bad "fig.svg is not SVG"
    [[ $(head -c 4 /tmp/fig.png | od -An -c | tr -d " ") == *PNG* ]] || bad "fig.png is not PNG"
    ok "kbx-workbench --export-figure $fig offscreen: SVG $(stat -c %s /tmp/fig.svg) B, PNG $(stat -c %s /tmp/fig.png) B"
  ' || die "$suite: the installed package failed its checks"
  cleanup
  rm -rf "$root"
}

# ---- checks of the .deb file itself (host) ----------------------------------------------------------
check_file() {  # DEB
  local deb=$1 x
  say "$(basename "$deb"): dpkg -I"
  dpkg-deb -f "$deb" >&2
  x=$(mktemp -d)
  dpkg-deb -x "$deb" "$x"
  appstreamcli validate --no-net "$x"/usr/share/metainfo/*.metainfo.xml >&2 || die "appstreamcli validate failed"
  if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$x/usr/share/applications/kbx-workbench.desktop" >&2 || die "desktop-file-validate failed"
  fi
  rm -rf "$x"
  say "$(basename "$deb"): lintian"
  local lint
  lint=$(lintian --tag-display-limit 0 "$deb" 2>&1 || true)
  echo "$lint" | sed 's/^/    /' >&2
  if echo "$lint" | grep -q '^E:'; then die "lintian reports errors for $(basename "$deb")"; fi
}

# ---- Debian 12: package the host's build tree ---------------------------------------------------------
deb12() {
  local b=${KBX_PKG_BUILD:-$ROOT_DIR/build}
  VENV=${KBX_PKG_VENV:-$ROOT_DIR/.venv}
  [[ -x "$VENV/bin/python" ]] || die "no venv at $VENV (scripts/setup.sh makes .venv; or set KBX_PKG_VENV)"
  if [[ ! -f "$b/CPackConfig.cmake" ]]; then
    [[ "$b" == "$ROOT_DIR/build" ]] || die "$b is not a configured build tree"
    (cd "$ROOT_DIR" && cmake --preset dev -DKBX_PYTHON="$VENV/bin/python" >/dev/null)
  fi
  grep -q "KBX_BUILD_GUI:BOOL=ON" "$b/CMakeCache.txt" || die "$b is built without the GUI (KBX_BUILD_GUI=ON is needed)"
  say "Debian 12: building and packaging $b"
  [[ "${KBX_PKG_NO_BUILD:-0}" == 1 ]] || cmake --build "$b" -j"$(nproc)" >/dev/null
  rm -rf "$b/packages"
  (cd "$b" && cpack -G DEB -B "$b/packages" > "$OUT/cpack-deb12.log" 2>&1) || { tail -30 "$OUT/cpack-deb12.log"; die "cpack failed"; }
  local deb
  deb=$(ls "$b"/packages/kbx-workbench_*_*.deb)
  cp "$deb" "$OUT/"
  check_file "$deb"
  check_deb bookworm "$deb" 3.11 1
}

# ---- Debian 13: build and package in the Debian 13 build root ------------------------------------------
deb13() {
  if [[ ! -f "$D13/.kbx-ready" ]]; then
    say "no Debian 13 build root yet: making it with scripts/debian13-check.sh"
    KBX_DEBIAN13_ROOT=$D13 "$ROOT_DIR/scripts/debian13-check.sh" >/dev/null
  fi
  [[ -f "$D13/.kbx-ready" ]] || skip "no Debian 13 build root ($D13)"
  local pkgs="g++ cmake ninja-build pkg-config ccache qt6-base-dev qt6-charts-dev qt6-svg-dev libgl-dev
libkf6syntaxhighlighting-dev libsqlite3-dev nlohmann-json3-dev libfmt-dev libssl-dev libcli11-dev libeigen3-dev
python3-dev python3-venv pybind11-dev dpkg-dev file fonts-dejavu-core ca-certificates"
  mount_sys "$D13"
  bind "$ROOT_DIR" "$D13/src"
  # LibTorch for the worker: the Python-independent part (include/, lib/) of the host venv's torch
  # wheel, the same release kbx setup-python installs on Debian 13 for Python 3.13.
  local hostpy=${KBX_PKG_VENV:-$ROOT_DIR/.venv}/bin/python torchdir tver tabi
  read -r torchdir tver tabi < <("$hostpy" -c 'import os, torch; print(os.path.dirname(torch.__file__), torch.__version__, int(torch.compiled_with_cxx11_abi()))')
  bind "$torchdir" "$D13/opt/kbx-libtorch" ro
  mkdir -p "$CACHE/ccache-d13"
  bind "$CACHE/ccache-d13" "$D13/var/cache/kbx-ccache"
  # shellcheck disable=SC2086
  if ! chroot "$D13" dpkg -s $pkgs >/dev/null 2>&1; then
    say "Debian 13 build root: installing the worker's build dependencies"
    chroot "$D13" bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(echo $pkgs)" >/dev/null
  fi
  say "Debian 13: building kbx, kbx-worker (Python 3.13, LibTorch $tver) and kbx-workbench in build-d13-pkg/ and packaging"
  chroot "$D13" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 CCACHE_DIR=/var/cache/kbx-ccache \
    TVER="$tver" TABI="$tabi" bash -ec '
    # A build-only venv whose "torch" is the LibTorch above (cmake/FindTorchWheel.cmake asks the
    # interpreter for torch'\''s directory, version and ABI); nothing of it is packaged.
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
    cmake -S . -B build-d13-pkg -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF -DKBX_BUILD_GUI=ON \
          -DKBX_BUILD_CLI=ON -DKBX_BUILD_WORKER=ON -DKBX_BUILD_PYTHON=OFF -DKBX_PYTHON=$v/bin/python \
          > build-d13-pkg.configure.log 2>&1 || { cat build-d13-pkg.configure.log; exit 1; }
    grep -q "KF6SyntaxHighlighting_DIR:PATH=/" build-d13-pkg/CMakeCache.txt || { echo "KF6 KSyntaxHighlighting not found"; exit 1; }
    cmake --build build-d13-pkg -j"$(nproc)" > build-d13-pkg/build.log 2>&1 || { tail -40 build-d13-pkg/build.log; exit 1; }
    rm -rf build-d13-pkg/packages
    cd build-d13-pkg && cpack -G DEB -B /src/build-d13-pkg/packages > cpack.log 2>&1 || { tail -30 cpack.log; exit 1; }
  ' || die "Debian 13 build or cpack failed"
  local deb
  deb=$(ls "$ROOT_DIR"/build-d13-pkg/packages/kbx-workbench_*_*.deb)
  cp "$deb" "$OUT/"
  cleanup
  grep -q "libkf6syntaxhighlighting" <(dpkg-deb -f "$deb" Depends) || die "the Debian 13 .deb does not depend on KF6 KSyntaxHighlighting"
  check_file "$deb"
  # No torch for Python 3.13 on this machine (PyPI's is the multi-GB CUDA build): no eval here.
  check_deb trixie "$deb" 3.13 0
}

[[ "$WHICH" == all || "$WHICH" == deb12 ]] && deb12
[[ "$WHICH" == all || "$WHICH" == deb13 ]] && deb13
say "passed ($WHICH) in $((SECONDS - T0)) s; packages in $OUT"
