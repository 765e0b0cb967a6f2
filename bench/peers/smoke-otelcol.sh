#!/usr/bin/env bash
# Checks that the built OpenTelemetry Collector peer runs: starts it with otlp -> batch -> debug
# on loopback ports, sends one OTLP/HTTP (JSON) trace request with curl, waits for the span in
# the debug exporter's output, and stops the collector again. Prints the debug output it saw.
#
#   bench/peers/smoke-otelcol.sh            # ports 24317 (gRPC) and 24318 (HTTP)
#   OTELCOL_SMOKE_PORT=25000 bench/peers/smoke-otelcol.sh   # gRPC 25000, HTTP 25001
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
otelcol="$("$here/build-otelcol.sh" | tail -n 1)"
grpc_port="${OTELCOL_SMOKE_PORT:-24317}"
http_port=$((grpc_port + 1))
start_timeout_seconds=30
output_timeout_seconds=10

work="$(mktemp -d)"
pid=""
cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/config.yaml" <<EOF
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:$grpc_port
      http:
        endpoint: 127.0.0.1:$http_port
processors:
  batch:
    timeout: 200ms
exporters:
  debug:
    verbosity: detailed
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [debug]
EOF

"$otelcol" --config "$work/config.yaml" >"$work/otelcol.log" 2>&1 &
pid=$!

request='{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"smoke"}}]},
"scopeSpans":[{"scope":{"name":"smoke"},"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",
"spanId":"eee19b7ec3c1b174","name":"smoke-span","kind":2,"startTimeUnixNano":"1544712660000000000",
"endTimeUnixNano":"1544712661000000000"}]}]}]}'

deadline=$((SECONDS + start_timeout_seconds))
until status="$(curl -s -o "$work/response" -w '%{http_code}' -H 'Content-Type: application/json' \
  --data "$request" "http://127.0.0.1:$http_port/v1/traces")" && [[ "$status" != 000 ]]; do
  if ((SECONDS >= deadline)) || ! kill -0 "$pid" 2>/dev/null; then
    echo "smoke-otelcol: the collector did not take requests on 127.0.0.1:$http_port" >&2
    cat "$work/otelcol.log" >&2
    exit 1
  fi
  sleep 0.5
done
echo "smoke-otelcol: POST /v1/traces -> HTTP $status $(cat "$work/response")"

deadline=$((SECONDS + output_timeout_seconds))
until grep -q 'smoke-span' "$work/otelcol.log"; do
  if ((SECONDS >= deadline)); then
    echo "smoke-otelcol: no debug output for the span within ${output_timeout_seconds} s" >&2
    cat "$work/otelcol.log" >&2
    exit 1
  fi
  sleep 0.2
done

kill "$pid"
exit_code=0
wait "$pid" || exit_code=$?
pid=""
echo "smoke-otelcol: debug output:"
# From the debug exporter's summary line of the batch up to the collector's shutdown.
sed -n '/"resource spans": 1/,/Received signal/p' "$work/otelcol.log" | sed '$d'
echo "smoke-otelcol: ok ($("$otelcol" --version)), stopped by SIGTERM, exit code $exit_code"
