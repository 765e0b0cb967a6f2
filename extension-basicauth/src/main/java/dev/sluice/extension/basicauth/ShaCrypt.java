package dev.sluice.extension.basicauth;

import dev.sluice.component.Secrets;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SHA-crypt, Ulrich Drepper's {@code $5$} (SHA-256) and {@code $6$} (SHA-512) of glibc's crypt(3),
 * which go-htpasswd accepts too: a salt of up to 16 characters and 5000 rounds unless the hash says
 * {@code rounds=N} (clamped to 1000-999999999, as the specification has it).
 */
record ShaCrypt(Variant variant, int rounds, String salt, byte[] expected) implements PasswordHash {
  private static final int DEFAULT_ROUNDS = 5000;
  private static final int MIN_ROUNDS = 1000;
  private static final int MAX_ROUNDS = 999_999_999;

  /**
   * The most rounds accepted, of the specification's 999,999,999: a check runs on a receiver's
   * event loop, which no budget can interrupt once a check has begun, and 200,000 rounds already
   * take tens of milliseconds (the default is 5000).
   */
  static final int MAX_ACCEPTED_ROUNDS = 200_000;

  /**
   * The longest password checked. SHA-crypt hashes the password once per round and its length
   * squared once more, so a long password sent in a header would make one check cost seconds at
   * {@link #MAX_ACCEPTED_ROUNDS}; a longer one does not match, unhashed. bcrypt stops at 72 bytes.
   */
  static final int MAX_PASSWORD_BYTES = 256;

  private static final int MAX_SALT_CHARS = 16;
  private static final String ALPHABET =
      "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  private static final Pattern FORMAT =
      Pattern.compile("\\$([56])\\$(?:rounds=([0-9]{1,9})\\$)?([^$]{0,16})\\$([./0-9A-Za-z]+)");

  /** The two digests, with the byte order in which each spreads its digest over the output. */
  enum Variant {
    SHA_256(
        "SHA-256",
        43,
        new int[] {
          0, 10, 20, 21, 1, 11, 12, 22, 2, 3, 13, 23, 24, 4, 14, 15, 25, 5, 6, 16, 26, 27, 7, 17,
          18, 28, 8, 9, 19, 29, -1, 31, 30
        }),
    SHA_512(
        "SHA-512",
        86,
        new int[] {
          0, 21, 42, 22, 43, 1, 44, 2, 23, 3, 24, 45, 25, 46, 4, 47, 5, 26, 6, 27, 48, 28, 49, 7,
          50, 8, 29, 9, 30, 51, 31, 52, 10, 53, 11, 32, 12, 33, 54, 34, 55, 13, 56, 14, 35, 15, 36,
          57, 37, 58, 16, 59, 17, 38, 18, 39, 60, 40, 61, 19, 62, 20, 41, -1, -1, 63
        });

    final String algorithm;
    final int encodedChars;

    /** Triples of digest bytes, each written as 4 characters; -1 stands for a zero byte. */
    final int[] order;

    Variant(String algorithm, int encodedChars, int[] order) {
      this.algorithm = algorithm;
      this.encodedChars = encodedChars;
      this.order = order;
    }

    MessageDigest digest() {
      try {
        return MessageDigest.getInstance(algorithm);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("every JDK has " + algorithm, e);
      }
    }
  }

  static ShaCrypt parse(String hash) throws UnsupportedException {
    Matcher m = FORMAT.matcher(hash);
    Variant variant = hash.startsWith("$5$") ? Variant.SHA_256 : Variant.SHA_512;
    String name = hash.substring(0, 3);
    if (!m.matches() || m.group(4).length() != variant.encodedChars) {
      throw new UnsupportedException("is not a well-formed " + name + " hash");
    }
    int rounds = DEFAULT_ROUNDS;
    if (m.group(2) != null) {
      rounds = Math.max(MIN_ROUNDS, Math.min(MAX_ROUNDS, Integer.parseInt(m.group(2))));
    }
    if (rounds > MAX_ACCEPTED_ROUNDS) {
      throw new UnsupportedException(
          "asks for " + rounds + " rounds of " + name + ", more than " + MAX_ACCEPTED_ROUNDS);
    }
    if (m.group(3).length() > MAX_SALT_CHARS) {
      throw new UnsupportedException("is not a well-formed " + name + " hash");
    }
    return new ShaCrypt(
        variant, rounds, m.group(3), m.group(4).getBytes(StandardCharsets.US_ASCII));
  }

  @Override
  public boolean matches(String password) {
    byte[] bytes = password.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_PASSWORD_BYTES) {
      return false;
    }
    return MessageDigest.isEqual(encode(variant, bytes, salt, rounds), expected);
  }

  @Override
  public boolean slow() {
    return true;
  }

  /** The characters after the salt's {@code $}, for {@code password}. */
  static byte[] encode(Variant variant, byte[] password, String saltText, int rounds) {
    byte[] salt = saltText.getBytes(StandardCharsets.UTF_8);
    MessageDigest md = variant.digest();
    md.update(password);
    md.update(salt);
    md.update(password);
    byte[] b = md.digest();
    int length = b.length;

    md.update(password);
    md.update(salt);
    int left = password.length;
    for (; left > length; left -= length) {
      md.update(b, 0, length);
    }
    md.update(b, 0, left);
    for (int bits = password.length; bits > 0; bits >>>= 1) {
      if ((bits & 1) != 0) {
        md.update(b, 0, length);
      } else {
        md.update(password);
      }
    }
    byte[] a = md.digest();

    for (int i = 0; i < password.length; i++) {
      md.update(password);
    }
    byte[] p = repeat(md.digest(), password.length);
    for (int i = 0; i < 16 + (a[0] & 0xff); i++) {
      md.update(salt);
    }
    byte[] s = repeat(md.digest(), salt.length);

    byte[] c = a;
    for (int round = 0; round < rounds; round++) {
      boolean odd = (round & 1) != 0;
      md.update(odd ? p : c);
      if (round % 3 != 0) {
        md.update(s);
      }
      if (round % 7 != 0) {
        md.update(p);
      }
      md.update(odd ? c : p);
      c = md.digest();
    }

    byte[] out = new byte[variant.encodedChars];
    int at = 0;
    int[] order = variant.order;
    for (int i = 0; i < order.length; i += 3) {
      int value = at(c, order[i]) << 16 | at(c, order[i + 1]) << 8 | at(c, order[i + 2]);
      int chars = Math.min(4, out.length - at);
      for (int k = 0; k < chars; k++) {
        out[at++] = (byte) ALPHABET.charAt(value & 0x3f);
        value >>>= 6;
      }
    }
    return out;
  }

  private static int at(byte[] digest, int index) {
    return index < 0 ? 0 : digest[index] & 0xff;
  }

  /** {@code digest} repeated to {@code length} bytes. */
  private static byte[] repeat(byte[] digest, int length) {
    byte[] out = new byte[length];
    for (int i = 0; i < length; i++) {
      out[i] = digest[i % digest.length];
    }
    return out;
  }

  @Override
  public String toString() {
    return "ShaCrypt[" + variant + ", rounds=" + rounds + ", " + Secrets.REDACTED + "]";
  }
}
