#!/usr/bin/env python3
"""Writes remotewrite-metrics.json and remotewrite-expected.json, what prometheus.sh remotewrite
sends to Sluice and to the Go collector, and what it expects Prometheus to hold afterwards.

    cd bench/peers/prometheus && python3 make-remotewrite-metrics.py

remotewrite-metrics.json: one OTLP/JSON ExportMetricsServiceRequest a line, one line per case (the
last, "end", only says that everything before it was sent). Times are fixed, within two minutes
after 2026-01-01T00:00:00Z; the sender moves every time by one whole number of seconds so that the
newest lands just before "now" (Prometheus refuses samples far from its clock). Every case has its
own resources and metric names, so that no series and no target_info is shared between cases, and
ends with a resource block {service.name: peer-sentinel} holding peer.sentinel{case=NAME}: once
Prometheus holds that sample, it holds the whole case (one request is one batch, one remote write
request, committed whole).

remotewrite-expected.json: per case, the metric families (Prometheus metric names) the
Collector's rules make of the case, written out here by hand from the rules (the OpenTelemetry
specification's Prometheus compatibility: unit and type suffixes, escaping), the metrics no
family is expected of and why, the job and instance values of its resources (to tell which case a
target_info series belongs to) and its known differences (deliberate ones of Sluice, listed in
docs/components/prometheusremotewrite-exporter.md).

Deterministic: running it again writes the same files.
"""
import base64
import json

BASE_NS = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z
START = str(BASE_NS)

TRACE_A = "5b8efff798038103d269b633813fc60c"
SPAN_A = "eee19b7ec3c1b174"
TRACE_B = "0af7651916cd43dd8448eb211c80319c"
SPAN_B = "b7ad6b7169203331"


def t(seconds, nanos=0):
    return str(BASE_NS + seconds * 1_000_000_000 + nanos)


def value(v):
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, bytes):
        return {"bytesValue": base64.b64encode(v).decode()}
    if isinstance(v, dict):
        return {"kvlistValue": {"values": attrs(v)}}
    if isinstance(v, list):
        return {"arrayValue": {"values": [value(x) for x in v]}}
    return {"stringValue": v}


def attrs(d):
    """Attributes from a dict, or from a list of (key, value) pairs (to repeat a key)."""
    pairs = d.items() if isinstance(d, dict) else d
    return [{"key": k, "value": value(v)} for k, v in pairs]


def resource(d):
    return {"attributes": attrs(d)}


def scope(name="", version="", attributes=None):
    s = {}
    if name:
        s["name"] = name
    if version:
        s["version"] = version
    if attributes:
        s["attributes"] = attrs(attributes)
    return s


def number(time, v, a=None, exemplars=None, flags=0):
    p = {"attributes": attrs(a or {}), "startTimeUnixNano": START, "timeUnixNano": time}
    if isinstance(v, int) and not isinstance(v, bool):
        p["asInt"] = str(v)
    elif v is not None:
        p["asDouble"] = v
    if exemplars:
        p["exemplars"] = exemplars
    if flags:
        p["flags"] = flags
    return p


def exemplar(time, v, trace=None, span=None, a=None):
    e = {"timeUnixNano": time}
    if isinstance(v, int):
        e["asInt"] = str(v)
    elif v is not None:
        e["asDouble"] = v
    if trace:
        e["traceId"] = trace
    if span:
        e["spanId"] = span
    if a:
        e["filteredAttributes"] = attrs(a)
    return e


def histogram_point(time, bounds, counts, a=None, total=None, with_sum=True, exemplars=None,
                    flags=0):
    p = {"attributes": attrs(a or {}), "startTimeUnixNano": START, "timeUnixNano": time,
         "count": str(sum(counts) if total is None else total),
         "bucketCounts": [str(c) for c in counts], "explicitBounds": bounds}
    if with_sum:
        p["sum"] = float(sum((i + 1) * c for i, c in enumerate(counts)))
    if exemplars:
        p["exemplars"] = exemplars
    if flags:
        p["flags"] = flags
    return p


def exponential_point(time, scale, a=None, positive=None, negative=None, zero=0,
                      zero_threshold=None, with_sum=True, exemplars=None, flags=0):
    """positive and negative: (offset, counts). The count is what the buckets and zero hold, as
    Prometheus checks it."""
    total = zero
    p = {"attributes": attrs(a or {}), "startTimeUnixNano": START, "timeUnixNano": time,
         "scale": scale, "zeroCount": str(zero)}
    for side, buckets in (("positive", positive), ("negative", negative)):
        if buckets is not None:
            offset, counts = buckets
            p[side] = {"offset": offset, "bucketCounts": [str(c) for c in counts]}
            total += sum(counts)
    p["count"] = str(total)
    if with_sum:
        p["sum"] = float(total) * 1.5
    if zero_threshold is not None:
        p["zeroThreshold"] = zero_threshold
    if exemplars:
        p["exemplars"] = exemplars
    if flags:
        p["flags"] = flags
    return p


def summary_point(time, count, total, quantiles, a=None, flags=0):
    p = {"attributes": attrs(a or {}), "startTimeUnixNano": START, "timeUnixNano": time,
         "count": str(count), "sum": total,
         "quantileValues": [{"quantile": q, "value": v} for q, v in quantiles]}
    if flags:
        p["flags"] = flags
    return p


def gauge(name, points, unit=""):
    return {"name": name, "unit": unit, "gauge": {"dataPoints": points}}


def sum_metric(name, points, unit="", monotonic=True, temporality=2):
    return {"name": name, "unit": unit,
            "sum": {"dataPoints": points, "aggregationTemporality": temporality,
                    "isMonotonic": monotonic}}


def histogram(name, points, unit="", temporality=2):
    return {"name": name, "unit": unit,
            "histogram": {"dataPoints": points, "aggregationTemporality": temporality}}


def exponential(name, points, unit="", temporality=2):
    return {"name": name, "unit": unit,
            "exponentialHistogram": {"dataPoints": points, "aggregationTemporality": temporality}}


def summary(name, points, unit=""):
    return {"name": name, "unit": unit, "summary": {"dataPoints": points}}


def described(metric, text):
    """A metric with a description: the help remote write 2.0 sends in its metadata."""
    metric["description"] = text
    return metric


def block(res, scopes):
    """A resource block: res is a dict of attributes, scopes a list of (scope, metrics)."""
    return {"resource": resource(res),
            "scopeMetrics": [{"scope": s, "metrics": ms} for s, ms in scopes]}


def point_times(node):
    """Every data point's time in the blocks (exemplars' times aside)."""
    if isinstance(node, list):
        return [x for item in node for x in point_times(item)]
    if not isinstance(node, dict):
        return []
    found = [int(node["timeUnixNano"])] if "startTimeUnixNano" in node else []
    return found + [x for k, v in node.items() if k != "exemplars" for x in point_times(v)]


CASES = []


def case(name, blocks, families, dropped=(), known=(), newest=None):
    """One request: the blocks, then the sentinel at the case's newest time."""
    newest = newest or max(point_times(blocks))
    sentinel = block({"service.name": "peer-sentinel"}, [
        (scope("peer.sentinel"),
         [gauge("peer.sentinel", [number(str(newest), 1, {"case": name})])])])
    identities = set()
    for b in blocks:
        a = {kv["key"]: kv["value"] for kv in b["resource"]["attributes"]}
        text = {k: str(next(iter(v.values()))) for k, v in a.items()}
        if "service.name" in text and text["service.name"]:
            ns = text.get("service.namespace")
            identities.add(text["service.name"] if ns is None else ns + "/" + text["service.name"])
        if text.get("service.instance.id"):
            identities.add(text["service.instance.id"])
    CASES.append({
        "request": {"resourceMetrics": blocks + [sentinel]},
        "expected": {"case": name, "families": sorted(families + ["peer_sentinel"]),
                     "dropped": [{"metric": m, "why": why} for m, why in dropped],
                     "known": list(known), "identities": sorted(identities)},
    })


# gauge: doubles and ints, unit suffixes of gauges, values at the edges of float64, a metric
# without points.
case("gauge", [block({"service.name": "gauge-svc", "service.instance.id": "gauge-1"}, [
    (scope("peer.gauge", "1.0.0"), [
        described(gauge("gauge.temperature", [number(t(10), 21.5, {"room": "kitchen"}),
                                              number(t(10), 12.25, {"room": "cellar"})], "Cel"),
                  "The room's temperature."),
        gauge("gauge.queue.size", [number(t(10), 7, {"queue": "a"}),
                                   number(t(10), -3, {"queue": "b"}),
                                   number(t(10), 9007199254740993, {"queue": "big"})], "{item}"),
        gauge("gauge.cpu.usage", [number(t(10), 0.25)], "1"),
        gauge("gauge.ratio.used", [number(t(10), 0.5)], "1"),
        gauge("gauge.disk", [number(t(10), 1.5e12)], "By"),
        gauge("gauge.tiny", [number(t(10), 5e-324, {"v": "denormal"}),
                             number(t(10), -0.0, {"v": "negative-zero"}),
                             number(t(10), 1.7976931348623157e308, {"v": "max"})]),
        gauge("gauge.nothing", []),
    ])])],
    ["gauge_temperature_celsius", "gauge_queue_size", "gauge_cpu_usage_ratio", "gauge_used_ratio",
     "gauge_disk_bytes", "gauge_tiny"],
    dropped=[("gauge.nothing", "no data points")])

# sum: counters (_total, unit suffixes, exemplars), non-monotonic sums (gauges, no exemplars).
long_attrs = {"http.route": "/api/v1/orders/{order_id}/items/{item_id}/history",
              "user.agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like "
                            "Gecko)"}
case("sum", [block({"service.namespace": "shop", "service.name": "sum-svc",
                    "service.instance.id": "sum-1", "host.name": "sum-host"}, [
    (scope("peer.sum", "2.0", {"scope.kind": "counter"}), [
        described(sum_metric("sum.requests", [
            number(t(20), 100, {"route": "/a"}, exemplars=[
                exemplar(t(19, 500_000), 3, TRACE_A, SPAN_A, {"user": "u1"}),
                exemplar(t(18, 999_999), 2.5)]),
            number(t(20), 7.5, {"route": "/b"}, exemplars=[
                exemplar(t(19), 1.25, TRACE_B, SPAN_B, long_attrs),
                exemplar(t(19, 1_000_000), 4, None, SPAN_B, {"k": "v"})]),
        ], "{request}"), 'Requests served, by route.\nSecond line: \u00fcber "quoted" \\ text.'),
        sum_metric("sum.bytes.sent", [number(t(20), 2048.0)], "By"),
        sum_metric("sum.calls_total", [number(t(20), 12)]),
        sum_metric("sum.total.retries", [number(t(20), 3)]),
        sum_metric("sum.uptime", [number(t(20), 3600.5)], "s"),
        sum_metric("sum.active", [number(t(20), -4)], "1", monotonic=False),
        sum_metric("sum.queue", [number(t(20), 9, exemplars=[exemplar(t(19), 9, TRACE_A, SPAN_A)])],
                   "{item}", monotonic=False),
    ])])],
    ["sum_requests_total", "sum_bytes_sent_total", "sum_calls_total", "sum_retries_total",
     "sum_uptime_seconds_total", "sum_active", "sum_queue", "target_info"])

# delta: what Prometheus cannot take (delta and unspecified temporality), beside a gauge; the
# dropped points are the newest, and target_info takes its time from them.
case("delta", [block({"service.name": "delta-svc", "service.instance.id": "delta-1",
                      "host.name": "delta-host"}, [
    (scope("peer.delta"), [
        gauge("delta.seen", [number(t(30), 1)]),
        sum_metric("delta.requests", [number(t(35), 5)], "{request}", temporality=1),
        sum_metric("delta.unspecified", [number(t(35), 5)], temporality=0),
        histogram("delta.latency", [histogram_point(t(35), [1.0], [1, 1])], "ms", temporality=1),
        exponential("delta.sizes", [exponential_point(t(35), 0, positive=(0, [1]))], "By",
                    temporality=1),
    ])])],
    ["delta_seen", "target_info"],
    dropped=[("delta.requests", "delta sum"), ("delta.unspecified", "unspecified temporality"),
             ("delta.latency", "delta histogram"), ("delta.sizes", "delta exponential histogram")])

# histogram: buckets, bounds written as Go writes floats, exemplars to their bucket, no sum, no
# bounds, fewer counts than bounds, an empty point, points of one series out of order.
bounds = [1e-05, 0.5, 1.0, 2.5, 5.0, 10.0, 250.75, 2.5e6, 1e21]
case("histogram", [block({"service.name": "histogram-svc", "service.instance.id": "histogram-1"}, [
    (scope("peer.histogram"), [
        described(histogram("histogram.latency", [
            histogram_point(t(40), bounds, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], {"route": "/a"},
                            exemplars=[exemplar(t(39), 0.7, TRACE_A, SPAN_A),
                                       exemplar(t(39, 1_000_000), 5.0, TRACE_A, SPAN_B),
                                       exemplar(t(39, 2_000_000), 3e21, TRACE_B, SPAN_A),
                                       exemplar(t(39, 3_000_000), -1.0, TRACE_B, SPAN_B),
                                       exemplar(t(39, 4_000_000), 2, None, None, {"a": "b"})]),
            histogram_point(t(42), [1.0, 2.0], [3, 4, 5], {"route": "/b"}),
            histogram_point(t(41), [1.0, 2.0], [1, 2, 3], {"route": "/b"}),
        ], "ms"), "Time to the last byte."),
        histogram("histogram.nosum", [histogram_point(t(40), [100.0], [1, 2], with_sum=False)],
                  "By"),
        histogram("histogram.nobounds", [histogram_point(t(40), [], [4])]),
        histogram("histogram.short", [histogram_point(t(40), [1.0, 2.0, 3.0], [2, 3], total=9)]),
        histogram("histogram.empty.point", [histogram_point(t(40), [], [], with_sum=False)]),
    ])])],
    ["histogram_latency_milliseconds_bucket", "histogram_latency_milliseconds_sum",
     "histogram_latency_milliseconds_count", "histogram_nosum_bytes_bucket",
     "histogram_nosum_bytes_count", "histogram_nobounds_bucket", "histogram_nobounds_sum",
     "histogram_nobounds_count", "histogram_short_bucket", "histogram_short_sum",
     "histogram_short_count", "histogram_empty_point_bucket", "histogram_empty_point_count"])

# summary: quantile series, _sum, _count; a point without quantiles; out of order.
case("summary", [block({"service.name": "summary-svc", "service.instance.id": "summary-1",
                        "process.pid": 4242}, [
    (scope("peer.summary"), [
        described(summary("summary.rpc.latency", [
            summary_point(t(50), 10, 5.5, [(0.0, 0.1), (0.5, 0.4), (0.99, 1.2), (0.999, 1.9),
                                           (1.0, 2.0)], {"method": "get"}),
            summary_point(t(49), 8, 4.0, [(0.0, 0.1), (0.5, 0.3), (0.99, 1.1), (0.999, 1.8),
                                          (1.0, 1.9)], {"method": "get"}),
            summary_point(t(50), 0, 0.0, [], {"method": "put"}),
        ], "s"), "RPC latency."),
        summary("summary.size", [summary_point(t(50), 3, 300.0, [(0.5, 100.0)])], "By"),
    ])])],
    ["summary_rpc_latency_seconds", "summary_rpc_latency_seconds_sum",
     "summary_rpc_latency_seconds_count", "summary_size_bytes", "summary_size_bytes_sum",
     "summary_size_bytes_count", "target_info"])

# exponential: native histograms; scales above 8 merged down, gaps, negative buckets, zero
# buckets, empty points, a scale Prometheus cannot take, points of one series out of order.
case("exponential", [block({"service.name": "exponential-svc"}, [
    (scope("peer.exponential"), [
        described(exponential("exponential.latency", [
            exponential_point(t(60), 2, {"shape": "scale2"}, positive=(3, [1, 0, 2, 0, 0, 0, 3]),
                              negative=(-2, [2, 1]), zero=1),
            exponential_point(t(60), 10, {"shape": "scale10"},
                              positive=(-5, [1, 2, 3, 0, 0, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6]),
                              negative=(7, [1, 1, 1, 1, 1]), zero_threshold=0.001),
            exponential_point(t(60), 11, {"shape": "scale11"}, positive=(-9, [1, 0, 0, 0, 0, 0, 0,
                                                                              0, 0, 0, 0, 0, 2])),
            exponential_point(t(60), 8, {"shape": "scale8"}, positive=(0, [5]), with_sum=False),
            exponential_point(t(60), -4, {"shape": "scale-4"}, positive=(-1, [1, 1])),
            exponential_point(t(60), -5, {"shape": "scale-5"}, positive=(0, [1])),
            exponential_point(t(60), 0, {"shape": "zeros"}, positive=(0, [0, 0, 0]), zero=3),
            exponential_point(t(60), 1, {"shape": "negative-only"}, negative=(0, [0, 4, 0, 2])),
            exponential_point(t(60), 0, {"shape": "empty"}),
            exponential_point(t(62), 3, {"shape": "series"}, positive=(1, [2, 2, 2]),
                              exemplars=[exemplar(t(61, 500_000), 1.3, TRACE_A, SPAN_A)]),
            exponential_point(t(60), 3, {"shape": "series"}, positive=(1, [1, 1, 1])),
            exponential_point(t(61), 3, {"shape": "series"}, positive=(1, [1, 2, 1])),
        ], "ms"), "Latency, exponential buckets."),
    ])])],
    ["exponential_latency_milliseconds"],
    dropped=[("exponential.latency{shape=scale-5}", "scale below -4")],
    known=["histograms-in-order"])

# stale: points flagged as having no recorded value, of every type, after a real point; and one
# alone.
case("stale", [block({"service.name": "stale-svc", "service.instance.id": "stale-1"}, [
    (scope("peer.stale"), [
        gauge("stale.gauge", [number(t(70), 1.0), number(t(71), None, flags=1)]),
        sum_metric("stale.counter", [number(t(70), 5), number(t(71), 6, flags=1)]),
        histogram("stale.histogram", [histogram_point(t(70), [1.0], [1, 1]),
                                      histogram_point(t(71), [1.0], [1, 2], flags=1)]),
        summary("stale.summary", [summary_point(t(70), 2, 3.0, [(0.5, 1.5)]),
                                  summary_point(t(71), 3, 4.0, [(0.5, 1.5)], flags=1)]),
        exponential("stale.exponential", [exponential_point(t(70), 0, positive=(0, [1])),
                                          exponential_point(t(71), 0, positive=(0, [2]), flags=1)]),
        gauge("stale.only", [number(t(72), 3.0, flags=1)]),
    ])])],
    ["stale_gauge", "stale_counter_total", "stale_histogram_bucket", "stale_histogram_sum",
     "stale_histogram_count", "stale_summary", "stale_summary_sum", "stale_summary_count",
     "stale_exponential", "stale_only"])

# resources: job and instance from the service attributes (of other types too, empty, partial),
# target_info from the others (colliding keys, empty values), none without job and instance, and
# one resource in two blocks of the request (target_info: one sample per block in the Collector,
# one per batch in Sluice).
twice = {"service.name": "res-e", "service.instance.id": "e-1", "os.type": "linux"}
# (The point attribute `resource` keeps apart the series of resources that give no job and no
# instance.)
cpu = lambda time, v, r: [(scope("peer.resources"), [
    gauge("resources.cpu", [number(time, v, {"resource": r})], "1")])]
case("resources", [
    block({"service.name": "res-a"}, cpu(t(80), 0.1, "a")),
    block({"service.namespace": "res", "service.name": "res-b", "service.instance.id": "b-1",
           "k8s.pod.name": "pod-b", "deployment.environment": "", "host.name": "x",
           "host_name": "y", "host-name": "x"}, cpu(t(80), 0.2, "b")),
    block({"service.instance.id": "c-1", "cloud.region": "eu-west-1"}, cpu(t(80), 0.3, "c")),
    block({"host.name": "lonely"}, cpu(t(80), 0.4, "d")),
    block(twice, cpu(t(80), 0.5, "e")),
    block({"service.name": 42, "service.instance.id": 3.5, "team": ["a", "b"]},
          cpu(t(80), 0.6, "f")),
    block({"service.namespace": "lonely-ns", "region.zone": "z1"}, cpu(t(80), 0.7, "g")),
    block({"service.name": "", "service.instance.id": "h-1", "extra": "e"}, cpu(t(80), 0.8, "h")),
    block({"service.name": "res-i", "service.namespace": "", "k": "v"}, cpu(t(80), 0.9, "i")),
    block({"service.name": "res-j", "job": "from-resource", "instance": "from-resource-instance"},
          cpu(t(80), 1.0, "j")),
    block(twice, cpu(t(82), 0.55, "e")),
], ["resources_cpu_ratio", "target_info"], known=["target-info-per-batch"])

# scope: otel_scope_* labels; empty scope, name only, reserved attribute names, one scope in two
# blocks, a point attribute named like a scope label.
lib_one = scope("lib.one", "1.2.3", {"lib.flavor": "vanilla", "name": "shadow-name",
                                     "version": "shadow-version", "schema_url": "shadow-url",
                                     "empty.attr": "", "count": 3})
ops = lambda time, v, a=None: [
    gauge("scope.ops", [number(time, v, dict({"op": "read"}, **(a or {})))])]
case("scope", [block({"service.name": "scope-svc"}, [
    (lib_one, ops(t(85), 1)),
    (scope(), ops(t(85), 2, {"otel_scope_name": "from-point"})),
    (scope("lib.two"), ops(t(85), 3, {"otel_scope_name": "from-point"})),
    (scope("lib.one", "1.2.3"), ops(t(85), 4)),
    (scope("lib.three", "", {"otel_scope_name": "scope-attribute"}), ops(t(85), 5)),
    (lib_one, ops(t(86), 6)),
])], ["scope_ops"])

# labels: point attributes as labels: keys that escape to one name (values joined), empty
# values, values of every type, escaping, names the translator refuses, names of labels it sets
# itself, a key that an external label also has.
edge = [
    {"host.name": "a", "host_name": "b"},
    {"host.name": "same", "host_name": "same"},
    {"a.b": "1", "a_b": "2", "a-b": "3"},
    {"empty": "", "kept": "k"},
    {"int": 42, "double": 0.1, "big": 1e21, "small": 1e-7, "whole": 100.0, "negzero": -0.0,
     "bool": True, "bytes": b"hi", "array": [1, "x", True, 2.5], "map": {"k": "v", "n": 1},
     "emptyarray": []},
    {"0day": "d", "_private": "p", "__dunder__": "u", "größe": "g", "a..b": "c", "a__b": "dd"},
    {"___": "only-underscores"},  # key_: the underscores collapse to one, "key" goes before
    {"": "empty-key"},
    {"job": "point-job", "instance": "point-instance"},
    {"region": "from-point"},
    {"le": "not-a-bucket", "quantile": "q"},
    {"__name__": "hijack"},
    {"otel_scope_name": "from-point"},
    {"unicode.value": "ünï ✓ \"quoted\" \\ back"},
    [("dup.key", "first"), ("dup.key", "second")],
]
case("labels", [block({"service.name": "labels-svc", "service.instance.id": "labels-1"}, [
    (scope("peer.labels"), [gauge("labels.edge", [
        number(t(100), i + 1, dict(a, case_point=str(i + 1)) if isinstance(a, dict)
               else a + [("case_point", str(i + 1))]) for i, a in enumerate(edge)])]),
])], ["labels_edge"],
    dropped=[("labels.edge{case_point=8}", "empty attribute key: no label name")])

# names: metric names: unit suffixes (main and per unit, mapped, unknown, in braces), suffixes
# already in the name, escaping, a leading digit.
g = lambda name, unit: gauge(name, [number(t(105), 1.0)], unit)
case("names", [block({"service.name": "names-svc"}, [
    (scope("peer.names"), [
        histogram("names.http.server.duration", [histogram_point(t(105), [1.0], [1, 0])], "ms"),
        g("names.memory", "By"),
        g("names.heap.bytes", "By"),
        g("names.ratio.used", "1"),
        sum_metric("names.requests", [number(t(105), 4)], "{request}"),
        g("names.latency", "s"),
        g("names.duration_seconds", "s"),
        g("names.seconds.spent", "s"),
        g("names.throughput", "By/s"),
        g("names.rate", "{request}/s"),
        g("names.weird-name/with:colon", ""),
        g("names..double__under", ""),
        g("2xx.responses", ""),
        sum_metric("names.total.count", [number(t(105), 2)]),
        g("names.heap", "KiBy"),
        g("names.temp", "Cel"),
        g("names.cpu", "%"),
        g("names.unknown.unit", "widgets"),
        g("names.braces", "{packets}/{second}"),
        g("names.micro", "us"),
        g("names.unit.space", " s "),
        sum_metric("names.ratio.counter", [number(t(105), 1)], "1"),
        g("names.ünïcode", ""),
    ])])],
    ["names_http_server_duration_milliseconds_bucket",
     "names_http_server_duration_milliseconds_sum",
     "names_http_server_duration_milliseconds_count", "names_memory_bytes", "names_heap_bytes",
     "names_used_ratio", "names_requests_total", "names_latency_seconds",
     "names_duration_seconds", "names_seconds_spent", "names_throughput_bytes_per_second",
     "names_rate_per_second", "names_weird_name_with:colon", "names_double_under",
     "_2xx_responses", "names_count_total", "names_heap_kibibytes", "names_temp_celsius",
     "names_cpu_percent", "names_unknown_unit_widgets", "names_braces",
     "names_micro_microseconds", "names_unit_space_seconds", "names_ratio_counter_total",
     "names_n_code"])

# order: points of one series out of order in a metric, in two scope blocks, in two blocks of one
# resource; times with fractions of a millisecond.
order_res = {"service.name": "order-svc", "service.instance.id": "order-1"}
case("order", [
    block(order_res, [
        (scope("peer.order"), [
            gauge("order.gauge", [number(t(93), 3.0), number(t(91), 1.0), number(t(92), 2.0),
                                  number(t(94, 400_000), 4.0), number(t(95, 999_999), 5.0)]),
            sum_metric("order.counter", [number(t(92), 20)]),
            histogram("order.histogram", [histogram_point(t(93), [1.0], [2, 2]),
                                          histogram_point(t(91), [1.0], [1, 1])]),
            gauge("order.split", [number(t(92), 2.0)]),
        ]),
        (scope("peer.order"), [sum_metric("order.counter", [number(t(91), 10)])]),
    ]),
    block(order_res, [(scope("peer.order"), [gauge("order.split", [number(t(91), 1.0)])])]),
], ["order_gauge", "order_counter_total", "order_histogram_bucket", "order_histogram_sum",
    "order_histogram_count", "order_split"])

# ownlabels: a histogram point with an attribute le, a summary point with an attribute quantile,
# each beside one without (the series' own label wins in Sluice; the Collector sends both and
# Prometheus refuses the series).
case("ownlabels", [block({"service.name": "ownlabels-svc"}, [
    (scope("peer.ownlabels"), [
        histogram("ownlabels.latency", [
            histogram_point(t(108), [1.0, 10.0], [1, 1, 1], {"le": "7"},
                            exemplars=[exemplar(t(107), 0.5, TRACE_A, SPAN_A)]),
            histogram_point(t(108), [1.0, 10.0], [1, 1, 1], {"x": "y"}),
        ], "ms"),
        summary("ownlabels.rpc", [summary_point(t(108), 3, 3.0, [(0.5, 1.0), (0.9, 2.0)],
                                                {"quantile": "0.3"}),
                                  summary_point(t(108), 3, 3.0, [(0.5, 1.0)], {"x": "y"})], "s"),
    ])])],
    ["ownlabels_latency_milliseconds_bucket", "ownlabels_latency_milliseconds_sum",
     "ownlabels_latency_milliseconds_count", "ownlabels_rpc_seconds", "ownlabels_rpc_seconds_sum",
     "ownlabels_rpc_seconds_count"], known=["own-label"])

# special: values JSON carries as strings (NaN, infinities), points and exemplars without a
# value, metrics without a name or a type.
case("special", [block({"service.name": "special-svc"}, [
    (scope("peer.special"), [
        gauge("special.values", [number(t(110), "NaN", {"v": "nan"}),
                                 number(t(110), "Infinity", {"v": "inf"}),
                                 number(t(110), "-Infinity", {"v": "-inf"}),
                                 number(t(110), None, {"v": "none"})]),
        sum_metric("special.exemplars", [number(t(110), 1, exemplars=[
            exemplar(t(109), "NaN", TRACE_A, SPAN_A),
            exemplar(t(109, 1_000_000), None, TRACE_B, SPAN_B)])]),
        histogram("special.histogram", [histogram_point(t(110), [1.0], [1, 1], exemplars=[
            exemplar(t(109), "NaN", TRACE_A, SPAN_A), exemplar(t(109, 1_000_000), None)])]),
        gauge("", [number(t(110), 1.0)]),
        gauge("___", [number(t(110), 1.0)]),
        {"name": "special.typeless", "unit": ""},
    ])])],
    ["special_values", "special_exemplars_total", "special_histogram_bucket",
     "special_histogram_sum", "special_histogram_count"],
    dropped=[("(empty name)", "no Prometheus name"), ("___", "no Prometheus name"),
             ("special.typeless", "no data")],
    known=["exemplar-times", "nan-exemplar-in-inf-bucket"])

# end: only the sentinel, after every case.
case("end", [], [], newest=int(t(115)))


def main():
    with open("remotewrite-metrics.json", "w") as f:
        for c in CASES:
            f.write(json.dumps(c["request"], separators=(",", ":"), ensure_ascii=False) + "\n")
    with open("remotewrite-expected.json", "w") as f:
        json.dump({"base_ns": BASE_NS, "cases": [c["expected"] for c in CASES]}, f, indent=1,
                  ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
