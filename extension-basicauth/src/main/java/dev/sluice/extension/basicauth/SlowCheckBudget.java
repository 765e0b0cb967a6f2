package dev.sluice.extension.basicauth;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How much time the slow password hashes (bcrypt and the like) of one basicauth instance may take:
 * a fraction of one core, as a token bucket that refills at {@code fraction} nanos per nano up to
 * one window's worth ({@code fraction x window}). So over any stretch of time {@code T} the slow
 * checks take at most {@code fraction x (window + T)}, plus at most one check per event loop that
 * started while a little budget was left; whatever the hashes' cost, and however many requests ask.
 *
 * <p>A check reserves what the previous one took before it starts, so that event loops asking at
 * the same moment see each other's spending, and settles the difference when it ends: a check that
 * took more than was left leaves a debt that refills before the next one is allowed. Callers hold
 * no lock while hashing; the lock here guards a few arithmetic operations, taken only by requests
 * that need a slow check or are refused one.
 */
final class SlowCheckBudget {
  /**
   * The share of one core that slow checks may take: some ten bcrypt checks a second at cost 5, one
   * every second or two at cost 10. Enough for new clients, since each successful password is
   * remembered after its first check (agents sharing a user need one check between them); little
   * enough that an attacker sending wrong passwords as fast as it can leaves the event loops 90 %
   * of a core for everyone else.
   */
  static final double DEFAULT_FRACTION = 0.10;

  /** The window over which spending is measured, and the {@code Retry-After} of a refusal. */
  static final long DEFAULT_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** What {@link #tryStart} returns when the budget is spent. */
  static final long SPENT = -1;

  private final double fraction;
  private final long capacityNanos;
  private final LongSupplier nanoClock;

  private long availableNanos;
  private long refilledAtNanos;
  private long lastCostNanos;
  private long spentNanos;
  private long maxCostNanos;
  private long checks;

  SlowCheckBudget(double fraction, long windowNanos, LongSupplier nanoClock) {
    if (!(fraction > 0 && fraction <= 1) || windowNanos <= 0) {
      throw new IllegalArgumentException("fraction in (0, 1] and a positive window");
    }
    this.fraction = fraction;
    this.capacityNanos = (long) (fraction * windowNanos);
    this.nanoClock = nanoClock;
    this.availableNanos = capacityNanos;
    this.refilledAtNanos = nanoClock.getAsLong();
  }

  static SlowCheckBudget standard() {
    return new SlowCheckBudget(DEFAULT_FRACTION, DEFAULT_WINDOW_NANOS, System::nanoTime);
  }

  /**
   * Starts a slow check if budget is left: returns the time it started, to hand to {@link #finish},
   * or {@link #SPENT}.
   */
  synchronized long tryStart() {
    long now = nanoClock.getAsLong();
    refill(now);
    if (availableNanos <= 0) {
      return SPENT;
    }
    availableNanos -= lastCostNanos;
    checks++;
    return now;
  }

  /** Ends the slow check that {@link #tryStart} started at {@code startedNanos}. */
  synchronized void finish(long startedNanos) {
    long now = nanoClock.getAsLong();
    long costNanos = Math.max(0, now - startedNanos);
    refill(now);
    availableNanos -= costNanos - lastCostNanos;
    lastCostNanos = costNanos;
    spentNanos += costNanos;
    maxCostNanos = Math.max(maxCostNanos, costNanos);
  }

  private void refill(long now) {
    long elapsed = now - refilledAtNanos;
    if (elapsed <= 0) {
      return;
    }
    refilledAtNanos = now;
    availableNanos =
        (long) Math.floor(Math.min(capacityNanos, availableNanos + fraction * elapsed));
  }

  /** The most the slow checks may take in one window, before the per-check overshoot. */
  long capacityNanos() {
    return capacityNanos;
  }

  /** The time all slow checks took so far. */
  synchronized long spentNanos() {
    return spentNanos;
  }

  /** The longest a slow check took so far: what one check can overshoot the budget by. */
  synchronized long maxCostNanos() {
    return maxCostNanos;
  }

  /** How many slow checks were started so far. */
  synchronized long checks() {
    return checks;
  }
}
