#!/usr/bin/env bash
# Runs Sluice and the OpenTelemetry Collector (built from its Go modules with the same connectors)
# on the same recorded traces, metrics and logs, and compares what their connectors hand on:
#
#   bench/peers/conformance.sh            # every case; exits 1 when a case differs
#   bench/peers/conformance.sh connectors # spanmetrics, count, forward only
#   bench/peers/conformance.sh routing    # routing only
#   bench/peers/conformance.sh tailsampling # the tail_sampling processor's policies only
#
# The input is bench/peers/conformance/traces.json, metrics.json and logs.json (made by
# make-traces.py and make-metrics-logs.py there, committed), sent identically to both collectors
# over OTLP/HTTP (send.py). The cases:
#
#   connectors: conformance/connectors.yaml, run as it is by Sluice and by the v0.161.0 build
#     (bench/peers/otelcol-0.161: spanmetrics, count, forward, file exporter). Each connector's
#     output goes to a file of its own (count and forward get the metrics and logs too).
#   routing: conformance/routing.yaml, run as it is by Sluice and by the v0.148.0 build
#     (bench/peers/otelcol-routing), one routing connector per signal; every pipeline they feed
#     exports with otlp to a sink (the v0.161.0 build with conformance/routing-sink.yaml) that
#     writes one file per pipeline, one sink per collector.
#   tailsampling: conformance/tailsampling.yaml, run as it is by Sluice and by the v0.161.0 build:
#     one tail_sampling processor per policy case, each in a pipeline of its own writing the spans
#     it keeps to a file; the input is conformance/tailsampling-traces.json (made by
#     make-tailsampling-traces.py). conformance/compare-tailsampling.py compares, per case, the set
#     of trace IDs kept and the spans per trace kept.
#
# For connectors and routing, conformance/compare.py compares each pair of files (timestamps aside) and prints "same" or
# the differences, per case; a case whose differences are all known ones (deliberate, listed in
# the connector's docs page) says so and does not count as differing. Exits 1 when a case differs
# otherwise. Everything is kept in bench/target/conformance/: sluice/ and otelcol/ (the files),
# logs/ (each process's output).
#
# Needs: Go (for the peer builds, bench/peers/build-otelcol.sh, built on first use), Java and
# Sluice's jar (mvn -B -q -pl collector -am package -DskipTests), Python 3. Binds only
# 127.0.0.1, on free ports it picks.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cases_dir="$here/conformance"
which="${1:-all}"
case "$which" in
  all|connectors|routing|tailsampling) ;;
  *) echo "usage: bench/peers/conformance.sh [all|connectors|routing|tailsampling]" >&2; exit 2 ;;
esac

if [ ! -f "$root/collector/target/sluice.jar" ]; then
  echo "conformance: missing collector/target/sluice.jar; build with:" \
    "mvn -B -q -pl collector -am package -DskipTests" >&2
  exit 1
fi
otelcol_0161="$("$here/build-otelcol.sh" otelcol-0.161 | tail -n 1)"
otelcol_routing=""
if [ "$which" = all ] || [ "$which" = routing ]; then
  otelcol_routing="$("$here/build-otelcol.sh" otelcol-routing | tail -n 1)"
fi

work="$root/bench/target/conformance"
mkdir -p "$work/sluice" "$work/otelcol" "$work/logs"

# Every process this script starts, so that it stops them (by pid) whatever happens.
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT

# Free ports on 127.0.0.1, as many as asked.
free_ports() {
  python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

# start NAME COMMAND...: starts a process in the background with its output in logs/NAME.log;
# sets $started to its pid.
start() {
  local name="$1"
  shift
  "$@" >"$work/logs/$name.log" 2>&1 &
  started=$!
  pids+=("$started")
}

# wait_port PID PORT NAME: waits until PORT accepts connections (60 s at most), or the process ends.
wait_port() {
  local pid="$1" port="$2" name="$3" deadline=$((SECONDS + 60))
  while ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "conformance: $name exited before listening on $port; its log:" >&2
      tail -n 20 "$work/logs/$name.log" >&2
      exit 1
    fi
    if ((SECONDS > deadline)); then
      echo "conformance: $name does not listen on $port after 60 s" >&2
      exit 1
    fi
    sleep 0.2
  done
}

# stop PID NAME: asks the process to stop (SIGTERM: both collectors flush and close their
# exporters) and waits for it, 60 s at most.
stop() {
  local pid="$1" name="$2" deadline=$((SECONDS + 60))
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS > deadline)); then
      echo "conformance: $name did not stop in 60 s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  wait "$pid" 2>/dev/null || true
}

lines() {
  if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi
}

# wait_lines FILE COUNT: waits until FILE has COUNT lines (120 s at most).
wait_lines() {
  local deadline=$((SECONDS + 120))
  while (($(lines "$1") < $2)); do
    if ((SECONDS > deadline)); then
      echo "conformance: $1 has fewer than $2 lines after 120 s" >&2
      exit 1
    fi
    sleep 0.2
  done
}

# wait_quiet FILE...: waits until none of the files has grown for 3 s (120 s at most).
wait_quiet() {
  local deadline=$((SECONDS + 120)) before="" now quiet_since=$SECONDS
  while true; do
    now="$(cat "$@" 2>/dev/null | wc -c)"
    if [ "$now" != "$before" ]; then
      before="$now"
      quiet_since=$SECONDS
    elif ((SECONDS - quiet_since >= 3)); then
      return
    fi
    if ((SECONDS > deadline)); then
      echo "conformance: output still growing after 120 s" >&2
      exit 1
    fi
    sleep 0.5
  done
}

# spans_in FILE: the number of spans in a file of OTLP/JSON trace requests (0 if it is missing).
spans_in() {
  python3 - "$1" <<'EOF'
import json, os, sys
n = 0
if os.path.exists(sys.argv[1]):
    for line in open(sys.argv[1]):
        if line.strip():
            for rs in json.loads(line).get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    n += len(ss.get("spans", []))
print(n)
EOF
}

# wait_spans FILE COUNT: waits until FILE holds COUNT spans (60 s at most).
wait_spans() {
  local deadline=$((SECONDS + 60))
  while (($(spans_in "$1") < $2)); do
    if ((SECONDS > deadline)); then
      echo "conformance: $1 has fewer than $2 spans after 60 s" >&2
      exit 1
    fi
    sleep 0.5
  done
}

sluice=("$root/bin/sluice")
status=0

if [ "$which" = all ] || [ "$which" = connectors ]; then
  rm -f "$work"/*/spanmetrics_*.json "$work"/*/count_*.json "$work"/*/forward.json
  read -r sluice_port otelcol_port sluice_one otelcol_one < <(free_ports 4)
  start sluice-connectors env CONFORMANCE_PORT="$sluice_port" CONFORMANCE_PORT_ONE="$sluice_one" \
    CONFORMANCE_OUT="$work/sluice" "${sluice[@]}" --config "$cases_dir/connectors.yaml"
  sluice_pid=$started
  start otelcol-connectors env CONFORMANCE_PORT="$otelcol_port" \
    CONFORMANCE_PORT_ONE="$otelcol_one" CONFORMANCE_OUT="$work/otelcol" \
    "$otelcol_0161" --config "$cases_dir/connectors.yaml"
  otelcol_pid=$started
  wait_port "$sluice_pid" "$sluice_port" sluice-connectors
  wait_port "$sluice_pid" "$sluice_one" sluice-connectors
  wait_port "$otelcol_pid" "$otelcol_port" otelcol-connectors
  wait_port "$otelcol_pid" "$otelcol_one" otelcol-connectors

  for input in traces metrics logs; do
    python3 "$cases_dir/send.py" "$cases_dir/$input.json" "$sluice_port"
    python3 "$cases_dir/send.py" "$cases_dir/$input.json" "$otelcol_port"
  done
  python3 "$cases_dir/send.py" --one "$cases_dir/traces.json" "$sluice_one"
  python3 "$cases_dir/send.py" --one "$cases_dir/traces.json" "$otelcol_one"
  # Every metric is flushed each second. Four more flushes of the cumulative default case written
  # after the last request was answered: every connector has counted all spans and handed them
  # on (the comparison takes a cumulative series' last point and adds a delta series' points).
  for side in sluice otelcol; do
    file="$work/$side/spanmetrics_default.json"
    wait_lines "$file" $(($(lines "$file") + 4))
  done
  stop "$sluice_pid" sluice-connectors
  stop "$otelcol_pid" otelcol-connectors

  # Known differences (see compare.py and the connectors' docs pages): the count connector's
  # scope name; spanmetrics keeps int and string values of one dimension, and spans of different
  # included scopes, in different series.
  python3 "$cases_dir/compare.py" "$work/sluice" "$work/otelcol" \
    spanmetrics_default spanmetrics_delta_exponential spanmetrics_dimensions:typed-keys \
    spanmetrics_delta_events spanmetrics_overflow spanmetrics_delta_overflow spanmetrics_exemplars \
    spanmetrics_sampling \
    spanmetrics_scopes:scope-keys count_default:scope-names count_custom:scope-names forward \
    forward_logs --items forward_metrics || status=1
fi

if [ "$which" = all ] || [ "$which" = routing ]; then
  rm -f "$work"/*/routing_*.json
  # The pipelines routing.yaml feeds (as routing-sink.yaml names them); metrics are compared
  # point by point (--items).
  other_pipes=(checkout db cart db2 get default l_cache l_warn l_data l_default)
  metric_pipes=(m_cpu m_idle m_inventory m_default)
  pipes=("${other_pipes[@]}" "${metric_pipes[@]}")
  ports=($(free_ports $((2 * (1 + ${#pipes[@]})))))
  run_pids=()
  for i in 0 1; do
    side=$([ "$i" = 0 ] && echo sluice || echo otelcol)
    sink_env=()
    for j in "${!pipes[@]}"; do
      name="${pipes[$j]}"
      sink_env+=("CONFORMANCE_SINK_${name^^}=${ports[$((2 + i * ${#pipes[@]} + j))]}")
    done
    start "sink-routing-$side" env "${sink_env[@]}" CONFORMANCE_OUT="$work/$side" \
      "$otelcol_0161" --config "$cases_dir/routing-sink.yaml"
    sink_pid=$started
    wait_port "$sink_pid" "${ports[$((2 + i * ${#pipes[@]}))]}" "sink-routing-$side"
    if [ "$side" = sluice ]; then
      start sluice-routing env "${sink_env[@]}" CONFORMANCE_PORT="${ports[$i]}" \
        "${sluice[@]}" --config "$cases_dir/routing.yaml"
    else
      start otelcol-routing env "${sink_env[@]}" CONFORMANCE_PORT="${ports[$i]}" \
        "$otelcol_routing" --config "$cases_dir/routing.yaml"
    fi
    wait_port "$started" "${ports[$i]}" "$side-routing"
    run_pids+=("$started" "$sink_pid")
  done
  for input in traces metrics logs; do
    python3 "$cases_dir/send.py" "$cases_dir/$input.json" "${ports[0]}"
    python3 "$cases_dir/send.py" "$cases_dir/$input.json" "${ports[1]}"
  done
  # Each collector exports as it routes; stopping it drains its exporters into the sink, and
  # stopping the sink flushes its files.
  wait_quiet "$work"/sluice/routing_*.json "$work"/otelcol/routing_*.json
  stop "${run_pids[0]}" sluice-routing
  stop "${run_pids[2]}" otelcol-routing
  stop "${run_pids[1]}" sink-routing-sluice
  stop "${run_pids[3]}" sink-routing-otelcol
  python3 "$cases_dir/compare.py" "$work/sluice" "$work/otelcol" \
    "${other_pipes[@]/#/routing_}" --items "${metric_pipes[@]/#/routing_}" || status=1
fi

if [ "$which" = all ] || [ "$which" = tailsampling ]; then
  rm -f "$work"/*/tailsampling_*.json
  # The cases, as tailsampling.yaml names its processors (tail_sampling/<case>).
  ts_cases=($(sed -n 's/^  tail_sampling\/\([a-z_]*\):$/\1/p' "$cases_dir/tailsampling.yaml"))
  # Known differences, deliberate (see compare-tailsampling.py, and AttributePolicies and
  # SpanPolicies in processor-tailsampling, which say why): Sluice reads an attribute of another
  # type than the policy's as no value (the Go collector as 0, "" or false), takes min_value 0 as
  # 0 (the Go collector as no bound), and checks the latency bounds on the whole trace (the Go
  # collector after each span, on the spans seen so far).
  declare -A ts_known=(
    [latency_upper]=latency-prefix=100/500
    [numeric_attribute_max]=typed-values=app.level/int
    [numeric_attribute_zero_min]=typed-values=app.level/int,zero-bound=app.level
    [string_attribute_regex_empty]=typed-values=app.route/string
    [boolean_attribute_false]=typed-values=app.debug/bool
  )
  ts_args=()
  for name in "${ts_cases[@]}"; do
    ts_args+=("$name${ts_known[$name]:+:${ts_known[$name]}}")
  done
  read -r sluice_port otelcol_port < <(free_ports 2)
  start sluice-tailsampling env CONFORMANCE_PORT="$sluice_port" CONFORMANCE_OUT="$work/sluice" \
    "${sluice[@]}" --config "$cases_dir/tailsampling.yaml"
  sluice_pid=$started
  start otelcol-tailsampling env CONFORMANCE_PORT="$otelcol_port" CONFORMANCE_OUT="$work/otelcol" \
    "$otelcol_0161" --config "$cases_dir/tailsampling.yaml"
  otelcol_pid=$started
  wait_port "$sluice_pid" "$sluice_port" sluice-tailsampling
  wait_port "$otelcol_pid" "$otelcol_port" otelcol-tailsampling
  # Each collector gets every request within a second or so, well inside decision_wait (3 s),
  # so that every trace is decided on all its spans.
  python3 "$cases_dir/send.py" "$cases_dir/tailsampling-traces.json" "$otelcol_port"
  python3 "$cases_dir/send.py" "$cases_dir/tailsampling-traces.json" "$sluice_port"
  # Decided: always_sample has written every span sent, in both; then every file is left to
  # settle (the decisions of all cases fall due together).
  sent_spans="$(spans_in "$cases_dir/tailsampling-traces.json")"
  for side in sluice otelcol; do
    wait_spans "$work/$side/tailsampling_always_sample.json" "$sent_spans"
  done
  wait_quiet "$work"/sluice/tailsampling_*.json "$work"/otelcol/tailsampling_*.json
  stop "$sluice_pid" sluice-tailsampling
  stop "$otelcol_pid" otelcol-tailsampling
  python3 "$cases_dir/compare-tailsampling.py" "$cases_dir/tailsampling-traces.json" \
    "$work/sluice" "$work/otelcol" "${ts_args[@]}" || status=1
fi

echo "conformance: Sluice $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" \
  "against $("$otelcol_0161" --version)${otelcol_routing:+ and $("$otelcol_routing" --version)}"
exit "$status"
