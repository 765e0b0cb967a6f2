package dev.sluice.pdata.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Strict UTF-8 validation (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
 *
 * <p>Telemetry strings are mostly ASCII, so the loop checks eight bytes at a time for a set high
 * bit and only decodes byte by byte when it finds one.
 */
public final class Utf8 {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_BITS = 0x8080808080808080L;

  private Utf8() {}

  /**
   * Returns the offset of the first byte of the first invalid sequence in {@code bytes[from, to)},
   * or -1 when the whole range is valid UTF-8.
   */
  public static int firstInvalid(byte[] bytes, int from, int to) {
    int i = from;
    while (i < to) {
      while (i + 8 <= to && ((long) LONGS.get(bytes, i) & HIGH_BITS) == 0) {
        i += 8;
      }
      while (i < to && bytes[i] >= 0) {
        i++;
      }
      if (i >= to) {
        return -1;
      }
      int lead = bytes[i] & 0xFF;
      if (lead < 0xC2) {
        // A continuation byte without a lead, or an overlong two-byte form (C0, C1).
        return i;
      } else if (lead < 0xE0) {
        if (i + 1 >= to || !isContinuation(bytes[i + 1])) {
          return i;
        }
        i += 2;
      } else if (lead < 0xF0) {
        if (i + 2 >= to) {
          return i;
        }
        int second = bytes[i + 1] & 0xFF;
        // E0 needs A0..BF (no overlong), ED needs 80..9F (no surrogates).
        int min = lead == 0xE0 ? 0xA0 : 0x80;
        int max = lead == 0xED ? 0x9F : 0xBF;
        if (second < min || second > max || !isContinuation(bytes[i + 2])) {
          return i;
        }
        i += 3;
      } else if (lead < 0xF5) {
        if (i + 3 >= to) {
          return i;
        }
        int second = bytes[i + 1] & 0xFF;
        // F0 needs 90..BF (no overlong), F4 needs 80..8F (nothing above U+10FFFF).
        int min = lead == 0xF0 ? 0x90 : 0x80;
        int max = lead == 0xF4 ? 0x8F : 0xBF;
        if (second < min
            || second > max
            || !isContinuation(bytes[i + 2])
            || !isContinuation(bytes[i + 3])) {
          return i;
        }
        i += 4;
      } else {
        return i;
      }
    }
    return -1;
  }

  private static boolean isContinuation(byte b) {
    return (b & 0xC0) == 0x80;
  }
}
