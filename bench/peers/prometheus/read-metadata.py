#!/usr/bin/env python3
"""Reads the metric metadata Prometheus stored with each series, from its write-ahead log:

    read-metadata.py TSDB_DIR LABEL VALUE... OUT

Prometheus' HTTP API serves metadata of scraped targets only; what remote write 2.0 sends with a
series (type, help, unit) it keeps, with --enable-feature=metadata-wal-records, as metadata
records in the write-ahead log (TSDB_DIR/wal), beside the series records that name each series.
Read with Prometheus stopped. Writes OUT (JSON): per VALUE of LABEL, a list of series, each
{"labels": {...}, "metadata": [{"type", "unit", "help"}, ...]} (every distinct metadata the log
holds for the series, in the order written; none when it holds none), sorted by labels.

Only the Python standard library: the log's pages, record fragments (snappy compressed or not)
and the series and metadata records are read by hand (tsdb/wlog and tsdb/record).
"""
import importlib.util
import json
import os
import sys

PAGE = 32 * 1024
HEADER = 7
SERIES, METADATA = 1, 6
TYPES = {0: "unknown", 1: "counter", 2: "gauge", 3: "histogram", 4: "gaugehistogram",
         5: "summary", 6: "info", 7: "stateset"}

_spec = importlib.util.spec_from_file_location(
    "read_series", os.path.join(os.path.dirname(os.path.abspath(__file__)), "read-series.py"))
read_series = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(read_series)


def records(segment):
    """The records of one segment file, whole and decompressed."""
    data = open(segment, "rb").read()
    pos, parts, compressed = 0, [], False
    while pos + 1 <= len(data):
        kind = data[pos]
        if kind == 0:  # the rest of the page is padding
            pos = (pos // PAGE + 1) * PAGE
            continue
        if kind & 0x10:
            raise ValueError("%s: a zstd-compressed record (run Prometheus with "
                             "--no-storage.tsdb.wal-compression)" % segment)
        length = int.from_bytes(data[pos + 1:pos + 3], "big")
        part = data[pos + HEADER:pos + HEADER + length]
        pos += HEADER + length
        compressed = bool(kind & 0x08)
        fragment = kind & 0x07
        if fragment in (1, 2):  # full, first
            parts = [part]
        else:  # middle, last
            parts.append(part)
        if fragment in (1, 4):  # full, last
            record = b"".join(parts)
            yield read_series.snappy_decode(record) if compressed else record
            parts = []


def uvarint_str(data, pos):
    n, pos = read_series.read_varint(data, pos)
    return data[pos:pos + n].decode("utf-8"), pos + n


def main(tsdb, label, values, out):
    wal = os.path.join(tsdb, "wal")
    segments = sorted(f for f in os.listdir(wal) if f.isdigit())
    names, metadata = {}, {}
    for segment in segments:
        for record in records(os.path.join(wal, segment)):
            kind, pos = record[0], 1
            if kind == SERIES:
                while pos < len(record):
                    ref = int.from_bytes(record[pos:pos + 8], "big")
                    count, pos = read_series.read_varint(record, pos + 8)
                    labels = {}
                    for _ in range(count):
                        name, pos = uvarint_str(record, pos)
                        labels[name], pos = uvarint_str(record, pos)
                    names[ref] = labels
            elif kind == METADATA:
                while pos < len(record):
                    ref, pos = read_series.read_varint(record, pos)
                    meta = {"type": TYPES.get(record[pos], str(record[pos]))}
                    count, pos = read_series.read_varint(record, pos + 1)
                    for _ in range(count):
                        name, pos = uvarint_str(record, pos)
                        meta[name.lower()], pos = uvarint_str(record, pos)
                    seen = metadata.setdefault(ref, [])
                    if meta not in seen:
                        seen.append(meta)
    found = {v: [] for v in values}
    for ref, labels in names.items():
        if labels.get(label) in found:
            found[labels[label]].append({"labels": labels, "metadata": metadata.get(ref, [])})
    for series in found.values():
        series.sort(key=lambda s: sorted(s["labels"].items()))
    with open(out, "w", encoding="utf-8") as f:
        json.dump(found, f, indent=1, ensure_ascii=False)
    for v, series in found.items():
        print("read-metadata: %s=%s: %d series, %d with metadata" % (
            label, v, len(series), sum(1 for s in series if s["metadata"])), file=sys.stderr)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:-1], sys.argv[-1]))
