#!/usr/bin/env bash
# The fault run of durable pipelines, by hand (not part of `mvn verify`):
#
#   bench/fault-run.sh [--skip-build] [sluice-bench fault-run options...]
#
# Builds bin/sluice's jar and sluice-bench.jar (`mvn -B -q -DskipTests package`), then runs
# `sluice-bench fault-run`: 20 SIGKILLs of bin/sluice under load with a second durable pipeline
# added halfway, then (as root) a full disk that drains, on a 32 MiB ext4 file system mounted from
# a loop image for the run (tmpfs of 32 MiB where loop devices cannot be used), unmounted and
# deleted at the end. Not root: the full-disk part is skipped, and the script says so.
#
# Prints a summary at the end and writes it to bench/results/fault-run-<UTC date>.txt; the
# collector's logs go to bench/results/logs/fault-run/. Exits 1 when a promise broke. Everything
# runs on 127.0.0.1; about 3 minutes on two cores, plus the build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"

build=1
if [ "${1:-}" = "--skip-build" ]; then
  build=0
  shift
fi
invoked="bench/fault-run.sh${*:+ $*}"

if [ "$build" = 1 ]; then
  echo "building: mvn -B -q -DskipTests package" >&2
  mvn -B -q -DskipTests package
fi
for jar in collector/target/sluice.jar bench/target/sluice-bench.jar; do
  [ -f "$jar" ] || { echo "fault-run: $jar is missing; run without --skip-build" >&2; exit 1; }
done

scratch=""
mountpoint=""
cleanup() {
  if [ -n "$mountpoint" ] && mountpoint -q "$mountpoint"; then
    umount "$mountpoint" 2>/dev/null || { sleep 2; umount "$mountpoint" 2>/dev/null; } \
      || umount -l "$mountpoint" || echo "fault-run: could not unmount $mountpoint" >&2
  fi
  if [ -n "$scratch" ]; then
    rm -rf "$scratch"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

disk=()
if [ "$(id -u)" = 0 ]; then
  scratch="$(mktemp -d "${TMPDIR:-/tmp}/sluice-fault-run.XXXXXX")"
  mountpoint="$scratch/disk"
  mkdir "$mountpoint"
  if truncate -s 32M "$scratch/disk.img" && mkfs.ext4 -q -F "$scratch/disk.img" \
    && mount -o loop "$scratch/disk.img" "$mountpoint" 2>/dev/null; then
    echo "full-disk part: 32 MiB ext4 on a loop device at $mountpoint" >&2
  elif mount -t tmpfs -o size=32m tmpfs "$mountpoint"; then
    echo "full-disk part: loop devices unusable; 32 MiB tmpfs at $mountpoint" >&2
  else
    echo "fault-run: neither a loop mount nor tmpfs could be mounted" >&2
    exit 1
  fi
  disk=(--disk-dir "$mountpoint")
else
  echo "fault-run: not root, so no small file system can be mounted: the full-disk part is skipped" >&2
fi

commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  commit="$commit (with uncommitted changes)"
fi

status=0
java ${BENCH_JAVA_OPTS:-} -jar bench/target/sluice-bench.jar fault-run \
  --launcher bin/sluice \
  --work-dir bench/results/logs/fault-run \
  --result "bench/results/fault-run-$(date -u +%F).txt" \
  --invoked-as "$invoked" \
  --commit "$commit" \
  "${disk[@]}" "$@" || status=$?
exit "$status"
