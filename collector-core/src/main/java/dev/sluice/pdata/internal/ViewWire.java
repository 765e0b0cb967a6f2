package dev.sluice.pdata.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Reads fields of bytes the indexer has already validated, for the views: no bounds or well-formed
 * checks beyond what keeps a read inside the array, and nothing thrown. Positions are array
 * offsets; a method that reads a value returns it, one that skips returns the position after.
 */
public final class ViewWire {
  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS_BIG_ENDIAN =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final int VARINT_PAYLOAD_BITS = 7;
  private static final int VARINT_PAYLOAD_MASK = 0x7F;
  private static final int WIRE_TYPE_BITS = 3;
  private static final int WIRE_TYPE_MASK = 7;

  public ViewWire() {}

  public static long varint(byte[] bytes, int position) {
    // Tags, lengths and small numbers take one or two bytes: read those without the loop.
    byte first = bytes[position];
    if (first >= 0) {
      return first;
    }
    if (position + 1 < bytes.length && bytes[position + 1] >= 0) {
      return (first & VARINT_PAYLOAD_MASK) | (bytes[position + 1] << VARINT_PAYLOAD_BITS);
    }
    long result = 0;
    int p = position;
    for (int shift = 0; shift < Long.SIZE && p < bytes.length; shift += VARINT_PAYLOAD_BITS) {
      byte b = bytes[p++];
      result |= (long) (b & VARINT_PAYLOAD_MASK) << shift;
      if (b >= 0) {
        return result;
      }
    }
    return result;
  }

  public static int skipVarint(byte[] bytes, int position) {
    if (bytes[position] >= 0) {
      return position + 1;
    }
    int p = position;
    while (p < bytes.length && bytes[p] < 0) {
      p++;
    }
    return p + 1;
  }

  static int fixed32(byte[] bytes, int position) {
    return (int) INTS.get(bytes, position);
  }

  public static long fixed64(byte[] bytes, int position) {
    return (long) LONGS.get(bytes, position);
  }

  static long bigEndian64(byte[] bytes, int position) {
    return (long) LONGS_BIG_ENDIAN.get(bytes, position);
  }

  public static int fieldNumber(int tag) {
    return tag >>> WIRE_TYPE_BITS;
  }

  static int wireType(int tag) {
    return tag & WIRE_TYPE_MASK;
  }

  /** The position after the value of a field whose tag ends at {@code position}. */
  public static int skipValue(byte[] bytes, int position, int tag) {
    switch (wireType(tag)) {
      case WireType.VARINT:
        return skipVarint(bytes, position);
      case WireType.I64:
        return position + Long.BYTES;
      case WireType.I32:
        return position + Integer.BYTES;
      case WireType.LEN:
        long prefix = lengthPrefix(bytes, position);
        return from(prefix) + length(prefix);
      case WireType.SGROUP:
        return skipGroup(bytes, position, fieldNumber(tag));
      default:
        // An end-group outside a group does not pass the indexer; step over the tag alone.
        return position;
    }
  }

  private static int skipGroup(byte[] bytes, int position, int fieldNumber) {
    int p = position;
    while (p < bytes.length) {
      int tag = (int) varint(bytes, p);
      p = skipVarint(bytes, p);
      if (wireType(tag) == WireType.EGROUP && fieldNumber(tag) == fieldNumber) {
        return p;
      }
      p = skipValue(bytes, p, tag);
    }
    return p;
  }

  /**
   * The position just after the next tag equal to {@code tag} in {@code [position, end)}, skipping
   * other fields; -1 when there is none.
   */
  public static int next(byte[] bytes, int position, int end, int tag) {
    int p = position;
    while (p < end) {
      int found = bytes[p];
      if (found >= 0) {
        p++;
      } else {
        found = (int) varint(bytes, p);
        p = skipVarint(bytes, p);
      }
      if (found == tag) {
        return p;
      }
      p = skipValue(bytes, p, found);
    }
    return -1;
  }

  /**
   * A length prefix read once: the length in the high 32 bits, the position of the first byte of
   * the value in the low 32 ({@link #length}, {@link #from}).
   */
  public static long lengthPrefix(byte[] bytes, int position) {
    byte first = bytes[position];
    if (first >= 0) {
      return ((long) first << Integer.SIZE) | (position + 1);
    }
    byte second = bytes[position + 1];
    if (second >= 0) {
      long length = (first & VARINT_PAYLOAD_MASK) | (second << VARINT_PAYLOAD_BITS);
      return (length << Integer.SIZE) | (position + 2);
    }
    return (varint(bytes, position) << Integer.SIZE) | skipVarint(bytes, position);
  }

  public static int length(long lengthPrefix) {
    return (int) (lengthPrefix >>> Integer.SIZE);
  }

  public static int from(long lengthPrefix) {
    return (int) lengthPrefix;
  }

  /** The first byte of a length-delimited value whose length prefix starts at {@code position}. */
  public static int payloadStart(byte[] bytes, int position) {
    return skipVarint(bytes, position);
  }

  /** The end of a length-delimited value whose length prefix starts at {@code position}. */
  public static int payloadEnd(byte[] bytes, int position) {
    long prefix = lengthPrefix(bytes, position);
    return from(prefix) + length(prefix);
  }

  /** Undoes protobuf's zigzag encoding of {@code sint32}. */
  public static int zigzag32(long encoded) {
    int value = (int) encoded;
    return (value >>> 1) ^ -(value & 1);
  }
}
