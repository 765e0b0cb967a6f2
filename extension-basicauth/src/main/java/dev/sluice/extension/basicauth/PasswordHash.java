package dev.sluice.extension.basicauth;

import dev.sluice.component.Secrets;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Pattern;
import org.springframework.security.crypto.bcrypt.BCrypt;

/**
 * One user's password hash from an htpasswd file, in the schemes the OpenTelemetry Collector's
 * {@code basicauth} accepts (through go-htpasswd): bcrypt ({@code $2a$}, {@code $2b$}, {@code
 * $2y$}), Apache MD5 ({@code $apr1$}), MD5-crypt ({@code $1$}), SHA-crypt ({@code $5$}, {@code
 * $6$}), {@code {SHA}}, {@code {SSHA}} and plain text. Every check compares in constant time.
 */
interface PasswordHash {
  /** Whether {@code password} has this hash. */
  boolean matches(String password);

  /** Whether checking takes many rounds of hashing, so that a success is worth remembering. */
  default boolean slow() {
    return false;
  }

  /** Why a line's hash cannot be used; the message never holds the hash or a password. */
  final class UnsupportedException extends Exception {
    UnsupportedException(String message) {
      super(message);
    }
  }

  /**
   * The dearest bcrypt cost accepted: cost 12 already takes a few hundred milliseconds a check
   * (each step up doubles it), and a check runs on a receiver's event loop, which no budget can
   * interrupt once a check has begun.
   */
  int MAX_BCRYPT_COST = 12;

  /** The longest scheme name a refusal quotes. */
  int MAX_SCHEME_CHARS = 8;

  Pattern BCRYPT = Pattern.compile("\\$2[aby]\\$(0[4-9]|1[0-2])\\$[./A-Za-z0-9]{53}");
  Pattern CRYPT_ID = Pattern.compile("\\$([A-Za-z0-9]+)\\$.*");

  /** The hash written as {@code hash} in an htpasswd line. */
  static PasswordHash parse(String hash) throws UnsupportedException {
    if (hash.startsWith("$2")) {
      if (!BCRYPT.matcher(hash).matches()) {
        throw new UnsupportedException(
            "is not a well-formed bcrypt hash ($2a$, $2b$ or $2y$, cost 04-"
                + MAX_BCRYPT_COST
                + ", 53 characters)");
      }
      return new Bcrypt(hash);
    }
    if (hash.startsWith(Md5Crypt.APR1) || hash.startsWith(Md5Crypt.MD5)) {
      return Md5Crypt.parse(hash);
    }
    if (hash.startsWith("$5$") || hash.startsWith("$6$")) {
      return ShaCrypt.parse(hash);
    }
    if (hash.startsWith("{SHA}")) {
      byte[] digest = base64(hash.substring(5), "{SHA}");
      if (digest.length != 20) {
        throw new UnsupportedException("is not a well-formed {SHA} hash (base64 of 20 bytes)");
      }
      return new Sha(digest);
    }
    if (hash.startsWith("{SSHA}")) {
      byte[] decoded = base64(hash.substring(6), "{SSHA}");
      if (decoded.length <= 20) {
        throw new UnsupportedException("is not a well-formed {SSHA} hash (no salt)");
      }
      return new Ssha(Arrays.copyOf(decoded, 20), Arrays.copyOfRange(decoded, 20, decoded.length));
    }
    var crypt = CRYPT_ID.matcher(hash);
    if (crypt.matches()) {
      // Scheme names are short ($y$, $7$, $sha1$); a long one is more of the hash than a name.
      String id = crypt.group(1).length() <= MAX_SCHEME_CHARS ? crypt.group(1) : "...";
      throw new UnsupportedException(
          "uses the hash scheme $" + id + "$, which is not supported: use bcrypt (htpasswd -B)");
    }
    if (hash.startsWith("{")) {
      int end = hash.indexOf('}');
      String scheme = end > 0 && end <= 16 ? hash.substring(0, end + 1) : "{...}";
      throw new UnsupportedException(
          "uses the hash scheme " + scheme + ", which is not supported: use bcrypt (htpasswd -B)");
    }
    return new Plain(Secrets.digest(hash));
  }

  private static byte[] base64(String text, String scheme) throws UnsupportedException {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new UnsupportedException("is not a well-formed " + scheme + " hash (not base64)");
    }
  }

  private static MessageDigest sha1() {
    try {
      return MessageDigest.getInstance("SHA-1");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-1", e);
    }
  }

  /** bcrypt, checked by Spring Security's {@code BCrypt}, whose comparison is constant time. */
  record Bcrypt(String hash) implements PasswordHash {
    @Override
    public boolean matches(String password) {
      try {
        return BCrypt.checkpw(password, hash);
      } catch (IllegalArgumentException e) {
        // Such as a password over bcrypt's 72 bytes, which Go's bcrypt refuses too.
        return false;
      }
    }

    @Override
    public boolean slow() {
      return true;
    }

    @Override
    public String toString() {
      return "Bcrypt[" + Secrets.REDACTED + "]";
    }
  }

  /** {@code {SHA}}: base64 of the password's SHA-1. */
  record Sha(byte[] digest) implements PasswordHash {
    @Override
    public boolean matches(String password) {
      return MessageDigest.isEqual(
          sha1().digest(password.getBytes(StandardCharsets.UTF_8)), digest);
    }

    @Override
    public String toString() {
      return "Sha[" + Secrets.REDACTED + "]";
    }
  }

  /** {@code {SSHA}}: base64 of SHA-1(password + salt) followed by the salt. */
  record Ssha(byte[] digest, byte[] salt) implements PasswordHash {
    @Override
    public boolean matches(String password) {
      MessageDigest sha1 = sha1();
      sha1.update(password.getBytes(StandardCharsets.UTF_8));
      sha1.update(salt);
      return MessageDigest.isEqual(sha1.digest(), digest);
    }

    @Override
    public String toString() {
      return "Ssha[" + Secrets.REDACTED + "]";
    }
  }

  /** A password written as it is, compared by digest. */
  record Plain(byte[] digest) implements PasswordHash {
    @Override
    public boolean matches(String password) {
      return Secrets.matches(password, digest);
    }

    @Override
    public String toString() {
      return "Plain[" + Secrets.REDACTED + "]";
    }
  }
}
