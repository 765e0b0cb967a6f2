package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.testkit.AllocationBound;
import org.junit.jupiter.api.Test;

/**
 * What a visit of a fresh batch allocates, as a processor pays it once per request: the overlay
 * that marks its drops (and holds its replacements) and one slice per slice of the edited request,
 * nothing per dropped item and nothing per visit besides (the visit's own state is reused from
 * batch to batch on a thread).
 */
class VisitAllocationTest {
  private static final int WARM_UP_VISITS = 300;
  private static final int MEASURED_VISITS = 50;
  private static final int ROUNDS = 3;

  /** The batch and its first slice, which Batch.of makes. */
  private static final long BATCH_BYTES = 160;

  /** The target for a request of a thousand spans whatever its drops: under a kibibyte. */
  private static final long DROPS_BYTES = 1024;

  /** An overlay and its small per-block tables; its storage comes from the pool. */
  private static final long OVERLAY_BYTES = 1024;

  @Test
  void aVisitDroppingEveryOtherSpanOfAThousandAllocatesUnderAKibibyte() throws Exception {
    OtlpIndex index =
        new OtlpIndexer().index(Signal.TRACES, OtlpTestData.realisticTraces(1, 1000).toByteArray());
    ItemVisitor dropEveryOther =
        item -> {
          if (item.item() % 2 == 1) {
            item.drop();
          }
        };
    int slices = visit(index, dropEveryOther);
    assertThat(slices).as("no slice cut").isEqualTo(1);

    long least = leastPerVisit(index, dropEveryOther);

    assertThat(least)
        .as("bytes per visit of a fresh batch (made and cleared too) dropping 500 of 1000 spans")
        .isLessThan(DROPS_BYTES);
  }

  @Test
  void aVisitThatReplacesAndDropsAllocatesNoSliceAndNothingPerItem() throws Exception {
    OtlpIndex index =
        new OtlpIndexer().index(Signal.TRACES, OtlpTestData.realisticTraces(1, 1000).toByteArray());
    byte[] copy = new byte[1024];
    ItemVisitor replaceAndDrop =
        item -> {
          if (item.item() % 10 == 3) {
            item.drop();
          } else {
            System.arraycopy(item.array(), item.offset(), copy, 0, item.length());
            item.replace(copy, 0, item.length());
          }
        };
    int slices = visit(index, replaceAndDrop);
    assertThat(slices).isEqualTo(1);

    long bytes = leastPerVisit(index, replaceAndDrop);

    assertThat(bytes)
        .as("bytes per visit replacing 900 spans of a fresh batch and dropping 100")
        .isLessThanOrEqualTo(BATCH_BYTES + OVERLAY_BYTES);
  }

  @Test
  void aVisitorMayVisitAnotherBatchFromInsideAVisit() throws Exception {
    OtlpIndexer indexer = new OtlpIndexer();
    Batch outer =
        Batch.of(indexer.index(Signal.TRACES, OtlpTestData.realisticTraces(1, 10).toByteArray()));
    Batch inner =
        Batch.of(indexer.index(Signal.TRACES, OtlpTestData.realisticTraces(1, 10).toByteArray()));
    long[] innerDropped = new long[1];

    long outerDropped =
        outer.visit(
            item -> {
              if (item.item() == 0) {
                innerDropped[0] = inner.dropIf(i -> i.item() % 2 == 0);
              }
              if (item.item() >= 5) {
                item.drop();
              }
            });

    assertThat(outerDropped).isEqualTo(5);
    assertThat(innerDropped[0]).isEqualTo(5);
    assertThat(outer.unitCount()).isEqualTo(5);
    assertThat(inner.unitCount()).isEqualTo(5);
    outer.clear();
    inner.clear();
  }

  /** Bytes one visit of a fresh batch allocates, the least over a few rounds of warm visits. */
  static long leastPerVisit(OtlpIndex index, ItemVisitor visitor) {
    for (int i = 0; i < WARM_UP_VISITS; i++) {
      visit(index, visitor);
    }
    long least = Long.MAX_VALUE;
    for (int round = 0; round < ROUNDS; round++) {
      long bytes =
          AllocationBound.measure(
                  () -> {
                    for (int i = 0; i < MEASURED_VISITS; i++) {
                      visit(index, visitor);
                    }
                  })
              .allocatedBytes();
      least = Math.min(least, bytes / MEASURED_VISITS);
    }
    return least;
  }

  private static int visit(OtlpIndex index, ItemVisitor visitor) {
    Batch batch = Batch.of(index);
    batch.visit(visitor);
    int slices = batch.sliceCount();
    batch.clear();
    return slices;
  }
}
