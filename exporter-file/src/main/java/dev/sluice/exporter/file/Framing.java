package dev.sluice.exporter.file;

/**
 * How a request is delimited in the file, as the Collector's file exporter delimits it: JSON as a
 * line, everything else (protobuf, compressed requests) after its length.
 */
enum Framing {
  /** The bytes and a newline: uncompressed OTLP/JSON, which never holds a raw newline. */
  LINE(0, 1),
  /** A 4-byte big-endian unsigned length, then the bytes. */
  LENGTH_PREFIXED(4, 0);

  static final byte NEWLINE = '\n';

  final int prefixBytes;
  final int suffixBytes;

  Framing(int prefixBytes, int suffixBytes) {
    this.prefixBytes = prefixBytes;
    this.suffixBytes = suffixBytes;
  }

  long framedLength(int length) {
    return (long) prefixBytes + length + suffixBytes;
  }
}
