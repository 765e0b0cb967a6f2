package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * {@link BatchView#itemCount} of metrics batches whose slices cut metrics between data points, cut
 * with {@link Batch#moveTo} and merged again with {@link Batch#addAll} as the batch processor does,
 * with and without drops: always the number of metrics protobuf-java parses from what {@link
 * OtlpMarshaler} writes for the batch.
 */
class MetricItemCountTest {
  /** Two resources, one scope each: every metric type, and one without data points. */
  private static final int[] SCOPES = {1, 1};

  private static final String EMPTY_METRIC = "no.data";

  /** Ways a part is edited after the cut: untouched, every unit dropped, some units dropped. */
  private static final int PART_EDITS = 3;

  private final OtlpIndexer indexer = new OtlpIndexer();

  @Test
  void aMetricWhosePointsTwoSlicesHoldCountsOnceAsItIsWrittenOnce() throws Exception {
    OtlpIndex index = metricsIndex();
    Batch rest = Batch.of(index);
    Batch merged = new Batch(Signal.METRICS);
    rest.moveTo(merged, 1); // the gauge's first data point; the rest of it stays behind
    merged.addAll(rest);

    assertThat(merged.sliceCount()).isEqualTo(3);
    assertThat(BatchView.itemCount(merged))
        .isEqualTo(writtenMetrics(merged))
        .isEqualTo(index.itemCount());
    merged.clear();
  }

  @Test
  void batchesCutInThreeAtEveryPairOfPositionsAndMergedCountEachWrittenMetricOnce()
      throws Exception {
    assertEveryThreeWayCut(metricsIndex(), batch -> {}, new Random(0), false);
  }

  @Test
  void batchesWithDroppedPointsAndADroppedMetricCutAndMergedCountWhatIsWritten() throws Exception {
    OtlpIndex index = metricsIndex();
    Consumer<Batch> drops =
        batch -> {
          batch.dropIf(item -> item.point() % 3 == 1);
          batch.visitMetrics(
              item -> {
                if (item.metric().nameEquals(EMPTY_METRIC) && item.resource() == 0) {
                  item.drop();
                }
              });
        };

    assertEveryThreeWayCut(index, drops, new Random(1), false);
  }

  @Test
  void partsEditedAfterTheCutCountAMetricOnceEvenWhenOnePartOfItLostEveryPoint() throws Exception {
    assertEveryThreeWayCut(metricsIndex(), batch -> {}, new Random(2), true);
  }

  @Test
  void partsOfTwoCopiesOfARequestCutInsideOneMetricCountTwiceAsTheyAreWrittenTwice()
      throws Exception {
    byte[] request = OtlpTestData.metrics(SCOPES).toByteArray();
    Batch first = Batch.of(indexer.index(Signal.METRICS, request));
    Batch second = Batch.of(indexer.index(Signal.METRICS, request));
    Batch merged = new Batch(Signal.METRICS);
    Batch discarded = new Batch(Signal.METRICS);
    first.moveTo(merged, 1);
    second.moveTo(discarded, 1);
    merged.addAll(second);

    // Equal headers make one scope block, but the gauge's parts are of two requests.
    assertThat(BatchView.scopeBlockCount(merged)).isEqualTo(SCOPES.length);
    assertThat(BatchView.itemCount(merged))
        .isEqualTo(writtenMetrics(merged))
        .isEqualTo(first.requestOf(0).itemCount() + 1);
    merged.clear();
    first.clear();
    discarded.clear();
  }

  @Test
  void partitionsWhosePointsAlternateCountEachMetricOnceAsItIsWritten() throws Exception {
    Batch batch = Batch.of(metricsIndex());
    batch.dropIf(item -> item.point() % 5 == 3);
    Batch[] parts = {new Batch(Signal.METRICS), new Batch(Signal.METRICS)};

    batch.partitionInto(parts, item -> item.point() % 2);

    for (Batch part : parts) {
      assertThat(part.sliceCount()).isGreaterThan(BatchView.scopeBlockCount(part));
      assertThat(BatchView.itemCount(part)).isEqualTo(writtenMetrics(part));
      part.clear();
    }
    batch.clear();
  }

  /**
   * For every pair of cut positions {@code a <= b}: a fresh batch of the request, {@code before}
   * applied to it, cut into the parts {@code [0, a)}, {@code [a, b)} and {@code [b, end)}, each
   * part left alone or (with {@code editParts}) a random one of {@link #PART_EDITS}, merged back in
   * order; the merged batch counts what it writes.
   */
  private static void assertEveryThreeWayCut(
      OtlpIndex index, Consumer<Batch> before, Random random, boolean editParts) throws Exception {
    Batch probe = Batch.of(index);
    before.accept(probe);
    long units = probe.unitCount();
    probe.clear();
    assertThat(units).isGreaterThan(index.itemCount());
    int checked = 0;
    for (long a = 1; a < units; a++) {
      for (long b = a; b < units; b++) {
        Batch source = Batch.of(index);
        before.accept(source);
        Batch[] parts = {
          new Batch(Signal.METRICS), new Batch(Signal.METRICS), new Batch(Signal.METRICS)
        };
        source.moveTo(parts[0], a);
        source.moveTo(parts[1], b - a);
        parts[2].addAll(source);
        Batch merged = new Batch(Signal.METRICS);
        for (Batch part : parts) {
          if (editParts) {
            edit(part, random.nextInt(PART_EDITS), random);
          }
          merged.addAll(part);
        }

        assertThat(BatchView.itemCount(merged))
            .as("cut after %d and %d units", a, b)
            .isEqualTo(writtenMetrics(merged));
        merged.clear();
        checked++;
      }
    }
    assertThat(checked).isPositive();
  }

  private static void edit(Batch part, int kind, Random random) {
    switch (kind) {
      case 0 -> {}
      case 1 -> part.dropIf(item -> true);
      default -> part.dropIf(item -> random.nextBoolean());
    }
  }

  private OtlpIndex metricsIndex() throws Exception {
    return indexer.index(Signal.METRICS, OtlpTestData.metrics(SCOPES).toByteArray());
  }

  private static long writtenMetrics(Batch batch) throws Exception {
    Message written = RequestTree.parse(Signal.METRICS, OtlpMarshaler.toByteArray(batch));
    return RequestTree.itemCount(written);
  }
}
