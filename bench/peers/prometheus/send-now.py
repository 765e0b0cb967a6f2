#!/usr/bin/env python3
"""Sends the recorded metrics to collectors with their times moved to now:

    send-now.py FIXTURE EXPECTED OUT NAME=PORT...

FIXTURE holds one OTLP/JSON ExportMetricsServiceRequest a line, one per case, in the order of the
cases in EXPECTED (remotewrite-expected.json). Every timeUnixNano and startTimeUnixNano (data
points and exemplars) is moved by one shift, a whole number of seconds, so that the newest time in
the file lands 5 s before now: every collector gets the same bytes. Each request is posted to
http://127.0.0.1:PORT/v1/metrics of each collector in turn (OTLP/HTTP, application/json), the next
only after the answer. Writes OUT (JSON): the shift, the fixture's base time, and per case each
collector's HTTP status and the start of any error body. Exits 1 when a request could not be sent
at all (a refused connection); a status other than 200 is recorded, not fatal. Only the Python
standard library.
"""
import json
import sys
import time
import urllib.error
import urllib.request

TIME_KEYS = ("timeUnixNano", "startTimeUnixNano")


def times(node):
    if isinstance(node, list):
        return [x for item in node for x in times(item)]
    if isinstance(node, dict):
        found = [int(node[k]) for k in TIME_KEYS if k in node]
        return found + [x for v in node.values() for x in times(v)]
    return []


def shifted(node, shift):
    if isinstance(node, list):
        return [shifted(item, shift) for item in node]
    if isinstance(node, dict):
        return {k: (str(int(v) + shift) if k in TIME_KEYS else shifted(v, shift))
                for k, v in node.items()}
    return node


def post(port, body):
    request = urllib.request.Request(
        "http://127.0.0.1:%d/v1/metrics" % port, data=body, method="POST",
        headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()[:300].decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read()[:300].decode("utf-8", "replace")


def main(fixture, expected_path, out, targets):
    with open(fixture, encoding="utf-8") as f:
        requests = [json.loads(line) for line in f if line.strip()]
    with open(expected_path, encoding="utf-8") as f:
        expected = json.load(f)
    names = [c["case"] for c in expected["cases"]]
    if len(names) != len(requests):
        print("send-now: %d requests in %s, %d cases in %s" % (
            len(requests), fixture, len(names), expected_path), file=sys.stderr)
        return 1
    newest = max(times(requests))
    now_s = time.time_ns() // 1_000_000_000
    shift = (now_s - 5) * 1_000_000_000 - (newest // 1_000_000_000) * 1_000_000_000
    answers = {}
    for name, request in zip(names, requests):
        body = json.dumps(shifted(request, shift), separators=(",", ":"),
                          ensure_ascii=False).encode("utf-8")
        answers[name] = {}
        for collector, port in targets:
            try:
                status, text = post(port, body)
            except OSError as e:
                print("send-now: %s (port %d): %s" % (collector, port, e), file=sys.stderr)
                return 1
            answers[name][collector] = {"status": status, "body": text if status != 200 else ""}
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"shift_ns": shift, "base_ns": expected["base_ns"], "answers": answers}, f,
                  indent=1, ensure_ascii=False)
    refused = sum(1 for a in answers.values() for x in a.values() if x["status"] != 200)
    print("send-now: %d requests to each of %s, %d not answered 200" % (
        len(requests), ", ".join(c for c, _ in targets), refused), file=sys.stderr)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    pairs = [arg.split("=", 1) for arg in sys.argv[4:]]
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], [(n, int(p)) for n, p in pairs]))
