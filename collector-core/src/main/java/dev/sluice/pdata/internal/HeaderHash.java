package dev.sluice.pdata.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A fast 64-bit hash of header bytes, eight bytes per step. Equal hashes only make byte-equality
 * likely; the marshaler compares the bytes before it coalesces two headers.
 */
public final class HeaderHash {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  public static final long SEED = 0x27D4EB2F165667C5L;

  public HeaderHash() {}

  public static long update(long hash, byte[] bytes, int offset, int length) {
    long h = hash ^ (length * P1);
    int i = offset;
    int end = offset + length;
    for (; i + 8 <= end; i += 8) {
      h = Long.rotateLeft(h ^ ((long) LONGS.get(bytes, i) * P2), 31) * P1;
    }
    for (; i < end; i++) {
      h = Long.rotateLeft(h ^ ((bytes[i] & 0xFFL) * P2), 11) * P1;
    }
    return h ^ (h >>> 29);
  }
}
