# SPDX-License-Identifier: MIT
# Mounts of the throw-away Debian roots that scripts/clean-root-check.sh and scripts/package-test.sh
# build and test in. Sourced after the caller defines say() (its message prefix). Every mount is
# recorded and undone (innermost first) by cleanup, at the end of each step and on exit; a root is only
# ever deleted after checking that nothing is mounted below it: a forgotten bind mount of the host's
# venv or of the apt and ccache caches would otherwise be deleted with it.
MOUNTS=()
cleanup() {
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    umount "${MOUNTS[$i]}" 2>/dev/null || umount -l "${MOUNTS[$i]}" 2>/dev/null || true
  done
  MOUNTS=()
}
trap cleanup EXIT
mounted_below() {  # DIR -> the mount points at or below DIR, innermost first
  local d
  d=$(readlink -f "$1")
  awk -v d="$d" '$5 == d || index($5, d "/") == 1 {print $5}' /proc/self/mountinfo | sort -r
}
unmount_below() {
  local m
  for m in $(mounted_below "$1"); do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  [[ -z "$(mounted_below "$1")" ]] || { say "FAILED: cannot unmount what is mounted below $1"; exit 1; }
}
remove_root() {
  [[ -e "$1" ]] || return 0
  unmount_below "$1"
  rm -rf --one-file-system "$1"
}
bind() {  # bind SRC DST [ro]
  [[ -d "$1" ]] && mkdir -p "$2" || { mkdir -p "$(dirname "$2")"; [[ -e "$2" ]] || touch "$2"; }
  mount --bind "$1" "$2"
  MOUNTS+=("$2")
  mount --make-private "$2"
  [[ "${3:-}" == ro ]] && mount -o remount,bind,ro "$2"
  return 0
}
mount_sys() {  # the kernel file systems of a root: /proc, and a /dev of its own (never the host's /dev)
  local r=$1 n
  mkdir -p "$r/proc" "$r/dev"
  mount -t proc proc "$r/proc"; MOUNTS+=("$r/proc")
  mount -t tmpfs -o mode=755,nosuid tmpfs "$r/dev"; MOUNTS+=("$r/dev")
  mount --make-private "$r/dev"
  for n in null zero full random urandom tty; do bind "/dev/$n" "$r/dev/$n"; done
  mkdir -p "$r/dev/shm" "$r/dev/pts"
  mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$r/dev/shm"; MOUNTS+=("$r/dev/shm")
  ln -sfn /proc/self/fd "$r/dev/fd"
  ln -sfn /proc/self/fd/0 "$r/dev/stdin"; ln -sfn /proc/self/fd/1 "$r/dev/stdout"; ln -sfn /proc/self/fd/2 "$r/dev/stderr"
  cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
}
