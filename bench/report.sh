#!/usr/bin/env bash
# Runs the standard benchmark set and writes bench/results/REPORT.md and bench/results/report.svg.
#
#   bench/report.sh [--duration SECONDS] [--warmup SECONDS] [--only "NAME ..."] [--skip-jmh]
#                   [--peers | --peers=otelcol,rotel] [--report-only]
#
# The standard set is bench/scenarios/standard.list. --duration/--warmup apply to every scenario
# (default: each scenario's own; traces-10k-fixed is 60 s). --only runs a subset. --skip-jmh leaves
# out GzipBenchmark (gzip's own cost per span, which the traces-otlp target is judged against).
# --peers runs the other collectors (the OpenTelemetry Collector, otelcol, and rotel) right after
# Sluice in each scenario that names them in bench.peers, and the report puts their rows beside
# Sluice's; --peers=LIST runs only those. A peer that cannot be had (no Go for otelcol, no npm for
# rotel, a failed build) is left out and the report says why. --report-only rewrites the report
# from the results already in bench/results.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# The standard set: bench/scenarios/standard.list, one name a line, # for comments (the report
# reads the same file for its order).
standard_list="$here/scenarios/standard.list"
standard="$(sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^#/d' -e '/^$/d' "$standard_list" \
  | tr '\n' ' ' | sed 's/ $//')"
if [ -z "$standard" ]; then
  echo "no scenarios in $standard_list" >&2
  exit 2
fi

report_command="bench/report.sh${*:+ $*}"
run_args=()
only=""
skip_jmh=no
report_only=no
peers=""
while [ $# -gt 0 ]; do
  case "$1" in
    --duration|--warmup) run_args+=("$1" "${2:?}"); shift 2 ;;
    --only) only="${2:?}"; shift 2 ;;
    --skip-jmh) skip_jmh=yes; shift ;;
    --report-only) report_only=yes; shift ;;
    --peers) peers="otelcol rotel"; shift ;;
    --peers=*) peers="$(echo "${1#*=}" | tr ',' ' ')"; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
scenarios="${only:-$standard}"
for peer in $peers; do
  case "$peer" in
    otelcol|rotel) ;;
    *) echo "unknown peer $peer: otelcol or rotel" >&2; exit 2 ;;
  esac
done
# Recorded with every result: the command that made the report.
export SLUICE_BENCH_REPORT_COMMAND="$report_command"

if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  java="$JAVA_HOME/bin/java"
else
  java="java"
fi
bench_jar="$root/bench/target/sluice-bench.jar"
results="$root/bench/results"
mkdir -p "$results/logs"

# Each peer is built or installed once, before the first scenario; one that cannot be had is
# written to peers-unavailable.txt, which the report reads, and the rest runs without it.
unavailable="$results/peers-unavailable.txt"
available_peers=()
prepare_peers() {
  : >"$unavailable"
  local peer log
  for peer in $peers; do
    log="$results/logs/peer-$peer.log"
    case "$peer" in
      otelcol)
        if ! command -v go >/dev/null 2>&1; then
          echo "otelcol: the go command is not on PATH (Go 1.26 or newer builds bench/peers/otelcol)" >>"$unavailable"
          continue
        fi
        echo "=== building the OpenTelemetry Collector peer (minutes on first use)" >&2
        if ! "$here/peers/build-otelcol.sh" >"$log" 2>&1; then
          echo "otelcol: bench/peers/build-otelcol.sh failed; see bench/results/logs/peer-otelcol.log" >>"$unavailable"
          continue
        fi
        ;;
      rotel)
        if ! command -v npm >/dev/null 2>&1; then
          echo "rotel: the npm command is not on PATH (it installs rotel-agent-linux-x64)" >>"$unavailable"
          continue
        fi
        if ! "$here/peers/install-rotel.sh" >"$log" 2>&1; then
          echo "rotel: bench/peers/install-rotel.sh failed; see bench/results/logs/peer-rotel.log" >>"$unavailable"
          continue
        fi
        ;;
    esac
    available_peers+=("$peer")
  done
  if [ -s "$unavailable" ]; then
    sed 's/^/not run: /' "$unavailable" >&2
  fi
}

failed=()
if [ "$report_only" = no ]; then
  prepare_peers
  results_lines=()
  for name in $scenarios; do
    # The report shows one run: results of peers from an earlier run of this scenario go.
    rm -f "$results/$name".*.json
    echo "=== $name" >&2
    if line="$("$here/run-scenario.sh" "$name" "${run_args[@]}" | tail -n 1)"; then
      results_lines+=("$line")
    else
      echo "scenario $name failed" >&2
      failed+=("$name")
      rm -f "$results/$name.json"
    fi
    for peer in "${available_peers[@]}"; do
      # Only where the scenario's bench.peers names the peer.
      if ! sed -n 's/^# bench\.peers: *//p' "$here/scenarios/$name.yaml" | grep -qw "$peer"; then
        continue
      fi
      echo "=== $name --collector $peer" >&2
      if line="$("$here/run-scenario.sh" "$name" --collector "$peer" "${run_args[@]}" | tail -n 1)"; then
        results_lines+=("$line ($peer)")
      else
        echo "scenario $name with $peer failed" >&2
        failed+=("$name($peer)")
        rm -f "$results/$name.$peer.json"
      fi
    done
  done

  if [ "$skip_jmh" = no ]; then
    echo "=== GzipBenchmark (JMH)" >&2
    pin=()
    if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
      pin=(taskset -c 0)
    fi
    if ! "${pin[@]}" "$java" -jar "$root/bench/target/benchmarks.jar" GzipBenchmark \
      -f 1 -wi 3 -w 1 -i 5 -r 1 -rf json -rff "$results/gzip-jmh.json" >"$results/logs/gzip-jmh.log" 2>&1; then
      echo "GzipBenchmark failed; see bench/results/logs/gzip-jmh.log" >&2
      failed+=("GzipBenchmark")
    fi
  fi
  printf '%s\n' "${results_lines[@]}"
fi

"$java" -jar "$bench_jar" report --results "$results" --scenarios "$standard_list" \
  --out "$results/REPORT.md" --svg "$results/report.svg" --jmh "$results/gzip-jmh.json" \
  --peers-unavailable "$unavailable"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
