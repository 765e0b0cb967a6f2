package dev.sluice.extension.basicauth;

import dev.sluice.component.Secrets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The credentials that recently failed a slow hash, so that a client repeating a wrong password
 * costs a SHA-256 instead of another bcrypt: a fixed table of {@link #SLOTS} keyed digests, each
 * credential in the slot its digest names, a newer failure replacing an older one there. Bounded
 * memory ({@code SLOTS x 32} bytes and their arrays) whatever is sent; lock-free.
 *
 * <p>A digest is SHA-256 over a random key of this instance, the user, a separator and the
 * password, so that the table holds nothing that could be checked against guesses elsewhere; found
 * digests are compared in constant time. Nothing here is ever logged.
 */
final class FailureMemory {
  /**
   * How many failures are remembered: more than the distinct wrong passwords a handful of
   * misconfigured agents send, few enough to stay some tens of KiB. A power of two.
   */
  static final int SLOTS = 1024;

  private static final int KEY_BYTES = 32;

  /** Cannot be part of a user name, which ends at the first colon: no two credentials collide. */
  private static final byte SEPARATOR = ':';

  private final byte[] key = new byte[KEY_BYTES];
  private final AtomicReferenceArray<byte[]> slots = new AtomicReferenceArray<>(SLOTS);

  FailureMemory() {
    new SecureRandom().nextBytes(key);
  }

  /** The digest under which {@code user} and {@code password} are remembered. */
  byte[] digest(byte[] user, byte[] password) {
    // One per event loop, reset by each digest: no digester made per request.
    MessageDigest sha256 = Secrets.sha256();
    sha256.update(key);
    sha256.update(user);
    sha256.update(SEPARATOR);
    sha256.update(password);
    return sha256.digest();
  }

  /** Whether the credentials of {@code digest} failed recently. */
  boolean failed(byte[] digest) {
    byte[] remembered = slots.get(slot(digest));
    return remembered != null && MessageDigest.isEqual(remembered, digest);
  }

  /** Remembers that the credentials of {@code digest} failed. */
  void remember(byte[] digest) {
    slots.set(slot(digest), digest);
  }

  private static int slot(byte[] digest) {
    int bits =
        (digest[0] & 0xff) | (digest[1] & 0xff) << 8 | (digest[2] & 0xff) << 16 | digest[3] << 24;
    return bits & (SLOTS - 1);
  }
}
