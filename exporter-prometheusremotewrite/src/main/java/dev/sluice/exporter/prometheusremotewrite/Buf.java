package dev.sluice.exporter.prometheusremotewrite;

import java.util.Arrays;

/**
 * A growable byte array that protobuf fields are written into, kept between requests by the thread
 * that owns it: once it has the size the traffic needs, writing allocates nothing. Lengths are
 * known before a length-delimited field is written (everything here is sized first), so there is no
 * back-patching.
 */
final class Buf {
  static final int VARINT = 0;
  static final int I64 = 1;
  static final int LEN = 2;
  static final byte[] EMPTY = new byte[0];

  byte[] array;
  int size;

  Buf(int initialCapacity) {
    array = new byte[initialCapacity];
  }

  void reset() {
    size = 0;
  }

  /** Forgets what was written, and gives back an array grown past {@code maxRetainedBytes}. */
  void release(int maxRetainedBytes) {
    size = 0;
    if (array.length > maxRetainedBytes) {
      array = new byte[Math.min(array.length, 4096)];
    }
  }

  void ensure(int more) {
    int needed = size + more;
    if (needed < 0) {
      throw new IllegalStateException("more than 2 GiB in one buffer");
    }
    if (needed > array.length) {
      array = Arrays.copyOf(array, Math.max(needed, array.length + (array.length >> 1)));
    }
  }

  void tag(int field, int wireType) {
    varint((field << 3) | wireType);
  }

  void varint(long value) {
    if ((value & ~0x7FL) == 0 && size < array.length) {
      // Tags and short lengths, most of what is written: one byte.
      array[size++] = (byte) value;
      return;
    }
    ensure(10);
    byte[] b = array;
    int p = size;
    while ((value & ~0x7FL) != 0) {
      b[p++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    b[p++] = (byte) value;
    size = p;
  }

  void fixed64(long value) {
    ensure(8);
    byte[] b = array;
    int p = size;
    for (int i = 0; i < 8; i++) {
      b[p + i] = (byte) (value >>> (8 * i));
    }
    size = p + 8;
  }

  void bytes(byte[] source, int offset, int length) {
    ensure(length);
    System.arraycopy(source, offset, array, size, length);
    size += length;
  }

  /** A length-delimited field whose payload is {@code source[offset, offset + length)}. */
  void field(int field, byte[] source, int offset, int length) {
    tag(field, LEN);
    varint(length);
    bytes(source, offset, length);
  }

  /** A double field, left out when +0.0 as proto3 writes it. */
  void doubleField(int field, double value) {
    long bits = Double.doubleToRawLongBits(value);
    if (bits != 0) {
      tag(field, I64);
      fixed64(bits);
    }
  }

  /** An int64 or uint64 field, left out when 0. */
  void varintField(int field, long value) {
    if (value != 0) {
      tag(field, VARINT);
      varint(value);
    }
  }

  static int varintSize(long value) {
    return value == 0 ? 1 : (64 - Long.numberOfLeadingZeros(value) + 6) / 7;
  }

  /** Bytes of a length-delimited field with a one-byte tag and {@code length} payload bytes. */
  static int fieldSize(int length) {
    return 1 + varintSize(length) + length;
  }

  static int doubleFieldSize(double value) {
    return Double.doubleToRawLongBits(value) != 0 ? 9 : 0;
  }

  static int varintFieldSize(long value) {
    return value != 0 ? 1 + varintSize(value) : 0;
  }

  static long zigzag32(int value) {
    return ((value << 1) ^ (value >> 31)) & 0xFFFFFFFFL;
  }

  static long zigzag64(long value) {
    return (value << 1) ^ (value >> 63);
  }
}
