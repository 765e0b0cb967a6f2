package dev.sluice.processor.probabilisticsampler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The {@code trace_state} value that the {@code hash_seed} sampler gives a kept span that arrived
 * without one: {@code ot=rv:<14 hex digits>;th:<threshold>}, what {@link TraceState#writeTo} writes
 * for such a span. All but the 14 digits is the same for every span of one sampler, so it is built
 * once and only the digits are written per span. Immutable.
 */
final class HashMark {
  private static final byte[] RANDOMNESS_PREFIX = "ot=rv:".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] THRESHOLD_PREFIX = ";th:".getBytes(StandardCharsets.US_ASCII);
  private static final long THRESHOLD_PREFIX_FIRST = ';';
  private static final long THRESHOLD_PREFIX_SECOND = 't';
  private static final int HEX_BITS = 4;

  private static final VarHandle BIG_ENDIAN_LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /** The {@code rv} value's last six digits are its low 24 bits. */
  private static final int LOW_DIGITS_BITS = 24;

  private static final int LOW_DIGITS_MASK = (1 << LOW_DIGITS_BITS) - 1;
  private static final long AFTER_DIGITS =
      (THRESHOLD_PREFIX_FIRST << Byte.SIZE) | THRESHOLD_PREFIX_SECOND;

  private static final long INT_MASK = 0xFFFFFFFFL;
  private static final long SPREAD_16 = 0x0000FFFF0000FFFFL;
  private static final long SPREAD_8 = 0x00FF00FF00FF00FFL;
  private static final long SPREAD_4 = 0x0F0F0F0F0F0F0F0FL;
  private static final long SIXES = 0x0606060606060606L;
  private static final long ONES = 0x0101010101010101L;
  private static final long ZEROS = 0x3030303030303030L;

  /** Where the 14 digits start in {@link #value}. */
  static final int DIGITS_AT = RANDOMNESS_PREFIX.length;

  private final byte[] value;

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
    this.value = Arrays.copyOf(value, n);
  }

  /** Bytes of the value (ASCII). */
  int length() {
    return value.length;
  }

  /**
   * Writes the value with {@code randomness} as its {@code rv} into {@code out} from {@code at}.
   */
  void writeTo(long randomness, byte[] out, int at) {
    System.arraycopy(value, 0, out, at, value.length);
    int digits = at + DIGITS_AT;
    // Fixed width, eight digits a store: the first eight, then the last six with the two bytes
    // after them (";t", the same in every mark).
    BIG_ENDIAN_LONGS.set(out, digits, hexDigits((int) (randomness >>> LOW_DIGITS_BITS)));
    long low = hexDigits((int) randomness & LOW_DIGITS_MASK) << (2 * Byte.SIZE);
    BIG_ENDIAN_LONGS.set(out, digits + Long.BYTES, low | AFTER_DIGITS);
  }

  /** The eight lowercase hex digits of {@code value}, most significant first, big-endian. */
  static long hexDigits(int value) {
    // One nibble a byte, in order: 0x0a0b0c0d0e0f0102 for 0xabcdef12.
    long v = value & INT_MASK;
    v = (v | (v << 16)) & SPREAD_16;
    v = (v | (v << 8)) & SPREAD_8;
    v = (v | (v << 4)) & SPREAD_4;
    // '0' + n, and 'a' - '0' - 10 more where n is 10 or more (n + 6 carries into the high nibble).
    long letters = ((v + SIXES) >>> HEX_BITS) & ONES;
    return v + ZEROS + letters * ('a' - '0' - 10);
  }
}
