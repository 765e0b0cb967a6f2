package dev.sluice.component;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Handling of credentials in configurations and authenticators: what is printed in their place, and
 * comparisons that take the same time wherever two values differ, and whatever their lengths.
 */
public final class Secrets {
  /** What configurations print instead of a secret, as the OpenTelemetry Collector does. */
  public static final String REDACTED = "[REDACTED]";

  private static final ThreadLocal<MessageDigest> SHA_256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("every JDK has SHA-256", e);
            }
          });

  private Secrets() {}

  /** {@link #REDACTED} for a value that is set, empty for one that is not. */
  public static String redact(String secret) {
    return secret == null || secret.isEmpty() ? "" : REDACTED;
  }

  /**
   * This thread's SHA-256 digester, so that hashing credentials makes no digester per request. Each
   * {@code digest()} resets it; a caller finishes its digest before calling anything else here.
   */
  public static MessageDigest sha256() {
    return SHA_256.get();
  }

  /**
   * The SHA-256 of {@code value}'s UTF-8 bytes: what {@link #matches} compares, so that a
   * comparison's time depends neither on where two values differ nor on their lengths.
   */
  public static byte[] digest(String value) {
    return sha256().digest(value.getBytes(StandardCharsets.UTF_8));
  }

  /** Whether {@code presented} has the digest {@code expected}, in constant time. */
  public static boolean matches(String presented, byte[] expected) {
    return MessageDigest.isEqual(digest(presented), expected);
  }
}
