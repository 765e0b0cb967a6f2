#!/usr/bin/env bash
# Runs the OpenTelemetry Collector peer's `otelcol validate` on every config/examples/*.yaml and
# bench/scenarios/*.yaml, so that a configuration Sluice accepts and the Go collector refuses (or
# the reverse) shows up. One line per file:
#
#   ok       FILE
#   failed   FILE: the Go collector's message
#   skipped  FILE: why (a component the peer does not have, or not a collector configuration)
#
# Exits 1 when a file failed. Each file is checked by the v0.165.0 peer (bench/peers/otelcol),
# or, when it uses a contrib component that builds only at v0.161.0 (attributes, filter,
# transform, file, tail_sampling, the Prometheus exporters) or a connector (count, forward, spanmetrics), by the v0.161.0 build
# (bench/peers/otelcol-0.161); each is built on first need (bench/peers/build-otelcol.sh; a no-op
# when it is up to date). Component ids are read from
# block-style YAML (`exporters:` then one id per two-space-indented line), which is how every file
# here is written.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
otelcol="$("$here/build-otelcol.sh" | tail -n 1)"
otelcol_0161=""

# Component types that only Sluice has: a file using one cannot run in the Go collector. Sluice's
# discarding blackhole exporter is checked as the Go collector's nop, as the benchmarks run it.
declare -A sluice_only=(
  [processors.naive_protobuf]="a bench-only processor of Sluice"
)
# Go components that neither build has: their modules at the pinned releases need modules the
# Go module proxy does not serve (see README.md).
declare -A not_in_peer=(
  [extensions.basicauth]="not in the peer builds: basicauthextension v0.161.0 and v0.165.x do not resolve"
  [processors.resourcedetection]="not in the peer builds: resourcedetectionprocessor v0.161.0 and v0.165.x do not resolve"
  [exporters.loadbalancing]="not in the peer builds: loadbalancingexporter v0.165.x is not served"
  [extensions.file_storage]="not in the peer builds yet: filestorage v0.165.1 resolves but is not added"
  [connectors.routing]="only in the otelcol-routing build (v0.148.0), which has no other contrib component"
)
# Contrib components that build at v0.161.0 only, and the connectors, which only that build has:
# files using them go to that build.
declare -A only_0161=(
  [processors.attributes]=1 [processors.filter]=1 [processors.transform]=1 [exporters.file]=1
  [connectors.spanmetrics]=1 [connectors.count]=1 [connectors.forward]=1
  [exporters.prometheusremotewrite]=1 [exporters.prometheus]=1 [processors.tail_sampling]=1
)
# Components of the v0.165.0 build that the v0.161.0 one leaves out.
declare -A only_0165=(
  [exporters.kafka]=1 [receivers.kafka]=1 [exporters.nop]=1
)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The scenarios' ports come from the runner; any value does for validation, which binds nothing.
export SLUICE_BENCH_OTLP_PORT=14317
export SLUICE_BENCH_OTLP_HTTP_PORT=14318
export SLUICE_BENCH_METRICS_PORT=18888
export SLUICE_BENCH_SINK_PORT=14319

# Prints "section.type" for every component id declared under a top-level component section.
component_types() {
  awk '
    /^[^ #][^:]*:/ { section = $0; sub(/:.*/, "", section); next }
    section ~ /^(receivers|processors|exporters|extensions|connectors)$/ && /^  [^ #-][^:]*:/ {
      id = $0; sub(/^  /, "", id); sub(/:.*/, "", id); sub(/\/.*/, "", id)
      print section "." id
    }' "$1"
}

ok=0 failed=0 skipped=0
for file in "$root"/config/examples/*.yaml "$root"/bench/scenarios/*.yaml; do
  name="${file#"$root"/}"

  if ! grep -qv '^[[:space:]]*\(#.*\)\?$' "$file"; then
    echo "skipped  $name: not a collector configuration (comments and bench directives only)"
    skipped=$((skipped + 1))
    continue
  fi

  reasons=()
  old=() new=()
  as_nop=no
  while read -r type; do
    if [[ "$type" == exporters.blackhole ]]; then
      as_nop=yes
    elif [[ -n "${sluice_only[$type]:-}" ]]; then
      reasons+=("${type#*.} (${sluice_only[$type]})")
    elif [[ -n "${not_in_peer[$type]:-}" ]]; then
      reasons+=("${type#*.} (${not_in_peer[$type]})")
    elif [[ -n "${only_0161[$type]:-}" ]]; then
      old+=("${type#*.}")
    elif [[ -n "${only_0165[$type]:-}" ]]; then
      new+=("${type#*.}")
    fi
  done < <(component_types "$file" | sort -u)
  if ((${#old[@]} > 0 && ${#new[@]} > 0)); then
    reasons+=("${old[*]} (v0.161.0 only) with ${new[*]} (v0.165.0 only): no peer build has both")
  fi
  if ((${#reasons[@]} > 0)); then
    joined="$(printf '%s; ' "${reasons[@]}")"
    echo "skipped  $name: uses ${joined%; }"
    skipped=$((skipped + 1))
    continue
  fi

  checked="$file"
  build=""
  if [[ "$as_nop" == yes ]]; then
    checked="$work/$(basename "$file")"
    sed -e 's/^  blackhole:/  nop:/' -e 's/\[blackhole\]/[nop]/' "$file" >"$checked"
    new+=(nop)
    build=" (blackhole as nop)"
  fi
  if ((${#old[@]} > 0 && ${#new[@]} > 0)); then
    echo "skipped  $name: uses ${old[*]} (v0.161.0 only) with ${new[*]} (v0.165.0 only): no peer build has both"
    skipped=$((skipped + 1))
    continue
  fi
  checker="$otelcol"
  if ((${#old[@]} > 0)); then
    if [[ -z "$otelcol_0161" ]]; then
      otelcol_0161="$("$here/build-otelcol.sh" otelcol-0.161 | tail -n 1)"
    fi
    checker="$otelcol_0161"
    build="$build (v0.161.0 build: ${old[*]})"
  fi
  if output="$("$checker" validate --config "$checked" 2>&1)"; then
    echo "ok       $name$build"
    ok=$((ok + 1))
  else
    # The binary prints its error once, after "otelcol: "; the decoder's message spans lines.
    message="$(printf '%s\n' "$output" | sed -n '/^otelcol: /,$p' | sed 's/^otelcol: //' \
      | grep -v '^[[:space:]]*$' | paste -sd' ' -)"
    echo "failed   $name$build: ${message:-$output}"
    failed=$((failed + 1))
  fi
done

versions="$("$otelcol" --version)"
if [[ -n "$otelcol_0161" ]]; then
  versions="$versions; $("$otelcol_0161" --version)"
fi
echo "validate-examples: $ok ok, $failed failed, $skipped skipped ($versions)"
((failed == 0))
