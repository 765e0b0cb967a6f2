package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.internal.RequestTree.Entry;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * Drops that mark units instead of cutting slices: every reader (marshaler, views, splits,
 * partitions, later visits) skips what was dropped, unit counts stay exact, and references and
 * accounted bytes all come back. Outputs are parsed with protobuf-java and compared, unit by unit
 * with their headers, with the request less what was dropped.
 */
class DropMaskTest {
  private static final String EMPTY_METRIC = "no.data";

  private final OtlpIndexer indexer = new OtlpIndexer();

  /** Scattered drops: runs of several lengths, single drops, and the first and last units. */
  private static final IntPredicate SCATTERED = unit -> unit % 7 == 0 || unit % 11 == 3;

  @Test
  void splitsABatchWithScatteredDropsAtEveryPositionAndWritesEachPartWithoutTheDropped()
      throws Exception {
    Message request = OtlpTestData.traces(new int[] {2, 1}, 20);
    assertSplitsEverywhere(Signal.TRACES, request, SCATTERED);
  }

  @Test
  void splitsLogsWithScatteredDropsAtEveryPosition() throws Exception {
    Message request = OtlpTestData.logs(new int[] {1, 2}, 9);
    assertSplitsEverywhere(Signal.LOGS, request, SCATTERED);
  }

  @Test
  void splitsMetricsWithSomeAndAllPointsOfAMetricDroppedAtEveryPosition() throws Exception {
    Message request = OtlpTestData.metrics(new int[] {2, 1});
    // Every point of the sum of the first scope goes (its points follow the gauge's), and some of
    // the others.
    List<Message> first = RequestTree.items(scopeOf(request));
    int sumFrom = RequestTree.dataPoints((Metric) first.get(0)).size();
    int sumTo = sumFrom + RequestTree.dataPoints((Metric) first.get(1)).size();
    assertThat(((Metric) first.get(1)).hasSum()).isTrue();
    assertThat(sumTo).isGreaterThan(sumFrom + 1);
    IntPredicate drop = u -> (u >= sumFrom && u < sumTo) || u % 3 == 1;
    assertSplitsEverywhere(Signal.METRICS, request, drop);
  }

  @Test
  void aSecondVisitSeesOnlyWhatTheFirstKeptAndDropsMore() throws Exception {
    Message request = OtlpTestData.traces(new int[] {2, 2}, 15);
    OtlpIndex index = indexer.index(Signal.TRACES, request.toByteArray());
    Batch batch = Batch.of(index);
    long total = batch.unitCount();
    int[] unit = {0};
    long firstDropped =
        batch.visit(
            item -> {
              if (unit[0]++ % 2 == 0) {
                item.drop();
              }
            });
    List<Integer> seen = new ArrayList<>();
    long secondDropped =
        batch.visit(
            item -> {
              seen.add(item.item());
              if (item.item() % 3 == 1) {
                item.drop();
              }
            });

    assertThat(firstDropped).isEqualTo((total + 1) / 2);
    assertThat(seen).allMatch(i -> i % 2 == 1).hasSize((int) (total - firstDropped));
    assertThat(secondDropped).isEqualTo(seen.stream().filter(i -> i % 3 == 1).count());
    assertThat(batch.unitCount()).isEqualTo(total - firstDropped - secondDropped);
    assertThat(written(Signal.TRACES, batch))
        .isEqualTo(expected(Signal.TRACES, request, u -> u % 2 == 0 || u % 3 == 1));
    assertThat(batch.sliceCount()).as("no slice cut by the drops").isEqualTo(4);
    batch.clear();
  }

  @Test
  void aScopeAndAResourceWhoseEveryUnitIsDroppedAreNotWritten() throws Exception {
    // Resource 0: scopes of units 0-9 and 10-19; resource 1: one scope of units 20-29.
    Message request = OtlpTestData.traces(new int[] {2, 1}, 10);
    OtlpIndex index = indexer.index(Signal.TRACES, request.toByteArray());
    Batch batch = Batch.of(index);
    IntPredicate drop = u -> u < 10 || u >= 20 || u == 15;

    batch.dropIf(item -> drop.test(item.item()));

    assertThat(batch.sliceCount()).isEqualTo(1);
    assertThat(batch.unitCount()).isEqualTo(9);
    Message written = RequestTree.parse(Signal.TRACES, OtlpMarshaler.toByteArray(batch));
    assertThat(RequestTree.resourceBlocks(written)).hasSize(1);
    assertThat(RequestTree.scopeBlockCount(written)).isEqualTo(1);
    assertThat(RequestTree.flatten(Signal.TRACES, written))
        .isEqualTo(expected(Signal.TRACES, request, drop));
    assertThat(BatchView.itemCount(batch)).isEqualTo(9);
    batch.clear();
  }

  @Test
  void aMetricWhosePointsAreAllDroppedIsNeitherWrittenNorVisitedAgain() throws Exception {
    Message request = OtlpTestData.metrics(new int[] {1});
    OtlpIndex index = indexer.index(Signal.METRICS, request.toByteArray());
    Batch batch = Batch.of(index);
    long metricsBefore = BatchView.itemCount(batch);
    // The first metric (a gauge) loses every point, the histogram one of them.
    batch.visit(item -> dropIf(item, item.item() == 0 || (item.item() == 2 && item.point() == 0)));
    List<String> visited = new ArrayList<>();
    List<Integer> pointCounts = new ArrayList<>();
    batch.visitMetrics(
        item -> {
          visited.add(item.metric().name().asString());
          pointCounts.add(item.metric().dataPointCount());
        });
    List<String> viewed = new ArrayList<>();
    new BatchView().forEachMetric(batch, (r, s, m) -> viewed.add(m.name().asString()));

    Metric gauge = (Metric) RequestTree.items(scopeOf(request)).get(0);
    Metric histogram = (Metric) RequestTree.items(scopeOf(request)).get(2);
    assertThat(visited).doesNotContain(gauge.getName()).hasSize((int) metricsBefore - 1);
    assertThat(viewed).isEqualTo(visited);
    assertThat(pointCounts.get(1)).isEqualTo(histogram.getHistogram().getDataPointsCount() - 1);
    assertThat(BatchView.itemCount(batch)).isEqualTo(metricsBefore - 1);
    Message written = RequestTree.parse(Signal.METRICS, OtlpMarshaler.toByteArray(batch));
    assertThat(RequestTree.items(scopeOf(written)))
        .extracting(m -> ((Metric) m).getName())
        .isEqualTo(visited);
    batch.clear();
  }

  @Test
  void aMetricWithoutPointsDroppedAtMetricLevelIsGoneFromOutputViewsAndParts() throws Exception {
    Message request = OtlpTestData.metrics(new int[] {1, 1});
    OtlpIndex index = indexer.index(Signal.METRICS, request.toByteArray());
    Batch batch = Batch.of(index);
    long units = batch.unitCount();

    long dropped = batch.visitMetrics(item -> dropIf(item, item.metric().nameEquals(EMPTY_METRIC)));

    assertThat(dropped).isZero();
    assertThat(batch.unitCount()).isEqualTo(units);
    List<String> names = new ArrayList<>();
    new BatchView().forEachMetric(batch, (r, s, m) -> names.add(m.name().asString()));
    assertThat(names).doesNotContain(EMPTY_METRIC).hasSize(10);
    Message written = RequestTree.parse(Signal.METRICS, OtlpMarshaler.toByteArray(batch));
    assertThat(RequestTree.itemCount(written)).isEqualTo(10);
    Batch[] parts = {new Batch(Signal.METRICS), new Batch(Signal.METRICS)};
    batch.partitionInto(parts, item -> item.resource());
    for (Batch part : parts) {
      Message partWritten = RequestTree.parse(Signal.METRICS, OtlpMarshaler.toByteArray(part));
      assertThat(RequestTree.itemCount(partWritten)).isEqualTo(5);
      part.clear();
    }
    batch.clear();
  }

  @Test
  void partitionsADroppedBatchAskingTheKeyOnlyAboutKeptUnits() throws Exception {
    Message request = OtlpTestData.traces(new int[] {1, 2}, 25);
    OtlpIndex index = indexer.index(Signal.TRACES, request.toByteArray());
    Batch batch = Batch.of(index);
    batch.dropIf(item -> SCATTERED.test(item.item()));
    List<Integer> asked = new ArrayList<>();
    Batch[] parts = new Batch[3];
    for (int p = 0; p < parts.length; p++) {
      parts[p] = new Batch(Signal.TRACES);
    }

    batch.partitionInto(
        parts,
        item -> {
          asked.add(item.item());
          return (item.item() / 4) % parts.length;
        });

    assertThat(asked).noneMatch(SCATTERED::test).hasSize((int) batch.unitCount());
    long units = 0;
    for (int p = 0; p < parts.length; p++) {
      int part = p;
      assertThat(written(Signal.TRACES, parts[p]))
          .as("part " + p)
          .isEqualTo(
              expected(
                  Signal.TRACES,
                  request,
                  u -> SCATTERED.test(u) || (u / 4) % parts.length != part));
      units += parts[p].unitCount();
      parts[p].clear();
    }
    assertThat(units).isEqualTo(batch.unitCount());
    batch.clear();
  }

  @Test
  void aPartOfAPartitionDropsOnItsOwnWithoutChangingTheOthers() throws Exception {
    Message request = OtlpTestData.traces(new int[] {1}, 30);
    OtlpIndex index = indexer.index(Signal.TRACES, request.toByteArray());
    Batch batch = Batch.of(index);
    batch.dropIf(item -> item.item() % 5 == 0);
    Batch[] parts = {new Batch(Signal.TRACES), new Batch(Signal.TRACES)};
    batch.partitionInto(parts, item -> item.item() < 15 ? 0 : 1);

    parts[0].dropIf(item -> item.item() % 2 == 0);

    assertThat(written(Signal.TRACES, parts[0]))
        .isEqualTo(expected(Signal.TRACES, request, u -> u % 5 == 0 || u % 2 == 0 || u >= 15));
    assertThat(written(Signal.TRACES, parts[1]))
        .isEqualTo(expected(Signal.TRACES, request, u -> u % 5 == 0 || u < 15));
    assertThat(written(Signal.TRACES, batch))
        .isEqualTo(expected(Signal.TRACES, request, u -> u % 5 == 0));
    parts[0].clear();
    parts[1].clear();
    batch.clear();
  }

  @Test
  void referencesAndAccountedBytesComeBackAfterDropsSplitsAndPartitions() throws Exception {
    EditOwnershipTest.Account account = new EditOwnershipTest.Account();
    Message request = OtlpTestData.metrics(new int[] {2, 1});
    OtlpIndex index = indexer.index(Signal.METRICS, request.toByteArray());
    account.admit(index);
    Batch batch = Batch.of(index);
    index.releaseHold();
    long requestBytes = account.bytes.get();
    int[] unit = {0};

    batch.visit(item -> dropIf(item, unit[0]++ % 3 == 0));
    assertThat(account.bytes.get()).as("the marks are accounted").isGreaterThan(requestBytes);
    Batch head = new Batch(Signal.METRICS);
    batch.moveTo(head, batch.unitCount() / 2);
    head.visitMetrics(item -> dropIf(item, item.item() % 2 == 0));
    Batch[] parts = {new Batch(Signal.METRICS), new Batch(Signal.METRICS)};
    batch.partitionInto(parts, item -> item.point() % 2);
    batch.clear();
    parts[0].dropIf(item -> item.point() == 2);
    head.clear();
    parts[0].clear();
    assertThat(account.released.get()).isZero();
    parts[1].clear();

    assertThat(account.released.get()).isEqualTo(1);
    assertThat(account.bytes.get()).isZero();
  }

  // Helpers.

  private static void dropIf(BatchItem item, boolean drop) {
    if (drop) {
      item.drop();
    }
  }

  private static Message scopeOf(Message request) {
    return RequestTree.scopeBlocks(RequestTree.resourceBlocks(request).get(0)).get(0);
  }

  /**
   * Drops the units {@code drop} accepts (numbered in request order), then for every split position
   * moves that many units of a fresh copy to a head batch, and checks both parts: their unit
   * counts, that together they write exactly the kept units with their headers, and that neither
   * writes a block or a metric left without what it held.
   */
  private void assertSplitsEverywhere(Signal signal, Message request, IntPredicate drop)
      throws Exception {
    EditOwnershipTest.Account account = new EditOwnershipTest.Account();
    OtlpIndex index = indexer.index(signal, request.toByteArray());
    account.admit(index);
    List<Entry> expected = expected(signal, request, drop);
    long kept =
        expected.stream().filter(e -> signal != Signal.METRICS || e.point() != null).count();
    long total = RequestTree.unitCount(signal, request);
    assertThat(kept).isLessThan(total).isGreaterThan(1);
    for (long at = 1; at < kept; at++) {
      Batch batch = Batch.of(index);
      int[] unit = {0};
      long dropped = batch.visit(item -> dropIf(item, drop.test(unit[0]++)));
      assertThat(dropped).isEqualTo(total - kept);
      assertThat(batch.unitCount()).isEqualTo(kept);
      Batch head = new Batch(signal);

      long moved = batch.moveTo(head, at);

      assertThat(moved).isEqualTo(at);
      assertThat(head.unitCount()).isEqualTo(at);
      assertThat(batch.unitCount()).isEqualTo(kept - at);
      List<Entry> both = new ArrayList<>(written(signal, head));
      both.addAll(written(signal, batch));
      assertThat(both).as("split after " + at + " units").isEqualTo(expected);
      head.clear();
      batch.clear();
    }
    index.releaseHold();
    assertThat(account.released.get()).isEqualTo(1);
    assertThat(account.bytes.get()).isZero();
  }

  /** What the batch writes, flattened; checks that it writes no emptied block or metric. */
  private static List<Entry> written(Signal signal, Batch batch) throws Exception {
    Message request = RequestTree.parse(signal, OtlpMarshaler.toByteArray(batch));
    for (Message resource : RequestTree.resourceBlocks(request)) {
      assertThat(RequestTree.scopeBlocks(resource)).as("scope blocks of a resource").isNotEmpty();
      for (Message scope : RequestTree.scopeBlocks(resource)) {
        assertThat(RequestTree.items(scope)).as("items of a scope block").isNotEmpty();
        if (signal == Signal.METRICS) {
          for (Message item : RequestTree.items(scope)) {
            Metric metric = (Metric) item;
            if (!metric.getName().equals(EMPTY_METRIC)) {
              assertThat(RequestTree.dataPoints(metric)).as(metric.getName()).isNotEmpty();
            }
          }
        }
      }
    }
    List<Entry> entries = RequestTree.flatten(signal, request);
    assertThat((long) units(signal, entries)).isEqualTo(batch.unitCount());
    return entries;
  }

  private static int units(Signal signal, List<Entry> entries) {
    int units = 0;
    for (Entry entry : entries) {
      units += signal != Signal.METRICS || entry.point() != null ? 1 : 0;
    }
    return units;
  }

  /** The request's entries less the units {@code drop} accepts, numbered in request order. */
  private static List<Entry> expected(Signal signal, Message request, IntPredicate drop) {
    List<Entry> kept = new ArrayList<>();
    int unit = 0;
    for (Entry entry : RequestTree.flatten(signal, request)) {
      boolean isUnit = signal != Signal.METRICS || entry.point() != null;
      if (!isUnit || !drop.test(unit)) {
        kept.add(entry);
      }
      unit += isUnit ? 1 : 0;
    }
    return kept;
  }
}
