#!/usr/bin/env bash
# Runs one benchmark scenario:
#
#   bench/run-scenario.sh NAME [--collector sluice|otelcol|rotel] [--duration SECONDS] [--warmup SECONDS]
#
# Starts the collector (or, for grpc-floor, the bare gRPC floor server) pinned to core 0, the sink
# (when the scenario has one) and the load generator pinned to core 1, all on 127.0.0.1 with free
# ports substituted into bench/scenarios/NAME.yaml through ${env:SLUICE_BENCH_*_PORT}. The generator
# warms up, measures for the duration, waits for delivery to drain, and measures the collector's CPU
# (/proc/PID/stat, the measured window only) and peak RSS (/proc/PID/status VmHWM). Writes
# bench/results/NAME.json (NAME.otelcol.json, NAME.rotel.json for a peer), keeps the logs in
# bench/results/logs/, and prints as its last line:
#
#   RESULT scenario=NAME items_per_s=N cpu_ns_per_item=N p50_ms=N p99_ms=N rss_mib=N dropped=N gen_cpu_pct=N
#
# Scenario directives are comment lines of the scenario file:
#   # bench.generate: ARGS     arguments of `sluice-bench generate` (signal, shape, mode, rate...)
#   # bench.target: collector  collector (default) or floor (the bare grpc-java server instead)
#   # bench.classpath: bench   run the collector with sluice-bench.jar on its class path
#   # bench.sink: grpc         start a counting sink; its port is SLUICE_BENCH_SINK_PORT (gRPC),
#                              SLUICE_BENCH_SINK_HTTP_PORT its HTTP one (OTLP/HTTP, and Prometheus
#                              remote write on /api/v1/write)
#   # bench.delivered: KIND    metric (the blackhole's counter on /metrics), sink, floor or none
#   # bench.receiver: http     send OTLP/HTTP to SLUICE_BENCH_OTLP_HTTP_PORT (default: gRPC)
#   # bench.java_opts: FLAGS   the collector's JVM flags for this scenario
#   # bench.profile: NAME      run the collector as bin/sluice --profile NAME does (its flags, JDK)
#   # bench.warmup: SECONDS    default warm-up;   # bench.duration: SECONDS  default duration
#   # bench.peers: otelcol rotel  the other collectors that can run this scenario's pipeline
#   # bench.otelcol: BUILD     the peer build otelcol runs (bench/peers/BUILD; default otelcol)
#   # bench.rotel: FLAGS       rotel's `start` flags for the pipeline (exporter, compression)
#
# --collector picks the system under test: sluice (default), otelcol (the OpenTelemetry Collector
# built by bench/peers/build-otelcol.sh, on first use) or rotel (installed with npm by
# bench/peers/install-rotel.sh, on first use), for scenarios whose bench.peers names it. The peer
# gets the same generator, sink, ports, pinning and measurement. otelcol runs the scenario's own
# YAML with the blackhole exporter replaced by nop; rotel runs with the bench.rotel flags and the
# runner's endpoints. Delivered items come from the sink where the scenario has one; otherwise
# from otelcol's own metrics (bench.delivered: metric), and are not measured for rotel.
#
# The warm-up (60 s unless the scenario or --warmup says otherwise) is long enough for the JIT
# compilers to be done with the hot code at the scenario's request rate, so that the window
# measures the collector as it runs for hours: at 10 s the C2 compiler still took a quarter of
# traces-blackhole's CPU in the window. Scenarios of about 100 requests a second need 120 s.
#
# Environment: SLUICE_JAVA_OPTS replaces the collector's JVM flags (as for bin/sluice; it wins over
# bench.java_opts); BENCH_JAVA_OPTS are the generator's and sink's JVM flags; BENCH_GENERATE_ARGS
# are added after the scenario's generator arguments and override them (for example
# "--concurrency 16 --connections 2"); JAVA_HOME picks the runtime.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

usage() {
  echo "usage: bench/run-scenario.sh NAME [--collector sluice|otelcol|rotel] [--duration SECONDS] [--warmup SECONDS]" >&2
  echo "scenarios: $(cd "$here/scenarios" && ls ./*.yaml | sed 's|^\./||; s|\.yaml$||' | tr '\n' ' ')" >&2
  exit 2
}

[ $# -ge 1 ] || usage
name="$1"
shift
duration=""
warmup=""
collector=sluice
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="${2:?}"; shift 2 ;;
    --duration=*) duration="${1#*=}"; shift ;;
    --warmup) warmup="${2:?}"; shift 2 ;;
    --warmup=*) warmup="${1#*=}"; shift ;;
    --collector) collector="${2:?}"; shift 2 ;;
    --collector=*) collector="${1#*=}"; shift ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done

scenario="$here/scenarios/$name.yaml"
[ -f "$scenario" ] || { echo "no scenario $scenario" >&2; usage; }
case "$collector" in
  sluice|otelcol|rotel) ;;
  *) echo "unknown collector $collector: sluice, otelcol or rotel" >&2; usage ;;
esac
bench_jar="$root/bench/target/sluice-bench.jar"
collector_jar="$root/collector/target/sluice.jar"
for jar in "$bench_jar" "$collector_jar"; do
  if [ ! -f "$jar" ]; then
    echo "missing $jar; build with: mvn -B -q -pl bench -am package -DskipTests" >&2
    exit 1
  fi
done

if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  java="$JAVA_HOME/bin/java"
elif command -v java >/dev/null 2>&1; then
  java="$(command -v java)"
else
  echo "no java found; install a JDK 17+ or set JAVA_HOME" >&2
  exit 1
fi

# A directive of the scenario file: "# bench.KEY: VALUE".
directive() {
  sed -n "s/^# bench\.$1: *//p" "$scenario" | head -n 1
}

target="$(directive target)"; target="${target:-collector}"
classpath="$(directive classpath)"
sink="$(directive sink)"; sink="${sink:-none}"
delivered_kind="$(directive delivered)"; delivered_kind="${delivered_kind:-none}"
generate_args="$(directive generate)"
scenario_opts="$(directive java_opts)"
receiver="$(directive receiver)"; receiver="${receiver:-grpc}"
profile="$(directive profile)"
peers="$(directive peers)"
rotel_flags="$(directive rotel)"
warmup="${warmup:-$(directive warmup)}"; warmup="${warmup:-60}"
duration="${duration:-$(directive duration)}"; duration="${duration:-30}"
case "$warmup$duration" in
  *[!0-9]*) echo "--warmup and --duration take whole seconds" >&2; exit 2 ;;
esac
if [ "$duration" -lt 1 ] || [ "$duration" -gt 3600 ] || [ "$warmup" -gt 600 ]; then
  echo "--duration must be 1..3600 s and --warmup at most 600 s" >&2
  exit 2
fi
# Exit status 3: this collector cannot run this scenario (report.sh skips it).
if [ "$collector" != sluice ] && [[ " $peers " != *" $collector "* ]]; then
  echo "scenario $name has no $collector pipeline (its bench.peers: ${peers:-none})" >&2
  exit 3
fi
# A peer's results and logs carry its name: NAME.otelcol.json beside Sluice's NAME.json.
run_id="$name"
if [ "$collector" != sluice ]; then
  run_id="$name.$collector"
fi

# The collector's JVM flags: SLUICE_JAVA_OPTS, else the scenario's, else bin/sluice's defaults
# (bin/jvm.options: one flag a line, # for comments).
jvm_options="$root/bin/jvm.options"
if [ ! -f "$jvm_options" ]; then
  echo "cannot read the collector's JVM flags: $jvm_options not found" >&2
  exit 2
fi
default_opts="$(sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^#/d' -e '/^$/d' "$jvm_options" \
  | tr '\n' ' ' | sed 's/ $//')"
if [ -z "$default_opts" ]; then
  echo "$jvm_options holds no flags" >&2
  exit 2
fi
if [ -n "${SLUICE_JAVA_OPTS:-}" ]; then
  collector_opts="$SLUICE_JAVA_OPTS"
elif [ -n "$scenario_opts" ]; then
  collector_opts="$scenario_opts"
else
  collector_opts="$default_opts"
fi
bench_opts="${BENCH_JAVA_OPTS:-}"

# Pinning: the collector on core 0, generator and sink on core 1.
pinned=yes
pin_collector=()
pin_load=()
if ! command -v taskset >/dev/null 2>&1; then
  echo "warning: taskset not found (util-linux); running unpinned, CPU figures are less comparable" >&2
  pinned=no
elif ! taskset -c 0 true 2>/dev/null || ! taskset -c 1 true 2>/dev/null; then
  echo "warning: cannot pin to cores 0 and 1 (fewer than 2 usable cores?); running unpinned" >&2
  pinned=no
else
  pin_collector=(taskset -c 0)
  pin_load=(taskset -c 1)
fi
clk_tck="$(getconf CLK_TCK 2>/dev/null || echo 100)"

# A peer's binary: built or installed on first use, before anything is started (the first
# OpenTelemetry Collector build takes minutes).
peer_binary=""
collector_version=""
case "$collector" in
  otelcol)
    # The scenario may need another build of the peers (bench.otelcol), for components the
    # default build has not.
    otelcol_build="$(directive otelcol)"; otelcol_build="${otelcol_build:-otelcol}"
    peer_binary="$("$here/peers/build-otelcol.sh" "$otelcol_build" | tail -n 1)"
    # "otelcol version 0.165.0", and the releases go.mod pins for every collector module.
    go_mod="$here/peers/$otelcol_build/go.mod"
    core="$(awk '$1 == "go.opentelemetry.io/collector/component" { print $2 }' "$go_mod")"
    contrib="$(awk '$1 ~ /^github.com\/open-telemetry\/opentelemetry-collector-contrib\// { print $2 }' \
      "$go_mod" | sort -u | paste -sd/ -)"
    collector_version="$("$peer_binary" --version | awk '{ print $NF }') (core $core, contrib ${contrib:-none})"
    ;;
  rotel)
    peer_binary="$("$here/peers/install-rotel.sh" | tail -n 1)"
    # "rotel 0.0.2", and the npm package it came in.
    collector_version="$("$peer_binary" --version | awk '{ print $NF }') ($(cat "$root/bench/target/peers/rotel/installed-package"))"
    ;;
  sluice)
    collector_version="$(sed -n 's|^  <version>\(.*\)</version>$|\1|p' "$root/pom.xml" | head -n 1)"
    ;;
esac

results="$root/bench/results"
logs="$results/logs"
mkdir -p "$logs"
work="$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")"

# Everything started here is stopped on exit.
started_pids=()
stop_all() {
  local pid
  for pid in "${started_pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${started_pids[@]}"; do
    for _ in $(seq 1 150); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  started_pids=()
}
cleanup() {
  stop_all
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits until 127.0.0.1:PORT accepts connections while PID lives.
wait_port() {
  local port="$1" pid="$2" what="$3"
  for _ in $(seq 1 300); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "error: $what exited; see its log" >&2
      return 1
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  echo "error: $what does not listen on 127.0.0.1:$port after 30 s" >&2
  return 1
}

mapfile -t ports < <("$java" -jar "$bench_jar" ports 3)
export SLUICE_BENCH_OTLP_PORT="${ports[0]}"
export SLUICE_BENCH_OTLP_HTTP_PORT="${ports[1]}"
export SLUICE_BENCH_METRICS_PORT="${ports[2]}"
# Where scenarios keep files (a durable pipeline's write-ahead log): the run's work directory,
# removed at the end, unless SLUICE_BENCH_DATA_DIR names a directory on the disk to measure.
export SLUICE_BENCH_DATA_DIR="${SLUICE_BENCH_DATA_DIR:-$work/data}"

# The sink, if any, first: the collector's configuration needs its port.
sink_args=()
if [ "$sink" != "none" ]; then
  # shellcheck disable=SC2086
  "${pin_load[@]}" "$java" $bench_opts -jar "$bench_jar" sink \
    --ports-file "$work/sink.ports" --counts-file "$work/sink.counts" --max-seconds 7200 \
    >"$logs/$run_id.sink.log" 2>&1 &
  sink_pid=$!
  started_pids+=("$sink_pid")
  for _ in $(seq 1 300); do
    [ -s "$work/sink.ports" ] && break
    kill -0 "$sink_pid" 2>/dev/null || { echo "error: the sink exited" >&2; cat "$logs/$run_id.sink.log" >&2; exit 1; }
    sleep 0.1
  done
  read -r sink_grpc sink_http <"$work/sink.ports"
  export SLUICE_BENCH_SINK_PORT="$sink_grpc"
  export SLUICE_BENCH_SINK_HTTP_PORT="$sink_http"
  sink_args=(--sink-pid "$sink_pid")
fi

# The collector, or the floor server in its place.
if [ "$target" = collector ] && [ "$collector" != sluice ]; then
  target="$collector"
fi
case "$target" in
  otelcol)
    # The scenario's own configuration, with Sluice's discarding exporter as the Go collector's.
    sed -e 's/^  blackhole:/  nop:/' -e 's/\[blackhole\]/[nop]/' "$scenario" >"$work/otelcol.yaml"
    "${pin_collector[@]}" "$peer_binary" --config "$work/otelcol.yaml" \
      >"$logs/$run_id.collector.log" 2>&1 &
    ;;
  rotel)
    exporter_args=()
    if [ -n "${SLUICE_BENCH_SINK_PORT:-}" ]; then
      exporter_args=(--otlp-exporter-endpoint "http://127.0.0.1:$SLUICE_BENCH_SINK_PORT")
    fi
    # shellcheck disable=SC2086
    "${pin_collector[@]}" "$peer_binary" start \
      --otlp-grpc-endpoint "127.0.0.1:$SLUICE_BENCH_OTLP_PORT" \
      --otlp-http-endpoint "127.0.0.1:$SLUICE_BENCH_OTLP_HTTP_PORT" \
      --pid-file "$work/rotel.pid" --log-file "$work/rotel.log" \
      $rotel_flags "${exporter_args[@]}" >"$logs/$run_id.collector.log" 2>&1 &
    ;;
  collector)
    if [ -n "$profile" ]; then
      # bin/sluice picks the profile's JDK and flags (SLUICE_JAVA_OPTS still replaces the flags).
      "${pin_collector[@]}" "$root/bin/sluice" --profile "$profile" run --config "$scenario" \
        --shutdown-timeout 10s >"$logs/$run_id.collector.log" 2>&1 &
    else
      if [ "$classpath" = "bench" ]; then
        launch=(-cp "$collector_jar:$bench_jar" dev.sluice.collector.Main)
      else
        launch=(-jar "$collector_jar")
      fi
      # shellcheck disable=SC2086
      "${pin_collector[@]}" "$java" $collector_opts "${launch[@]}" run --config "$scenario" \
        --shutdown-timeout 10s >"$logs/$run_id.collector.log" 2>&1 &
    fi
    ;;
  floor)
    # shellcheck disable=SC2086
    "${pin_collector[@]}" "$java" $collector_opts -jar "$bench_jar" floor \
      --grpc-port "$SLUICE_BENCH_OTLP_PORT" --http-port "$SLUICE_BENCH_METRICS_PORT" \
      >"$logs/$run_id.collector.log" 2>&1 &
    ;;
  *)
    echo "unknown bench.target $target" >&2
    exit 2
    ;;
esac
collector_pid=$!
started_pids+=("$collector_pid")
wait_port "$SLUICE_BENCH_OTLP_PORT" "$collector_pid" "$target" || { tail -n 20 "$logs/$run_id.collector.log" >&2; exit 1; }

if [ -n "$profile" ] && [ "$target" = "collector" ]; then
  # What bin/sluice ran: its JVM flags and its runtime.
  collector_opts="$(tr '\0' '\n' <"/proc/$collector_pid/cmdline" | sed -n '2,$p' | sed '/^-jar$/,$d' | tr '\n' ' ' | sed 's/ $//')"
  java="$(readlink -f "/proc/$collector_pid/exe")"
fi

target_port="$SLUICE_BENCH_OTLP_PORT"
protocol_args=()
if [ "$receiver" = "http" ]; then
  target_port="$SLUICE_BENCH_OTLP_HTTP_PORT"
  protocol_args=(--protocol http)
  wait_port "$target_port" "$collector_pid" "the OTLP/HTTP receiver"
fi

delivered_args=()
case "$delivered_kind" in
  metric)
    # What reached the blackhole (Sluice), or what the batch processor passed on to the nop
    # exporter (otelcol: nop has no counter of its own); rotel serves no metrics: not measured.
    case "$collector" in
      sluice) delivered_metric=sluice_exporter_blackhole_items_total ;;
      otelcol) delivered_metric=otelcol_processor_batch_batch_send_size_sum ;;
      rotel) delivered_metric="" ;;
    esac
    if [ -n "$delivered_metric" ]; then
      wait_port "$SLUICE_BENCH_METRICS_PORT" "$collector_pid" "the metrics endpoint"
      delivered_args=(--delivered "metric:http://127.0.0.1:$SLUICE_BENCH_METRICS_PORT/metrics#$delivered_metric")
    fi
    ;;
  sink) delivered_args=(--delivered "sink:http://127.0.0.1:$sink_http/counts") ;;
  floor) delivered_args=(--delivered "floor:http://127.0.0.1:$SLUICE_BENCH_METRICS_PORT/counts") ;;
  none) ;;
  *) echo "unknown bench.delivered $delivered_kind" >&2; exit 2 ;;
esac

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  commit="$commit-dirty"
fi
cpu_model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
java_version="$("$java" -version 2>&1 | head -n 1 | sed 's/.*version "\([^"]*\)".*/\1/')"

echo "scenario $name: $target $collector_version pinned=$pinned, warm-up ${warmup}s, window ${duration}s; logs in bench/results/logs/$run_id.*" >&2
# shellcheck disable=SC2086
"${pin_load[@]}" timeout $((warmup + duration + 240)) "$java" $bench_opts -jar "$bench_jar" generate \
  --target "127.0.0.1:$target_port" "${protocol_args[@]}" $generate_args \
  --warmup "$warmup" --duration "$duration" \
  --collector-pid "$collector_pid" "${sink_args[@]}" "${delivered_args[@]}" \
  --clk-tck "$clk_tck" --scenario "$name" --result-json "$results/$run_id.json" \
  --meta "target=$target" --meta "pinned=$pinned" --meta "collector=$collector" \
  --meta "collector_version=$collector_version" \
  --meta "collector_java_opts=$([ "$collector" = sluice ] && echo "$collector_opts")" \
  --meta "command=bench/run-scenario.sh $name --collector $collector --warmup $warmup --duration $duration" \
  --meta "report_command=${SLUICE_BENCH_REPORT_COMMAND:-}" \
  --meta "commit=$commit" --meta "cpu_model=$cpu_model" --meta "nproc=$(nproc)" \
  --meta "kernel=$(uname -r)" --meta "java_version=$java_version" \
  --meta "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)" \
  --meta "generate_args=$generate_args" --meta "generate_override=${BENCH_GENERATE_ARGS:-}" \
  ${BENCH_GENERATE_ARGS:-} >"$work/generator.out" &
generator_pid=$!
started_pids+=("$generator_pid")
# In the background and waited for, so that a signal to this script stops everything at once.
wait "$generator_pid" && status=0 || status=$?
cp "$work/generator.out" "$logs/$run_id.generator.json.log"

stop_all
if [ -f "$work/sink.counts" ]; then
  cp "$work/sink.counts" "$logs/$run_id.sink.counts"
fi
if [ "$status" -ne 0 ]; then
  echo "error: the generator failed with status $status" >&2
  tail -n 20 "$logs/$run_id.collector.log" >&2 || true
  exit "$status"
fi
grep '^DETAIL ' "$work/generator.out" || true
result="$(grep '^RESULT ' "$work/generator.out" | tail -n 1)"
if [ -z "$result" ]; then
  echo "error: the generator printed no RESULT line" >&2
  exit 1
fi
echo "$result"
