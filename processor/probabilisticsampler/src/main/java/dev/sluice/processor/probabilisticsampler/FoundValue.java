package dev.sluice.processor.probabilisticsampler;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.wire.WireReader;
import dev.sluice.pdata.wire.WireType;

/**
 * The value of one wanted attribute, found by key in an item's {@code KeyValue} list: its type and
 * where its bytes are (or its number). The first entry with the key counts, as the Collector's
 * {@code Map.Get} takes it. A reusable holder, reset per item.
 */
final class FoundValue {
  static final int ABSENT = 0;
  static final int EMPTY = 1;
  static final int STRING = 2;
  static final int BOOL = 3;
  static final int INT = 4;
  static final int DOUBLE = 5;
  static final int BYTES = 6;

  /** An array or a key-value list. */
  static final int OTHER = 7;

  private static final int KEY_VALUE_KEY = 1;
  private static final int KEY_VALUE_VALUE = 2;
  private static final int ANY_STRING = 1;
  private static final int ANY_BOOL = 2;
  private static final int ANY_INT = 3;
  private static final int ANY_DOUBLE = 4;
  private static final int ANY_BYTES = 7;

  /** Values nest no deeper than the edge allowed; groups in unknown fields skip this deep. */
  static final int MAX_GROUP_DEPTH = 100;

  int type;
  int start;
  int length;
  long bits;

  void reset() {
    type = ABSENT;
  }

  boolean found() {
    return type != ABSENT;
  }

  /**
   * Reads the {@code KeyValue} at {@code bytes[offset, offset + length)}; when its key is one of
   * {@code keys} whose holder has nothing yet, fills that holder. {@code reader} is scratch.
   */
  static void match(
      WireReader reader, byte[] bytes, int offset, int length, byte[][] keys, FoundValue[] into)
      throws MalformedOtlpException {
    reader.wrap(bytes, offset, length);
    int keyStart = -1;
    int keyLength = 0;
    int valueStart = -1;
    int valueLength = 0;
    while (reader.hasRemaining()) {
      int tag = reader.readTag();
      if (tag == WireType.tag(KEY_VALUE_KEY, WireType.LEN)) {
        keyLength = reader.readLength();
        keyStart = reader.position();
        reader.position(keyStart + keyLength);
      } else if (tag == WireType.tag(KEY_VALUE_VALUE, WireType.LEN)) {
        valueLength = reader.readLength();
        valueStart = reader.position();
        reader.position(valueStart + valueLength);
      } else {
        reader.skipValue(tag, MAX_GROUP_DEPTH);
      }
    }
    for (int k = 0; k < keys.length; k++) {
      FoundValue holder = into[k];
      if (holder == null || holder.found() || !equal(bytes, keyStart, keyLength, keys[k])) {
        continue;
      }
      if (valueStart < 0) {
        holder.type = EMPTY;
      } else {
        holder.readAnyValue(reader, bytes, valueStart, valueLength);
      }
    }
  }

  private void readAnyValue(WireReader reader, byte[] bytes, int offset, int length)
      throws MalformedOtlpException {
    type = EMPTY;
    reader.wrap(bytes, offset, length);
    while (reader.hasRemaining()) {
      int tag = reader.readTag();
      switch (tag) {
        case (ANY_STRING << 3) | WireType.LEN:
          type = STRING;
          this.length = reader.readLength();
          start = reader.position();
          reader.position(start + this.length);
          break;
        case (ANY_BYTES << 3) | WireType.LEN:
          type = BYTES;
          this.length = reader.readLength();
          start = reader.position();
          reader.position(start + this.length);
          break;
        case (ANY_BOOL << 3) | WireType.VARINT:
          type = BOOL;
          bits = reader.readVarint64();
          break;
        case (ANY_INT << 3) | WireType.VARINT:
          type = INT;
          bits = reader.readVarint64();
          break;
        case (ANY_DOUBLE << 3) | WireType.I64:
          type = DOUBLE;
          bits = reader.readFixed64();
          break;
        default:
          int field = tag >>> 3;
          if (field >= ANY_STRING && field <= ANY_BYTES) {
            type = OTHER; // an array or a kvlist
          }
          reader.skipValue(tag, MAX_GROUP_DEPTH);
      }
    }
  }

  static boolean equal(byte[] bytes, int start, int length, byte[] key) {
    if (start < 0 || length != key.length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (bytes[start + i] != key[i]) {
        return false;
      }
    }
    return true;
  }

  static long bigEndian64(byte[] bytes, int offset) {
    long value = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      value = (value << 8) | (bytes[offset + i] & 0xFF);
    }
    return value;
  }
}
