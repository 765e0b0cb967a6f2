package dev.sluice.pdata.internal;

import java.util.SplittableRandom;

/** Test values for varint and fixed encodings: every bit length and its edges. */
final class WireValues {
  private WireValues() {}

  /** Values with exactly {@code bits} significant bits (0 means the value 0), and their edges. */
  static int[] aroundBitLength32(int bits) {
    if (bits == 0) {
      return new int[] {0};
    }
    int low = 1 << (bits - 1); // smallest value with this bit length
    int high = bits == 32 ? -1 : (1 << bits) - 1; // largest
    return new int[] {low, low + 1, high - 1, high, low | (high >>> 1 & 0x55555555)};
  }

  static long[] aroundBitLength64(int bits) {
    if (bits == 0) {
      return new long[] {0};
    }
    long low = 1L << (bits - 1);
    long high = bits == 64 ? -1L : (1L << bits) - 1;
    return new long[] {low, low + 1, high - 1, high, low | (high >>> 1 & 0x5555555555555555L)};
  }

  /**
   * A random int whose bit length is itself uniform, so short and long varints are equally many.
   */
  static int randomInt(SplittableRandom random) {
    return random.nextInt() >>> random.nextInt(32);
  }

  static long randomLong(SplittableRandom random) {
    return random.nextLong() >>> random.nextInt(64);
  }
}
