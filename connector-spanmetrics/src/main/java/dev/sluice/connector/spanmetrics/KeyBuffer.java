package dev.sluice.connector.spanmetrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A growable byte buffer that a series key is written into (see {@link ValueCodec}), and its 64-bit
 * hash. One per aggregator, reused span after span: it grows to the longest key seen and then
 * allocates nothing.
 */
final class KeyBuffer {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long MULTIPLIER = 0x9E3779B97F4A7C15L;
  private static final long SEED = 0x2545F4914F6CDD1DL;

  byte[] bytes = new byte[256];
  int length;

  void reset() {
    length = 0;
  }

  /** Makes room for {@code more} bytes past the end. */
  void ensure(int more) {
    if (length + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
    }
  }

  void put(byte b) {
    ensure(1);
    bytes[length++] = b;
  }

  void putLong(long value) {
    ensure(Long.BYTES);
    LONGS.set(bytes, length, value);
    length += Long.BYTES;
  }

  void putLength(int value) {
    ensure(5);
    int v = value;
    while ((v & ~0x7F) != 0) {
      bytes[length++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    bytes[length++] = (byte) v;
  }

  void put(byte[] source, int from, int count) {
    ensure(count);
    System.arraycopy(source, from, bytes, length, count);
    length += count;
  }

  /** A copy of {@code [from, length)}: the key a new series keeps. */
  byte[] copy(int from) {
    return Arrays.copyOfRange(bytes, from, length);
  }

  boolean equalsRange(int from, byte[] key) {
    return length - from == key.length && Arrays.equals(bytes, from, length, key, 0, key.length);
  }

  /** The hash of {@code [from, length)}. */
  long hash(int from) {
    return hash(bytes, from, length);
  }

  static long hash(byte[] b, int from, int to) {
    long h = SEED ^ (to - from);
    int p = from;
    for (; p + Long.BYTES <= to; p += Long.BYTES) {
      h = Long.rotateLeft((h ^ (long) LONGS.get(b, p)) * MULTIPLIER, 29);
    }
    long tail = 0;
    for (int shift = 0; p < to; p++, shift += 8) {
      tail |= (b[p] & 0xFFL) << shift;
    }
    h = (h ^ tail) * MULTIPLIER;
    h ^= h >>> 32;
    h *= MULTIPLIER;
    return h ^ (h >>> 29);
  }
}
