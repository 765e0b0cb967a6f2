package dev.sluice.extension.basicauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The budget's accounting, on a clock the test moves. */
class SlowCheckBudgetTest {
  private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);

  private final AtomicLong clock = new AtomicLong(1_000 * WINDOW_NANOS);
  private final SlowCheckBudget budget = new SlowCheckBudget(0.10, WINDOW_NANOS, clock::get);

  private void check(long costNanos) {
    assertThat(tryCheck(costNanos)).isTrue();
  }

  private boolean tryCheck(long costNanos) {
    long started = budget.tryStart();
    if (started == SlowCheckBudget.SPENT) {
      return false;
    }
    clock.addAndGet(costNanos);
    budget.finish(started);
    return true;
  }

  @Test
  void allowsOneWindowsShareThenRefusesUntilItRefills() {
    long start = clock.get();
    int allowed = 0;
    while (allowed < 1_000 && tryCheck(10 * MILLI)) {
      allowed++;
    }
    long elapsed = clock.get() - start;

    // 100 ms of budget, and the 10 % of their own time that refilled while the checks ran.
    assertThat(allowed).isEqualTo(11);
    assertThat(budget.spentNanos())
        .isGreaterThanOrEqualTo(budget.capacityNanos())
        .isLessThanOrEqualTo(budget.capacityNanos() + elapsed / 10 + 10 * MILLI);
    assertThat(budget.tryStart()).isEqualTo(SlowCheckBudget.SPENT);

    clock.addAndGet(100 * MILLI);
    check(10 * MILLI);
    assertThat(budget.checks()).isEqualTo(12);
  }

  @Test
  void aCheckDearerThanWhatWasLeftIsPaidBackBeforeTheNext() {
    check(300 * MILLI);

    // 200 ms of debt: 2 s of refilling before anything is left.
    clock.addAndGet(1_900 * MILLI);
    assertThat(budget.tryStart()).isEqualTo(SlowCheckBudget.SPENT);
    clock.addAndGet(200 * MILLI);
    assertThat(budget.tryStart()).isNotEqualTo(SlowCheckBudget.SPENT);
  }

  @Test
  void checksStartedAtOnceReserveWhatThePreviousOneCost() {
    check(60 * MILLI);

    // 40 ms left: a check that starts reserves 60, so a second one at the same moment is refused
    // instead of both running on a budget that only one can pay.
    long first = budget.tryStart();
    assertThat(first).isNotEqualTo(SlowCheckBudget.SPENT);
    assertThat(budget.tryStart()).isEqualTo(SlowCheckBudget.SPENT);
    clock.addAndGet(60 * MILLI);
    budget.finish(first);
    assertThat(budget.spentNanos()).isEqualTo(120 * MILLI);
  }

  @Test
  void neverRefillsPastOneWindowsShare() {
    clock.addAndGet(3_600 * WINDOW_NANOS);
    int allowed = 0;
    while (allowed < 1_000 && tryCheck(MILLI)) {
      allowed++;
    }

    // 100 ms of budget, plus the 0.1 ms per check that refills while each one runs.
    assertThat(allowed).isBetween(100, 112);
  }

  @Test
  void refusesABudgetThatCannotBeSpent() {
    assertThatThrownBy(() -> new SlowCheckBudget(0, WINDOW_NANOS, clock::get))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SlowCheckBudget(1.5, WINDOW_NANOS, clock::get))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SlowCheckBudget(0.1, 0, clock::get))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
