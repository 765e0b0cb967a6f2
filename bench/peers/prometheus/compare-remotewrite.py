#!/usr/bin/env python3
"""Compares what Sluice and the Go collector wrote to Prometheus: prometheus.sh remotewrite's
comparator.

    compare-remotewrite.py [--name NAME] [--v2] [--metadata METADATA]
        EXPECTED SENT SLUICE OTELCOL [PROMETHEUS_LOG [PROMETHEUS_METRICS]]

EXPECTED is remotewrite-expected.json (per case: the metric families expected, the metrics none
is expected of, the job and instance values of its resources, its known differences); SENT is
send-now.py's record (the time shift, each collector's HTTP answer per case); SLUICE and OTELCOL
are read-series.py's dumps. Series are told apart by their labels without `collector`, and each
belongs to a case: by its metric name, peer_sentinel by its `case` label, target_info by its job or
instance.

Per case it prints the collectors' answers when not both 200, the metric families each collector
has against the expected ones, and the series: the same in both (every sample, native histogram
and exemplar, times included), or each difference (only in one, or both sides' samples,
histograms, exemplars). A difference that is one of Sluice's deliberate ones, named by the case
(docs/components/prometheusremotewrite-exporter.md, "What differs"), is reported as known:

- own-label: a series only in Sluice whose own label (le of a _bucket series, quantile of a
  summary's) a point attribute of the same name also had: Sluice's own label wins; the Collector
  sends both and Prometheus refuses the series (its log says "Invalid labels for series").
- target-info-per-batch: a target_info series of which Sluice has one sample, the newest of the
  Collector's samples: Sluice samples target_info once per batch and resource, the Collector once
  per resource block.

With --v2 (both sent remote write 2.0), one more is known in every case:

- histogram-exemplars-v2: a classic histogram's _bucket series whose exemplars only Sluice has,
  samples the same: Sluice sends a histogram's exemplars with its buckets in 2.0, the Collector's
  2.0 path leaves them out.

With --metadata (read-metadata.py's dump), each series' metadata (type, help, unit, as 2.0 sent
it) is compared too, a difference shown like the others. NAME (default remotewrite) starts the
summary line.

Then what Prometheus logged about the writes (warnings and errors, per collector), and its
counters of samples it did not append, when not 0. Times are printed as t+SECONDS, the fixture's
own times (seconds after its base). Exits 1 when a case has a difference that is not known, when
the collectors answered a request differently, or when a collector's families are not the
expected ones (and the difference is not a known one). Only the Python standard library.
"""
import json
import re
import sys

LEFT, RIGHT = "sluice", "otelcol"
MAX_SHOWN = 6  # samples shown per side in a difference


def load_series(path):
    with open(path, encoding="utf-8") as f:
        series = json.load(f)
    out = {}
    for s in series:
        labels = dict(s["labels"])
        labels.pop("collector", None)
        out[tuple(sorted(labels.items()))] = s
    return out


def show_labels(key):
    d = dict(key)
    name = d.pop("__name__", "")
    return name + "{" + ",".join('%s="%s"' % (k, v) for k, v in sorted(d.items())) + "}"


class Clock:
    """Prints a Prometheus time (ms) as the fixture's time: t+seconds after its base."""

    def __init__(self, sent):
        self.base_ms = (sent["base_ns"] + sent["shift_ns"]) // 1_000_000

    def __call__(self, ms):
        if ms < self.base_ms - 3600_000:
            return "%d" % ms
        return "t+%.3f" % ((ms - self.base_ms) / 1000)


def show_histogram(clock, ts, h):
    def side(sign):
        return sign + "{" + ",".join("%s:%s" % kv for kv in h[
            ("positive" if sign == "+" else "negative") + "_buckets"].items()) + "}"
    count = h.get("count", h.get("count_float"))
    zero = h.get("zero_count", h.get("zero_count_float"))
    return "%s count=%s sum=%s schema=%s zero=%s/%s %s %s spans=%s/%s deltas=%s/%s hint=%s" % (
        clock(ts), count, h.get("sum"), h.get("schema"), zero, h.get("zero_threshold"),
        side("+"), side("-"), h["positive_spans"], h["negative_spans"], h["positive_deltas"],
        h["negative_deltas"], h["reset_hint"])


def semantic(h):
    """A native histogram without its layout: bucket counts per index, empty buckets left out."""
    keep = {k: v for k, v in h.items() if not k.endswith(("_spans", "_deltas", "reset_hint"))}
    for side in ("positive_buckets", "negative_buckets"):
        keep[side] = {k: v for k, v in h[side].items() if v}
    return keep


def differences(clock, left, right):
    """The lines that say how two series differ (empty when they do not)."""
    lines = []
    if left["samples"] != right["samples"]:
        for name, s in ((LEFT, left), (RIGHT, right)):
            shown = " ".join("%s=%s" % (clock(ts), v) for ts, v in s["samples"][:MAX_SHOWN])
            more = len(s["samples"]) - MAX_SHOWN
            lines.append("%s: %d samples %s%s" % (name, len(s["samples"]), shown,
                                                   " (+%d)" % more if more > 0 else ""))
    if left["histograms"] != right["histograms"]:
        same_meaning = len(left["histograms"]) == len(right["histograms"]) and all(
            a[0] == b[0] and semantic(a[1]) == semantic(b[1])
            for a, b in zip(left["histograms"], right["histograms"]))
        if same_meaning:
            lines.append("native histograms: the same counts per bucket; the layout or the reset "
                         "hints differ")
        for name, s in ((LEFT, left), (RIGHT, right)):
            lines.append("%s: %d native histograms" % (name, len(s["histograms"])))
            for ts, h in s["histograms"][:MAX_SHOWN]:
                lines.append("  " + show_histogram(clock, ts, h))
    if left["exemplars"] != right["exemplars"]:
        for name, s in ((LEFT, left), (RIGHT, right)):
            shown = " ".join("%s=%s%s" % (clock(ts), v, json.dumps(labels, sort_keys=True))
                             for ts, v, labels in s["exemplars"])
            lines.append("%s: %d exemplars %s" % (name, len(s["exemplars"]), shown))
    if left.get("metadata") != right.get("metadata"):
        for name, s in ((LEFT, left), (RIGHT, right)):
            lines.append("%s: metadata %s" % (name, json.dumps(s.get("metadata"), sort_keys=True)))
    return lines


def own_label(key, only_in, _left, _right):
    d = dict(key)
    name = d["__name__"]
    if only_in != LEFT:
        return False
    return (name.endswith("_bucket") and "le" in d) or (
        "quantile" in d and not name.endswith(("_sum", "_count")))


def target_info_per_batch(key, only_in, left, right):
    if dict(key)["__name__"] != "target_info" or only_in is not None:
        return False
    if left["histograms"] or right["histograms"] or left["exemplars"] != right["exemplars"]:
        return False
    mine, theirs = left["samples"], right["samples"]
    return (len(mine) == 1 and theirs and mine[0] == max(theirs)
            and all(v == "1.0" for _, v in theirs))


def histograms_in_order(key, only_in, left, right):
    """The Collector sorts a series' float samples by time, not its native histograms: of those
    that came out of order in one request, Prometheus keeps the newest only; Sluice sends all in
    order."""
    if only_in is not None or left["samples"] != right["samples"]:
        return False
    mine = [(ts, semantic(h)) for ts, h in left["histograms"]]
    theirs = [(ts, semantic(h)) for ts, h in right["histograms"]]
    return len(theirs) < len(mine) and all(h in mine for h in theirs)


def exemplar_times(key, only_in, left, right):
    """An exemplar without a value: the Collector gives it the time 0, Sluice its own time."""
    if only_in is not None or left["samples"] != right["samples"]:
        return False
    mine, theirs = left["exemplars"], right["exemplars"]
    if len(mine) != len(theirs):
        return False
    order = lambda e: json.dumps(e[2], sort_keys=True) + str(e[1])  # noqa: E731
    differ = [(a, b) for a, b in zip(sorted(mine, key=order), sorted(theirs, key=order))
              if a != b]
    return bool(differ) and all(b[0] == 0 and a[1:] == b[1:] and float(a[1]) == 0
                                for a, b in differ)


def nan_exemplar_in_inf_bucket(key, only_in, left, right):
    """A NaN exemplar of a histogram: Sluice puts it with the +Inf bucket, the Collector drops it
    (NaN is not below any bound)."""
    d = dict(key)
    if d.get("le") != "+Inf" or left["samples"] != right["samples"]:
        return False
    extra = [e for e in left["exemplars"] if e not in right["exemplars"]]
    return (bool(extra) and all(str(e[1]).lower() == "nan" for e in extra)
            and all(e in left["exemplars"] for e in right["exemplars"]))


def histogram_exemplars_v2(key, only_in, left, right):
    """Remote write 2.0: Sluice sends a classic histogram's exemplars with its buckets, the
    Collector's 2.0 path leaves them out."""
    d = dict(key)
    if only_in is not None or not d["__name__"].endswith("_bucket") or "le" not in d:
        return False
    return (left["samples"] == right["samples"] and left["histograms"] == right["histograms"]
            and left.get("metadata") == right.get("metadata")
            and bool(left["exemplars"]) and not right["exemplars"])


KNOWN = {"own-label": own_label, "target-info-per-batch": target_info_per_batch,
         "histograms-in-order": histograms_in_order, "exemplar-times": exemplar_times,
         "nan-exemplar-in-inf-bucket": nan_exemplar_in_inf_bucket,
         "histogram-exemplars-v2": histogram_exemplars_v2}
V2_KNOWN = ["histogram-exemplars-v2"]


class Cases:
    """Which case a series belongs to."""

    def __init__(self, expected):
        self.by_family, self.by_identity = {}, {}
        for c in expected["cases"]:
            for f in c["families"]:
                if f not in ("target_info", "peer_sentinel"):
                    self.by_family[f] = c["case"]
            for i in c["identities"]:
                self.by_identity[i] = c["case"]

    def of(self, key):
        d = dict(key)
        name = d["__name__"]
        if name == "peer_sentinel":
            return d.get("case", "?")
        if name in self.by_family:
            return self.by_family[name]
        # target_info, and families no case expects: by the resource's job or instance.
        for label in ("job", "instance"):
            if d.get(label) in self.by_identity:
                return self.by_identity[d[label]]
        return "?"


def prometheus_log(path):
    """Prometheus' warnings and errors about writes: (message, collector) -> [count, example]."""
    found = {}
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return found
    for line in lines:
        if not re.search(r"level=(WARN|ERROR)", line) or "OS signal" in line:
            continue
        msg = re.search(r'msg="((?:[^"\\]|\\.)*)"', line)
        who = re.search(r'collector=\\"(\w+)\\"', line)
        k = (msg.group(1) if msg else line[:80], who.group(1) if who else "-")
        # The example: the first in sort order, its time left out (the order of the lines
        # follows the order of the series in a request, which the Collector does not keep).
        text = re.sub(r"^time=\S+ ", "", line)
        entry = found.setdefault(k, [0, text])
        entry[0] += 1
        entry[1] = min(entry[1], text)
    return found


def prometheus_counters(path):
    """Prometheus' own counters of samples it did not append, those not 0."""
    out = []
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError:
        return out
    for line in lines:
        if line.startswith("#"):
            continue
        if re.search(r"out_of_order|out_of_bound|too_old|invalid_labels|duplicate", line):
            name, _, value = line.rpartition(" ")
            if float(value) != 0:
                out.append("%s %s" % (name, value))
    return out


def add_metadata(sides, path):
    """Puts each series' metadata (read-metadata.py's dump) in it, under "metadata"."""
    with open(path, encoding="utf-8") as f:
        dump = json.load(f)
    for side, series in sides.items():
        found = {}
        for s in dump.get(side, []):
            labels = dict(s["labels"])
            labels.pop("collector", None)
            found[tuple(sorted(labels.items()))] = s["metadata"]
        for key, s in series.items():
            s["metadata"] = found.get(key, [])


def main(expected_path, sent_path, left_path, right_path, log_path=None, metrics_path=None,
         name="remotewrite", v2=False, metadata_path=None):
    with open(expected_path, encoding="utf-8") as f:
        expected = json.load(f)
    with open(sent_path, encoding="utf-8") as f:
        sent = json.load(f)
    clock = Clock(sent)
    sides = {LEFT: load_series(left_path), RIGHT: load_series(right_path)}
    if metadata_path:
        add_metadata(sides, metadata_path)
    cases = Cases(expected)
    by_case = {}
    for side, series in sides.items():
        for key in series:
            by_case.setdefault(cases.of(key), set()).add(key)

    failed = False
    totals = {"series": 0, "same": 0, "known": 0, "different": 0}
    case_lines = []
    run_name = name
    for c in expected["cases"] + [{"case": "?", "families": [], "dropped": [], "known": []}]:
        name = c["case"]
        keys = sorted(by_case.get(name, ()))
        if name == "?" and not keys:
            continue
        lines, unexplained = [], False
        answers = sent["answers"].get(name, {})
        statuses = {side: a["status"] for side, a in answers.items()}
        if any(s != 200 for s in statuses.values()):
            lines.append("answers: " + ", ".join(
                "%s %s %s" % (side, a["status"], a["body"][:120]) for side, a in answers.items()))
            if len(set(statuses.values())) > 1:
                unexplained = True
        families = {side: {dict(k)["__name__"] for k in keys if k in sides[side]}
                    for side in sides}
        wanted = set(c["families"])
        counts = {"same": 0, "known": 0, "different": 0}
        known_families = {side: set() for side in sides}
        for key in keys:
            left, right = sides[LEFT].get(key), sides[RIGHT].get(key)
            only_in = LEFT if right is None else RIGHT if left is None else None
            if only_in is None:
                diff = differences(clock, left, right)
                if not diff:
                    counts["same"] += 1
                    continue
            else:
                s = left or right
                diff = ["only in %s: %d samples, %d native histograms, %d exemplars" % (
                    only_in, len(s["samples"]), len(s["histograms"]), len(s["exemplars"]))]
                if "metadata" in s:
                    diff.append("metadata %s" % json.dumps(s["metadata"], sort_keys=True))
            known = [k for k in c.get("known", []) + (V2_KNOWN if v2 else [])
                     if KNOWN[k](key, only_in, left, right)]
            if only_in is None and left.get("metadata") != right.get("metadata"):
                known = []  # no known difference is one of metadata
            if known:
                counts["known"] += 1
                if only_in is not None:
                    known_families[only_in].add(dict(key)["__name__"])
                lines.append("%s: known (%s)" % (show_labels(key), ", ".join(known)))
            else:
                counts["different"] += 1
                unexplained = True
                lines.append("%s: DIFFERENT" % show_labels(key))
            lines += ["    " + line for line in diff]
        if name == "?":
            unexplained = True
            for side in sides:
                if families[side]:
                    lines.append("of no case (no family, job or instance of one), in %s: %s" % (
                        side, " ".join(sorted(families[side]))))
        else:
            missing, extra = {}, {}
            for side in sides:
                other = RIGHT if side == LEFT else LEFT
                # A family the other side has only through known differences is not missing,
                # nor unexpected on that side.
                missing[side] = sorted(f for f in wanted - families[side]
                                       if f not in known_families[other])
                extra[side] = sorted(f for f in families[side] - wanted
                                     if f not in known_families[side] or f in families[other])
            for found, in_both, in_one in ((missing, "expected, in neither", "expected, not in"),
                                           (extra, "not expected, in both", "not expected, in")):
                both = [f for f in found[LEFT] if f in found[RIGHT]]
                if both:
                    lines.append("%s: %s" % (in_both, " ".join(both)))
                for side in sides:
                    own = [f for f in found[side] if f not in both]
                    if own:
                        lines.append("%s %s: %s" % (in_one, side, " ".join(own)))
                if found[LEFT] or found[RIGHT]:
                    unexplained = True
            if c["dropped"]:
                lines.append("expected to be left out by both: " + "; ".join(
                    "%s (%s)" % (d["metric"], d["why"]) for d in c["dropped"]))
        for k in counts:
            totals[k] += counts[k]
        totals["series"] += len(keys)
        summary = "%d series: %d same" % (len(keys), counts["same"])
        if counts["known"]:
            summary += ", %d known" % counts["known"]
        if counts["different"]:
            summary += ", %d DIFFERENT" % counts["different"]
        fam = "families %d expected, sluice %d, otelcol %d" % (
            len(wanted), len(families[LEFT]), len(families[RIGHT]))
        verdict = "DIFFERS" if unexplained else "same but for known differences" \
            if counts["known"] else "same"
        print("case %s: %s; %s: %s" % (name, summary, fam, verdict))
        for line in lines:
            print("  " + line)
        failed |= unexplained
        case_lines.append((name, verdict))

    said = prometheus_log(log_path) if log_path else {}
    if said:
        print("Prometheus logged:")
        for (msg, who), (count, example) in sorted(said.items()):
            print("  %s, %s: %d times; e.g. %s" % (who, msg, count, example[:400]))
    counters = prometheus_counters(metrics_path) if metrics_path else []
    if counters:
        print("Prometheus counted (all collectors together):")
        for line in counters:
            print("  " + line)
    print("%s: %d cases, %d series compared: %d same, %d known, %d different; %s" % (
        run_name, len(case_lines), totals["series"], totals["same"], totals["known"],
        totals["different"],
        "DIFFERS" if failed else "same but for known differences" if totals["known"]
        else "same"))
    return 1 if failed else 0


if __name__ == "__main__":
    args, options = sys.argv[1:], {}
    while args and args[0].startswith("--"):
        option = args.pop(0)
        if option == "--v2":
            options["v2"] = True
        elif option in ("--name", "--metadata") and args:
            options[{"--name": "name", "--metadata": "metadata_path"}[option]] = args.pop(0)
        else:
            args = []
    if not 4 <= len(args) <= 6:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*args, **options))
