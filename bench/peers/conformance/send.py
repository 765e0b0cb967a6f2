#!/usr/bin/env python3
"""Sends recorded traces to a collector: send.py FILE PORT.

FILE holds one OTLP/JSON ExportTraceServiceRequest a line; each is posted as it is, in order, to
http://127.0.0.1:PORT/v1/traces (OTLP/HTTP, application/json). Exits 1 when a request is not
answered 200. Only the Python standard library.
"""
import sys
import urllib.request


def main(path, port):
    url = "http://127.0.0.1:%d/v1/traces" % port
    sent = 0
    with open(path, "rb") as f:
        for line in f:
            if not line.strip():
                continue
            request = urllib.request.Request(
                url, data=line.strip(), method="POST",
                headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=30) as response:
                if response.status != 200:
                    print("send: %s answered %d" % (url, response.status), file=sys.stderr)
                    return 1
                response.read()
            sent += 1
    print("send: %d requests to %s" % (sent, url), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
