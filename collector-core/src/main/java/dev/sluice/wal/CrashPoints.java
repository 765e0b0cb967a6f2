package dev.sluice.wal;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fault-injection hook for crash tests: with the system property {@code sluice.wal.crash} set to
 * {@code POINT:N}, the process halts (as a SIGKILL would stop it, with no shutdown hooks) the
 * {@code N}th time the log's writer reaches {@code POINT}. Unset, each check is one read of a final
 * field.
 *
 * <p>Points: {@code torn-write} (halfway through writing a buffer of records), {@code force}
 * (written, before the force), {@code roll} (a new segment created, nothing in it yet), {@code
 * progress} (before the progress file is replaced), {@code delete} (a done segment deleted, the
 * directory not yet forced).
 */
final class CrashPoints {
  static final String PROPERTY = "sluice.wal.crash";

  /** The status a halted process exits with: what a shell reports for SIGKILL. */
  static final int HALT_STATUS = 137;

  enum Point {
    TORN_WRITE,
    FORCE,
    ROLL,
    PROGRESS,
    DELETE
  }

  private static final Point ARMED;
  private static final AtomicLong LEFT = new AtomicLong();

  static {
    String setting = System.getProperty(PROPERTY, "");
    Point armed = null;
    int colon = setting.indexOf(':');
    if (colon > 0) {
      armed = Point.valueOf(setting.substring(0, colon).replace('-', '_').toUpperCase(Locale.ROOT));
      LEFT.set(Long.parseLong(setting.substring(colon + 1)));
    }
    ARMED = armed;
  }

  private CrashPoints() {}

  /** Whether this is the moment to crash at {@code point}. */
  static boolean reached(Point point) {
    return ARMED == point && LEFT.decrementAndGet() == 0;
  }

  /** Halts at once, as a kill would. */
  static void halt() {
    Runtime.getRuntime().halt(HALT_STATUS);
  }

  /** Halts if this is the moment to crash at {@code point}. */
  static void check(Point point) {
    if (reached(point)) {
      halt();
    }
  }
}
