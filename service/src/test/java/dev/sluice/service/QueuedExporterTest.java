package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.testkit.PipelineFixture;
import dev.sluice.testkit.RecordingExporter;
import dev.sluice.testkit.SequencedSpans;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class QueuedExporterTest {
  private final PipelineFixture fixture = new PipelineFixture();

  /** A queue of 10 batches with one consumer, retrying at once. */
  private QueuedExporter oneConsumer(Exporter exporter) throws Exception {
    return fixture.exporter(
        "otlp",
        exporter,
        PipelineFixture.config(PipelineFixture.queue(1, 10), PipelineFixture.fastRetry()));
  }

  private static SharedBatch spans(int count) {
    return new SharedBatch(Batch.of(SequencedSpans.indexed("a", 0, count)), 1);
  }

  @Test
  void retriesARetryableFailureAndDeliversOnce() throws Exception {
    RecordingExporter exporter =
        new RecordingExporter()
            .thenAnswer(
                ExportResult.retryable("unavailable", 0), ExportResult.retryable("unavailable", 0));
    QueuedExporter queued = oneConsumer(exporter);

    queued.send(spans(5));

    assertThat(exporter.awaitDeliveredUnits(5, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(exporter.attempts()).hasSize(3);
    assertThat(exporter.delivered()).hasSize(1);
    queued.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_sent_spans_total{exporter=\"otlp\"} 5")
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 0");
  }

  /**
   * Sends a batch of 5 spans and one of 3 through one consumer whose first send throws {@code
   * error}, waits until {@code delivered} spans have arrived, stops; returns what was delivered.
   */
  private RecordingExporter sendTwoFirstFailingWith(Error error, long delivered) throws Exception {
    RecordingExporter exporter = new RecordingExporter();
    AtomicInteger calls = new AtomicInteger();
    Exporter failingFirst =
        (batch, deadlineNanos) -> {
          if (calls.getAndIncrement() == 0) {
            throw error;
          }
          return exporter.export(batch, deadlineNanos);
        };
    QueuedExporter queued = oneConsumer(failingFirst);

    queued.send(spans(5));
    queued.send(spans(3));

    // One consumer: the second batch is sent by the thread that met the error.
    assertThat(exporter.awaitDeliveredUnits(delivered, 10, TimeUnit.SECONDS)).isTrue();
    queued.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    return exporter;
  }

  @Test
  void retriesASendThatRanOutOfDirectMemoryAndKeepsItsConsumer() throws Exception {
    RecordingExporter exporter =
        sendTwoFirstFailingWith(
            new OutOfMemoryError("Cannot reserve 2097152 bytes of direct buffer memory"), 8);

    assertThat(exporter.delivered()).extracting(RecordingExporter.Attempt::units).contains(5L, 3L);
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_sent_spans_total{exporter=\"otlp\"} 8")
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 0");
  }

  @Test
  void countsABatchWhoseSendFailedWithAnErrorAndGoesOnWithTheNext() throws Exception {
    RecordingExporter exporter = sendTwoFirstFailingWith(new StackOverflowError(), 3);

    assertThat(exporter.attempts()).hasSize(1);
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_sent_spans_total{exporter=\"otlp\"} 3")
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 5");
  }

  @Test
  void dropsAPermanentFailureWithoutRetryAndCountsIt() throws Exception {
    RecordingExporter exporter =
        new RecordingExporter().thenAnswer(ExportResult.permanent("invalid argument"));
    QueuedExporter queued = oneConsumer(exporter);

    queued.send(spans(7));
    assertThat(exporter.awaitAttempts(1, 10, TimeUnit.SECONDS)).isTrue();
    queued.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));

    assertThat(exporter.attempts()).hasSize(1);
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 7")
        .contains("otelcol_exporter_sent_spans_total{exporter=\"otlp\"} 0");
  }

  @Test
  void waitsAtLeastTheDelayTheDestinationAsksFor() throws Exception {
    long askedNanos = TimeUnit.MILLISECONDS.toNanos(300);
    RecordingExporter exporter =
        new RecordingExporter().thenAnswer(ExportResult.retryable("slow down", askedNanos));
    QueuedExporter queued = oneConsumer(exporter);

    queued.send(spans(1));
    assertThat(exporter.awaitDeliveredUnits(1, 10, TimeUnit.SECONDS)).isTrue();

    List<RecordingExporter.Attempt> attempts = exporter.attempts();
    assertThat(attempts.get(1).atNanos() - attempts.get(0).atNanos())
        .isGreaterThanOrEqualTo(askedNanos);
    queued.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
  }

  @Test
  void givesUpAfterMaxElapsedTime() throws Exception {
    RecordingExporter exporter =
        new RecordingExporter().answerWith(batch -> ExportResult.retryable("down", 0));
    RetryConfig retry =
        new RetryConfig(
            true, Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(100), 1.5, 0);
    QueuedExporter queued =
        fixture.exporter(
            "otlp", exporter, PipelineFixture.config(PipelineFixture.queue(1, 10), retry));

    queued.send(spans(3));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!fixture
            .prometheus()
            .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 3")
        && deadline - System.nanoTime() > 0) {
      Thread.sleep(10);
    }

    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 3");
    assertThat(exporter.attempts()).hasSizeBetween(2, 20);
    queued.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
  }

  @Test
  void aFullQueueHasNoCapacityAndTheFanoutRefuses() throws Exception {
    RecordingExporter exporter = new RecordingExporter().close();
    QueuedExporter queued =
        fixture.exporter(
            "otlp",
            exporter,
            PipelineFixture.config(PipelineFixture.queue(1, 2), PipelineFixture.fastRetry()));
    Fanout fanout = new Fanout(List.of(queued));

    // One batch is taken by the consumer (and waits at the closed exporter), two fill the queue.
    assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", 0, 1))))
        .isEqualTo(Admission.ACCEPTED);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (queued.queued() > 0 && deadline - System.nanoTime() > 0) {
      Thread.sleep(5);
    }
    assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", 1, 1))))
        .isEqualTo(Admission.ACCEPTED);
    assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", 2, 1))))
        .isEqualTo(Admission.ACCEPTED);
    assertThat(queued.hasCapacity()).isFalse();
    assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", 3, 1))))
        .isEqualTo(Admission.FULL);

    exporter.open();
    assertThat(exporter.awaitDeliveredUnits(3, 10, TimeUnit.SECONDS)).isTrue();
    queued.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
  }

  @Test
  void shutdownDrainsTheQueueBeforeStopping() throws Exception {
    RecordingExporter exporter = new RecordingExporter();
    QueuedExporter queued =
        fixture.exporter(
            "otlp",
            exporter,
            PipelineFixture.config(PipelineFixture.queue(2, 100), PipelineFixture.fastRetry()));
    for (int i = 0; i < 20; i++) {
      queued.send(spans(10));
    }

    queued.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));

    assertThat(exporter.deliveredUnits()).isEqualTo(200);
  }

  @Test
  void withoutAQueueSendsOnTheCallersThread() throws Exception {
    RecordingExporter exporter = new RecordingExporter();
    QueuedExporter queued =
        fixture.exporter(
            "blackhole",
            exporter,
            PipelineFixture.config(QueueConfig.DISABLED, PipelineFixture.fastRetry()));

    queued.send(spans(4));

    assertThat(exporter.deliveredUnits()).isEqualTo(4);
  }
}
