package dev.sluice.exporter.loadbalancing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.AllocationBound;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Splitting a batch over the ring costs nothing per item: the keys are read through views. */
class PlacementAllocationTest {
  private static final int PARTS = 3;
  private final HashRing ring = new HashRing(List.of("a:4317", "b:4317", "c:4317"));
  private final Placement placement = new Placement();
  private final Batch[] parts = new Batch[PARTS];

  PlacementAllocationTest() {
    for (int i = 0; i < PARTS; i++) {
      parts[i] = new Batch(Signal.TRACES);
    }
  }

  private AllocationBound.Outcome split(Batch batch, RoutingKey key) {
    // Warm-up: the views and the parts' arrays are made at first use.
    placement.prepare(key, Signal.TRACES, ring, new boolean[PARTS]);
    batch.partitionInto(parts, placement);
    clearParts();
    boolean[] leftOut = new boolean[PARTS];
    // The least of three rounds: a compilation or deoptimization during one (a busy machine makes
    // them late) allocates on its own account.
    AllocationBound.Outcome least = null;
    for (int round = 0; round < 3; round++) {
      AllocationBound.Outcome outcome =
          AllocationBound.measure(
              () -> {
                placement.prepare(key, Signal.TRACES, ring, leftOut);
                batch.partitionInto(parts, placement);
              });
      clearParts();
      if (least == null || outcome.allocatedBytes() < least.allocatedBytes()) {
        least = outcome;
      }
    }
    return least;
  }

  private void clearParts() {
    for (Batch part : parts) {
      part.clear();
    }
  }

  @Test
  void placingFiveThousandSpansOfOneTraceAllocatesLessThanTheFixedAllowance() {
    Batch batch = Spans.batch(Spans.request("checkout", 0, 1, 5_000, 1));
    try {
      for (RoutingKey key : List.of(RoutingKey.TRACE_ID, RoutingKey.SERVICE, RoutingKey.RESOURCE)) {
        // Anything per span would be at least 16 bytes a span: 80 KB.
        assertThat(split(batch, key).allocatedBytes()).as(key.key).isLessThan(16 * 1024);
      }
    } finally {
      batch.clear();
    }
  }

  @Test
  void placingInterleavedTracesStaysWithinTheEdgesAllocationBound() {
    ExportTraceServiceRequest request = Spans.request("checkout", 0, 1_000, 5, 1);
    Batch batch = Spans.batch(request);
    try {
      split(batch, RoutingKey.TRACE_ID)
          .assertWithin(
              "splitting 5000 spans of 1000 interleaved traces", request.getSerializedSize());
    } finally {
      batch.clear();
    }
  }
}
