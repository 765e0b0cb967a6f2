package dev.sluice.testkit;

import java.time.Duration;

/**
 * Waits for something other threads bring about: checks a condition every {@link #POLL} until it
 * holds, and gives up after a deadline ({@link #DEADLINE} unless told) that only a broken test
 * reaches, however slow and shared the machine. A test asserts what holds once the wait is over,
 * never how long it took.
 *
 * <pre>{@code
 * Await.until("the consumer closed", consumer::closed);
 * Await.until("offsets committed", Duration.ofSeconds(60), () -> committed(topic) == end);
 * }</pre>
 */
public final class Await {
  /** How long {@link #until(String, Condition)} waits before it fails. */
  public static final Duration DEADLINE = Duration.ofSeconds(30);

  /** How often a condition is checked unless told. */
  public static final Duration POLL = Duration.ofMillis(10);

  /**
   * A check that may throw what it throws (an admin call to a broker, a handshake); a lambda that
   * throws no checked exception makes the wait throw none either.
   */
  @FunctionalInterface
  public interface Condition<E extends Exception> {
    boolean holds() throws E;
  }

  private Await() {}

  /** Waits until {@code condition} holds; fails, naming {@code what}, after {@link #DEADLINE}. */
  public static <E extends Exception> void until(String what, Condition<E> condition)
      throws E, InterruptedException {
    until(what, DEADLINE, POLL, condition);
  }

  /** Waits until {@code condition} holds; fails, naming {@code what}, after {@code deadline}. */
  public static <E extends Exception> void until(
      String what, Duration deadline, Condition<E> condition) throws E, InterruptedException {
    until(what, deadline, POLL, condition);
  }

  /**
   * Waits until {@code condition} holds, checking it every {@code poll} (for a check that costs,
   * such as a call to a broker or a handshake); fails, naming {@code what}, after {@code deadline}.
   */
  public static <E extends Exception> void until(
      String what, Duration deadline, Duration poll, Condition<E> condition)
      throws E, InterruptedException {
    if (!within(deadline, poll, condition)) {
      throw new AssertionError("waited " + text(deadline) + " for: " + what);
    }
  }

  /**
   * Whether {@code condition} holds within {@code deadline}: for a test that reports a miss itself,
   * with what it finds at that moment.
   */
  public static <E extends Exception> boolean within(Duration deadline, Condition<E> condition)
      throws E, InterruptedException {
    return within(deadline, POLL, condition);
  }

  /** Whether {@code condition} holds within {@code deadline}, checking it every {@code poll}. */
  public static <E extends Exception> boolean within(
      Duration deadline, Duration poll, Condition<E> condition) throws E, InterruptedException {
    long endNanos = System.nanoTime() + deadline.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() - endNanos > 0) {
        return false;
      }
      Thread.sleep(poll.toMillis());
    }
    return true;
  }

  private static String text(Duration duration) {
    long millis = duration.toMillis();
    return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
  }
}
