package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.DurableStorage;
import dev.sluice.component.ExportResult;
import dev.sluice.component.QueueConfig;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.service.sender.SendingChain;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.PipelineFixture;
import dev.sluice.testkit.RecordingExporter;
import dev.sluice.testkit.SequencedSpans;
import dev.sluice.testkit.TestStorage;
import dev.sluice.wal.WriteAheadLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A durable pipeline's end with two exporters that have storage ({@code a}, {@code b}) and one
 * without ({@code c}), over a real write-ahead log: each durable exporter's progress is its own,
 * and what comes back at start goes only to the durable exporters that still owe it.
 */
class DurableFanoutTest {
  private static final int REQUESTS = 5;
  private static final int SPANS_PER_REQUEST = 10;
  private static final int CONSUMER_A = 0;
  private static final int CONSUMER_B = 1;
  private static final long MAX_SIZE_BYTES = 64L << 20;
  private static final long SEGMENT_SIZE_BYTES = 1L << 20;
  private static final long MEMORY_QUEUE_SIZE = 100;
  private static final DurableLayout LAYOUT =
      new DurableLayout(Map.of("traces", List.of("a", "b")));

  @TempDir Path directory;

  /** One run: a log, a budget, three exporters behind one durable fan-out, and an entry. */
  private final class Run {
    final PipelineFixture fixture = new PipelineFixture();
    final MemoryBudget budget = new MemoryBudget(64L << 20, 1_000_000);
    final RecordingExporter a = new RecordingExporter();
    final RecordingExporter b = new RecordingExporter();
    final RecordingExporter c = new RecordingExporter();
    final List<SendingChain> chains = new ArrayList<>();
    final DurableFanout fanout;
    final DurableLog log;
    final DurableEntry entry;

    Run(boolean bIsDown) throws Exception {
      this(bIsDown, MAX_SIZE_BYTES, SEGMENT_SIZE_BYTES);
    }

    Run(boolean bIsDown, long maxSizeBytes, long segmentSizeBytes) throws Exception {
      if (bIsDown) {
        b.answerWith(batch -> ExportResult.retryable("down", 0));
      }
      List<String> ids = List.of("a", "b", "c");
      for (RecordingExporter exporter : List.of(a, b, c)) {
        // a and b have storage, c has not.
        QueueConfig queue =
            new QueueConfig(
                true,
                1,
                MEMORY_QUEUE_SIZE,
                QueueConfig.Sizer.REQUESTS,
                false,
                false,
                exporter == c ? null : "file_storage");
        chains.add(
            fixture.exporter(
                ids.get(chains.size()),
                exporter,
                PipelineFixture.config(queue, PipelineFixture.fastRetry())));
      }
      fanout = new DurableFanout(chains, new int[] {CONSUMER_A, CONSUMER_B, -1});
      log =
          DurableLog.open(
              storage(maxSizeBytes, segmentSizeBytes),
              LAYOUT,
              Map.of("traces", fanout),
              budget,
              fixture.metrics,
              new PipelineFailures(),
              m -> {});
      entry = new DurableEntry(budget, List.of(fanout), 0b1, Signal.TRACES.ordinal(), 100);
      entry.attach(log);
      log.startReplay();
    }

    Admission send(int first) throws Exception {
      CompletableFuture<Admission> answer = new CompletableFuture<>();
      entry.consume(SequencedSpans.indexed("svc", first, SPANS_PER_REQUEST), answer::complete);
      return answer.get(10, TimeUnit.SECONDS);
    }

    /** The value of a gauge of exporter {@code id} on the metrics page. */
    long gauge(String name, String id) {
      String prefix = name + "{exporter=\"" + id + "\"} ";
      return fixture
          .prometheus()
          .lines()
          .filter(line -> line.startsWith(prefix))
          .mapToLong(line -> Long.parseLong(line.substring(prefix.length())))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no " + prefix));
    }

    void stop() throws Exception {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
      entry.close();
      log.freezeAt(deadline);
      log.stopReplay();
      log.awaitHandedOff(deadline);
      for (SendingChain chain : chains) {
        chain.shutdown(deadline);
      }
      log.close();
    }
  }

  private DurableStorage storage(long maxSizeBytes, long segmentSizeBytes) {
    return new TestStorage(directory.resolve("wal"), maxSizeBytes, segmentSizeBytes);
  }

  private static List<Integer> delivered(RecordingExporter exporter) {
    List<Integer> numbers = new ArrayList<>();
    exporter
        .delivered()
        .forEach(attempt -> numbers.addAll(SequencedSpans.numbers(attempt.request())));
    return numbers;
  }

  @Test
  void eachDurableExporterIsDoneWithWhatItDeliveredWhileAnotherIsDown() throws Exception {
    Run first = new Run(true);
    long recordBytes = 0;
    for (int r = 0; r < REQUESTS; r++) {
      assertThat(first.send(r * SPANS_PER_REQUEST)).isEqualTo(Admission.ACCEPTED);
      recordBytes += recordBytes(r * SPANS_PER_REQUEST);
    }
    assertThat(first.a.awaitDeliveredUnits(REQUESTS * SPANS_PER_REQUEST, 10, TimeUnit.SECONDS))
        .isTrue();
    Await.until("nothing owed to a", () -> first.log.log().owedRecords(CONSUMER_A) == 0);
    assertThat(first.log.log().owedRecords(CONSUMER_B)).isEqualTo(REQUESTS);
    // A durable exporter's queue is the log, counted in its bytes; the requests are beside.
    assertThat(first.fixture.prometheus())
        .contains("otelcol_exporter_queue_size{exporter=\"a\"} 0")
        .contains("otelcol_exporter_queue_size{exporter=\"b\"} " + recordBytes)
        .contains("otelcol_exporter_queue_capacity{exporter=\"b\"} " + MAX_SIZE_BYTES)
        .contains("sluice_wal_exporter_records_owed{exporter=\"b\"} " + REQUESTS)
        .contains("sluice_wal_exporter_records_owed{exporter=\"a\"} 0");
    first.stop();

    Run second = new Run(false);
    List<Integer> all = IntStream.range(0, REQUESTS * SPANS_PER_REQUEST).boxed().toList();
    assertThat(second.b.awaitDeliveredUnits(all.size(), 10, TimeUnit.SECONDS)).isTrue();
    assertThat(delivered(second.b)).containsExactlyElementsOf(all);
    Await.until("nothing owed", () -> second.log.log().owedRecords() == 0);
    // What the replay owed is counted in, and out once delivered.
    Await.until("b's queue empty", () -> second.gauge("otelcol_exporter_queue_size", "b") == 0);
    // a had delivered everything and c has no storage: neither gets a replay.
    assertThat(second.a.attempts()).isEmpty();
    assertThat(second.c.attempts()).isEmpty();
    second.stop();
  }

  /** What the record of spans {@code first..first+9} takes in the log. */
  private static long recordBytes(int first) {
    return WriteAheadLog.recordBytes(
        SequencedSpans.indexed("svc", first, SPANS_PER_REQUEST).sourceLength());
  }

  @Test
  void aDownExportersQueueFillsToItsCapacityWhereTheLogRefuses() throws Exception {
    // About 25 requests of 10 spans: the in-memory queue of 100 has room for all of them.
    long maxSizeBytes = 16L << 10;
    Run run = new Run(true, maxSizeBytes, 4L << 10);
    try {
      int sent = 0;
      long owedBytes = 0;
      Admission answer;
      while ((answer = run.send(sent * SPANS_PER_REQUEST)) == Admission.ACCEPTED && sent < 200) {
        owedBytes += recordBytes(sent * SPANS_PER_REQUEST);
        sent++;
      }
      assertThat(answer).isEqualTo(Admission.FULL);
      // The in-memory queue in front had room: the log is what refused.
      assertThat(sent).isLessThan((int) MEMORY_QUEUE_SIZE);
      long size = run.gauge("otelcol_exporter_queue_size", "b");
      long capacity = run.gauge("otelcol_exporter_queue_capacity", "b");
      assertThat(size).isEqualTo(owedBytes);
      assertThat(capacity).isEqualTo(maxSizeBytes);
      // Full: the refused record would not have fitted beside what b owes, the segments'
      // headers, and the header of a segment it might start.
      long headers = WriteAheadLog.SEGMENT_HEADER_BYTES * run.log.log().statistics().segments();
      assertThat(size + headers).isLessThanOrEqualTo(capacity);
      assertThat(
              size
                  + headers
                  + WriteAheadLog.SEGMENT_HEADER_BYTES
                  + recordBytes(sent * SPANS_PER_REQUEST))
          .isGreaterThan(capacity);
      Await.until("a's queue empty", () -> run.gauge("otelcol_exporter_queue_size", "a") == 0);
      // The in-memory queue keeps its figures, in its sizer's unit, under Sluice's names.
      assertThat(run.gauge(SendingChain.MEMORY_QUEUE_CAPACITY, "b")).isEqualTo(MEMORY_QUEUE_SIZE);
      assertThat(run.gauge(SendingChain.MEMORY_QUEUE_SIZE, "b")).isBetween(0L, (long) sent);
      // c has no storage: its queue is the in-memory one.
      assertThat(run.gauge("otelcol_exporter_queue_capacity", "c")).isEqualTo(MEMORY_QUEUE_SIZE);
    } finally {
      run.stop();
    }
  }

  @Test
  void splitsABatchOfReplayedRequestsByTheExportersThatOweThem() throws Exception {
    Run run = new Run(false);
    try {
      OtlpIndex owedToBoth = held(run, 0, 0b11, true);
      OtlpIndex owedToB = held(run, 10, 1 << CONSUMER_B, true);
      OtlpIndex live = held(run, 20, 0b11, false);
      Batch merged = Batch.of(owedToBoth);
      merged.add(owedToB);
      merged.add(live);
      owedToBoth.releaseHold();
      owedToB.releaseHold();
      live.releaseHold();

      assertThat(run.fanout.consume(merged)).isEqualTo(Admission.ACCEPTED);

      assertThat(run.b.awaitDeliveredUnits(30, 10, TimeUnit.SECONDS)).isTrue();
      assertThat(run.a.awaitDeliveredUnits(20, 10, TimeUnit.SECONDS)).isTrue();
      assertThat(run.c.awaitDeliveredUnits(10, 10, TimeUnit.SECONDS)).isTrue();
      assertThat(delivered(run.a))
          .containsExactlyInAnyOrderElementsOf(
              IntStream.concat(IntStream.range(0, 10), IntStream.range(20, 30)).boxed().toList());
      assertThat(delivered(run.b))
          .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 30).boxed().toList());
      assertThat(delivered(run.c))
          .containsExactlyElementsOf(IntStream.range(20, 30).boxed().toList());
      Await.until("the memory budget released", () -> run.budget.usedBytes() == 0);
    } finally {
      run.stop();
    }
  }

  @Test
  void aReplayedRequestNoExporterOfThePipelineOwesIsDroppedThere() throws Exception {
    Run run = new Run(false);
    try {
      OtlpIndex owedElsewhere = held(run, 0, 1 << 2, true);
      Batch batch = Batch.of(owedElsewhere);
      owedElsewhere.releaseHold();

      assertThat(run.fanout.consume(batch)).isEqualTo(Admission.ACCEPTED);

      Await.until("the memory budget released", () -> run.budget.usedBytes() == 0);
      assertThat(run.a.attempts()).isEmpty();
      assertThat(run.b.attempts()).isEmpty();
      assertThat(run.c.attempts()).isEmpty();
    } finally {
      run.stop();
    }
  }

  @Test
  void aReplayedRequestGoesToAConnectorOnlyWhenAnExporterBehindItOwesIt() throws Exception {
    Run run = new Run(false);
    List<Integer> behind = new ArrayList<>();
    // Exporter a at this end; b's consumer is behind the connector.
    DurableFanout end =
        new DurableFanout(
            List.of(run.chains.get(0)),
            new int[] {CONSUMER_A},
            List.of(recording(behind, Admission.ACCEPTED)),
            new int[] {1 << CONSUMER_B});
    try {
      OtlpIndex owedHere = held(run, 0, 1 << CONSUMER_A, true);
      OtlpIndex owedBehind = held(run, 10, 1 << CONSUMER_B, true);
      OtlpIndex live = held(run, 20, 0b11, false);
      Batch merged = Batch.of(owedHere);
      merged.add(owedBehind);
      merged.add(live);
      owedHere.releaseHold();
      owedBehind.releaseHold();
      live.releaseHold();

      assertThat(end.consume(merged)).isEqualTo(Admission.ACCEPTED);

      assertThat(behind).containsExactlyElementsOf(IntStream.range(10, 30).boxed().toList());
      assertThat(run.a.awaitDeliveredUnits(20, 10, TimeUnit.SECONDS)).isTrue();
      assertThat(delivered(run.a))
          .containsExactlyInAnyOrderElementsOf(
              IntStream.concat(IntStream.range(0, 10), IntStream.range(20, 30)).boxed().toList());
      Await.until("the memory budget released", () -> run.budget.usedBytes() == 0);
    } finally {
      run.stop();
    }
  }

  @Test
  void whenTheConnectorRefusesTheBatchStaysWithTheCallerAndTheExportersGetNone() throws Exception {
    Run run = new Run(false);
    List<Integer> behind = new ArrayList<>();
    DurableFanout end =
        new DurableFanout(
            List.of(run.chains.get(0)),
            new int[] {CONSUMER_A},
            List.of(recording(behind, Admission.FULL)),
            new int[] {1 << CONSUMER_B});
    try {
      OtlpIndex live = held(run, 0, 0b11, false);
      Batch batch = Batch.of(live);
      live.releaseHold();

      assertThat(end.consume(batch)).isEqualTo(Admission.FULL);

      assertThat(batch.unitCount()).isEqualTo(SPANS_PER_REQUEST);
      assertThat(behind).containsExactlyElementsOf(IntStream.range(0, 10).boxed().toList());
      assertThat(run.a.attempts()).isEmpty();
      batch.clear();
      Await.until("the memory budget released", () -> run.budget.usedBytes() == 0);
    } finally {
      run.stop();
    }
  }

  /** A connector that notes the spans it is offered and answers {@code answer}. */
  private static dev.sluice.component.Connector recording(List<Integer> seen, Admission answer) {
    return batch -> {
      dev.sluice.pdata.codec.MarshalContext context = new dev.sluice.pdata.codec.MarshalContext();
      dev.sluice.pdata.codec.OtlpMarshaler.marshal(batch, context);
      seen.addAll(SequencedSpans.numbers(context.toByteArray()));
      if (answer == Admission.ACCEPTED) {
        batch.clear();
      }
      return answer;
    };
  }

  /** Spans {@code first..first+9}, held in the run's budget as a tracked durable request. */
  private static OtlpIndex held(Run run, int first, int owed, boolean replayed) {
    OtlpIndex request = SequencedSpans.indexed("svc", first, SPANS_PER_REQUEST);
    assertThat(
            run.budget.tryAdmit(
                request, new DurableRequest(run.log, run.budget, owed, replayed, 0)))
        .isTrue();
    return request;
  }
}
