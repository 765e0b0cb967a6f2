#!/usr/bin/env python3
"""Writes tailsampling-traces.json, the recorded traces that conformance-tailsampling.sh sends to
Sluice and to the Go collector, each running tailsampling.yaml.

One OTLP/JSON ExportTraceServiceRequest per line. Deterministic (a fixed seed and fixed times):
running it again writes the same file, so the committed file is what this script makes.

    python3 bench/peers/conformance/make-tailsampling-traces.py \
        > bench/peers/conformance/tailsampling-traces.json

The traces are of two kinds. Made to measure, each for the edges of one or more policies: status
codes (unset, ok, error, mixed), durations just under, on and over the latency thresholds (in
whole milliseconds and a fraction over), a trace whose duration passes through the latency range
and beyond as its spans arrive, int, string, double and bool values of the numeric, string and
bool attributes on spans and on resources (and the keys missing), empty strings, W3C tracestates
with and without the key (valid, invalid, duplicate keys), span counts around a min and a max,
span events, span flags with and without the sampled bit, extreme trace IDs. And filler traces with random IDs (for the probabilistic policy's
hash), random shapes and a few of the same attributes. A trace's spans are spread over several
requests and resources, in an order that is part of the recording (the latency policy sees the
spans in the order they arrived).
"""
import json
import random
import sys

SEED = 30
REQUESTS = 6
FILLER = 120
BASE_NS = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z
MS = 1_000_000

# Resources: the first two carry no policy attribute (the filler traces use them most); the others
# carry the keys the policies read, of the expected type or another one.
RESOURCES = [
    {"service.name": "frontend", "host.name": "web-1"},
    {"service.name": "cart", "host.name": "app-2"},
    {"service.name": "checkout", "host.name": "app-1", "app.level": 450},  # numeric, in range
    {"service.name": "probe", "app.route": "/health"},  # string, matched by several policies
    # Every key of another type: app.level a string, app.debug a string, app.route an int.
    {"service.name": "legacy", "app.level": "450", "app.debug": "true", "app.route": 7},
    {"service.name": "debugger", "app.debug": True, "app.route": ""},  # bool true, empty string
    {"service.name": "worker", "app.debug": False, "app.level": -5},  # bool false, negative int
]
SCOPES = [("io.opentelemetry.http", "1.2.0"), ("app.db", "")]
UNSET, OK, ERROR = 0, 1, 2


def any_value(v):
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    return {"stringValue": v}


def attributes(d):
    return [{"key": k, "value": any_value(v)} for k, v in d.items()]


def S(request, resource=0, start=0.0, dur=5.0, status=UNSET, attrs=None, state=None, events=None,
      name="op", scope=0, flags=None):
    """One span: the request it is sent in, its resource, start (ms after the trace's base) and
    duration (ms, fractions allowed), status code, span attributes, tracestate, events, flags."""
    return dict(request=request, resource=resource, start=start, dur=dur, status=status,
                attrs=attrs or {}, state=state, events=events or [], name=name, scope=scope,
                flags=flags)


# The traces made to measure: (label, spans in the order they arrive). The label is only a help
# for reading the generator; it is not in the output.
MEASURED = [
    # Status codes.
    ("status_unset", [S(0), S(1, 1)]),
    ("status_ok", [S(0, status=OK), S(2, 1, status=OK)]),
    ("status_error", [S(1, 1, status=ERROR)]),
    ("status_mixed", [S(0, status=OK), S(2, 1), S(4, 0, status=ERROR, name="charge card")]),
    ("status_ok_unset", [S(1, status=OK), S(3, 1, status=UNSET)]),
    # Durations around threshold_ms 100 and upper_threshold_ms 500 (whole ms, truncated).
    ("lat_99", [S(0, dur=99)]),
    ("lat_100", [S(1, dur=100)]),
    ("lat_100_9", [S(2, dur=100.9)]),
    ("lat_101", [S(3, dur=101)]),
    ("lat_300", [S(0, dur=300, status=OK)]),
    ("lat_500", [S(1, dur=500)]),
    ("lat_500_9", [S(2, dur=500.9)]),
    ("lat_501", [S(3, dur=501)]),
    ("lat_zero", [S(4, dur=0)]),
    ("lat_negative", [S(5, start=50, dur=-20)]),
    # No span as long as 100 ms; the trace is 110 ms from first start to last end.
    ("lat_spread", [S(0, dur=60), S(2, 1, start=50, dur=60), S(4, 0, start=20, dur=10)]),
    # Through the range and beyond: 200 ms (in the range) as the first span arrives, 800 ms after.
    ("lat_through", [S(0, 1, dur=200), S(3, 0, start=0, dur=800)]),
    # The same spans arriving the other way round: 800 ms from the start.
    ("lat_beyond", [S(0, 0, start=0, dur=800), S(3, 1, dur=200)]),
    # Numeric attribute app.level: min 400 / max 499 and the other cases' bounds.
    ("num_404", [S(0, attrs={"app.level": 404}), S(2, 1)]),
    ("num_400", [S(1, attrs={"app.level": 400})]),
    ("num_499", [S(2, attrs={"app.level": 499})]),
    ("num_399", [S(3, attrs={"app.level": 399})]),
    ("num_500", [S(4, attrs={"app.level": 500}), S(5, 1, attrs={"app.level": 3})]),
    ("num_503", [S(0, 1, attrs={"app.level": 503})]),
    ("num_600", [S(1, attrs={"app.level": 600})]),
    ("num_0", [S(2, attrs={"app.level": 0})]),
    ("num_10", [S(3, attrs={"app.level": 10})]),
    ("num_11", [S(3, attrs={"app.level": 11})]),
    ("num_negative", [S(4, attrs={"app.level": -5})]),
    ("num_string", [S(5, attrs={"app.level": "404"})]),
    ("num_double", [S(0, attrs={"app.level": 404.5})]),
    ("num_bool", [S(1, attrs={"app.level": True})]),
    ("num_resource", [S(2, 2), S(4, 0)]),  # checkout: app.level 450 on the resource
    ("num_resource_string", [S(3, 4)]),  # legacy: app.level "450"
    ("num_resource_negative", [S(4, 6), S(5, 1)]),  # worker: app.level -5
    # String attribute app.route.
    ("str_checkout", [S(0, attrs={"app.route": "/checkout"}), S(1, 1)]),
    ("str_cart", [S(1, 1, attrs={"app.route": "/cart"})]),
    ("str_checkout_space", [S(2, attrs={"app.route": "/checkout "})]),
    ("str_upper", [S(3, attrs={"app.route": "/CHECKOUT"})]),
    ("str_empty", [S(4, attrs={"app.route": ""})]),
    ("str_int", [S(5, attrs={"app.route": 7})]),
    ("str_api_v1", [S(0, attrs={"app.route": "/api/v1/orders"})]),
    ("str_api_v2", [S(1, 1, attrs={"app.route": "/api/v2/orders/7"}), S(3, 0)]),
    ("str_apix", [S(2, attrs={"app.route": "/apix/v1/orders"})]),
    ("str_health", [S(3, attrs={"app.route": "/health"})]),
    ("str_health_error", [S(4, attrs={"app.route": "/health"}, status=ERROR)]),
    ("str_healthz", [S(5, attrs={"app.route": "/healthz"})]),
    ("str_health_and_cart", [S(0, attrs={"app.route": "/cart"}),
                             S(2, 1, attrs={"app.route": "/health"})]),
    ("str_probe", [S(1, 3), S(3, 0, attrs={"app.route": "/cart"})]),  # probe resource: /health
    ("str_probe_short", [S(5, 3)]),
    ("str_probe_error", [S(2, 3, status=ERROR), S(4, 3)]),
    ("str_debugger", [S(3, 5)]),  # debugger resource: app.route "" (and app.debug true)
    ("str_legacy", [S(4, 4), S(5, 0, attrs={"app.route": "/cart"})]),  # legacy: app.route 7
    # Bool attribute app.debug.
    ("bool_true", [S(0, attrs={"app.debug": True}), S(3, 1)]),
    ("bool_false", [S(1, attrs={"app.debug": False})]),
    ("bool_string", [S(2, attrs={"app.debug": "true"})]),
    ("bool_int", [S(3, attrs={"app.debug": 1})]),
    ("bool_both", [S(4, attrs={"app.debug": False}), S(5, 1, attrs={"app.debug": True})]),
    ("bool_resource_true", [S(0, 5), S(1, 0)]),
    ("bool_resource_false", [S(2, 6)]),
    ("bool_resource_string", [S(3, 4)]),
    # W3C tracestate, key "vendor".
    ("ts_on", [S(0, state="vendor=on"), S(1, 1)]),
    ("ts_off", [S(1, state="vendor=off")]),
    ("ts_other_key", [S(2, state="other=on")]),
    ("ts_with_ot", [S(3, state="vendor=on,ot=th:8")]),
    ("ts_second", [S(4, state="ot=th:c,vendor=yes")]),
    ("ts_spaces", [S(5, state="other=1 , vendor=on")]),
    ("ts_invalid", [S(0, state="vendor=on,=bad")]),
    ("ts_upper_key", [S(1, state="Vendor=on")]),
    ("ts_duplicate", [S(2, state="vendor=off,vendor=on")]),
    ("ts_empty_value", [S(3, state="vendor=")]),
    ("ts_later_span", [S(4), S(5, 1, state="vendor=yes")]),
    # Span counts around 2..4 and 5.
    ("count_1", [S(0)]),
    ("count_2", [S(1), S(3, 1)]),
    ("count_4", [S(0), S(1, 1), S(2), S(3, 1)]),
    ("count_5", [S(0), S(1, 1), S(2), S(3, 1), S(4)]),
    ("count_6", [S(0, 1), S(1), S(2, 1), S(3), S(4, 1), S(5)]),
    # OTTL: app.retries above 2 on a span, a failed "charge card" span, exception events.
    ("ottl_retries_3", [S(0, attrs={"app.retries": 3}), S(2, 1)]),
    ("ottl_retries_2", [S(1, attrs={"app.retries": 2})]),
    ("ottl_charge_error", [S(2, 1, name="charge card", status=ERROR)]),
    ("ottl_charge_ok", [S(3, 1, name="charge card", status=OK)]),
    ("ottl_timeout", [S(4, events=[("exception", {"exception.type": "TimeoutError"})]),
                      S(5, 1)]),
    ("ottl_other_exception", [S(5, events=[("exception", {"exception.type": "ValueError"}),
                                           ("retry", {"retry.count": 1})])]),
    ("ottl_retry_event", [S(0, 1, events=[("retry", {"exception.type": "TimeoutError"})])]),
    # Combinations for and, not, drop, composite, precedence.
    ("combo_error_checkout", [S(0, attrs={"app.route": "/checkout"}), S(2, 1, status=ERROR)]),
    ("combo_error_checkout_level", [S(1, 2, attrs={"app.route": "/checkout"}, status=ERROR)]),
    ("combo_checkout_level", [S(2, 2, attrs={"app.route": "/checkout"}), S(4, 1)]),
    ("combo_slow_error", [S(3, dur=350, status=ERROR), S(5, 1)]),
    ("combo_slow_health", [S(4, dur=400, attrs={"app.route": "/health"})]),
    ("combo_long_health", [S(0, attrs={"app.route": "/health"}), S(2, 1), S(4)]),
    # Span flags: the W3C sampled bit (0x1) alone, with the remote-parent bits (0x100, 0x200), or
    # only those.
    ("flags_sampled", [S(0, flags=0x1), S(2, 1)]),
    ("flags_remote_sampled", [S(1, flags=0x301)]),
    ("flags_remote_only", [S(2, flags=0x300)]),
    ("flags_zero", [S(3, flags=0)]),
    ("flags_later_span", [S(3, flags=0x100), S(5, 1, flags=0x101)]),
    # Extreme trace IDs.
    ("id_one", [S(1), S(4, 1)]),
    ("id_max", [S(2, status=ERROR)]),
    ("id_low_zero", [S(5, dur=120)]),
]
FIXED_IDS = {
    "id_one": "00000000000000000000000000000001",
    "id_max": "ffffffffffffffffffffffffffffffff",
    "id_low_zero": "4bf92f3577b34da60000000000000000",
}


def filler(rnd):
    """A random trace: 1 to 6 spans over random requests (in order) and the plain resources."""
    spans = []
    requests = sorted(rnd.randrange(REQUESTS) for _ in range(rnd.choice([1, 1, 2, 3, 3, 4, 6])))
    for request in requests:
        attrs = {}
        r = rnd.random()
        if r < 0.15:
            attrs["app.route"] = rnd.choice(["/cart", "/checkout", "/health", "/api/v1/orders"])
        if rnd.random() < 0.15:
            attrs["app.level"] = rnd.choice([200, 404, 500, 3])
        if rnd.random() < 0.05:
            attrs["app.debug"] = rnd.random() < 0.5
        resource = rnd.choice([0, 0, 0, 1, 1, 1, 2, 6])
        spans.append(S(request, resource, start=rnd.randrange(50),
                       dur=rnd.choice([1, 5, 20, 80, 150, 450, 700]),
                       status=rnd.choice([UNSET, UNSET, UNSET, OK, ERROR]), attrs=attrs,
                       state=rnd.choice([None, None, None, "vendor=on", "vendor=off"]),
                       scope=rnd.randrange(len(SCOPES))))
    return spans


def build():
    """The requests (OTLP/JSON objects, in order) and each trace's label (its MEASURED label, or
    filler-N) by trace ID."""
    rnd = random.Random(SEED)
    traces = []
    labels = {}
    for label, spans in MEASURED:
        trace_id = FIXED_IDS.get(label) or "%032x" % rnd.getrandbits(128)
        traces.append((trace_id, spans))
        labels[trace_id] = label
    for number in range(FILLER):
        trace_id = "%032x" % rnd.getrandbits(128)
        traces.append((trace_id, filler(rnd)))
        labels[trace_id] = "filler-%d" % number
    assert len(labels) == len(traces)
    # request -> (resource, scope) -> spans, in the order first seen; traces interleave.
    blocks = [dict() for _ in range(REQUESTS)]
    for number, (trace_id, spans) in enumerate(traces):
        base = BASE_NS + number * 10 * MS
        root = None
        for s in spans:
            span_id = "%016x" % (rnd.getrandbits(63) | 1)
            start = base + int(s["start"] * MS)
            out = {
                "traceId": trace_id,
                "spanId": span_id,
                "name": s["name"],
                "kind": 2 if root is None else 1,
                "startTimeUnixNano": str(start),
                "endTimeUnixNano": str(start + int(round(s["dur"] * MS))),
                "attributes": attributes(s["attrs"]),
                "status": {"code": s["status"]} if s["status"] != ERROR
                else {"code": ERROR, "message": "failed"},
            }
            if root is not None:
                out["parentSpanId"] = root
            else:
                root = span_id
            if s["flags"] is not None:
                out["flags"] = s["flags"]
            if s["state"] is not None:
                out["traceState"] = s["state"]
            if s["events"]:
                out["events"] = [{"timeUnixNano": str(start + 1000 * (i + 1)), "name": name,
                                  "attributes": attributes(attrs)}
                                 for i, (name, attrs) in enumerate(s["events"])]
            blocks[s["request"]].setdefault((s["resource"], s["scope"]), []).append(out)

    requests = []
    for request in range(REQUESTS):
        by_resource = {}
        for (ri, si), spans in blocks[request].items():
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
            if request == 2 and len(scope_spans) > 1:
                # The same resource in two blocks of one request.
                resource_spans.append(dict(block, scopeSpans=scope_spans[:1]))
                resource_spans.append(dict(block, scopeSpans=scope_spans[1:]))
            else:
                resource_spans.append(dict(block, scopeSpans=scope_spans))
        requests.append({"resourceSpans": resource_spans})
    return requests, labels



def main():
    requests, _ = build()
    for request in requests:
        sys.stdout.write(json.dumps(request, separators=(",", ":")) + "\n")

if __name__ == "__main__":
    main()
