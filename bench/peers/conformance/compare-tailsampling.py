#!/usr/bin/env python3
"""Compares the traces two collectors' tail_sampling cases kept: conformance-tailsampling.sh's
comparator.

    compare-tailsampling.py INPUT LEFT_DIR RIGHT_DIR CASE[:KNOWN,...]...
      (tailsampling_CASE.json in both directories; a missing file is a case that kept nothing)

INPUT is the recorded input (tailsampling-traces.json). Each output file holds OTLP/JSON export
requests, one a line, as the file exporters of Sluice and the Go collector write them. Per case it
compares the set of trace IDs kept and, per trace kept by both, the number of spans (and of
distinct span IDs). A trace is named by its trace ID and the label make-tailsampling-traces.py
gave it. It also says when a side kept a trace with fewer spans than were sent (a trace decided
before all its spans came) or wrote a span twice.

A case may name known differences (CASE:typed-values=app.level/int,zero-bound=app.level; see
KNOWN), deliberate ones (processor-tailsampling's policies say why): the traces such a difference
touches are found in the input, and when every trace that differs is touched by one of the case's
known differences, the case is reported as the same but for them (its differing traces are still
listed) and does not count as differing.

Prints one block per case: "same" (with how many traces of how many were kept), or each
difference; exits 1 when a case differs otherwise. Only the Python standard library.
"""
import importlib.util
import json
import os
import sys

LEFT, RIGHT = "sluice", "otelcol"
MAX_LINES = 40  # traces listed per difference; the rest are counted


def spans_by_trace(path):
    """trace ID -> list of span IDs, in the order written (empty when the file does not exist)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            for rs in json.loads(line).get("resourceSpans", []):
                for ss in rs.get("scopeSpans", []):
                    for span in ss.get("spans", []):
                        out.setdefault(span.get("traceId", "").lower(), []).append(
                            span.get("spanId", "").lower())
    return out


def value(v):
    """An OTLP/JSON AnyValue as (type, value)."""
    if not v:
        return ("empty", None)
    (k, x), = v.items()
    return {"intValue": "int", "stringValue": "string", "boolValue": "bool",
            "doubleValue": "double"}.get(k, k), x


def sent_traces(path):
    """trace ID -> its spans in the order sent, each (start ns, end ns, span attributes, resource
    attributes), attributes as key -> (type, value)."""
    out = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            for rs in json.loads(line).get("resourceSpans", []):
                resource = {a["key"]: value(a.get("value")) for a in
                            rs.get("resource", {}).get("attributes", [])}
                for ss in rs.get("scopeSpans", []):
                    for span in ss.get("spans", []):
                        attrs = {a["key"]: value(a.get("value"))
                                 for a in span.get("attributes", [])}
                        out.setdefault(span["traceId"].lower(), []).append(
                            (int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"]),
                             attrs, resource))
    return out


def typed_values(argument, spans):
    """typed-values=KEY/TYPE: the Collector reads a value of another type than the policy's as
    that type's zero (0, "", false); Sluice reads it as no value. Touches a trace with KEY of
    another type than TYPE on a span or a resource."""
    key, wanted = argument.split("/")
    return any(key in d and d[key][0] != wanted for s in spans for d in (s[2], s[3]))


def zero_bound(argument, spans):
    """zero-bound=KEY: the Collector reads min_value 0 as no lower bound; Sluice as 0. Touches a
    trace with KEY an int below 0 on a span or a resource."""
    return any(argument in d and d[argument][0] == "int" and int(d[argument][1]) < 0
               for s in spans for d in (s[2], s[3]))


def latency_prefix(argument, spans):
    """latency-prefix=LOW/HIGH: the Collector checks threshold_ms LOW and upper_threshold_ms HIGH
    after each span, on the spans seen so far (in the order they arrived), and samples at the
    first span where they hold; Sluice checks the whole trace's duration once. Touches a trace
    whose duration (whole milliseconds) was in the range after some of its spans and is not at
    the end."""
    low_ms, high_ms = (int(x) for x in argument.split("/"))
    low, high, inside, duration = None, None, False, None
    for start, end, _, _ in spans:
        low = start if low is None else min(low, start)
        high = end if high is None else max(high, end)
        duration = int((high - low) / 1_000_000)
        inside = inside or low_ms < duration <= high_ms
    return inside and not (duration is not None and low_ms < duration <= high_ms)


KNOWN = {"typed-values": typed_values, "zero-bound": zero_bound,
         "latency-prefix": latency_prefix}


def labels():
    """trace ID -> label, from the generator beside this script (empty if it cannot be loaded)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "make-tailsampling-traces.py")
    try:
        spec = importlib.util.spec_from_file_location("make_tailsampling_traces", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.build()[1]
    except Exception:  # the labels only help reading; the comparison does not need them
        return {}


def differing_traces(left, right):
    """The trace IDs kept by one side only, or with other spans."""
    return (set(left) ^ set(right)) | {
        t for t in set(left) & set(right)
        if len(left[t]) != len(right[t]) or set(left[t]) != set(right[t])}


def compare(sent, names, left, right):
    """The lines describing how left and right differ for one case; [] when they do not."""
    lines = []

    def named(trace_id):
        return "%s (%s)" % (trace_id, names.get(trace_id, "?"))

    def listing(title, ids):
        if not ids:
            return
        lines.append("  %s: %d" % (title, len(ids)))
        for trace_id in sorted(ids, key=lambda t: names.get(t, t))[:MAX_LINES]:
            lines.append("    " + named(trace_id))
        if len(ids) > MAX_LINES:
            lines.append("    ... and %d more" % (len(ids) - MAX_LINES))

    listing("kept by %s only" % LEFT, set(left) - set(right))
    listing("kept by %s only" % RIGHT, set(right) - set(left))
    for trace_id in sorted(set(left) & set(right), key=lambda t: names.get(t, t)):
        a, b = left[trace_id], right[trace_id]
        if len(a) != len(b) or set(a) != set(b):
            lines.append("  %s: %s kept %d spans (%d distinct), %s %d (%d distinct), %d sent" % (
                named(trace_id), LEFT, len(a), len(set(a)), RIGHT, len(b), len(set(b)),
                sent.get(trace_id, 0)))
    return lines


def notes(side, kept, sent, names):
    """Lines on what one side kept that is not whole: partial traces, spans written twice, traces
    that were never sent."""
    out = []
    for trace_id, span_ids in sorted(kept.items()):
        label = names.get(trace_id, "?")
        if trace_id not in sent:
            out.append("  note: %s kept %s, which was not sent" % (side, trace_id))
        elif len(set(span_ids)) < sent[trace_id]:
            out.append("  note: %s kept %d of the %d spans of %s (%s)" % (
                side, len(set(span_ids)), sent[trace_id], trace_id, label))
        if len(span_ids) != len(set(span_ids)):
            out.append("  note: %s wrote spans of %s (%s) more than once" % (side, trace_id, label))
    return out


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    input_path, left_dir, right_dir, cases = argv[0], argv[1], argv[2], argv[3:]
    traces = sent_traces(input_path)
    sent = {t: len(s) for t, s in traces.items()}
    names = labels()
    differing = []
    for spec in cases:
        case, _, known = spec.partition(":")
        known = [k.partition("=") for k in known.split(",") if k]
        left = spans_by_trace(os.path.join(left_dir, "tailsampling_%s.json" % case))
        right = spans_by_trace(os.path.join(right_dir, "tailsampling_%s.json" % case))
        lines = compare(sent, names, left, right)
        extra = notes(LEFT, left, sent, names) + notes(RIGHT, right, sent, names)
        unexplained = {t for t in differing_traces(left, right)
                       if not any(KNOWN[k](arg, traces.get(t, [])) for k, _, arg in known)}
        if lines and not unexplained:
            print("%s: same but for %s (%d traces differ, each touched by them; %s kept %d traces,"
                  " %s %d, of %d)" % (case, ", ".join(k + ("=" + a if a else "")
                                                      for k, _, a in known),
                                     len(differing_traces(left, right)), LEFT, len(left), RIGHT,
                                     len(right), len(sent)))
            for line in lines:
                print(line)
        elif lines:
            differing.append(case)
            print("%s: differs (%s kept %d traces, %s %d, of %d%s)" % (
                case, LEFT, len(left), RIGHT, len(right), len(sent),
                "; %d not touched by its known differences" % len(unexplained) if known else ""))
            for line in lines:
                print(line)
        else:
            print("%s: same (%d of %d traces kept)" % (case, len(right), len(sent)))
        for line in extra:
            print(line)
    print("tailsampling: %d cases, %d same, %d differ%s" % (
        len(cases), len(cases) - len(differing), len(differing),
        (": " + " ".join(differing)) if differing else ""))
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
