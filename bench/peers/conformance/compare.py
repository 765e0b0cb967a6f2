#!/usr/bin/env python3
"""Compares what two collectors wrote for the same input: conformance.sh's comparator.

    compare.py LEFT_DIR RIGHT_DIR CASE[:KNOWN,...]... [--items CASE...]
      (CASE.json in both directories)

Each file holds OTLP/JSON export requests, one a line, as the file exporters of Sluice and the Go
collector write them. Timestamps are left aside; everything else is normalized (attribute sets
sorted, values by their type, collector.instance.id's value replaced) and compared:

- metrics: per resource (its attribute set), per metric name: the type, unit, description,
  temporality and monotonicity; per data point attribute set (a series): the value. A cumulative
  series is compared by the point emitted last, a delta series by the sum of its points (counts,
  sums and bucket counts added, exemplars put together; exponential histograms brought to the
  smaller scale first), so the comparison does not depend on when the flushes fell (delta
  exponential histograms summed from several points are compared at the smaller of the two
  scales). Exemplars are compared as sets of trace ID, span ID, value and filtered attributes.
  The scope names are compared apart.
- traces and logs, and metrics after --items (for connectors that pass metrics on rather than
  make them): the multiset of items (spans, log records, data points with their metric's header;
  each with its resource and scope, every field as written).

Prints one block per case: "same", or each difference; exits 1 when a case differs. A case may
name known differences (CASE:typed-keys,scope-names; see EXPLANATIONS): its differences are still
printed, and when the outputs are the same once those are taken away, it says so and the case
does not count as differing. Only the Python standard library.
"""
import json
import math
import os
import sys

LEFT, RIGHT = "sluice", "otelcol"
MAX_LINES = 12  # differences printed per metric; the rest are counted
INSTANCE_ID = "collector.instance.id"
TEMPORALITY = {"AGGREGATION_TEMPORALITY_UNSPECIFIED": 0, "AGGREGATION_TEMPORALITY_DELTA": 1,
               "AGGREGATION_TEMPORALITY_CUMULATIVE": 2}
KINDS = ("sum", "gauge", "histogram", "exponentialHistogram", "summary")


def value(v):
    """An AnyValue as a hashable (type, value)."""
    if v is None or not v:
        return ("empty", None)
    (k, x), = v.items()
    if k == "stringValue":
        return ("str", x)
    if k == "intValue":
        return ("int", int(x))
    if k == "doubleValue":
        return ("double", float(x))
    if k == "boolValue":
        return ("bool", bool(x))
    if k == "bytesValue":
        return ("bytes", x)
    if k == "arrayValue":
        return ("array", tuple(value(e) for e in x.get("values", [])))
    if k == "kvlistValue":
        return ("map", attrs(x.get("values", [])))
    return (k, json.dumps(x, sort_keys=True))


def attrs(kvs):
    out = []
    for kv in kvs or []:
        val = value(kv.get("value"))
        if kv["key"] == INSTANCE_ID:
            val = ("str", "<this collector's id>")
        out.append((kv["key"], val))
    return tuple(sorted(out))


def show_value(v):
    t, x = v
    if t == "str":
        return json.dumps(x)
    if t in ("int", "double"):
        return "%s(%s)" % (t, x)
    if t == "bool":
        return "true" if x else "false"
    if t == "array":
        return "[" + ", ".join(show_value(e) for e in x) + "]"
    if t == "map":
        return show_attrs(x)
    return "%s:%s" % (t, x)


def show_attrs(a):
    return "{" + ", ".join("%s=%s" % (k, show_value(v)) for k, v in a) + "}"


def num(x):
    return 0 if x is None else (float(x) if isinstance(x, float) else int(x))


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


# ---- metrics ---------------------------------------------------------------------------------

def exemplars(p):
    """A point's exemplars as a sorted list of (trace ID, span ID, value), times left aside."""
    out = []
    for e in p.get("exemplars", []):
        v = float(e["asDouble"]) if "asDouble" in e else float(int(e.get("asInt", 0)))
        out.append((e.get("traceId", ""), e.get("spanId", ""), v,
                    attrs(e.get("filteredAttributes"))))
    return sorted(out)


def point_value(kind, p):
    v = point_value_of(kind, p)
    if p.get("exemplars"):
        v["exemplars"] = exemplars(p)
    return v


def point_value_of(kind, p):
    if kind in ("sum", "gauge"):
        if "asDouble" in p:
            return {"double": float(p["asDouble"])}
        return {"int": int(p.get("asInt", 0))}
    if kind == "histogram":
        v = {"count": int(p.get("count", 0)), "sum": float(p.get("sum", 0)),
             "bounds": [float(b) for b in p.get("explicitBounds", [])],
             "buckets": [int(c) for c in p.get("bucketCounts", [])]}
        for k in ("min", "max"):
            if k in p:
                v[k] = float(p[k])
        return v
    if kind == "exponentialHistogram":
        v = {"count": int(p.get("count", 0)), "sum": float(p.get("sum", 0)),
             "scale": int(p.get("scale", 0)), "zero": int(p.get("zeroCount", 0)),
             "positive": buckets(p.get("positive")), "negative": buckets(p.get("negative"))}
        for k in ("min", "max"):
            if k in p:
                v[k] = float(p[k])
        if "zeroThreshold" in p and float(p["zeroThreshold"]) != 0:
            v["zeroThreshold"] = float(p["zeroThreshold"])
        return v
    return {"raw": json.dumps(p, sort_keys=True)}


def buckets(b):
    """Exponential buckets as {index: count}, empty buckets left out."""
    if not b:
        return {}
    offset = int(b.get("offset", 0))
    return {offset + i: int(c) for i, c in enumerate(b.get("bucketCounts", [])) if int(c)}


def downscale(bs, by):
    out = {}
    for i, c in bs.items():
        j = i >> by
        out[j] = out.get(j, 0) + c
    return out


def add(kind, a, b):
    """The sum of two delta points."""
    if a is None:
        return b
    out = add_values(kind, a, b)
    if "exemplars" in a or "exemplars" in b:
        out["exemplars"] = sorted(a.get("exemplars", []) + b.get("exemplars", []))
    return out


def add_values(kind, a, b):
    if kind in ("sum", "gauge"):
        k = "double" if "double" in a or "double" in b else "int"
        return {k: a.get("int", a.get("double", 0)) + b.get("int", b.get("double", 0))}
    out = dict(a)
    out["count"] = a["count"] + b["count"]
    out["sum"] = a["sum"] + b["sum"]
    if "min" in a and "min" in b:
        out["min"] = min(a["min"], b["min"])
    if "max" in a and "max" in b:
        out["max"] = max(a["max"], b["max"])
    if kind == "histogram":
        if a["bounds"] != b["bounds"]:
            out["bounds"] = ["<changed between points>"]
        n = max(len(a["buckets"]), len(b["buckets"]))
        out["buckets"] = [(a["buckets"][i] if i < len(a["buckets"]) else 0)
                          + (b["buckets"][i] if i < len(b["buckets"]) else 0) for i in range(n)]
        return out
    if kind == "exponentialHistogram":
        scale = min(a["scale"], b["scale"])
        out["scale"] = scale
        out["zero"] = a["zero"] + b["zero"]
        for side in ("positive", "negative"):
            x = downscale(a[side], a["scale"] - scale)
            for i, c in downscale(b[side], b["scale"] - scale).items():
                x[i] = x.get(i, 0) + c
            out[side] = x
        return out
    return b


def close(x, y):
    if isinstance(x, float) or isinstance(y, float):
        return math.isclose(float(x), float(y), rel_tol=1e-9, abs_tol=1e-12)
    return x == y


def common_scale(a, b):
    """Two exponential histograms brought to the smaller of their scales."""
    scale = min(a["scale"], b["scale"])
    out = []
    for x in (a, b):
        y = dict(x, scale=scale)
        for side in ("positive", "negative"):
            y[side] = downscale(x[side], x["scale"] - scale)
        out.append(y)
    return out


def same_value(a, b):
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if k == "exemplars":
            if len(x) != len(y) or not all(
                    p[:2] == q[:2] and p[3] == q[3] and close(p[2], q[2]) for p, q in zip(x, y)):
                return False
        elif isinstance(x, list):
            if len(x) != len(y) or not all(close(p, q) for p, q in zip(x, y)):
                return False
        elif isinstance(x, dict):
            if x != y:
                return False
        elif not close(x, y):
            return False
    return True


def show_point(v):
    parts = []
    for k, x in v.items():
        if k == "exemplars":
            x = "[" + ", ".join("%s/%s=%.6g" % (e[0][:8], e[1][:8], e[2]) for e in x) + "]"
        elif isinstance(x, dict):
            x = "{" + ", ".join("%d:%d" % (i, x[i]) for i in sorted(x)) + "}"
        elif isinstance(x, float):
            x = "%.6g" % x
        parts.append("%s=%s" % (k, x))
    return " ".join(parts)


def metrics_model(requests):
    """{resource: {name: meta}}, {(resource, name, attrs): value}, {resource: set(scope names)}."""
    meta, series, scopes, last, points = {}, {}, {}, {}, {}
    for request in requests:
        for rm in request.get("resourceMetrics", []):
            res = attrs(rm.get("resource", {}).get("attributes"))
            for sm in rm.get("scopeMetrics", []):
                scopes.setdefault(res, set()).add(sm.get("scope", {}).get("name", ""))
                for m in sm.get("metrics", []):
                    kind = next((k for k in KINDS if k in m), "none")
                    data = m.get(kind, {})
                    temporality = data.get("aggregationTemporality", 0)
                    temporality = TEMPORALITY.get(temporality, temporality)
                    info = {"type": kind, "unit": m.get("unit", ""),
                            "description": m.get("description", ""),
                            "temporality": {0: "unspecified", 1: "delta", 2: "cumulative"}.get(
                                int(temporality), str(temporality)),
                            "monotonic": bool(data.get("isMonotonic", False))}
                    previous = meta.setdefault(res, {}).setdefault(m["name"], info)
                    if previous != info:
                        previous["changed"] = "between requests: %s then %s" % (previous, info)
                    for p in data.get("dataPoints", []):
                        key = (res, m["name"], attrs(p.get("attributes")))
                        v = point_value(kind, p)
                        if info["temporality"] == "delta":
                            series[key] = add(kind, series.get(key), v)
                            points[key] = points.get(key, 0) + 1
                        else:
                            t = int(p.get("timeUnixNano", 0))
                            if key not in last or t >= last[key]:
                                last[key] = t
                                series[key] = v
    return meta, series, scopes, points


# Known differences: each names a normalization that, applied to both sides, takes away one
# deliberate difference (listed with its reason in the connector's docs page).
EXPLANATIONS = {
    "scope-names": "the scope names differ",
    "typed-keys": "Sluice keeps an int and a string of the same digits as different series; "
                  "compared again with attribute values as strings and such series added up",
    "scope-keys": "Sluice keeps spans of different instrumentation scopes in different series; "
                  "compared again without the scope attributes and such series added up",
}


def as_string(v):
    t, x = v
    if t == "int":
        return ("str", str(x))
    if t == "bool":
        return ("str", "true" if x else "false")
    return v


def normalize(model, known):
    """The model with the known differences' normalizations applied."""
    meta, series, scopes, points = model
    if "scope-names" in known:
        scopes = {}
    if "typed-keys" in known or "scope-keys" in known:
        merged = {}
        for (res, name, point), v in series.items():
            if "typed-keys" in known:
                point = tuple((k, as_string(x)) for k, x in point)
            if "scope-keys" in known:
                point = tuple((k, x) for k, x in point
                              if not k.startswith("span.instrumentation.scope."))
            key = (res, name, tuple(sorted(point)))
            merged[key] = add(meta[res][name]["type"], merged.get(key), v)
            points[key] = points.get(key, 0) + 1
        series = merged
    return meta, series, scopes, points


def compare_metrics(left, right, out, known=()):
    lmeta, lseries, lscopes, lpoints = normalize(metrics_model(left), known)
    rmeta, rseries, rscopes, rpoints = normalize(metrics_model(right), known)
    differences = 0
    resources = sorted(set(lmeta) | set(rmeta))
    for res in resources:
        if res not in rmeta or res not in lmeta:
            side = LEFT if res in lmeta else RIGHT
            out.append("  resource %s: only in %s (%d metrics)" % (
                show_attrs(res), side, len((lmeta.get(res) or rmeta.get(res)))))
            differences += 1
            continue
        if lscopes.get(res, set()) != rscopes.get(res, set()):
            out.append("  scope names of %s: %s %s, %s %s" % (
                show_attrs(res), LEFT, sorted(lscopes.get(res, ())), RIGHT,
                sorted(rscopes.get(res, ()))))
            differences += 1
        for name in sorted(set(lmeta[res]) | set(rmeta[res])):
            where = "%s %s" % (name, show_attrs(res))
            if name not in rmeta[res] or name not in lmeta[res]:
                side = LEFT if name in lmeta[res] else RIGHT
                out.append("  metric %s: only in %s" % (where, side))
                differences += 1
                continue
            a, b = lmeta[res][name], rmeta[res][name]
            for k in sorted(set(a) | set(b)):
                if a.get(k) != b.get(k):
                    out.append("  metric %s: %s %s %r, %s %r" % (where, k, LEFT, a.get(k), RIGHT,
                                                                b.get(k)))
                    differences += 1
            keys = sorted({k[2] for k in lseries if k[:2] == (res, name)}
                          | {k[2] for k in rseries if k[:2] == (res, name)})
            lines = []
            for point in keys:
                key = (res, name, point)
                x, y = lseries.get(key), rseries.get(key)
                if (x is not None and y is not None and "scale" in x
                        and max(lpoints.get(key, 1), rpoints.get(key, 1)) > 1):
                    # Delta points added up: where the flushes fell decides the scale of the
                    # sum, so the sums are compared at the scale both can be brought to.
                    x, y = common_scale(x, y)
                if x is None or y is None:
                    lines.append("    series %s: only in %s (%s)" % (
                        show_attrs(point), LEFT if y is None else RIGHT, show_point(x or y)))
                elif not same_value(x, y):
                    lines.append("    series %s:\n      %-8s %s\n      %-8s %s" % (
                        show_attrs(point), LEFT, show_point(x), RIGHT, show_point(y)))
            if lines:
                differences += len(lines)
                out.append("  metric %s: %d of %d series differ" % (where, len(lines), len(keys)))
                out.extend(lines[:MAX_LINES])
                if len(lines) > MAX_LINES:
                    out.append("    ... and %d more" % (len(lines) - MAX_LINES))
    summary = "%d resources, %d metrics, %d series (%s), %d series (%s)" % (
        len(resources), sum(len(m) for m in lmeta.values()), len(lseries), LEFT, len(rseries),
        RIGHT)
    return differences, summary


# ---- traces ----------------------------------------------------------------------------------

def canonical(x):
    """A JSON value made comparable: attributes as sorted (key, typed value) pairs, ints written
    as strings (64-bit fields) read as ints, JSON numbers (doubles, enums) as floats, and fields
    at their default value (left out by one writer, written by another) left out."""
    if isinstance(x, dict):
        if "key" in x and "value" in x and len(x) == 2:
            return [x["key"], repr(value(x["value"]))]
        out = {}
        for k, v in sorted(x.items()):
            v = canonical(v)
            if v not in ("", [], {}, 0, None):
                out[k] = v
        return out
    if isinstance(x, list):
        items = [canonical(v) for v in x]
        if items and all(isinstance(i, list) and len(i) == 2 and isinstance(i[0], str)
                         for i in items):
            items.sort()
        return items
    if isinstance(x, str) and x.isdigit():
        return int(x)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    return x


SPAN_KINDS = {"SPAN_KIND_UNSPECIFIED": 0, "SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2,
              "SPAN_KIND_CLIENT": 3, "SPAN_KIND_PRODUCER": 4, "SPAN_KIND_CONSUMER": 5}
STATUS = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}


def scope_of(block):
    scope = block.get("scope", {})
    return (scope.get("name", ""), scope.get("version", ""), attrs(scope.get("attributes")))


def items_model(requests):
    """{(resource, scope, item as canonical JSON): how many times}, and a label per key. Spans
    and log records are items; for metrics, each data point with its metric's header."""
    items, labels = {}, {}

    def count(res, scope, item, label):
        key = (res, scope, json.dumps(canonical(item), sort_keys=True))
        items[key] = items.get(key, 0) + 1
        labels[key] = "%s %s: %s" % (dict(res).get("service.name", ("str", "-"))[1],
                                     dict(res).get("host.name", ("str", "-"))[1], label)

    for request in requests:
        for rs in request.get("resourceSpans", []):
            res = attrs(rs.get("resource", {}).get("attributes"))
            for ss in rs.get("scopeSpans", []):
                for s in ss.get("spans", []):
                    s = dict(s)
                    s["kind"] = SPAN_KINDS.get(s.get("kind"), s.get("kind", 0))
                    st = dict(s.get("status", {}))
                    st["code"] = STATUS.get(st.get("code"), st.get("code", 0))
                    s["status"] = st
                    count(res, scope_of(ss), s, "span %r %s" % (s.get("name"), s.get("spanId")))
        for rl in request.get("resourceLogs", []):
            res = attrs(rl.get("resource", {}).get("attributes"))
            for sl in rl.get("scopeLogs", []):
                for r in sl.get("logRecords", []):
                    count(res, scope_of(sl), r, "log record %s %s" % (
                        r.get("timeUnixNano"), r.get("severityNumber", 0)))
        for rm in request.get("resourceMetrics", []):
            res = attrs(rm.get("resource", {}).get("attributes"))
            for sm in rm.get("scopeMetrics", []):
                for m in sm.get("metrics", []):
                    kind = next((k for k in KINDS if k in m), "none")
                    header = {k: v for k, v in m.items() if k not in KINDS}
                    data = dict(m.get(kind, {}))
                    t = data.get("aggregationTemporality", 0)
                    data["aggregationTemporality"] = TEMPORALITY.get(t, t)
                    for p in data.pop("dataPoints", []) or [None]:
                        count(res, scope_of(sm), dict(header, kind=kind, data=data, point=p),
                              "metric %s point %s" % (m.get("name"), show_attrs(
                                  attrs((p or {}).get("attributes")))))
    return items, labels


def compare_items(left, right, out):
    (l, llabels), (r, rlabels) = items_model(left), items_model(right)
    labels = {**llabels, **rlabels}
    lines = []
    for key in sorted(set(l) | set(r), key=lambda k: labels[k]):
        a, b = l.get(key, 0), r.get(key, 0)
        if a != b:
            lines.append("    %s: %d in %s, %d in %s" % (labels[key], a, LEFT, b, RIGHT))
    if lines:
        out.append("  items: %d differ" % len(lines))
        out.extend(lines[:MAX_LINES * 2])
        if len(lines) > MAX_LINES * 2:
            out.append("    ... and %d more" % (len(lines) - MAX_LINES * 2))
    return len(lines), "%d items (%s), %d items (%s)" % (sum(l.values()), LEFT, sum(r.values()),
                                                         RIGHT)


def main(argv):
    global LEFT, RIGHT
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    left_dir, right_dir, cases = argv[1], argv[2], argv[3:]
    items = False
    LEFT, RIGHT = os.path.basename(left_dir.rstrip("/")), os.path.basename(right_dir.rstrip("/"))
    differing = 0
    cases = [c for c in cases if c != "--items"]
    for case in argv[3:]:
        if case == "--items":
            items = True
            continue
        case, _, known = case.partition(":")
        known = [k for k in known.split(",") if k]
        unknown = [k for k in known if k not in EXPLANATIONS]
        if unknown:
            print("compare: unknown difference %s (known: %s)" % (unknown, sorted(EXPLANATIONS)),
                  file=sys.stderr)
            return 2
        left = load(os.path.join(left_dir, case + ".json"))
        right = load(os.path.join(right_dir, case + ".json"))
        out = []
        if left is None or right is None:
            missing = [n for n, x in ((LEFT, left), (RIGHT, right)) if x is None]
            print("== %s: no output from %s" % (case, " and ".join(missing)))
            differing += 1
            continue
        is_traces = any("resourceSpans" in r or "resourceLogs" in r for r in left + right)
        if is_traces or items:
            is_traces = True
            n, summary = compare_items(left, right, out)
        else:
            n, summary = compare_metrics(left, right, out)
        explained = ""
        if n and known and not is_traces:
            # The same once the known differences are taken away: print them, count the case
            # as the same.
            again = []
            if compare_metrics(left, right, again, known)[0] == 0:
                explained = "; the same but for the known differences: " + "; ".join(
                    "%s (%s)" % (k, EXPLANATIONS[k]) for k in known)
        print("== %s: %s: %s%s" % (case, "same" if n == 0 else "%d differences" % n, summary,
                                   explained))
        for line in out:
            print(line)
        differing += n > 0 and not explained
    print("compare: %d of %d cases the same or differing only as known" % (
        len(cases) - differing, len(cases)))
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
