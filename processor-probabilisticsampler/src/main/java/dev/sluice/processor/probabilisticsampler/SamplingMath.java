package dev.sluice.processor.probabilisticsampler;

import dev.sluice.pdata.view.TextView;

/**
 * The arithmetic of OpenTelemetry consistent probability sampling (56-bit randomness and
 * thresholds, {@code th} and {@code rv} values) and of the OpenTelemetry Collector's legacy hash
 * sampler, as the Collector's {@code pkg/sampling} and {@code probabilisticsamplerprocessor}
 * compute them, so that both make the same decision for the same item.
 *
 * <p>Randomness and thresholds are unsigned 56-bit values held in longs. An item is sampled when
 * {@code threshold <= randomness}; {@link #ALWAYS} samples everything and {@link #NEVER} nothing.
 */
final class SamplingMath {
  /** Bits of randomness and of a threshold. */
  static final int BITS = 56;

  /** Hex digits of an {@code rv} value, and the most a {@code th} value may have. */
  static final int HEX_DIGITS = BITS / 4;

  /** 2^56: one more than the largest randomness; as a threshold, samples nothing. */
  static final long MAX_ADJUSTED_COUNT = 1L << BITS;

  static final long ALWAYS = 0;
  static final long NEVER = MAX_ADJUSTED_COUNT;

  /** The randomness taken when there is none, so that only an always-threshold samples. */
  static final long ALL_RANDOMNESS = MAX_ADJUSTED_COUNT - 1;

  /** The smallest sampling probability a threshold can express, 2^-56. */
  static final double MIN_PROBABILITY = 1.0 / MAX_ADJUSTED_COUNT;

  /** The legacy hash sampler's buckets: 2^14, the low bits of a 32-bit FNV-1a hash. */
  static final int HASH_BUCKET_BITS = 14;

  static final int HASH_BUCKETS = 1 << HASH_BUCKET_BITS;

  /** Percent to buckets, as a float: the Collector multiplies a float32 percentage by it. */
  static final float PERCENT_TO_BUCKETS = HASH_BUCKETS / 100.0f;

  private static final int FNV_OFFSET_BASIS = 0x811c9dc5;
  private static final int FNV_PRIME = 0x01000193;
  private static final int HEX_BITS = 4;
  private static final int BYTE_MASK = 0xFF;
  // Shifts that bring byte 1, 2 or 3 (from the least significant, 0) of an int to the bottom.
  private static final int BYTE_1 = Byte.SIZE;
  private static final int BYTE_2 = 2 * Byte.SIZE;
  private static final int BYTE_3 = 3 * Byte.SIZE;
  private static final int TRACE_ID_MIX_SHIFT = 10;

  private SamplingMath() {}

  /** FNV-1a (32 bits) over the seed's four little-endian bytes and then the trace ID's 16. */
  static int fnvHash(int seed, long traceIdHigh, long traceIdLow) {
    return fnvHashAfterSeed(seedState(seed), traceIdHigh, traceIdLow);
  }

  /** The FNV-1a state after the seed's four little-endian bytes: the same for every item. */
  static int seedState(int seed) {
    int hash = FNV_OFFSET_BASIS;
    for (int i = 0; i < Integer.BYTES; i++) {
      hash = (hash ^ ((seed >>> (8 * i)) & 0xFF)) * FNV_PRIME;
    }
    return hash;
  }

  /** {@link #fnvHash(int, long, long)} from the seed's {@link #seedState}. */
  static int fnvHashAfterSeed(int seedState, long traceIdHigh, long traceIdLow) {
    return mixBigEndian(mixBigEndian(seedState, traceIdHigh), traceIdLow);
  }

  /** FNV-1a (32 bits) over the seed's four little-endian bytes and then {@code bytes}. */
  static int fnvHash(int seed, byte[] bytes, int offset, int length) {
    int hash = FNV_OFFSET_BASIS;
    for (int i = 0; i < Integer.BYTES; i++) {
      hash = (hash ^ ((seed >>> (8 * i)) & 0xFF)) * FNV_PRIME;
    }
    for (int i = offset; i < offset + length; i++) {
      hash = (hash ^ (bytes[i] & 0xFF)) * FNV_PRIME;
    }
    return hash;
  }

  /** FNV-1a (32 bits) over the seed's four little-endian bytes and then the text's UTF-8. */
  static int fnvHash(int seed, TextView text) {
    int hash = FNV_OFFSET_BASIS;
    for (int i = 0; i < Integer.BYTES; i++) {
      hash = (hash ^ ((seed >>> (8 * i)) & 0xFF)) * FNV_PRIME;
    }
    for (int i = 0; i < text.length(); i++) {
      hash = (hash ^ (text.byteAt(i) & 0xFF)) * FNV_PRIME;
    }
    return hash;
  }

  /**
   * FNV-1a over the eight bytes of {@code value}, most significant first. Written out: each step
   * waits for the one before, and the bytes are taken from a register, not an array.
   */
  private static int mixBigEndian(int hash, long value) {
    int high = (int) (value >>> Integer.SIZE);
    int low = (int) value;
    hash = (hash ^ (high >>> BYTE_3)) * FNV_PRIME;
    hash = (hash ^ ((high >>> BYTE_2) & BYTE_MASK)) * FNV_PRIME;
    hash = (hash ^ ((high >>> BYTE_1) & BYTE_MASK)) * FNV_PRIME;
    hash = (hash ^ (high & BYTE_MASK)) * FNV_PRIME;
    hash = (hash ^ (low >>> BYTE_3)) * FNV_PRIME;
    hash = (hash ^ ((low >>> BYTE_2) & BYTE_MASK)) * FNV_PRIME;
    hash = (hash ^ ((low >>> BYTE_1) & BYTE_MASK)) * FNV_PRIME;
    return (hash ^ (low & BYTE_MASK)) * FNV_PRIME;
  }

  /**
   * The 56-bit randomness the hash sampler derives from a hash: the complement of its low 14 bits
   * on top (so that "bucket below the rate" reads as "threshold at most randomness"), the remaining
   * bits mixed below, and the bucket itself at the bottom.
   */
  static long hashRandomness(int hash) {
    long bucket = hash & (HASH_BUCKETS - 1);
    long complement = HASH_BUCKETS - 1 - bucket;
    long high = (hash & 0xFFFFFFFFL) >>> (Integer.SIZE - HASH_BUCKET_BITS);
    long mixed = high ^ (high << TRACE_ID_MIX_SHIFT);
    return (complement << (BITS - HASH_BUCKET_BITS)) | (mixed << HASH_BUCKET_BITS) | bucket;
  }

  /** The W3C randomness of a trace ID: the low 56 bits of its last eight bytes. */
  static long traceIdRandomness(long traceIdLow) {
    return traceIdLow & (MAX_ADJUSTED_COUNT - 1);
  }

  /**
   * The hash sampler's threshold for a percentage (at most 100): the percentage times 163.84 in
   * float arithmetic, truncated, as the Collector computes it; {@link #NEVER} when that is 0.
   */
  static long hashThreshold(float percent) {
    long acceptedBuckets = (long) (percent * PERCENT_TO_BUCKETS);
    if (acceptedBuckets <= 0) {
      return NEVER;
    }
    long rejectedBuckets = HASH_BUCKETS - acceptedBuckets;
    return rejectedBuckets << (BITS - HASH_BUCKET_BITS);
  }

  /**
   * The threshold for a sampling probability, rounded to {@code precision} hex digits (0 means all
   * 14), with more digits where the probability is near 0 or 1 so that it stays accurate; -1 when
   * the probability is outside [2^-56, 1].
   */
  static long probabilityToThreshold(double fraction, int precision) {
    if (precision == 0) {
      precision = HEX_DIGITS;
    }
    if (!(fraction >= MIN_PROBABILITY && fraction <= 1)) {
      return -1;
    }
    if (fraction == 1) {
      return ALWAYS;
    }
    int fractionExponent = frexpExponent(fraction);
    int complementExponent = frexpExponent(1 - fraction);
    precision =
        Math.min(
            HEX_DIGITS,
            Math.max(
                precision + fractionExponent / -HEX_BITS,
                precision + complementExponent / -HEX_BITS));
    long scaled = Math.round(fraction * MAX_ADJUSTED_COUNT);
    long threshold = MAX_ADJUSTED_COUNT - scaled;
    int shift = HEX_BITS * (HEX_DIGITS - precision);
    if (shift != 0) {
      long half = 1L << (shift - 1);
      threshold += half;
      threshold >>>= shift;
      threshold <<= shift;
    }
    return threshold;
  }

  /** The exponent {@code e} with {@code value = m * 2^e} and m in [0.5, 1), for normal values. */
  private static int frexpExponent(double value) {
    return Math.getExponent(value) + 1;
  }

  /** The sampling probability of a threshold. */
  static double probability(long threshold) {
    return (double) (MAX_ADJUSTED_COUNT - threshold) / MAX_ADJUSTED_COUNT;
  }

  /**
   * Writes the {@code th} value of a threshold into {@code out} from {@code offset} (at most 14
   * bytes): its hex digits without trailing zeros, {@code 0} for {@link #ALWAYS}, nothing for
   * {@link #NEVER}. Returns the bytes written.
   */
  static int writeTValue(long threshold, byte[] out, int offset) {
    if (threshold == ALWAYS) {
      out[offset] = '0';
      return 1;
    }
    if (threshold >= NEVER) {
      return 0;
    }
    int digits = HEX_DIGITS;
    while (((threshold >>> (HEX_BITS * (HEX_DIGITS - digits))) & 0xF) == 0) {
      digits--;
    }
    for (int i = 0; i < digits; i++) {
      out[offset + i] = hexDigit(threshold >>> (HEX_BITS * (HEX_DIGITS - 1 - i)));
    }
    return digits;
  }

  /** Writes the 14 hex digits of an {@code rv} value into {@code out} from {@code offset}. */
  static void writeRValue(long randomness, byte[] out, int offset) {
    for (int i = 0; i < HEX_DIGITS; i++) {
      out[offset + i] = hexDigit(randomness >>> (HEX_BITS * (HEX_DIGITS - 1 - i)));
    }
  }

  private static byte hexDigit(long nibble) {
    int digit = (int) (nibble & 0xF);
    return (byte) (digit < 10 ? '0' + digit : 'a' + digit - 10);
  }

  /**
   * Parses a {@code th} value (1 to 14 hex digits, extended with zeros to 14); -1 when it is empty,
   * too long or not hex.
   */
  static long parseTValue(byte[] text, int offset, int length) {
    if (length == 0 || length > HEX_DIGITS) {
      return -1;
    }
    long value = parseHex(text, offset, length);
    return value < 0 ? -1 : value << (HEX_BITS * (HEX_DIGITS - length));
  }

  /** Parses an {@code rv} value (exactly 14 hex digits); -1 when it is not one. */
  static long parseRValue(byte[] text, int offset, int length) {
    return length == HEX_DIGITS ? parseHex(text, offset, length) : -1;
  }

  /** Hex digits, either case, as an unsigned value (at most 14 digits); -1 on any other byte. */
  private static long parseHex(byte[] text, int offset, int length) {
    long value = 0;
    for (int i = offset; i < offset + length; i++) {
      int c = text[i];
      int digit;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else {
        return -1;
      }
      value = (value << HEX_BITS) | digit;
    }
    return value;
  }
}
