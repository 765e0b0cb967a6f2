#!/usr/bin/env python3
"""Sends recorded telemetry to a collector: send.py [--one] FILE PORT.

FILE holds one OTLP/JSON export request a line (traces, metrics or logs: told by its first key);
each is posted as it is, in order, to http://127.0.0.1:PORT/v1/traces (/v1/metrics, /v1/logs)
(OTLP/HTTP, application/json). With --one, the requests are joined into one (their resource
blocks in order) and that is posted. Exits 1 when a request is not answered 200. Only the Python
standard library.
"""
import json
import sys
import urllib.error
import urllib.request

PATHS = {"resourceSpans": "traces", "resourceMetrics": "metrics", "resourceLogs": "logs"}


def requests(path, one):
    with open(path, "rb") as f:
        lines = [line.strip() for line in f if line.strip()]
    if not one:
        return lines
    joined = {}
    for line in lines:
        for key, blocks in json.loads(line).items():
            joined.setdefault(key, []).extend(blocks)
    return [json.dumps(joined, separators=(",", ":")).encode()]


def main(path, port, one=False):
    sent = 0
    for line in requests(path, one):
        signal = PATHS[next(iter(json.loads(line)))]
        url = "http://127.0.0.1:%d/v1/%s" % (port, signal)
        request = urllib.request.Request(
            url, data=line, method="POST",
            headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                response.read()
                status, body = response.status, b""
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        if status != 200:
            print("send: request %d to %s answered %d %s" % (
                sent + 1, url, status, body[:300].decode("utf-8", "replace")), file=sys.stderr)
            return 1
        sent += 1
    print("send: %d requests to %s" % (sent, url), file=sys.stderr)
    return 0


if __name__ == "__main__":
    one = "--one" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--one"]
    sys.exit(main(args[0], int(args[1]), one))
