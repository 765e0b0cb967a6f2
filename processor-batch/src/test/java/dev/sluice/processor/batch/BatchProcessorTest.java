package dev.sluice.processor.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.service.Fanout;
import dev.sluice.service.MemoryBudget;
import dev.sluice.service.PipelineEntry;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.ManualScheduler;
import dev.sluice.testkit.PipelineFixture;
import dev.sluice.testkit.RecordingExporter;
import dev.sluice.testkit.SequencedSpans;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The flush timer runs on a manual clock: the tests move it instead of sleeping. */
class BatchProcessorTest {
  private final ManualScheduler scheduler = new ManualScheduler();
  private final PipelineFixture fixture = new PipelineFixture(scheduler);

  /** Records every batch offered, answering with a script of admissions (then ACCEPTED). */
  private static final class Downstream implements BatchConsumer {
    final List<byte[]> accepted = new ArrayList<>();
    final List<Long> sizes = new ArrayList<>();
    int refusals;

    @Override
    public synchronized Admission consume(Batch batch) {
      if (refusals > 0) {
        refusals--;
        return Admission.FULL;
      }
      accepted.add(OtlpMarshaler.toByteArray(batch));
      sizes.add(batch.unitCount());
      notifyAll();
      return Admission.ACCEPTED;
    }

    synchronized List<Integer> numbers() {
      List<Integer> numbers = new ArrayList<>();
      accepted.forEach(bytes -> numbers.addAll(SequencedSpans.numbers(bytes)));
      return numbers;
    }
  }

  private BatchProcessor processor(BatchConfig config, BatchConsumer next) {
    return new BatchProcessor(
        fixture.settings(ComponentKind.PROCESSOR, "batch"), config, Signal.TRACES, next);
  }

  @Test
  void sendsOnceSendBatchSizeIsReached() {
    Downstream downstream = new Downstream();
    BatchProcessor batcher = processor(new BatchConfig(100, 0, Duration.ofHours(1)), downstream);

    batcher.consume(Batch.of(SequencedSpans.indexed("a", 0, 40)));
    batcher.consume(Batch.of(SequencedSpans.indexed("a", 40, 40)));
    assertThat(downstream.accepted).isEmpty();
    batcher.consume(Batch.of(SequencedSpans.indexed("a", 80, 40)));

    assertThat(downstream.sizes).containsExactly(120L);
    assertThat(downstream.numbers()).isEqualTo(range(0, 120));
    assertThat(fixture.prometheus())
        .contains("otelcol_processor_batch_batch_size_trigger_send_total{processor=\"batch\"} 1");
  }

  @Test
  void cutsALargeRequestIntoBatchesNoLargerThanTheCap() {
    Downstream downstream = new Downstream();
    BatchProcessor batcher =
        processor(new BatchConfig(1000, 1000, Duration.ofHours(1)), downstream);

    batcher.consume(Batch.of(SequencedSpans.indexed("a", 0, 50_000)));

    assertThat(downstream.sizes).hasSize(50).allMatch(size -> size == 1000);
    assertThat(downstream.numbers()).isEqualTo(range(0, 50_000));
  }

  @Test
  void capsBatchesBuiltFromManyRequestsAndKeepsTheRemainder() throws Exception {
    Downstream downstream = new Downstream();
    BatchProcessor batcher = processor(new BatchConfig(300, 500, Duration.ofHours(1)), downstream);

    for (int i = 0; i < 7; i++) {
      batcher.consume(Batch.of(SequencedSpans.indexed("a", i * 170, 170)));
    }

    assertThat(downstream.sizes).allMatch(size -> size >= 300 && size <= 500);
    assertThat(batcher.heldUnits()).isEqualTo(7 * 170 - downstream.numbers().size());
    batcher.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    assertThat(downstream.numbers()).isEqualTo(range(0, 7 * 170));
  }

  @Test
  void sendsPendingDataWhenTheTimeoutPasses() {
    Downstream downstream = new Downstream();
    BatchProcessor batcher = processor(new BatchConfig(8192, 0, Duration.ofMillis(50)), downstream);

    batcher.consume(Batch.of(SequencedSpans.indexed("a", 0, 10)));
    assertThat(scheduler.pendingDelaysNanos()).containsExactly(TimeUnit.MILLISECONDS.toNanos(50));
    scheduler.advance(49, TimeUnit.MILLISECONDS);
    assertThat(downstream.accepted).isEmpty();
    scheduler.advance(1, TimeUnit.MILLISECONDS);

    assertThat(downstream.numbers()).isEqualTo(range(0, 10));
    assertThat(scheduler.pendingDelaysNanos()).isEmpty();
    assertThat(fixture.prometheus())
        .contains("otelcol_processor_batch_timeout_trigger_send_total{processor=\"batch\"} 1");
  }

  @Test
  void theTimerRunsFromTheFirstPendingDataNotFromTheLatest() {
    Downstream downstream = new Downstream();
    BatchProcessor batcher = processor(new BatchConfig(8192, 0, Duration.ofMillis(50)), downstream);

    batcher.consume(Batch.of(SequencedSpans.indexed("a", 0, 10)));
    scheduler.advance(30, TimeUnit.MILLISECONDS);
    batcher.consume(Batch.of(SequencedSpans.indexed("a", 10, 10)));
    scheduler.advance(20, TimeUnit.MILLISECONDS);

    assertThat(downstream.sizes).containsExactly(20L);
  }

  @Test
  void countsIncomingAndOutgoingItems() {
    Downstream downstream = new Downstream();
    downstream.refusals = 1;
    BatchProcessor batcher = processor(new BatchConfig(100, 0, Duration.ofMillis(10)), downstream);

    batcher.consume(Batch.of(SequencedSpans.indexed("a", 0, 60)));
    batcher.consume(Batch.of(SequencedSpans.indexed("a", 60, 60)));
    // The size trigger's batch was refused: it is held, not yet outgoing.
    assertThat(fixture.prometheus())
        .contains(
            "otelcol_processor_incoming_items_total{processor=\"batch\",otel_signal=\"traces\"}"
                + " 120")
        .contains(
            "otelcol_processor_outgoing_items_total{processor=\"batch\",otel_signal=\"traces\"}"
                + " 0");

    scheduler.advance(10, TimeUnit.MILLISECONDS);

    assertThat(downstream.numbers()).isEqualTo(range(0, 120));
    assertThat(fixture.prometheus())
        .contains(
            "otelcol_processor_outgoing_items_total{processor=\"batch\",otel_signal=\"traces\"}"
                + " 120");
  }

  @Test
  void sendsAtOnceWithZeroTimeout() {
    Downstream downstream = new Downstream();
    BatchProcessor batcher = processor(new BatchConfig(8192, 0, Duration.ZERO), downstream);

    batcher.consume(Batch.of(SequencedSpans.indexed("a", 0, 3)));

    assertThat(downstream.numbers()).isEqualTo(range(0, 3));
  }

  @Test
  void keepsARefusedBatchAndSendsItBeforeNewerData() {
    Downstream downstream = new Downstream();
    downstream.refusals = 3;
    BatchProcessor batcher = processor(new BatchConfig(10, 10, Duration.ofMillis(20)), downstream);

    for (int i = 0; i < 5; i++) {
      assertThat(batcher.consume(Batch.of(SequencedSpans.indexed("a", i * 10, 10))))
          .isEqualTo(Admission.ACCEPTED);
    }
    // Each refused offer is tried again on the next request, and then by the timer.
    for (int i = 0; i < 5 && downstream.accepted.size() < 5; i++) {
      scheduler.advance(20, TimeUnit.MILLISECONDS);
    }

    assertThat(downstream.numbers()).isEqualTo(range(0, 50));
  }

  @Test
  void shutdownFlushesPendingDataAndRefusesNewData() throws Exception {
    Downstream downstream = new Downstream();
    BatchProcessor batcher = processor(new BatchConfig(100, 0, Duration.ofHours(1)), downstream);
    batcher.consume(Batch.of(SequencedSpans.indexed("a", 0, 10)));

    batcher.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));

    assertThat(downstream.numbers()).isEqualTo(range(0, 10));
    assertThat(batcher.consume(Batch.of(SequencedSpans.indexed("a", 10, 1))))
        .isEqualTo(Admission.CLOSED);
  }

  @Test
  void memoryIsReleasedOnceEveryExporterHasSentTheData() throws Exception {
    MemoryBudget budget = new MemoryBudget(1 << 20, 1_000_000);
    RecordingExporter first = new RecordingExporter();
    RecordingExporter second = new RecordingExporter().close();
    QueueConfig queue = PipelineFixture.queue(2, 100);
    RetryConfig retry = PipelineFixture.fastRetry();
    Fanout fanout =
        new Fanout(
            List.of(
                fixture.exporter("first", first, PipelineFixture.config(queue, retry)),
                fixture.exporter("second", second, PipelineFixture.config(queue, retry))));
    BatchProcessor batcher = processor(new BatchConfig(25, 25, Duration.ofHours(1)), fanout);
    PipelineEntry entry = new PipelineEntry(budget, List.of(batcher), 1000);

    for (int i = 0; i < 4; i++) {
      assertThat(entry.consume(SequencedSpans.indexed("a", i * 30, 30)))
          .isEqualTo(Admission.ACCEPTED);
    }
    assertThat(first.awaitDeliveredUnits(100, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(budget.usedBytes()).isPositive();

    second.open();
    assertThat(second.awaitDeliveredUnits(100, 10, TimeUnit.SECONDS)).isTrue();
    batcher.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    Await.until("the memory budget released", () -> budget.usedBytes() == 0);

    assertThat(budget.usedUnits()).isZero();
  }

  private static List<Integer> range(int from, int to) {
    return IntStream.range(from, to).boxed().toList();
  }
}
