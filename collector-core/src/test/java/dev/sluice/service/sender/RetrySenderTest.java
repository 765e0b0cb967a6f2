package dev.sluice.service.sender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ExportResult;
import dev.sluice.component.RetryConfig;
import dev.sluice.pdata.Batch;
import dev.sluice.testkit.ManualScheduler;
import dev.sluice.testkit.PipelineFixture;
import dev.sluice.testkit.SequencedSpans;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** Retries on a manual clock: every delay is read off the scheduler, nothing sleeps. */
class RetrySenderTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final ManualScheduler scheduler = new ManualScheduler();
  private final PipelineFixture fixture = new PipelineFixture(scheduler);
  private final ExporterTelemetry telemetry =
      new ExporterTelemetry(fixture.metrics, ComponentId.parse("otlp"));

  /** Answers with a script, then with success; records the clock at each attempt. */
  private final class Destination implements Sender {
    final Deque<ExportResult> script = new ArrayDeque<>();
    final List<Long> attemptNanos = new ArrayList<>();
    ExportResult otherwise = ExportResult.SUCCESS;

    Destination answer(ExportResult... results) {
      script.addAll(List.of(results));
      return this;
    }

    @Override
    public synchronized ExportResult send(Batch batch) {
      attemptNanos.add(scheduler.nanoTime());
      return script.isEmpty() ? otherwise : script.pollFirst();
    }

    synchronized List<Long> gapsNanos() {
      List<Long> gaps = new ArrayList<>();
      for (int i = 1; i < attemptNanos.size(); i++) {
        gaps.add(attemptNanos.get(i) - attemptNanos.get(i - 1));
      }
      return gaps;
    }
  }

  private static RetryConfig retry(long initialMs, long maxMs, long maxElapsedMs) {
    return new RetryConfig(
        true,
        Duration.ofMillis(initialMs),
        Duration.ofMillis(maxMs),
        Duration.ofMillis(maxElapsedMs),
        1.5,
        0);
  }

  private RetrySender sender(RetryConfig config, Sender next) {
    return new RetrySender(
        config, next, scheduler, () -> 0.5, telemetry, Logger.getAnonymousLogger());
  }

  private static Batch spans(int count) {
    return Batch.of(SequencedSpans.indexed("a", 0, count));
  }

  /** Sends on another thread (the sending thread), so that the test can move the clock. */
  private static CompletableFuture<ExportResult> sendAsync(RetrySender sender, Batch batch) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return sender.send(batch);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** Waits for the sender to set its next timer, checks its delay, lets it fall due. */
  private void expectDelay(long delayNanos) throws InterruptedException {
    assertThat(scheduler.awaitPending(1)).isTrue();
    assertThat(scheduler.pendingDelaysNanos()).containsExactly(delayNanos);
    scheduler.advance(delayNanos);
  }

  @Test
  void retriesWithGrowingCappedDelaysAndCountsTheDeliveryOnce() throws Exception {
    ExportResult unavailable = ExportResult.retryable("unavailable", 0);
    Destination destination =
        new Destination().answer(unavailable, unavailable, unavailable, unavailable);
    RetrySender sender = sender(retry(100, 200, 60_000), destination);

    CompletableFuture<ExportResult> result = sendAsync(sender, spans(5));
    expectDelay(100 * MS);
    expectDelay(150 * MS);
    expectDelay(200 * MS);
    expectDelay(200 * MS);

    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(ExportResult.SUCCESS);
    assertThat(destination.gapsNanos()).containsExactly(100 * MS, 150 * MS, 200 * MS, 200 * MS);
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_sent_spans_total{exporter=\"otlp\"} 5")
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 0");
  }

  @Test
  void waitsTheDelayTheDestinationAsksForWhenItIsLonger() throws Exception {
    Destination destination =
        new Destination().answer(ExportResult.retryable("slow down", 3_000 * MS));
    RetrySender sender = sender(retry(100, 200, 60_000), destination);

    CompletableFuture<ExportResult> result = sendAsync(sender, spans(1));
    expectDelay(3_000 * MS);

    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(ExportResult.SUCCESS);
    assertThat(destination.gapsNanos()).containsExactly(3_000 * MS);
  }

  @Test
  void jittersEachDelayWithinTheRandomizationFactor() throws Exception {
    Destination destination = new Destination().answer(ExportResult.retryable("down", 0));
    RetryConfig config =
        new RetryConfig(
            true, Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMinutes(1), 1.5, 0.5);
    // The lowest draw: the delay is the interval less half of it.
    RetrySender sender =
        new RetrySender(
            config, destination, scheduler, () -> 0.0, telemetry, Logger.getAnonymousLogger());

    CompletableFuture<ExportResult> result = sendAsync(sender, spans(1));
    expectDelay(50 * MS);

    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(ExportResult.SUCCESS);
  }

  @Test
  void givesUpOnceTheNextDelayWouldPassMaxElapsedTimeAndCountsTheDrop() throws Exception {
    Destination destination = new Destination();
    destination.otherwise = ExportResult.retryable("down", 0);
    // Delays 10, 15, 20, 20, 20 ms reach 85 ms; the next would end at 105 ms, past 100 ms.
    RetrySender sender = sender(retry(10, 20, 100), destination);

    CompletableFuture<ExportResult> result = sendAsync(sender, spans(3));
    for (long delay : new long[] {10, 15, 20, 20, 20}) {
      expectDelay(delay * MS);
    }

    assertThat(result.get(10, TimeUnit.SECONDS).outcome())
        .isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(destination.attemptNanos).hasSize(6);
    assertThat(scheduler.pendingDelaysNanos()).isEmpty();
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 3")
        .contains("otelcol_exporter_sent_spans_total{exporter=\"otlp\"} 0");
  }

  @Test
  void dropsAPermanentFailureWithoutRetryingAndCountsIt() throws Exception {
    Destination destination = new Destination().answer(ExportResult.permanent("invalid"));

    ExportResult result = sender(retry(10, 20, 100), destination).send(spans(7));

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.PERMANENT);
    assertThat(destination.attemptNanos).hasSize(1);
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 7");
  }

  @Test
  void withRetriesDisabledDropsTheFirstFailureAtOnce() throws Exception {
    Destination destination = new Destination().answer(ExportResult.retryable("down", 0));

    sender(RetryConfig.DISABLED, destination).send(spans(4));

    assertThat(destination.attemptNanos).hasSize(1);
    assertThat(scheduler.pendingDelaysNanos()).isEmpty();
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 4");
  }

  @Test
  void countsThePartOfAPartialSuccessThatWasRejected() throws Exception {
    Destination destination =
        new Destination().answer(ExportResult.partialSuccess(2, "2 spans had no name"));

    sender(retry(10, 20, 100), destination).send(spans(10));

    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_sent_spans_total{exporter=\"otlp\"} 8")
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 2");
  }

  @Test
  void aSendInterruptedAtShutdownLeavesTheRequestsOwedToADurablePipeline() {
    Sender hangs =
        batch -> {
          throw new InterruptedException("stopped past the shutdown deadline");
        };
    Batch batch = spans(3);

    assertThatThrownBy(() -> sender(retry(10, 20, 100), hangs).send(batch))
        .isInstanceOf(InterruptedException.class);

    assertThat(batch.anyRequestAbandoned()).isTrue();
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 3");
  }

  @Test
  void aBatchThatFailsForGoodIsNotAbandoned() throws Exception {
    Batch batch = spans(2);

    sender(RetryConfig.DISABLED, new Destination().answer(ExportResult.permanent("bad")))
        .send(batch);

    assertThat(batch.anyRequestAbandoned()).isFalse();
  }

  @Test
  void onceStoppingWaitsForNoRetryThatWouldStartAfterTheDeadline() throws Exception {
    Destination destination = new Destination();
    destination.otherwise = ExportResult.retryable("down", 0);
    RetrySender sender = sender(retry(100, 200, 60_000), destination);
    sender.stopBy(scheduler.nanoTime() + 120 * MS);

    CompletableFuture<ExportResult> result = sendAsync(sender, spans(2));
    expectDelay(100 * MS);

    // The second delay (150 ms) would end after the deadline: dropped without waiting for it.
    assertThat(result.get(10, TimeUnit.SECONDS).outcome())
        .isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(destination.attemptNanos).hasSize(2);
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 2");
  }
}
