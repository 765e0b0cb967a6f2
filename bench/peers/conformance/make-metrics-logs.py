#!/usr/bin/env python3
"""Writes metrics.json and logs.json, the recorded metrics and logs that conformance.sh sends to
both collectors (for the count, forward and routing connectors).

One OTLP/JSON ExportMetricsServiceRequest (ExportLogsServiceRequest) per line. Deterministic (a
fixed seed and fixed times): running it again writes the same files, so the committed files are
what this script makes.

    cd bench/peers/conformance && python3 make-metrics-logs.py

Metrics: four resources, two scopes, every data type (gauge, cumulative and delta sums,
histogram, exponential histogram, summary), data points with attributes of several types; one
metric split over two scope blocks of one request. Logs: the same resources, every severity,
string and map bodies, attributes, trace context on some records, event names on a few.
"""
import json
import random

SEED = 2929
REQUESTS = 6
BASE_NS = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z

RESOURCES = [
    {"service.name": "frontend", "host.name": "web-1", "k8s.namespace.name": "shop"},
    {"service.name": "checkout", "host.name": "app-1", "k8s.namespace.name": "shop"},
    {"service.name": "inventory", "host.name": "db-1", "k8s.namespace.name": "data"},
    {"host.name": "batch-1"},  # no service.name
]
SCOPES = [("io.opentelemetry.runtime", "2.0.0"), ("app.metrics", "")]
STATES = ["idle", "user", "system"]
ROUTES = ["/cart", "/checkout", "/health"]


def any_value(v):
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, dict):
        return {"kvlistValue": {"values": attributes(v)}}
    if isinstance(v, list):
        return {"arrayValue": {"values": [any_value(x) for x in v]}}
    return {"stringValue": v}


def attributes(d):
    return [{"key": k, "value": any_value(v)} for k, v in d.items()]


def point_attrs(rnd):
    a = {}
    if rnd.random() < 0.7:
        a["state"] = rnd.choice(STATES)
    if rnd.random() < 0.5:
        a["cpu"] = rnd.randrange(4)
    if rnd.random() < 0.3:
        a["http.route"] = rnd.choice(ROUTES)
    return a


def metric(rnd, kind, t):
    start, now = str(BASE_NS), str(t)
    points = []
    for _ in range(rnd.randrange(1, 5)):
        p = {"attributes": attributes(point_attrs(rnd)), "startTimeUnixNano": start,
             "timeUnixNano": now}
        if kind in ("gauge", "sum_cumulative", "sum_delta"):
            if rnd.random() < 0.5:
                p["asInt"] = str(rnd.randrange(1000))
            else:
                p["asDouble"] = round(rnd.uniform(0, 100), 3)
        elif kind == "histogram":
            counts = [rnd.randrange(5) for _ in range(4)]
            p.update({"count": str(sum(counts)), "sum": float(sum(counts) * 7),
                      "bucketCounts": [str(c) for c in counts],
                      "explicitBounds": [5.0, 10.0, 50.0]})
        elif kind == "exponential":
            counts = [rnd.randrange(4) for _ in range(3)]
            p.update({"count": str(sum(counts) + 1), "sum": 12.5, "scale": 2, "zeroCount": "1",
                      "positive": {"offset": 3, "bucketCounts": [str(c) for c in counts]}})
        elif kind == "summary":
            p.update({"count": "10", "sum": 55.0, "quantileValues": [
                {"quantile": 0.5, "value": 5.0}, {"quantile": 0.99, "value": 9.9}]})
        points.append(p)
    names = {"gauge": "queue.size", "sum_cumulative": "system.cpu.time",
             "sum_delta": "http.server.requests", "histogram": "http.server.request.duration",
             "exponential": "jvm.gc.duration", "summary": "rpc.latency"}
    m = {"name": names[kind], "unit": {"gauge": "{item}", "histogram": "ms"}.get(kind, ""),
         "description": "A %s." % kind}
    if kind == "gauge":
        m["gauge"] = {"dataPoints": points}
    elif kind.startswith("sum"):
        m["sum"] = {"dataPoints": points, "isMonotonic": kind == "sum_cumulative",
                    "aggregationTemporality": 2 if kind == "sum_cumulative" else 1}
    elif kind == "histogram":
        m["histogram"] = {"dataPoints": points, "aggregationTemporality": 2}
    elif kind == "exponential":
        m["exponentialHistogram"] = {"dataPoints": points, "aggregationTemporality": 1}
    else:
        m["summary"] = {"dataPoints": points}
    return m


KINDS = ["gauge", "sum_cumulative", "sum_delta", "histogram", "exponential", "summary"]


def metrics_request(rnd, r):
    t = BASE_NS + (r + 1) * 10_000_000_000
    out = []
    for ri, res in enumerate(RESOURCES):
        if rnd.random() < 0.25:
            continue
        scopes = []
        for name, version in SCOPES:
            ms = [metric(rnd, k, t) for k in KINDS if rnd.random() < 0.6]
            if not ms:
                continue
            scope = {"name": name}
            if version:
                scope["version"] = version
            scopes.append({"scope": scope, "metrics": ms})
        if r == 2 and scopes:
            # One metric in two scope blocks of one request.
            first = scopes[0]
            if first["metrics"]:
                m = first["metrics"][0]
                scopes.append({"scope": first["scope"], "metrics": [metric(rnd, KINDS[0], t)]})
                scopes[-1]["metrics"][0]["name"] = m["name"]
        if scopes:
            out.append({"resource": {"attributes": attributes(res)}, "scopeMetrics": scopes})
    return {"resourceMetrics": out}


def logs_request(rnd, r):
    out = []
    for ri, res in enumerate(RESOURCES):
        scopes = []
        for name, version in SCOPES:
            records = []
            for _ in range(rnd.randrange(0, 8)):
                sev = rnd.randrange(0, 25)
                rec = {"timeUnixNano": str(BASE_NS + rnd.randrange(10**12)),
                       "observedTimeUnixNano": str(BASE_NS + 10**12),
                       "severityNumber": sev,
                       "attributes": attributes(point_attrs(rnd))}
                if sev:
                    rec["severityText"] = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR",
                                           "FATAL"][(sev - 1) // 4]
                if rnd.random() < 0.7:
                    rec["body"] = {"stringValue": rnd.choice(
                        ["request done", "cache miss", "payment failed", "retrying"])}
                elif rnd.random() < 0.5:
                    rec["body"] = any_value({"msg": "structured", "code": rnd.randrange(600)})
                if rnd.random() < 0.4:
                    rec["traceId"] = "%032x" % rnd.getrandbits(128)
                    rec["spanId"] = "%016x" % (rnd.getrandbits(63) | 1)
                    rec["flags"] = 1
                if rnd.random() < 0.1:
                    rec["eventName"] = "app.started"
                records.append(rec)
            if records:
                scope = {"name": name}
                if version:
                    scope["version"] = version
                scopes.append({"scope": scope, "logRecords": records})
        if scopes:
            out.append({"resource": {"attributes": attributes(res)}, "scopeLogs": scopes})
    return {"resourceLogs": out}


def main():
    rnd = random.Random(SEED)
    with open("metrics.json", "w") as f:
        for r in range(REQUESTS):
            f.write(json.dumps(metrics_request(rnd, r), separators=(",", ":")) + "\n")
    with open("logs.json", "w") as f:
        for r in range(REQUESTS):
            f.write(json.dumps(logs_request(rnd, r), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
