package dev.sluice.service.sender;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.QueueConfig;
import dev.sluice.pdata.Batch;
import dev.sluice.service.Fanout;
import dev.sluice.service.SharedBatch;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.PipelineFixture;
import dev.sluice.testkit.RecordingExporter;
import dev.sluice.testkit.SequencedSpans;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The whole chain (queue or direct stage, retry, timeout, exporter) with recording exporters. */
class SendingChainTest {
  private final PipelineFixture fixture = new PipelineFixture();

  /** A queue of 10 batches with one consumer, retrying at once. */
  private SendingChain oneConsumer(Exporter exporter) throws Exception {
    return fixture.exporter(
        "otlp",
        exporter,
        PipelineFixture.config(PipelineFixture.queue(1, 10), PipelineFixture.fastRetry()));
  }

  private SendingChain direct(Exporter exporter) throws Exception {
    return fixture.exporter(
        "otlp",
        exporter,
        PipelineFixture.config(QueueConfig.DISABLED, PipelineFixture.fastRetry()));
  }

  private static SharedBatch spans(int first, int count) {
    return new SharedBatch(Batch.of(SequencedSpans.indexed("a", first, count)), 1);
  }

  private static long fiveSecondsFromNow() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
  }

  @Test
  void retriesARetryableFailureAndDeliversOnce() throws Exception {
    RecordingExporter exporter =
        new RecordingExporter()
            .thenAnswer(
                ExportResult.retryable("unavailable", 0), ExportResult.retryable("unavailable", 0));
    SendingChain chain = oneConsumer(exporter);

    chain.send(spans(0, 5));

    assertThat(exporter.awaitDeliveredUnits(5, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(exporter.attempts()).hasSize(3);
    assertThat(exporter.delivered()).hasSize(1);
    chain.shutdown(fiveSecondsFromNow());
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_sent_spans_total{exporter=\"otlp\"} 5")
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 0")
        .contains("otelcol_exporter_queue_capacity{exporter=\"otlp\"} 10");
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
    SendingChain chain = oneConsumer(failingFirst);

    chain.send(spans(0, 5));
    chain.send(spans(5, 3));

    // One consumer: the second batch is sent by the thread that met the error.
    assertThat(exporter.awaitDeliveredUnits(delivered, 10, TimeUnit.SECONDS)).isTrue();
    chain.shutdown(fiveSecondsFromNow());
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
  void aFullQueueHasNoCapacityAndTheFanoutRefuses() throws Exception {
    RecordingExporter exporter = new RecordingExporter().close();
    SendingChain chain =
        fixture.exporter(
            "otlp",
            exporter,
            PipelineFixture.config(PipelineFixture.queue(1, 2), PipelineFixture.fastRetry()));
    Fanout fanout = new Fanout(List.of(chain));

    // One batch is taken by the consumer (and waits at the closed exporter), two fill the queue.
    assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", 0, 1))))
        .isEqualTo(Admission.ACCEPTED);
    Await.until("the consumer took the first batch", () -> chain.queued() == 0);
    assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", 1, 1))))
        .isEqualTo(Admission.ACCEPTED);
    assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", 2, 1))))
        .isEqualTo(Admission.ACCEPTED);
    assertThat(chain.hasCapacity()).isFalse();
    assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", 3, 1))))
        .isEqualTo(Admission.FULL);

    exporter.open();
    assertThat(exporter.awaitDeliveredUnits(3, 10, TimeUnit.SECONDS)).isTrue();
    chain.shutdown(fiveSecondsFromNow());
  }

  @Test
  void shutdownDrainsTheQueueBeforeStopping() throws Exception {
    RecordingExporter exporter = new RecordingExporter();
    SendingChain chain =
        fixture.exporter(
            "otlp",
            exporter,
            PipelineFixture.config(PipelineFixture.queue(2, 100), PipelineFixture.fastRetry()));
    for (int i = 0; i < 20; i++) {
      chain.send(spans(i * 10, 10));
    }

    chain.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));

    assertThat(exporter.deliveredUnits()).isEqualTo(200);
  }

  @Test
  void dropsAndCountsWhatIsStillHeldWhenTheShutdownDeadlinePasses() throws Exception {
    RecordingExporter exporter = new RecordingExporter().close();
    SendingChain chain = oneConsumer(exporter);
    chain.send(spans(0, 4));
    chain.send(spans(4, 5));
    chain.send(spans(9, 6));

    chain.shutdown(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));

    // One batch was being sent (its thread is stopped), two waited in the queue.
    assertThat(exporter.attempts()).isEmpty();
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 15")
        .contains("otelcol_exporter_queue_size{exporter=\"otlp\"} 0");
  }

  @Test
  void countsTheBatchBeingSentBeforeShutdownReturnsEvenWhenItsThreadIsSlowToStop()
      throws Exception {
    CountDownLatch sending = new CountDownLatch(1);
    SendingChain chain =
        oneConsumer(
            (batch, deadlineNanos) -> {
              sending.countDown();
              try {
                new CountDownLatch(1).await(); // a send that never ends on its own
              } catch (InterruptedException stopped) {
                Thread.sleep(100); // and takes a while to notice it was stopped (the grace is 1 s)
                throw stopped;
              }
              return ExportResult.SUCCESS;
            });
    chain.send(spans(0, 4));
    assertThat(sending.await(10, TimeUnit.SECONDS)).isTrue();

    chain.shutdown(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20));

    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 4");
  }

  @Test
  void countsABatchOfferedAfterShutdownAsNotEnqueued() throws Exception {
    SendingChain chain = oneConsumer(new RecordingExporter());
    chain.shutdown(fiveSecondsFromNow());

    assertThat(chain.hasCapacity()).isFalse();
    chain.send(spans(0, 3));

    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_enqueue_failed_spans_total{exporter=\"otlp\"} 3");
  }

  @Test
  void withoutAQueueSendsOnASendingThreadAndTheCallerDoesNotWait() throws Exception {
    Set<String> sendingThreads = ConcurrentHashMap.newKeySet();
    RecordingExporter exporter = new RecordingExporter().close();
    SendingChain chain =
        direct(
            (batch, deadlineNanos) -> {
              sendingThreads.add(Thread.currentThread().getName());
              return exporter.export(batch, deadlineNanos);
            });
    Fanout fanout = new Fanout(List.of(chain));

    // The destination does not answer, yet the caller has its answer.
    assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", 0, 4))))
        .isEqualTo(Admission.ACCEPTED);

    exporter.open();
    assertThat(exporter.awaitDeliveredUnits(4, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(sendingThreads)
        .singleElement()
        .asString()
        .startsWith("sluice-exporter-otlp-direct-")
        .isNotEqualTo(Thread.currentThread().getName());
    chain.shutdown(fiveSecondsFromNow());
    assertThat(fixture.prometheus())
        .contains("otelcol_exporter_sent_spans_total{exporter=\"otlp\"} 4")
        .doesNotContain("otelcol_exporter_queue_size");
  }

  @Test
  void withoutAQueueRefusesOnceEverySendingThreadIsBusyAndTakesAgainOnceOneIsFree()
      throws Exception {
    RecordingExporter exporter = new RecordingExporter().close();
    SendingChain chain = direct(exporter);
    Fanout fanout = new Fanout(List.of(chain));

    for (int i = 0; i < SendingChain.DIRECT_SENDS; i++) {
      assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", i, 1))))
          .isEqualTo(Admission.ACCEPTED);
    }
    Batch refused = Batch.of(SequencedSpans.indexed("a", SendingChain.DIRECT_SENDS, 1));
    assertThat(fanout.consume(refused)).isEqualTo(Admission.FULL);
    assertThat(refused.unitCount()).isEqualTo(1);

    exporter.open();
    assertThat(exporter.awaitDeliveredUnits(SendingChain.DIRECT_SENDS, 10, TimeUnit.SECONDS))
        .isTrue();
    Await.until("room in the queue", chain::hasCapacity);
    assertThat(fanout.consume(refused)).isEqualTo(Admission.ACCEPTED);
    assertThat(exporter.awaitDeliveredUnits(SendingChain.DIRECT_SENDS + 1, 10, TimeUnit.SECONDS))
        .isTrue();
    chain.shutdown(fiveSecondsFromNow());
  }

  /**
   * Under a load one thread carries, the thread that went idle last takes the next batch: the
   * others never send, and never grow the marshal buffers each sending thread keeps.
   */
  @Test
  void aLightLoadIsCarriedByOneSendingThread() throws Exception {
    Set<Thread> sendingThreads = ConcurrentHashMap.newKeySet();
    RecordingExporter exporter = new RecordingExporter();
    SendingChain chain =
        direct(
            (batch, deadlineNanos) -> {
              sendingThreads.add(Thread.currentThread());
              return exporter.export(batch, deadlineNanos);
            });
    Fanout fanout = new Fanout(List.of(chain));
    awaitEverySendingThreadIdle();

    for (int i = 0; i < 20; i++) {
      assertThat(fanout.consume(Batch.of(SequencedSpans.indexed("a", i, 1))))
          .isEqualTo(Admission.ACCEPTED);
      assertThat(exporter.awaitDeliveredUnits(i + 1, 10, TimeUnit.SECONDS)).isTrue();
      // The thread that sent waits for work again before the next batch, as under a light load.
      awaitEverySendingThreadIdle();
    }
    assertThat(sendingThreads).hasSize(1);
    chain.shutdown(fiveSecondsFromNow());
  }

  private static void awaitEverySendingThreadIdle() throws InterruptedException {
    Await.until(
        "every sending thread waiting for a batch",
        () -> {
          List<Thread> sending =
              Thread.getAllStackTraces().keySet().stream()
                  .filter(t -> t.getName().startsWith("sluice-exporter-otlp-direct-"))
                  .toList();
          return sending.size() == SendingChain.DIRECT_SENDS
              && sending.stream().allMatch(SendingChainTest::waitsForABatch);
        });
  }

  /** Whether the thread waits on a condition (for a batch), not for the lock or in a send. */
  private static boolean waitsForABatch(Thread thread) {
    for (StackTraceElement frame : thread.getStackTrace()) {
      if (frame.getMethodName().equals("await")
          && frame.getClassName().endsWith("ConditionObject")) {
        return true;
      }
    }
    return false;
  }
}
