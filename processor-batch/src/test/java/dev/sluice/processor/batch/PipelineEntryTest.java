package dev.sluice.processor.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.service.Fanout;
import dev.sluice.service.MemoryBudget;
import dev.sluice.service.PipelineEntry;
import dev.sluice.service.sender.SendingChain;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.PipelineFixture;
import dev.sluice.testkit.RecordingExporter;
import dev.sluice.testkit.SequencedSpans;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PipelineEntryTest {
  private final PipelineFixture fixture = new PipelineFixture();

  @Test
  void refusesOnceTheBudgetIsFullAndDeliversEverythingAcceptedWhenTheDestinationReturns()
      throws Exception {
    OtlpIndex probe = SequencedSpans.indexed("a", 0, 100);
    MemoryBudget budget = new MemoryBudget(probe.retainedBytes() * 10, 1_000_000);
    RecordingExporter stalled = new RecordingExporter().close();
    SendingChain exporter =
        fixture.exporter(
            "otlp",
            stalled,
            PipelineFixture.config(PipelineFixture.queue(1, 2), PipelineFixture.fastRetry()));
    BatchProcessor batcher =
        new BatchProcessor(
            fixture.settings(dev.sluice.component.ComponentKind.PROCESSOR, "batch"),
            new BatchConfig(100, 100, Duration.ofMillis(10)),
            dev.sluice.pdata.Signal.TRACES,
            new Fanout(List.of(exporter)));
    PipelineEntry entry = new PipelineEntry(budget, List.of(batcher), 1000);

    List<Integer> accepted = new ArrayList<>();
    Admission last = Admission.ACCEPTED;
    for (int i = 0; i < 100 && last == Admission.ACCEPTED; i++) {
      last = entry.consume(SequencedSpans.indexed("a", i * 100, 100));
      if (last == Admission.ACCEPTED) {
        for (int n = i * 100; n < (i + 1) * 100; n++) {
          accepted.add(n);
        }
      }
    }

    assertThat(last).isEqualTo(Admission.FULL);
    assertThat(accepted).hasSizeBetween(500, 1000);
    assertThat(budget.usedBytes()).isLessThanOrEqualTo(budget.maxBytes());

    stalled.open();
    assertThat(stalled.awaitDeliveredUnits(accepted.size(), 10, TimeUnit.SECONDS)).isTrue();
    List<Integer> delivered = new ArrayList<>();
    stalled.delivered().forEach(a -> delivered.addAll(SequencedSpans.numbers(a.request())));
    assertThat(delivered).isEqualTo(accepted);
    Await.until("the memory budget released", () -> budget.usedBytes() == 0);
    batcher.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
  }

  @Test
  void refusesEverythingOnceClosed() {
    PipelineEntry entry =
        new PipelineEntry(
            new MemoryBudget(1 << 20, 1000), List.of(batch -> Admission.ACCEPTED), 1000);
    entry.close();

    assertThat(entry.consume(SequencedSpans.indexed("a", 0, 1))).isEqualTo(Admission.CLOSED);
  }

  @Test
  void refusesARequestWithMoreUnitsThanTheBudgetHasRoomFor() {
    MemoryBudget budget = new MemoryBudget(1 << 20, 50);
    PipelineEntry entry = new PipelineEntry(budget, List.of(batch -> Admission.ACCEPTED), 1000);

    assertThat(entry.consume(SequencedSpans.indexed("a", 0, 51))).isEqualTo(Admission.FULL);
    assertThat(budget.usedBytes()).isZero();
    assertThat(budget.usedUnits()).isZero();
  }

  @Test
  void saysFullAtTheHeadersOnceLessThanTheReserveIsFreeAndAcceptedAgainOnceReleased() {
    OtlpIndex probe = SequencedSpans.indexed("a", 0, 100);
    long maxBytes = probe.retainedBytes() * 20;
    MemoryBudget budget = new MemoryBudget(maxBytes, 1_000_000);
    List<dev.sluice.pdata.Batch> held = new ArrayList<>();
    PipelineEntry entry =
        new PipelineEntry(
            budget,
            List.of(
                batch -> {
                  held.add(batch);
                  return Admission.ACCEPTED;
                }),
            1000);

    assertThat(entry.admission()).isEqualTo(Admission.ACCEPTED);
    int accepted = 0;
    while (entry.admission() == Admission.ACCEPTED && accepted < 100) {
      assertThat(entry.consume(SequencedSpans.indexed("a", accepted * 100, 100)))
          .isEqualTo(Admission.ACCEPTED);
      accepted++;
    }

    assertThat(entry.admission()).isEqualTo(Admission.FULL);
    assertThat(budget.usedBytes())
        .isGreaterThanOrEqualTo(maxBytes - maxBytes / MemoryBudget.RESERVE_DIVISOR)
        .isLessThanOrEqualTo(maxBytes);
    held.forEach(dev.sluice.pdata.Batch::clear);
    assertThat(budget.usedBytes()).isZero();
    assertThat(entry.admission()).isEqualTo(Admission.ACCEPTED);
    entry.close();
    assertThat(entry.admission()).isEqualTo(Admission.CLOSED);
  }

  @Test
  void saysFullAtTheHeadersOnceEveryUnitIsTaken() {
    MemoryBudget budget = new MemoryBudget(1 << 20, 50);
    PipelineEntry entry = new PipelineEntry(budget, List.of(batch -> Admission.ACCEPTED), 1000);
    OtlpIndex request = SequencedSpans.indexed("a", 0, 50);

    assertThat(budget.tryAdmit(request)).isTrue();

    assertThat(entry.admission()).isEqualTo(Admission.FULL);
    request.releaseHold();
    assertThat(budget.usedUnits()).isZero();
  }
}
