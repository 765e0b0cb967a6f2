#!/usr/bin/env bash
# Builds the OpenTelemetry Collector peer (bench/peers/otelcol, a Go module) into
# bench/target/peers/otelcol and prints the binary's path as its last line of output.
#
#   bench/peers/build-otelcol.sh               # otelcol: v0.165.0, the benchmarks' peer
#   bench/peers/build-otelcol.sh otelcol-0.161 # the v0.161.0 build that keeps the contrib
#                                              # processors (attributes, filter, transform) and
#                                              # the file exporter for validate-examples.sh,
#                                              # and the connectors for conformance.sh
#   bench/peers/build-otelcol.sh otelcol-routing # v0.148.0 with the routing connector, the
#                                              # newest release of it the proxy serves
#
# Idempotent: the go command rebuilds only what changed and leaves an up-to-date binary alone.
# Needs only Go (the version go.mod names, or newer) and the Go module proxy: every module is
# pinned by go.mod and checked against go.sum, so a fresh machine builds exactly the committed
# set. On a shared machine, `GOMAXPROCS=1 bench/peers/build-otelcol.sh` builds one package at
# a time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
name="${1:-otelcol}"
case "$name" in
  otelcol|otelcol-0.161|otelcol-routing) ;;
  *) echo "build-otelcol: unknown build $name (otelcol, otelcol-0.161 or otelcol-routing)" >&2; exit 2 ;;
esac
module="$here/$name"
out_dir="$here/../target/peers"

if ! command -v go >/dev/null 2>&1; then
  echo "build-otelcol: the go command is not on PATH" >&2
  exit 1
fi

mkdir -p "$out_dir"
binary="$(cd "$out_dir" && pwd)/$name"

# -mod=readonly: build the versions go.mod and go.sum pin, and fail rather than change them
# (no vendor tree is kept). -buildvcs=false: a git worktree or an export without .git builds the
# same. -trimpath: the binary does not depend on where the checkout lives.
export GOFLAGS="-mod=readonly -buildvcs=false"
export CGO_ENABLED=0

started=$SECONDS
(cd "$module" && go build -trimpath -o "$binary" .)
echo "build-otelcol: $name, $(go version | cut -d' ' -f3), $((SECONDS - started)) s" >&2
echo "$binary"
