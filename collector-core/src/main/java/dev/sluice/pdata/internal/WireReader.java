package dev.sluice.pdata.internal;

import dev.sluice.pdata.MalformedOtlpException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A bounds-checked protobuf reader over a byte array: one reusable flyweight, {@link #wrap} it over
 * a message and read fields until {@link #hasRemaining()} is false.
 *
 * <p>Every read stays inside the current limit; a read that would cross it throws {@link
 * MalformedOtlpException} with an empty field path (callers that know the path add it) and the
 * offset of the field. Nothing is allocated on the happy path.
 */
public final class WireReader {
  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static final int MAX_VARINT_BYTES = 10;

  private byte[] buffer;
  private int position;
  private int limit;
  private int tagStart;

  /** Reads {@code buffer[offset, offset + length)}. */
  public WireReader wrap(byte[] buffer, int offset, int length) {
    this.buffer = buffer;
    this.position = offset;
    this.limit = offset + length;
    return this;
  }

  public byte[] buffer() {
    return buffer;
  }

  public int position() {
    return position;
  }

  public void position(int position) {
    this.position = position;
  }

  public int limit() {
    return limit;
  }

  /** Narrows or restores the readable end; used to read a nested message in place. */
  public void limit(int limit) {
    this.limit = limit;
  }

  public boolean hasRemaining() {
    return position < limit;
  }

  /**
   * Reads a field tag and checks it: a varint of at most 32 bits, a field number from 1 to 2^29-1
   * and a wire type that exists.
   */
  public int readTag() throws MalformedOtlpException {
    int start = position;
    tagStart = start;
    long tag = readVarint64();
    if ((tag >>> 32) != 0) {
      throw new MalformedOtlpException(
          "",
          start,
          MalformedOtlpException.Kind.OVER_32_BITS,
          "tag varint does not fit in 32 bits");
    }
    int fieldNumber = (int) (tag >>> 3);
    int wireType = (int) tag & 7;
    if (fieldNumber == 0) {
      throw new MalformedOtlpException("", start, "field number 0 is not allowed");
    }
    if (wireType > WireType.I32) {
      throw new MalformedOtlpException(
          "", start, "invalid wire type " + wireType + " for field " + fieldNumber);
    }
    return (int) tag;
  }

  /** Reads an unsigned varint of up to 10 bytes. */
  public long readVarint64() throws MalformedOtlpException {
    int p = position;
    if (p < limit) {
      byte first = buffer[p];
      if (first >= 0) {
        position = p + 1;
        return first;
      }
    }
    return readVarintSlow(p);
  }

  private long readVarintSlow(int start) throws MalformedOtlpException {
    long result = 0;
    int p = start;
    for (int shift = 0; shift < 7 * MAX_VARINT_BYTES; shift += 7) {
      if (p >= limit) {
        throw new MalformedOtlpException("", start, "truncated varint");
      }
      byte b = buffer[p++];
      result |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        position = p;
        return result;
      }
    }
    throw new MalformedOtlpException(
        "", start, MalformedOtlpException.Kind.LONG_VARINT, "varint longer than 10 bytes");
  }

  /** Reads a little-endian fixed32. */
  public int readFixed32() throws MalformedOtlpException {
    if (limit - position < 4) {
      throw new MalformedOtlpException("", position, "truncated fixed32: needs 4 bytes");
    }
    int value = (int) INTS.get(buffer, position);
    position += 4;
    return value;
  }

  /** Reads a little-endian fixed64. */
  public long readFixed64() throws MalformedOtlpException {
    if (limit - position < 8) {
      throw new MalformedOtlpException("", position, "truncated fixed64: needs 8 bytes");
    }
    long value = (long) LONGS.get(buffer, position);
    position += 8;
    return value;
  }

  /**
   * Reads the length prefix of a length-delimited field and checks that the payload fits inside the
   * current limit; the position is left at the payload's first byte.
   */
  public int readLength() throws MalformedOtlpException {
    int start = position;
    long length = readVarint64();
    // Unsigned: a ten-byte varint can be negative as a long, and must not move the reader back.
    if (Long.compareUnsigned(length, limit - position) > 0) {
      // protobuf-java keeps the low 32 bits of a longer length: its own kind of refusal.
      throw new MalformedOtlpException(
          "",
          start,
          (length >>> 32) != 0
              ? MalformedOtlpException.Kind.OVER_32_BITS
              : MalformedOtlpException.Kind.WIRE_FORMAT,
          "length "
              + Long.toUnsignedString(length)
              + " exceeds the "
              + (limit - position)
              + " bytes left in the enclosing message");
    }
    return (int) length;
  }

  /**
   * Skips the value of a field whose tag was just read, checking that it is well-formed: varints
   * end, fixed values and lengths fit, groups are closed by an end-group of the same field number
   * and nest at most {@code maxGroupDepth} deep.
   */
  public void skipValue(int tag, int maxGroupDepth) throws MalformedOtlpException {
    // Where the tag just read began: an unexpected end-group is reported at its tag.
    int tagStart = this.tagStart;
    switch (tag & 7) {
      case WireType.VARINT:
        readVarint64();
        return;
      case WireType.I64:
        readFixed64();
        return;
      case WireType.LEN:
        // Not `position += readLength()`: that adds to the position before the length prefix.
        int length = readLength();
        position += length;
        return;
      case WireType.I32:
        readFixed32();
        return;
      case WireType.SGROUP:
        skipGroup(tag >>> 3, maxGroupDepth);
        return;
      default:
        throw new MalformedOtlpException(
            "", tagStart, "unexpected end-group for field " + (tag >>> 3));
    }
  }

  private void skipGroup(int fieldNumber, int maxGroupDepth) throws MalformedOtlpException {
    int start = position;
    if (maxGroupDepth <= 0) {
      throw new MalformedOtlpException(
          "", start, MalformedOtlpException.Kind.NESTING_DEPTH, "groups nested too deeply");
    }
    while (position < limit) {
      int tagStart = position;
      int tag = readTag();
      if ((tag & 7) == WireType.EGROUP) {
        if ((tag >>> 3) != fieldNumber) {
          throw new MalformedOtlpException(
              "",
              tagStart,
              "end-group for field " + (tag >>> 3) + " closes a group of field " + fieldNumber);
        }
        return;
      }
      skipValue(tag, maxGroupDepth - 1);
    }
    throw new MalformedOtlpException(
        "", start, "group of field " + fieldNumber + " has no end-group");
  }
}
