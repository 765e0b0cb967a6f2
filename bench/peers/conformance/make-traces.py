#!/usr/bin/env python3
"""Writes traces.json, the recorded traces that conformance.sh sends to both collectors.

One OTLP/JSON ExportTraceServiceRequest per line. Deterministic (a fixed seed and fixed times):
running it again writes the same file, so the committed file is what this script makes.

    python3 bench/peers/conformance/make-traces.py > bench/peers/conformance/traces.json

What the spans hold, so that every case of the connectors has data: six resources (one service on
two hosts, one resource without service.name), two scopes, all six span kinds, the three status
codes, attributes of several types (a status code that is an int on most spans and a string on
a few), events with attributes, durations on the explicit default buckets' bounds and on powers
of two, a zero and a negative duration, W3C tracestates with OpenTelemetry sampling thresholds,
and one resource split over two blocks of one request.
"""
import json
import random
import sys

SEED = 29
REQUESTS = 8
SPANS = 400
BASE_NS = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z

RESOURCES = [
    {"service.name": "frontend", "telemetry.sdk.language": "nodejs", "host.name": "web-1",
     "deployment.environment.name": "prod"},
    {"service.name": "checkout", "telemetry.sdk.language": "java", "host.name": "app-1",
     "deployment.environment.name": "prod", "process.pid": 4242},
    {"service.name": "cart", "telemetry.sdk.language": "go", "host.name": "app-2",
     "deployment.environment.name": "prod"},
    {"service.name": "inventory", "telemetry.sdk.language": "java", "host.name": "db-1"},
    {"service.name": "inventory", "telemetry.sdk.language": "java", "host.name": "db-2"},
    {"telemetry.sdk.language": "python", "host.name": "batch-1"},  # no service.name
]
SCOPES = [("io.opentelemetry.http", "1.2.0"), ("app.db", "")]
NAMES = ["GET /cart", "POST /checkout", "GET /product/{id}", "SELECT orders", "publish order",
         "charge card", "render", "HealthCheck"]
ROUTES = ["/cart", "/checkout", "/product/{id}", "/health"]
METHODS = ["GET", "POST", "PUT"]
CODES = [200, 200, 200, 201, 404, 500, 503]
EXCEPTIONS = ["java.io.IOException", "TimeoutError", "ValueError"]
# Durations in ms: the default explicit buckets' bounds (a span ending exactly on one), powers of
# two (the bounds of exponential buckets at every scale), and others.
EXACT_MS = [2, 4, 10, 50, 100, 1000, 5000, 1, 8, 16, 64, 0.5, 0.25]


def any_value(v):
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [any_value(x) for x in v]}}
    return {"stringValue": v}


def attributes(d):
    return [{"key": k, "value": any_value(v)} for k, v in d.items()]


def duration_ns(rnd, i):
    if i == 7:
        return 0
    if i == 13:
        return -1_500_000  # ends before it starts
    if rnd.random() < 0.3:
        return int(rnd.choice(EXACT_MS) * 1_000_000)
    return int(rnd.lognormvariate(2.5, 1.6) * 1_000_000)  # median ~12 ms


def span(rnd, i, resource_index):
    attrs = {}
    name = rnd.choice(NAMES)
    kind = rnd.choice([0, 1, 2, 2, 2, 3, 3, 4, 5])
    if rnd.random() < 0.8:
        attrs["http.request.method"] = rnd.choice(METHODS)
    if rnd.random() < 0.7:
        code = rnd.choice(CODES)
        # A few carry the status code as a string, as some instrumentations do.
        attrs["http.response.status_code"] = str(code) if rnd.random() < 0.1 else code
    if rnd.random() < 0.6:
        attrs["http.route"] = rnd.choice(ROUTES)
    if rnd.random() < 0.2:
        attrs["db.system"] = "postgresql"
    if rnd.random() < 0.15:
        attrs["retry"] = rnd.random() < 0.5
    if rnd.random() < 0.1:
        attrs["user.ids"] = [rnd.randrange(10), rnd.randrange(10)]
    status = rnd.choice([0, 0, 0, 1, 2])
    start = BASE_NS + i * 7_000_000 + rnd.randrange(1_000_000)
    end = start + duration_ns(rnd, i)
    s = {
        "traceId": "%032x" % rnd.getrandbits(128),
        "spanId": "%016x" % (rnd.getrandbits(63) | 1),
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": attributes(attrs),
        "status": {"code": status} if status != 2 else {"code": 2, "message": "failed"},
    }
    if rnd.random() < 0.5:
        s["parentSpanId"] = "%016x" % (rnd.getrandbits(63) | 1)
    r = rnd.random()
    if r < 0.06:
        s["traceState"] = "ot=th:8"  # kept with probability 1/2: stands for 2 spans
    elif r < 0.09:
        s["traceState"] = "vendor=x,ot=th:c"  # probability 1/4: stands for 4 spans
    elif r < 0.12:
        s["traceState"] = "vendor=x"
    events = []
    for _ in range(rnd.choice([0, 0, 0, 1, 1, 2, 3])):
        if rnd.random() < 0.5:
            events.append({"timeUnixNano": str(start + 1000), "name": "exception",
                           "attributes": attributes({"exception.type": rnd.choice(EXCEPTIONS)})})
        else:
            events.append({"timeUnixNano": str(start + 2000), "name": "retry",
                           "attributes": attributes({"retry.count": rnd.randrange(1, 4)})})
    if events:
        s["events"] = events
    return s


def main():
    rnd = random.Random(SEED)
    spans_per_request = SPANS // REQUESTS
    i = 0
    out = sys.stdout
    for request in range(REQUESTS):
        # (resource index, scope index) -> spans, in first-seen order.
        blocks = {}
        for _ in range(spans_per_request):
            ri = rnd.randrange(len(RESOURCES))
            si = rnd.randrange(len(SCOPES))
            blocks.setdefault((ri, si), []).append(span(rnd, i, ri))
            i += 1
        by_resource = {}
        for (ri, si), spans in blocks.items():
            by_resource.setdefault(ri, []).append((si, spans))
        resource_spans = []
        for ri, scopes in by_resource.items():
            scope_spans = []
            for si, spans in scopes:
                name, version = SCOPES[si]
                scope = {"name": name}
                if version:
                    scope["version"] = version
                scope_spans.append({"scope": scope, "spans": spans})
            block = {"resource": {"attributes": attributes(RESOURCES[ri])}}
            if request == 3 and len(scope_spans) > 1:
                # The same resource in two blocks of one request.
                resource_spans.append(dict(block, scopeSpans=scope_spans[:1]))
                resource_spans.append(dict(block, scopeSpans=scope_spans[1:]))
            else:
                resource_spans.append(dict(block, scopeSpans=scope_spans))
        out.write(json.dumps({"resourceSpans": resource_spans}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
