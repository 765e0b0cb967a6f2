package dev.sluice.ottl;

/**
 * MurmurHash3 with seed 0, as Austin Appleby defined it: the x86 32-bit variant and the x64 128-bit
 * one, over bytes read little-endian. Allocation-free.
 */
final class Murmur3Hash {
  private static final int C1_32 = 0xcc9e2d51;
  private static final int C2_32 = 0x1b873593;
  private static final int MIX_32 = 0xe6546b64;
  private static final int FMIX_32_A = 0x85ebca6b;
  private static final int FMIX_32_B = 0xc2b2ae35;
  private static final long C1_128 = 0x87c37b91114253d5L;
  private static final long C2_128 = 0x4cf5ad432745937fL;
  private static final int MIX_128_H1 = 0x52dce729;
  private static final int MIX_128_H2 = 0x38495ab5;
  private static final long FMIX_64_A = 0xff51afd7ed558ccdL;
  private static final long FMIX_64_B = 0xc4ceb9fe1a85ec53L;
  private static final int BLOCK_32 = 4;
  private static final int BLOCK_128 = 16;

  private Murmur3Hash() {}

  static int hash32(byte[] data, int offset, int length) {
    int h = 0;
    int blocks = length / BLOCK_32;
    for (int i = 0; i < blocks; i++) {
      int k = littleEndianInt(data, offset + i * BLOCK_32);
      k *= C1_32;
      k = Integer.rotateLeft(k, 15);
      k *= C2_32;
      h ^= k;
      h = Integer.rotateLeft(h, 13);
      h = h * 5 + MIX_32;
    }
    int tail = offset + blocks * BLOCK_32;
    int k = 0;
    switch (length & (BLOCK_32 - 1)) {
      case 3:
        k ^= (data[tail + 2] & 0xFF) << 16;
      // fall through
      case 2:
        k ^= (data[tail + 1] & 0xFF) << 8;
      // fall through
      case 1:
        k ^= data[tail] & 0xFF;
        k *= C1_32;
        k = Integer.rotateLeft(k, 15);
        k *= C2_32;
        h ^= k;
      // fall through
      default:
        break;
    }
    h ^= length;
    h ^= h >>> 16;
    h *= FMIX_32_A;
    h ^= h >>> 13;
    h *= FMIX_32_B;
    h ^= h >>> 16;
    return h;
  }

  /** The two 64-bit words of the 128-bit hash into {@code words[0]} and {@code words[1]}. */
  static void hash128(byte[] data, int offset, int length, long[] words) {
    long h1 = 0;
    long h2 = 0;
    int blocks = length / BLOCK_128;
    for (int i = 0; i < blocks; i++) {
      int at = offset + i * BLOCK_128;
      long k1 = littleEndianLong(data, at, Long.BYTES);
      long k2 = littleEndianLong(data, at + Long.BYTES, Long.BYTES);
      h1 ^= mixK1(k1);
      h1 = Long.rotateLeft(h1, 27);
      h1 += h2;
      h1 = h1 * 5 + MIX_128_H1;
      h2 ^= mixK2(k2);
      h2 = Long.rotateLeft(h2, 31);
      h2 += h1;
      h2 = h2 * 5 + MIX_128_H2;
    }
    int tail = offset + blocks * BLOCK_128;
    int rest = length & (BLOCK_128 - 1);
    if (rest > Long.BYTES) {
      h2 ^= mixK2(littleEndianLong(data, tail + Long.BYTES, rest - Long.BYTES));
    }
    if (rest > 0) {
      h1 ^= mixK1(littleEndianLong(data, tail, Math.min(rest, Long.BYTES)));
    }
    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    words[0] = h1;
    words[1] = h2;
  }

  private static long mixK1(long k1) {
    k1 *= C1_128;
    k1 = Long.rotateLeft(k1, 31);
    return k1 * C2_128;
  }

  private static long mixK2(long k2) {
    k2 *= C2_128;
    k2 = Long.rotateLeft(k2, 33);
    return k2 * C1_128;
  }

  private static long fmix64(long k) {
    k ^= k >>> 33;
    k *= FMIX_64_A;
    k ^= k >>> 33;
    k *= FMIX_64_B;
    k ^= k >>> 33;
    return k;
  }

  private static int littleEndianInt(byte[] data, int at) {
    return (data[at] & 0xFF)
        | (data[at + 1] & 0xFF) << 8
        | (data[at + 2] & 0xFF) << 16
        | (data[at + 3] & 0xFF) << 24;
  }

  /** {@code count} (1 to 8) bytes from {@code at}, the first the lowest. */
  private static long littleEndianLong(byte[] data, int at, int count) {
    long value = 0;
    for (int i = count - 1; i >= 0; i--) {
      value = (value << 8) | (data[at + i] & 0xFF);
    }
    return value;
  }
}
