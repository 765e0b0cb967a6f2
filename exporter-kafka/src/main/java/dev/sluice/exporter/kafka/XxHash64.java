package dev.sluice.exporter.kafka;

/** XXH64 with seed 0, as {@code github.com/cespare/xxhash/v2}'s {@code Sum64}, over an array. */
final class XxHash64 {
  private static final long PRIME1 = 0x9E3779B185EBCA87L;
  private static final long PRIME2 = 0xC2B2AE3D27D4EB4FL;
  private static final long PRIME3 = 0x165667B19E3779F9L;
  private static final long PRIME4 = 0x85EBCA77C2B2AE63L;
  private static final long PRIME5 = 0x27D4EB2F165667C5L;
  private static final int STRIPE_BYTES = 32;

  private XxHash64() {}

  static long hash(byte[] bytes, int offset, int length) {
    int p = offset;
    int end = offset + length;
    long hash;
    if (length >= STRIPE_BYTES) {
      long v1 = PRIME1 + PRIME2;
      long v2 = PRIME2;
      long v3 = 0;
      long v4 = -PRIME1;
      int limit = end - STRIPE_BYTES;
      while (p <= limit) {
        v1 = round(v1, long64(bytes, p));
        v2 = round(v2, long64(bytes, p + 8));
        v3 = round(v3, long64(bytes, p + 16));
        v4 = round(v4, long64(bytes, p + 24));
        p += STRIPE_BYTES;
      }
      hash =
          Long.rotateLeft(v1, 1)
              + Long.rotateLeft(v2, 7)
              + Long.rotateLeft(v3, 12)
              + Long.rotateLeft(v4, 18);
      hash = mergeRound(hash, v1);
      hash = mergeRound(hash, v2);
      hash = mergeRound(hash, v3);
      hash = mergeRound(hash, v4);
    } else {
      hash = PRIME5;
    }
    hash += length;
    while (p + 8 <= end) {
      hash ^= round(0, long64(bytes, p));
      hash = Long.rotateLeft(hash, 27) * PRIME1 + PRIME4;
      p += 8;
    }
    if (p + 4 <= end) {
      hash ^= (int32(bytes, p) & 0xFFFFFFFFL) * PRIME1;
      hash = Long.rotateLeft(hash, 23) * PRIME2 + PRIME3;
      p += 4;
    }
    while (p < end) {
      hash ^= (bytes[p] & 0xFFL) * PRIME5;
      hash = Long.rotateLeft(hash, 11) * PRIME1;
      p++;
    }
    hash ^= hash >>> 33;
    hash *= PRIME2;
    hash ^= hash >>> 29;
    hash *= PRIME3;
    hash ^= hash >>> 32;
    return hash;
  }

  private static long round(long accumulator, long input) {
    accumulator += input * PRIME2;
    accumulator = Long.rotateLeft(accumulator, 31);
    return accumulator * PRIME1;
  }

  private static long mergeRound(long hash, long value) {
    hash ^= round(0, value);
    return hash * PRIME1 + PRIME4;
  }

  private static long long64(byte[] b, int p) {
    return (b[p] & 0xFFL)
        | (b[p + 1] & 0xFFL) << 8
        | (b[p + 2] & 0xFFL) << 16
        | (b[p + 3] & 0xFFL) << 24
        | (b[p + 4] & 0xFFL) << 32
        | (b[p + 5] & 0xFFL) << 40
        | (b[p + 6] & 0xFFL) << 48
        | (b[p + 7] & 0xFFL) << 56;
  }

  private static int int32(byte[] b, int p) {
    return (b[p] & 0xFF)
        | (b[p + 1] & 0xFF) << 8
        | (b[p + 2] & 0xFF) << 16
        | (b[p + 3] & 0xFF) << 24;
  }
}
