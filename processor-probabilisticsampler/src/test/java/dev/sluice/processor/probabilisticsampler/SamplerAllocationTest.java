package dev.sluice.processor.probabilisticsampler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.AllocationBound;
import org.junit.jupiter.api.Test;

/** Sampling a batch costs what the edge may cost for its size: nothing per span beyond edits. */
class SamplerAllocationTest {
  private static final int SPANS = 1000;

  /** What the sampler itself may allocate per batch, whatever its size. */
  private static final long MAX_SAMPLER_BYTES_PER_BATCH = 256;

  @Test
  void samplingABatchStaysWithinTheEdgesAllocationBound() throws Exception {
    byte[] request = SamplerHarness.spansRequest(SPANS);
    for (String mode : new String[] {"hash_seed", "proportional", "equalizing"}) {
      Processor processor =
          new ProbabilisticSamplerProcessorFactory()
              .create(
                  new ComponentSettings(
                      ComponentId.parse("probabilistic_sampler"),
                      ComponentKind.PROCESSOR,
                      new MetricRegistry()),
                  SamplerHarness.config(mode, 25, 0),
                  Signal.TRACES,
                  batch -> {
                    batch.clear();
                    return Admission.ACCEPTED;
                  });
      OtlpIndexer indexer = new OtlpIndexer();
      for (int warmUp = 0; warmUp < 3; warmUp++) {
        processor.consume(Batch.of(indexer.index(Signal.TRACES, request)));
      }
      OtlpIndex index = indexer.index(Signal.TRACES, request);
      Batch batch = Batch.of(index);
      AllocationBound.measure(() -> processor.consume(batch))
          .assertWithin("sampling " + SPANS + " spans in " + mode + " mode", request.length);
      batch.clear();
    }
  }

  /**
   * Deciding allocates nothing per span: a batch the sampler passed already (every span kept as it
   * is, nothing rewritten) costs the same few objects at 1000 spans as the visit itself.
   */
  @Test
  void decidingAllocatesNothingPerSpanBeyondWhatTheVisitItselfCosts() throws Exception {
    byte[][] sampled = new byte[1][];
    Processor processor =
        new ProbabilisticSamplerProcessorFactory()
            .create(
                new ComponentSettings(
                    ComponentId.parse("probabilistic_sampler"),
                    ComponentKind.PROCESSOR,
                    new MetricRegistry()),
                SamplerHarness.config("hash_seed", 50, 3),
                Signal.TRACES,
                batch -> {
                  sampled[0] = OtlpMarshaler.toByteArray(batch);
                  batch.clear();
                  return Admission.ACCEPTED;
                });
    OtlpIndexer indexer = new OtlpIndexer();
    processor.consume(
        Batch.of(indexer.index(Signal.TRACES, SamplerHarness.spansRequest(2 * SPANS))));
    byte[] once = sampled[0];
    for (int warmUp = 0; warmUp < 5; warmUp++) {
      processor.consume(Batch.of(indexer.index(Signal.TRACES, once)));
    }
    assertThat(sampled[0]).isEqualTo(once);
    Batch batch = Batch.of(indexer.index(Signal.TRACES, once));
    long units = batch.unitCount();
    Processor decideOnly =
        new ProbabilisticSamplerProcessorFactory()
            .create(
                new ComponentSettings(
                    ComponentId.parse("probabilistic_sampler/again"),
                    ComponentKind.PROCESSOR,
                    new MetricRegistry()),
                SamplerHarness.config("hash_seed", 50, 3),
                Signal.TRACES,
                b -> Admission.ACCEPTED);
    for (int warmUp = 0; warmUp < 5; warmUp++) {
      Batch warm = Batch.of(indexer.index(Signal.TRACES, once));
      decideOnly.consume(warm);
      warm.clear();
    }
    long allocated = AllocationBound.measure(() -> decideOnly.consume(batch)).allocatedBytes();
    assertThat(batch.unitCount()).isEqualTo(units);
    batch.clear();
    // What a visit of a fresh batch costs by itself (its edit state), measured the same way.
    Batch bare = Batch.of(indexer.index(Signal.TRACES, once));
    long visitAlone = AllocationBound.measure(() -> bare.visit(item -> {})).allocatedBytes();
    bare.clear();
    assertThat(units).isGreaterThan(SPANS / 2);
    assertThat(allocated - visitAlone)
        .as("bytes allocated deciding %d spans, beyond the visit's own %d", units, visitAlone)
        .isLessThan(MAX_SAMPLER_BYTES_PER_BATCH);
  }
}
