package dev.sluice.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testkit.ManualScheduler;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/** A task run every interval under a lock, until stopped, on a manual clock. */
class RepeatingTimerTest {
  private final ManualScheduler scheduler = new ManualScheduler();
  private final ReentrantLock lock = new ReentrantLock();
  private int runs;
  private boolean heldTheLock = true;

  private final RepeatingTimer timer =
      new RepeatingTimer(
          scheduler,
          100,
          lock,
          () -> {
            runs++;
            heldTheLock &= lock.isHeldByCurrentThread();
          });

  @Test
  void runsEveryIntervalFromStartUnderTheLock() {
    timer.start();
    timer.start(); // a second start schedules nothing more

    scheduler.advance(99);
    assertThat(runs).isZero();
    scheduler.advance(1);
    assertThat(runs).isEqualTo(1);
    scheduler.advance(300);
    assertThat(runs).isEqualTo(4);
    assertThat(heldTheLock).isTrue();
    assertThat(scheduler.pendingTimers()).isEqualTo(1);
  }

  @Test
  void noRunAfterStopAndNoStartAfterIt() {
    timer.start();
    scheduler.advance(100);
    timer.stop();

    scheduler.advance(1000);
    timer.start();
    scheduler.advance(1000);

    assertThat(runs).isEqualTo(1);
    assertThat(scheduler.pendingTimers()).isZero();
  }

  @Test
  void aRunThatThrowsStillSchedulesTheNext() {
    int[] attempts = {0};
    RepeatingTimer failing =
        new RepeatingTimer(
            scheduler,
            10,
            lock,
            () -> {
              attempts[0]++;
              throw new IllegalStateException("boom");
            });
    failing.start();

    for (int i = 0; i < 3; i++) {
      try {
        scheduler.advance(10);
      } catch (IllegalStateException expected) {
        // the manual scheduler runs tasks on the caller's thread
      }
    }

    assertThat(attempts[0]).isEqualTo(3);
    assertThat(scheduler.pendingTimers()).isEqualTo(1);
  }

  @Test
  void anIntervalMustBePositive() {
    assertThatThrownBy(() -> new RepeatingTimer(scheduler, 0, lock, () -> {}))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
