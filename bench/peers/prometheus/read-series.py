#!/usr/bin/env python3
"""Reads back from Prometheus every series that carries a label, with all its samples:

    read-series.py PORT LABEL=VALUE START_MS END_MS OUT

Samples and native histograms come from the remote read API (/api/v1/read, response type SAMPLES:
the raw samples as stored, stale markers included, which the query API leaves out); exemplars from
/api/v1/query_exemplars. Writes OUT (JSON): a list of series, each {"labels": {...}, "samples":
[[ms, value]], "histograms": [[ms, {...}]], "exemplars": [[ms, value, {labels}]]}, sorted by
labels. A float value is written as Python's repr of it, or "stale" for Prometheus' stale marker
(a NaN with its own bits) and "NaN" for other NaNs. A histogram keeps every field of Prometheus'
remote write Histogram message, its buckets both as sent (spans and deltas) and as absolute counts
per bucket index.

Only the Python standard library: the protobuf messages are read and written by hand (field
numbers from Prometheus' prompb/remote.proto and types.proto), and snappy's block format is
decoded here and written as literals only.
"""
import json
import struct
import sys
import urllib.parse
import urllib.request

STALE_NAN_BITS = 0x7FF0000000000002


# --- snappy (block format) ---

def varint_bytes(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def snappy_literal(data):
    """Snappy block of literals only: valid input for any snappy decoder."""
    out = bytearray(varint_bytes(len(data)))
    for i in range(0, len(data), 65536):
        chunk = data[i:i + 65536]
        n = len(chunk) - 1
        if n < 60:
            out.append(n << 2)
        elif n < 256:
            out += bytes([60 << 2, n])
        else:
            out += bytes([61 << 2]) + n.to_bytes(2, "little")
        out += chunk
    return bytes(out)


def snappy_decode(data):
    length, pos = read_varint(data, 0)
    out = bytearray()
    while pos < len(data):
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            n = tag >> 2
            if n >= 60:
                extra = n - 59
                n = int.from_bytes(data[pos:pos + extra], "little")
                pos += extra
            n += 1
            out += data[pos:pos + n]
            pos += n
            continue
        if kind == 1:
            n = ((tag >> 2) & 7) + 4
            offset = ((tag >> 5) << 8) | data[pos]
            pos += 1
        elif kind == 2:
            n = (tag >> 2) + 1
            offset = int.from_bytes(data[pos:pos + 2], "little")
            pos += 2
        else:
            n = (tag >> 2) + 1
            offset = int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
        start = len(out) - offset
        for i in range(n):  # may overlap what it writes
            out.append(out[start + i])
    if len(out) != length:
        raise ValueError("snappy: %d bytes decoded, %d announced" % (len(out), length))
    return bytes(out)


# --- protobuf ---

def read_varint(data, pos):
    n = shift = 0
    while True:
        b = data[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, pos


def fields(data):
    """(field number, wire type, value) of a message; LEN values as bytes, I64 as the raw uint64."""
    pos = 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            v, pos = read_varint(data, pos)
        elif wire == 1:
            v = int.from_bytes(data[pos:pos + 8], "little")
            pos += 8
        elif wire == 2:
            n, pos = read_varint(data, pos)
            v = data[pos:pos + n]
            pos += n
        elif wire == 5:
            v = int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
        else:
            raise ValueError("wire type %d" % wire)
        yield number, wire, v


def zigzag(n):
    return (n >> 1) ^ -(n & 1)


def signed64(n):
    return n - (1 << 64) if n >= 1 << 63 else n


def double(bits):
    return struct.unpack("<d", bits.to_bytes(8, "little"))[0]


def float_text(bits):
    if bits == STALE_NAN_BITS:
        return "stale"
    x = double(bits)
    if x != x:
        return "NaN"
    return repr(x)


def packed(wire, v, decode):
    """A repeated scalar, packed (LEN) or not."""
    if wire != 2:
        return [decode(v)]
    out, pos = [], 0
    while pos < len(v):
        n, pos = read_varint(v, pos)
        out.append(decode(n))
    return out


def packed_doubles(wire, v):
    if wire != 2:
        return [float_text(v)]
    return [float_text(int.from_bytes(v[i:i + 8], "little")) for i in range(0, len(v), 8)]


def label(data):
    name = value = ""
    for number, _, v in fields(data):
        if number == 1:
            name = v.decode("utf-8")
        elif number == 2:
            value = v.decode("utf-8")
    return name, value


def span(data):
    offset = length = 0
    for number, _, v in fields(data):
        if number == 1:
            offset = zigzag(v)
        elif number == 2:
            length = v
    return [offset, length]


def absolute(spans, deltas):
    """Bucket index -> count, from spans and deltas as Prometheus lays them out."""
    out, index, count, i = {}, 0, 0, 0
    for offset, length in spans:  # the first offset is an index, the others gaps
        index += offset
        for _ in range(length):
            count += deltas[i]
            i += 1
            out[index] = count
            index += 1
    return out


def histogram(data):
    # Fields left out of the message hold their zero values.
    h = {"sum": "0.0", "schema": 0, "zero_threshold": "0.0", "reset_hint": 0,
         "negative_spans": [], "negative_deltas": [], "negative_counts": [],
         "positive_spans": [], "positive_deltas": [], "positive_counts": [], "custom_values": []}
    ts = 0
    for number, wire, v in fields(data):
        if number == 1:
            h["count"] = v
        elif number == 2:
            h["count_float"] = float_text(v)
        elif number == 3:
            h["sum"] = float_text(v)
        elif number == 4:
            h["schema"] = zigzag(v)
        elif number == 5:
            h["zero_threshold"] = float_text(v)
        elif number == 6:
            h["zero_count"] = v
        elif number == 7:
            h["zero_count_float"] = float_text(v)
        elif number == 8:
            h["negative_spans"].append(span(v))
        elif number == 9:
            h["negative_deltas"] += packed(wire, v, zigzag)
        elif number == 10:
            h["negative_counts"] += packed_doubles(wire, v)
        elif number == 11:
            h["positive_spans"].append(span(v))
        elif number == 12:
            h["positive_deltas"] += packed(wire, v, zigzag)
        elif number == 13:
            h["positive_counts"] += packed_doubles(wire, v)
        elif number == 14:
            h["reset_hint"] = v
        elif number == 15:
            ts = signed64(v)
        elif number == 16:
            h["custom_values"] += packed_doubles(wire, v)
    if "count_float" not in h:
        h.setdefault("count", 0)
    if "zero_count_float" not in h:
        h.setdefault("zero_count", 0)
    for side in ("negative", "positive"):
        buckets = absolute(h[side + "_spans"], h[side + "_deltas"])
        h[side + "_buckets"] = {str(k): c for k, c in sorted(buckets.items())}
    return ts, h


def time_series(data):
    labels, samples, histograms = {}, [], []
    for number, _, v in fields(data):
        if number == 1:
            name, value = label(v)
            labels[name] = value
        elif number == 2:
            value_bits, ts = 0, 0
            for n, _, x in fields(v):
                if n == 1:
                    value_bits = x
                elif n == 2:
                    ts = signed64(x)
            samples.append([ts, float_text(value_bits)])
        elif number == 4:
            histograms.append(list(histogram(v)))
    return {"labels": labels, "samples": samples, "histograms": histograms, "exemplars": []}


def read_request(name, value, start_ms, end_ms):
    matcher = b"\x08\x00" + b"\x12" + varint_bytes(len(name)) + name + \
        b"\x1a" + varint_bytes(len(value)) + value
    query = b"\x08" + varint_bytes(start_ms) + b"\x10" + varint_bytes(end_ms) + \
        b"\x1a" + varint_bytes(len(matcher)) + matcher
    return b"\x0a" + varint_bytes(len(query)) + query + b"\x10\x00"


def remote_read(port, name, value, start_ms, end_ms):
    body = snappy_literal(read_request(name.encode(), value.encode(), start_ms, end_ms))
    request = urllib.request.Request(
        "http://127.0.0.1:%d/api/v1/read" % port, data=body, method="POST",
        headers={"Content-Type": "application/x-protobuf", "Content-Encoding": "snappy",
                 "X-Prometheus-Remote-Read-Version": "0.1.0"})
    with urllib.request.urlopen(request, timeout=60) as response:
        data = snappy_decode(response.read())
    series = []
    for number, _, result in fields(data):
        if number == 1:
            for n, _, ts in fields(result):
                if n == 1:
                    series.append(time_series(ts))
    return series


def exemplars(port, name, value, start_ms, end_ms):
    query = urllib.parse.urlencode({
        "query": '{%s="%s"}' % (name, value), "start": "%.3f" % (start_ms / 1000),
        "end": "%.3f" % (end_ms / 1000)})
    with urllib.request.urlopen(
            "http://127.0.0.1:%d/api/v1/query_exemplars?%s" % (port, query), timeout=60) as r:
        answer = json.load(r)
    out = {}
    for group in answer["data"]:
        key = tuple(sorted(group["seriesLabels"].items()))
        for e in group["exemplars"]:
            ms = round(float(e["timestamp"]) * 1000)
            out.setdefault(key, []).append([ms, e["value"], e["labels"]])
    return out


def main(port, selector, start_ms, end_ms, out):
    name, value = selector.split("=", 1)
    series = remote_read(port, name, value, start_ms, end_ms)
    found = exemplars(port, name, value, start_ms, end_ms)
    for s in series:
        s["exemplars"] = sorted(found.pop(tuple(sorted(s["labels"].items())), []),
                                key=lambda e: (e[0], e[1], sorted(e[2].items())))
    for key, es in found.items():  # exemplars of a series without samples in range
        series.append({"labels": dict(key), "samples": [], "histograms": [], "exemplars": es})
    series.sort(key=lambda s: sorted(s["labels"].items()))
    with open(out, "w", encoding="utf-8") as f:
        json.dump(series, f, indent=1, ensure_ascii=False)
    print("read-series: %s: %d series, %d samples, %d histograms, %d exemplars" % (
        selector, len(series), sum(len(s["samples"]) for s in series),
        sum(len(s["histograms"]) for s in series), sum(len(s["exemplars"]) for s in series)),
        file=sys.stderr)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]))
