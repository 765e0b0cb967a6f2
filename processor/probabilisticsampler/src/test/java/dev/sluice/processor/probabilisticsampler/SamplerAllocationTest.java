package dev.sluice.processor.probabilisticsampler;

import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.OtlpIndex;
import dev.sluice.pdata.otlp.OtlpIndexer;
import dev.sluice.pdata.otlp.Signal;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.SequencedSpans;
import org.junit.jupiter.api.Test;

/** Sampling a batch costs what the edge may cost for its size: nothing per span beyond edits. */
class SamplerAllocationTest {
  private static final int SPANS = 1000;

  @Test
  void samplingABatchStaysWithinTheEdgesAllocationBound() throws Exception {
    byte[] request = SequencedSpans.request("svc", 0, SPANS).toByteArray();
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
}
