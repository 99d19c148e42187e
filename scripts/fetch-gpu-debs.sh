#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fetch the Debian 12 packages that scripts/gpu-run.sh unpacks on a GPU machine without a package
# registry: the C++ libraries (headers, CMake files and the shared libraries they link) that such a
# machine's Python venv does not provide. Run it on Debian 12 (bookworm, amd64) with package lists
# (apt-get update); no root needed. Then carry .deps/ with the checkout (it is ignored by git).
#   scripts/fetch-gpu-debs.sh [DIR]     (default .deps/debs)
# The list: SQLite (libsqlite3-dev, libsqlite3-0), nlohmann-json (nlohmann-json3-dev), fmt (libfmt-dev,
# libfmt9), OpenSSL's libcrypto (libssl-dev, libssl3), Eigen (libeigen3-dev), CLI11 (libcli11-dev) and
# GoogleTest with GoogleMock (libgtest-dev, libgmock-dev, googletest: the sources libgmock-dev's CMake
# files point at). Python, pybind11, CMake and Ninja come from the venv (pip), torch brings CUDA.
set -euo pipefail
PKGS="libsqlite3-dev libsqlite3-0 nlohmann-json3-dev libfmt-dev libfmt9 libssl-dev libssl3 libeigen3-dev
libcli11-dev libgtest-dev libgmock-dev googletest"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-$ROOT/.deps/debs}
. /etc/os-release 2>/dev/null || true
if [[ "${VERSION_CODENAME:-}" != bookworm ]]; then
  echo "fetch-gpu-debs.sh: this is ${PRETTY_NAME:-not Debian 12}; the GPU build is tested with Debian 12's packages" >&2
  [[ "${KBX_ANY_RELEASE:-0}" == 1 ]] || { echo "(KBX_ANY_RELEASE=1 fetches anyway)" >&2; exit 2; }
fi
mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
(cd "$tmp" && apt-get download $PKGS)
rm -f "$DIR"/*.deb
mv "$tmp"/*.deb "$DIR"/
ls -1 "$DIR"
