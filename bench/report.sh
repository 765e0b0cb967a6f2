#!/usr/bin/env bash
# Runs the standard benchmark set and writes bench/results/REPORT.md and bench/results/report.svg.
#
#   bench/report.sh [--duration SECONDS] [--warmup SECONDS] [--only "NAME ..."] [--skip-jmh]
#                   [--report-only]
#
# The standard set is bench/scenarios/standard.list. --duration/--warmup apply to every scenario
# (default: each scenario's own; traces-10k-fixed is 60 s). --only runs a subset. --skip-jmh leaves
# out GzipBenchmark (gzip's own cost per span, which the traces-otlp target is judged against).
# --report-only rewrites the report from the results already in bench/results.
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

run_args=()
only=""
skip_jmh=no
report_only=no
while [ $# -gt 0 ]; do
  case "$1" in
    --duration|--warmup) run_args+=("$1" "${2:?}"); shift 2 ;;
    --only) only="${2:?}"; shift 2 ;;
    --skip-jmh) skip_jmh=yes; shift ;;
    --report-only) report_only=yes; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
scenarios="${only:-$standard}"

if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  java="$JAVA_HOME/bin/java"
else
  java="java"
fi
bench_jar="$root/bench/target/sluice-bench.jar"
results="$root/bench/results"
mkdir -p "$results/logs"

failed=()
if [ "$report_only" = no ]; then
  results_lines=()
  for name in $scenarios; do
    echo "=== $name" >&2
    if line="$("$here/run-scenario.sh" "$name" "${run_args[@]}" | tail -n 1)"; then
      results_lines+=("$line")
    else
      echo "scenario $name failed" >&2
      failed+=("$name")
      rm -f "$results/$name.json"
    fi
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
  --out "$results/REPORT.md" --svg "$results/report.svg" --jmh "$results/gzip-jmh.json"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
