package dev.sluice.extension.basicauth;

import dev.sluice.component.Secrets;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * MD5-crypt (Poul-Henning Kamp's {@code $1$}) and Apache's variant of it ({@code $apr1$}, the
 * default of {@code htpasswd -m}), which differ only in the magic string mixed into the first
 * digest.
 */
record Md5Crypt(String magic, String salt, byte[] expected) implements PasswordHash {
  static final String APR1 = "$apr1$";
  static final String MD5 = "$1$";

  private static final int MAX_SALT_CHARS = 8;
  private static final int ROUNDS = 1000;
  private static final int ENCODED_CHARS = 22;
  private static final String ALPHABET =
      "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

  static Md5Crypt parse(String hash) throws UnsupportedException {
    String magic = hash.startsWith(APR1) ? APR1 : MD5;
    int dollar = hash.indexOf('$', magic.length());
    if (dollar < 0 || dollar - magic.length() > MAX_SALT_CHARS) {
      throw new UnsupportedException("is not a well-formed " + magic + " hash");
    }
    String encoded = hash.substring(dollar + 1);
    if (encoded.length() != ENCODED_CHARS
        || encoded.chars().anyMatch(c -> ALPHABET.indexOf(c) < 0)) {
      throw new UnsupportedException("is not a well-formed " + magic + " hash");
    }
    return new Md5Crypt(
        magic, hash.substring(magic.length(), dollar), encoded.getBytes(StandardCharsets.US_ASCII));
  }

  @Override
  public boolean matches(String password) {
    return MessageDigest.isEqual(
        encode(password.getBytes(StandardCharsets.UTF_8), magic, salt), expected);
  }

  /** A thousand MD5 rounds: worth remembering a success, as for bcrypt. */
  @Override
  public boolean slow() {
    return true;
  }

  /** The 22 characters after the salt, for {@code password}. */
  static byte[] encode(byte[] password, String magic, String saltText) {
    byte[] salt = saltText.getBytes(StandardCharsets.UTF_8);
    MessageDigest md5 = md5();
    md5.update(password);
    md5.update(magic.getBytes(StandardCharsets.US_ASCII));
    md5.update(salt);
    MessageDigest alternate = md5();
    alternate.update(password);
    alternate.update(salt);
    alternate.update(password);
    byte[] mixed = alternate.digest();
    for (int left = password.length; left > 0; left -= 16) {
      md5.update(mixed, 0, Math.min(16, left));
    }
    // The original's quirk, kept by every implementation: a zero byte or the first character.
    for (int bits = password.length; bits != 0; bits >>>= 1) {
      if ((bits & 1) != 0) {
        md5.update((byte) 0);
      } else {
        md5.update(password.length == 0 ? 0 : password[0]);
      }
    }
    byte[] result = md5.digest();
    // digest() resets it: one instance serves every round.
    MessageDigest step = md5;
    for (int round = 0; round < ROUNDS; round++) {
      boolean odd = (round & 1) != 0;
      step.update(odd ? password : result);
      if (round % 3 != 0) {
        step.update(salt);
      }
      if (round % 7 != 0) {
        step.update(password);
      }
      step.update(odd ? result : password);
      result = step.digest();
    }
    byte[] out = new byte[ENCODED_CHARS];
    int at = 0;
    at = to64(out, at, b(result, 0) << 16 | b(result, 6) << 8 | b(result, 12), 4);
    at = to64(out, at, b(result, 1) << 16 | b(result, 7) << 8 | b(result, 13), 4);
    at = to64(out, at, b(result, 2) << 16 | b(result, 8) << 8 | b(result, 14), 4);
    at = to64(out, at, b(result, 3) << 16 | b(result, 9) << 8 | b(result, 15), 4);
    at = to64(out, at, b(result, 4) << 16 | b(result, 10) << 8 | b(result, 5), 4);
    to64(out, at, b(result, 11), 2);
    return out;
  }

  private static int b(byte[] bytes, int index) {
    return bytes[index] & 0xff;
  }

  private static int to64(byte[] out, int at, int value, int chars) {
    for (int i = 0; i < chars; i++) {
      out[at++] = (byte) ALPHABET.charAt(value & 0x3f);
      value >>>= 6;
    }
    return at;
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has MD5", e);
    }
  }

  @Override
  public String toString() {
    return "Md5Crypt[" + magic + ", " + Secrets.REDACTED + "]";
  }
}
