package dev.sluice.processor.probabilisticsampler;

import dev.sluice.pdata.wire.WireType;
import java.nio.charset.StandardCharsets;

/**
 * The {@code trace_state} field, tag and length included, that the {@code hash_seed} sampler gives
 * a kept span that arrived without one: {@code ot=rv:<14 hex digits>;th:<threshold>}, what {@link
 * TraceState#writeTo} writes for such a span. All but the 14 digits is the same for every span of
 * one sampler, so it is built once and only the digits are written per span. Immutable.
 */
final class HashMark {
  private static final int TRACE_STATE = 3;
  private static final byte[] RANDOMNESS_PREFIX = "ot=rv:".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] THRESHOLD_PREFIX = ";th:".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final int HEX_BITS = 4;
  private static final int NIBBLE = 0xF;

  /** The tag and the one-byte length: the value is at most 38 bytes. */
  private static final int HEADER_BYTES = 2;

  private static final int LONGEST_ONE_BYTE_LENGTH = 0x7F;

  /** Where the 14 digits start in {@link #field}. */
  static final int DIGITS_AT = HEADER_BYTES + RANDOMNESS_PREFIX.length;

  private final byte[] field;

  /** The mark of a sampler that keeps spans at {@code threshold} (below {@code NEVER}). */
  HashMark(long threshold) {
    if (threshold < SamplingMath.ALWAYS || threshold >= SamplingMath.NEVER) {
      throw new IllegalArgumentException("no th value for threshold " + threshold);
    }
    byte[] value = new byte[TraceState.MAX_GROWTH];
    int n = 0;
    System.arraycopy(RANDOMNESS_PREFIX, 0, value, n, RANDOMNESS_PREFIX.length);
    n += RANDOMNESS_PREFIX.length + SamplingMath.HEX_DIGITS;
    System.arraycopy(THRESHOLD_PREFIX, 0, value, n, THRESHOLD_PREFIX.length);
    n += THRESHOLD_PREFIX.length;
    n += SamplingMath.writeTValue(threshold, value, n);
    if (n > LONGEST_ONE_BYTE_LENGTH) {
      throw new AssertionError("a mark of " + n + " bytes");
    }
    field = new byte[HEADER_BYTES + n];
    field[0] = (byte) WireType.tag(TRACE_STATE, WireType.LEN);
    field[1] = (byte) n;
    System.arraycopy(value, 0, field, HEADER_BYTES, n);
  }

  /** Bytes of the whole field. */
  int length() {
    return field.length;
  }

  /**
   * Writes the field with {@code randomness} as its {@code rv} into {@code out} from {@code at}.
   */
  void writeTo(long randomness, byte[] out, int at) {
    System.arraycopy(field, 0, out, at, field.length);
    int digits = at + DIGITS_AT;
    // Fixed width, most significant digit first, through a table: no branch per digit.
    for (int i = 0; i < SamplingMath.HEX_DIGITS; i++) {
      int shift = HEX_BITS * (SamplingMath.HEX_DIGITS - 1 - i);
      out[digits + i] = HEX[(int) (randomness >>> shift) & NIBBLE];
    }
  }
}
