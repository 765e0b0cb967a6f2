package dev.sluice.ottl;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The hash converters, with the Collector's outputs: {@code SHA1}, {@code SHA256}, {@code SHA512}
 * and {@code MD5} give the digest of the string's UTF-8 bytes in lower-case hex; {@code
 * Murmur3Hash} and {@code Murmur3Hash128} the 32-bit (x86) and 128-bit (x64) MurmurHash3 with seed
 * 0, their words in little-endian order, in lower-case hex; {@code FNV} the 64-bit FNV-1a hash as
 * an int (and an empty string for an empty string, as Go returns it). Each node reuses its buffers.
 */
final class HashExprs {
  private static final int MURMUR3_32_BYTES = 4;
  private static final int MURMUR3_128_BYTES = 16;
  private static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private HashExprs() {}

  /** A message digest of the JDK, by its converter name. */
  static final class Digest extends Expr {
    private final String name;
    private final Expr target;
    private final MessageDigest digest;
    private final byte[] hash;

    Digest(String name, String algorithm, Expr target) {
      super(OttlType.STRING);
      this.name = name;
      this.target = target;
      try {
        this.digest = MessageDigest.getInstance(algorithm);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("every JDK has " + algorithm, e);
      }
      this.hash = new byte[digest.getDigestLength()];
    }

    @Override
    Value eval(EvalContext context) {
      Value s = ConverterExprs.string(target, context, name);
      digest.update(s.bytes, s.offset, s.length);
      try {
        digest.digest(hash, 0, hash.length);
      } catch (DigestException e) {
        throw new IllegalStateException("the hash buffer holds a " + name, e);
      }
      Values.writeHex(hash, 0, hash.length, out);
      return out;
    }
  }

  /** {@code Murmur3Hash(s)} or, with {@code wide}, {@code Murmur3Hash128(s)}. */
  static final class Murmur3 extends Expr {
    private final String name;
    private final Expr target;
    private final boolean wide;
    private final byte[] hash;
    private final long[] words = new long[2];

    Murmur3(String name, Expr target, boolean wide) {
      super(OttlType.STRING);
      this.name = name;
      this.target = target;
      this.wide = wide;
      this.hash = new byte[wide ? MURMUR3_128_BYTES : MURMUR3_32_BYTES];
    }

    @Override
    Value eval(EvalContext context) {
      Value s = ConverterExprs.string(target, context, name);
      if (wide) {
        Murmur3Hash.hash128(s.bytes, s.offset, s.length, words);
        littleEndian(words[0], hash, 0, Long.BYTES);
        littleEndian(words[1], hash, Long.BYTES, Long.BYTES);
      } else {
        littleEndian(Murmur3Hash.hash32(s.bytes, s.offset, s.length), hash, 0, Integer.BYTES);
      }
      Values.writeHex(hash, 0, hash.length, out);
      return out;
    }

    private static void littleEndian(long value, byte[] into, int at, int count) {
      for (int i = 0; i < count; i++) {
        into[at + i] = (byte) (value >>> (8 * i));
      }
    }
  }

  /** {@code FNV(s)}. */
  static final class Fnv extends Expr {
    private final Expr target;

    Fnv(Expr target) {
      // An int, or the empty string for an empty string, as the Collector returns them.
      super(OttlType.ANY);
      this.target = target;
    }

    @Override
    Value eval(EvalContext context) {
      Value s = ConverterExprs.string(target, context, "FNV");
      if (s.length == 0) {
        out.setStringRef(s.bytes, s.offset, 0);
        return out;
      }
      long hash = FNV_OFFSET_BASIS;
      for (int i = s.offset; i < s.offset + s.length; i++) {
        hash ^= s.bytes[i] & 0xFF;
        hash *= FNV_PRIME;
      }
      out.setInt(hash);
      return out;
    }
  }
}
