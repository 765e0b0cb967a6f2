package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AllocationBoundTest {

  private static volatile byte[] sink;

  @Test
  void failsACallThatAllocatesPastTheBoundForItsInput() {
    AllocationBound.Outcome outcome = AllocationBound.measure(() -> sink = new byte[1 << 20]);

    assertThat(outcome.allocatedBytes()).isGreaterThanOrEqualTo(1 << 20);
    assertThatThrownBy(() -> outcome.assertWithin("a 1 MiB array", 100))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("over the bound of " + AllocationBound.limitFor(100));
    outcome.assertWithin("a 1 MiB array for 1 MiB of input", 1 << 20);
  }

  @Test
  void recordsWhatTheCallThrew() {
    AllocationBound.Outcome outcome =
        AllocationBound.measure(
            () -> {
              throw new IllegalStateException("refused");
            });

    assertThat(outcome.thrown()).isInstanceOf(IllegalStateException.class);
    outcome.assertWithin("a refusal", 0);
  }
}
