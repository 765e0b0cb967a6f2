package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {

  @Test
  void checksAgainUntilTheConditionHolds() throws Exception {
    AtomicInteger checks = new AtomicInteger();

    Await.until("the third check", () -> checks.incrementAndGet() == 3);

    assertThat(checks).hasValue(3);
  }

  @Test
  void failsNamingWhatItWaitedForOnceTheDeadlinePasses() {
    assertThatThrownBy(() -> Await.until("a flag never set", Duration.ofMillis(30), () -> false))
        .isInstanceOf(AssertionError.class)
        .hasMessage("waited 30 ms for: a flag never set");
  }

  @Test
  void saysWhetherTheConditionHeldWithinTheDeadline() throws Exception {
    AtomicInteger checks = new AtomicInteger();

    assertThat(Await.within(Duration.ZERO, () -> checks.incrementAndGet() > 0)).isTrue();
    assertThat(Await.within(Duration.ofMillis(30), Duration.ofMillis(1), () -> false)).isFalse();
    assertThat(checks).hasValue(1);
  }

  @Test
  void passesOnWhatTheConditionThrows() {
    assertThatThrownBy(
            () ->
                Await.until(
                    "a broker that does not answer",
                    () -> {
                      throw new IOException("connection refused");
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("connection refused");
  }
}
