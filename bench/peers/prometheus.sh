#!/usr/bin/env bash
# Checks Sluice's Prometheus exporters against the Go collector's, through a real Prometheus:
#
#   bench/peers/prometheus.sh               # every case (today: remotewrite, remotewrite2)
#   bench/peers/prometheus.sh remotewrite   # the prometheusremotewrite exporter
#   bench/peers/prometheus.sh remotewrite2  # the same, both exporters on remote write 2.0
#
# remotewrite: one Prometheus (remote write receiver on, exemplar storage on, nothing scraped, an
# empty TSDB), and Sluice and the Go collector's v0.161.0 build (bench/peers/otelcol-0.161) each
# running prometheus/remotewrite.yaml as it is: OTLP/HTTP in, batch, prometheusremotewrite to that
# Prometheus with the external label collector=sluice|otelcol. Both get the same requests
# (prometheus/remotewrite-metrics.json, made by make-remotewrite-metrics.py there, one request per
# case, times moved to now by send-now.py). Once Prometheus holds the last request's sample from
# both (a bounded wait), read-series.py reads back every series of each (remote read: raw samples,
# stale markers and native histograms; exemplars from the query API), and
# compare-remotewrite.py compares them series by series, and each collector's metric names with
# the ones expected of the input (prometheus/remotewrite-expected.json). A difference that is one
# of Sluice's deliberate ones (docs/components/prometheusremotewrite-exporter.md, "What differs")
# is reported as known. Exits 1 on any other difference.
#
# remotewrite2: the same with both exporters set to protobuf_message: io.prometheus.write.v2.Request
# (remotewrite.yaml with that line added, the Collector with its feature gate), Prometheus taking
# both messages and keeping 2.0's metadata in its write-ahead log, uncompressed; once it has
# stopped, read-metadata.py reads each series' type, help and unit from there and
# compare-remotewrite.py --v2 compares them too (histogram-exemplars-v2 known in every case).
#
# Everything is kept in bench/target/prometheus/remotewrite/ (remotewrite2/, with metadata.json): sent.json (what each collector
# answered), sluice.json and otelcol.json (the series read back), logs/ (Prometheus' and each
# collector's output), tsdb/ (Prometheus' storage, emptied at each run).
#
# Needs: Java and Sluice's jar (built here if missing: mvn -B -q -pl collector -am package
# -DskipTests), Go (for the peer build, bench/peers/build-otelcol.sh, and for Prometheus:
# PROMETHEUS=/path/to/prometheus, else bench/target/peers/prometheus, else the go command's own
# bin/prometheus when it is v0.316.0, else `go install
# github.com/prometheus/prometheus/cmd/prometheus@v0.316.0` into bench/target/peers/, which takes
# long the first time), Python 3. Binds only 127.0.0.1, on free ports it picks.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cases_dir="$here/prometheus"
which="${1:-all}"
case "$which" in
  all|remotewrite|remotewrite2) ;;
  *) echo "usage: bench/peers/prometheus.sh [all|remotewrite|remotewrite2]" >&2; exit 2 ;;
esac

prometheus_version=v0.316.0
peers_dir="$root/bench/target/peers"
mkdir -p "$peers_dir"

# The Prometheus server: v0.316.0 (Prometheus 3's Go module version), built from source once.
prometheus_binary() {
  if [ -n "${PROMETHEUS:-}" ]; then
    echo "$PROMETHEUS"
    return
  fi
  if [ -x "$peers_dir/prometheus" ]; then
    echo "$peers_dir/prometheus"
    return
  fi
  local own
  own="$(go env GOBIN)"
  own="${own:-$(go env GOPATH)/bin}/prometheus"
  if [ -x "$own" ] && go version -m "$own" 2>/dev/null |
      grep -q "mod[[:space:]]*github.com/prometheus/prometheus[[:space:]]*$prometheus_version"; then
    echo "$own"
    return
  fi
  echo "prometheus: installing Prometheus $prometheus_version into $peers_dir" \
    "(go install; long the first time)" >&2
  GOBIN="$peers_dir" GOFLAGS=-buildvcs=false CGO_ENABLED=0 \
    go install "github.com/prometheus/prometheus/cmd/prometheus@$prometheus_version" >&2
  echo "$peers_dir/prometheus"
}

if [ ! -f "$root/collector/target/sluice.jar" ]; then
  echo "prometheus: building collector/target/sluice.jar" >&2
  (cd "$root" && mvn -B -q -pl collector -am package -DskipTests)
fi
otelcol_0161="$("$here/build-otelcol.sh" otelcol-0.161 | tail -n 1)"
prometheus="$(prometheus_binary)"

# Every process this script starts, so that it stops them (by pid) whatever happens.
pids=()
cleanup() {
  for pid in ${pids[@]+"${pids[@]}"}; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in ${pids[@]+"${pids[@]}"}; do
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
  "$@" >"$logs/$name.log" 2>&1 &
  started=$!
  pids+=("$started")
}

# wait_port PID PORT NAME: waits until PORT accepts connections (60 s at most), or the process ends.
wait_port() {
  local pid="$1" port="$2" name="$3" deadline=$((SECONDS + 60))
  while ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "prometheus: $name exited before listening on $port; its log:" >&2
      tail -n 20 "$logs/$name.log" >&2
      exit 1
    fi
    if ((SECONDS > deadline)); then
      echo "prometheus: $name does not listen on $port after 60 s" >&2
      exit 1
    fi
    sleep 0.2
  done
}

# wait_ready PID PORT: waits until Prometheus answers /-/ready with 200 (60 s at most).
wait_ready() {
  local pid="$1" port="$2" deadline=$((SECONDS + 60))
  until python3 -c 'import sys, urllib.request
urllib.request.urlopen("http://127.0.0.1:%s/-/ready" % sys.argv[1], timeout=5)' "$port" \
      2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "prometheus: Prometheus exited; its log:" >&2
      tail -n 20 "$logs/prometheus.log" >&2
      exit 1
    fi
    if ((SECONDS > deadline)); then
      echo "prometheus: Prometheus not ready after 60 s" >&2
      exit 1
    fi
    sleep 0.2
  done
}

# stop PID NAME: asks the process to stop (SIGTERM) and waits for it, 60 s at most.
stop() {
  local pid="$1" name="$2" deadline=$((SECONDS + 60))
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS > deadline)); then
      echo "prometheus: $name did not stop in 60 s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  wait "$pid" 2>/dev/null || true
  # Stopped and reaped: no longer one for cleanup to stop (its pid may be another's by then).
  local left=() p
  for p in "${pids[@]}"; do
    [ "$p" = "$pid" ] || left+=("$p")
  done
  pids=(${left[@]+"${left[@]}"})
}

# holding PORT CASE COLLECTOR...: prints the collectors whose sentinel of CASE Prometheus holds.
holding() {
  python3 - "$@" <<'EOF'
import json, sys, urllib.parse, urllib.request
port, case, collectors = sys.argv[1], sys.argv[2], sys.argv[3:]
query = urllib.parse.urlencode({"query": 'last_over_time(peer_sentinel{case="%s"}[1h])' % case})
with urllib.request.urlopen("http://127.0.0.1:%s/api/v1/query?%s" % (port, query), timeout=10) as r:
    found = {s["metric"].get("collector") for s in json.load(r)["data"]["result"]}
print(" ".join(c for c in collectors if c in found))
EOF
}

status=0

# remote_write CASE: runs the case remotewrite (remote write 1.0) or remotewrite2 (2.0).
remote_write() {
  local name="$1" work prom_port sluice_port otelcol_port prom_pid sluice_pid otelcol_pid deadline
  local config="$cases_dir/remotewrite.yaml" prom_extra=() otelcol_extra=() compare_extra=()
  work="$root/bench/target/prometheus/$name"
  logs="$work/logs"
  rm -rf "$work"
  mkdir -p "$logs" "$work/tsdb"
  read -r prom_port sluice_port otelcol_port < <(free_ports 3)

  if [ "$name" = remotewrite2 ]; then
    # The same file with the exporter set to remote write 2.0 (the line after its endpoint);
    # Prometheus takes both messages and keeps what 2.0 sends of each series' metadata in its
    # write-ahead log, uncompressed, for read-metadata.py; the Collector needs its feature gate.
    config="$work/remotewrite2.yaml"
    sed 's|^\(    \)endpoint: \(.*/api/v1/write\)$|&\n\1protobuf_message: io.prometheus.write.v2.Request|' \
      "$cases_dir/remotewrite.yaml" >"$config"
    grep -q '^    protobuf_message: io.prometheus.write.v2.Request$' "$config"
    prom_extra=(--web.remote-write-receiver.accepted-protobuf-messages=prometheus.WriteRequest
      --web.remote-write-receiver.accepted-protobuf-messages=io.prometheus.write.v2.Request
      --enable-feature=metadata-wal-records --no-storage.tsdb.wal-compression)
    otelcol_extra=(--feature-gates=exporter.prometheusremotewritexporter.enableSendingRW2)
    compare_extra=(--name remotewrite2 --v2 --metadata "$work/metadata.json")
  fi

  # Nothing scraped; exemplar storage is a feature flag, native histograms need none in this
  # version (remote write takes them as they come).
  printf 'global:\n  evaluation_interval: 1h\nscrape_configs: []\n' >"$work/prometheus.yml"
  start prometheus "$prometheus" --config.file="$work/prometheus.yml" \
    --storage.tsdb.path="$work/tsdb" --web.listen-address="127.0.0.1:$prom_port" \
    --web.enable-remote-write-receiver --enable-feature=exemplar-storage ${prom_extra[@]+"${prom_extra[@]}"}
  prom_pid=$started
  wait_ready "$prom_pid" "$prom_port"

  start sluice env PEER_OTLP_PORT="$sluice_port" PEER_PROMETHEUS_PORT="$prom_port" \
    PEER_COLLECTOR=sluice "$root/bin/sluice" --config "$config"
  sluice_pid=$started
  start otelcol env PEER_OTLP_PORT="$otelcol_port" PEER_PROMETHEUS_PORT="$prom_port" \
    PEER_COLLECTOR=otelcol "$otelcol_0161" --config "$config" \
    ${otelcol_extra[@]+"${otelcol_extra[@]}"}
  otelcol_pid=$started
  wait_port "$sluice_pid" "$sluice_port" sluice
  wait_port "$otelcol_pid" "$otelcol_port" otelcol

  python3 "$cases_dir/send-now.py" "$cases_dir/remotewrite-metrics.json" \
    "$cases_dir/remotewrite-expected.json" "$work/sent.json" \
    sluice="$sluice_port" otelcol="$otelcol_port"

  # The last request holds only the sentinel of the case "end"; each collector sends one request
  # at a time, in order, so once Prometheus holds that sample every earlier request of the same
  # collector has been answered. 60 s at most.
  deadline=$((SECONDS + 60))
  while [ "$(holding "$prom_port" end sluice otelcol)" != "sluice otelcol" ]; do
    if ((SECONDS > deadline)); then
      echo "prometheus: after 60 s Prometheus holds the last request of only:" \
        "$(holding "$prom_port" end sluice otelcol) (see $logs)" >&2
      status=1
      break
    fi
    sleep 0.5
  done

  now_ms=$(($(date +%s) * 1000))
  for side in sluice otelcol; do
    python3 "$cases_dir/read-series.py" "$prom_port" "collector=$side" 0 \
      $((now_ms + 3600000)) "$work/$side.json"
  done
  # Prometheus' own metrics: its counts of samples it did not append.
  python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1],
                                        timeout=10).read().decode())' "$prom_port" \
    >"$work/prometheus-metrics.txt"
  stop "$sluice_pid" sluice
  stop "$otelcol_pid" otelcol
  stop "$prom_pid" prometheus
  if [ "$name" = remotewrite2 ]; then
    python3 "$cases_dir/read-metadata.py" "$work/tsdb" collector sluice otelcol \
      "$work/metadata.json"
  fi

  python3 "$cases_dir/compare-remotewrite.py" ${compare_extra[@]+"${compare_extra[@]}"} \
    "$cases_dir/remotewrite-expected.json" \
    "$work/sent.json" "$work/sluice.json" "$work/otelcol.json" "$logs/prometheus.log" \
    "$work/prometheus-metrics.txt" || status=1
}

if [ "$which" = all ] || [ "$which" = remotewrite ]; then
  remote_write remotewrite
fi
if [ "$which" = all ] || [ "$which" = remotewrite2 ]; then
  remote_write remotewrite2
fi

echo "prometheus: Sluice $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" \
  "against $("$otelcol_0161" --version), Prometheus $prometheus_version"
exit "$status"
