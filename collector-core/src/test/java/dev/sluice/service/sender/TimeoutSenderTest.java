package dev.sluice.service.sender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.pdata.Batch;
import dev.sluice.testkit.ManualScheduler;
import dev.sluice.testkit.SequencedSpans;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class TimeoutSenderTest {
  private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final ManualScheduler clock = new ManualScheduler();

  private TimeoutSender sender(Exporter exporter) {
    return new TimeoutSender(exporter, TIMEOUT_NANOS, clock, Logger.getAnonymousLogger());
  }

  private static Batch spans() {
    return Batch.of(SequencedSpans.indexed("a", 0, 1));
  }

  @Test
  void givesEachAttemptADeadlineTimeoutAheadOnTheServiceClock() throws Exception {
    List<Long> deadlines = new ArrayList<>();
    TimeoutSender sender =
        sender(
            (batch, deadlineNanos) -> {
              deadlines.add(deadlineNanos);
              return ExportResult.SUCCESS;
            });
    long start = clock.nanoTime();

    sender.send(spans());
    clock.advance(7, TimeUnit.SECONDS);
    sender.send(spans());

    assertThat(deadlines)
        .containsExactly(
            start + TIMEOUT_NANOS, start + TimeUnit.SECONDS.toNanos(7) + TIMEOUT_NANOS);
  }

  @Test
  void turnsAnExceptionIntoARetryableAnswer() throws Exception {
    ExportResult result =
        sender(
                (batch, deadlineNanos) -> {
                  throw new IllegalStateException("connection pool closed");
                })
            .send(spans());

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(result.message()).contains("connection pool closed");
  }

  @Test
  void turnsRunningOutOfDirectMemoryIntoARetryableAnswer() throws Exception {
    ExportResult result =
        sender(
                (batch, deadlineNanos) -> {
                  throw new OutOfMemoryError("Cannot reserve 2097152 bytes of direct memory");
                })
            .send(spans());

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
  }

  @Test
  void turnsAnyOtherErrorIntoAPermanentAnswer() throws Exception {
    ExportResult result =
        sender(
                (batch, deadlineNanos) -> {
                  throw new StackOverflowError();
                })
            .send(spans());

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.PERMANENT);
  }

  @Test
  void refusesATimeoutThatIsNotPositive() {
    assertThatThrownBy(
            () ->
                new TimeoutSender(
                    (batch, deadlineNanos) -> ExportResult.SUCCESS,
                    0,
                    clock,
                    Logger.getAnonymousLogger()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
