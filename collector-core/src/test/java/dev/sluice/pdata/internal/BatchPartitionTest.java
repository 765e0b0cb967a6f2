package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.PartKey;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import dev.sluice.pdata.internal.RequestTree.Entry;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.RandomRequests;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link Batch#partitionInto}: real requests built with protobuf-java, every part marshaled and
 * parsed back, and compared entry by entry (resource header, scope header, item, data point) with
 * protobuf-java's view of the input split by the same key.
 */
class BatchPartitionTest {
  private static final int PART_BITS = 2;
  private static final int PARTS = 1 << PART_BITS;
  private static final int GOLDEN_RATIO = 0x9E3779B9;
  private static final int TRACES_PER_REQUEST = 5;

  private final OtlpIndexer indexer = new OtlpIndexer();

  /** Part of a trace ID, computed alike from a span view and from protobuf-java's span. */
  private static int partOfTrace(byte[] traceId) {
    // The top bits of a multiplicative hash: the low bits of these test IDs' hashes all agree.
    return (Arrays.hashCode(traceId) * GOLDEN_RATIO) >>> (Integer.SIZE - PART_BITS);
  }

  /** The trace-ID key; {@code buffer} makes it allocation-free (one key per thread). */
  private static PartKey byTraceId(byte[] buffer) {
    return item -> {
      item.span().copyTraceId(buffer);
      return partOfTrace(buffer);
    };
  }

  /** Spans of several traces interleaved, in resource blocks of a few scope blocks each. */
  private static ExportTraceServiceRequest interleavedTraces(int request, int spansPerScope) {
    ExportTraceServiceRequest.Builder builder = ExportTraceServiceRequest.newBuilder();
    int seed = request * 1000;
    for (int r = 0; r < 2; r++) {
      ResourceSpans.Builder block =
          ResourceSpans.newBuilder().setResource(OtlpTestData.resource(request * 2 + r));
      for (int s = 0; s < 2; s++) {
        ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(OtlpTestData.scope(s));
        for (int i = 0; i < spansPerScope; i++) {
          Span span = OtlpTestData.realisticSpan(seed++);
          int trace = (request * 3 + i * 7 + s) % TRACES_PER_REQUEST;
          scope.addSpans(span.toBuilder().setTraceId(OtlpTestData.id(16, trace)));
        }
        block.addScopeSpans(scope);
      }
      builder.addResourceSpans(block);
    }
    return builder.build();
  }

  private static List<Entry> entries(Batch batch) throws Exception {
    return RequestTree.flatten(
        batch.signal(), RequestTree.parse(batch.signal(), OtlpMarshaler.toByteArray(batch)));
  }

  private static Batch[] newParts(Signal signal, int count) {
    Batch[] parts = new Batch[count];
    for (int p = 0; p < count; p++) {
      parts[p] = new Batch(signal);
    }
    return parts;
  }

  private static void clear(Batch[] parts) {
    for (Batch part : parts) {
      part.clear();
    }
  }

  /** The input's entries that go to each part, by the part of each entry's trace. */
  private static List<List<Entry>> byTrace(List<Entry> input) {
    List<List<Entry>> expected = new ArrayList<>();
    for (int p = 0; p < PARTS; p++) {
      expected.add(new ArrayList<>());
    }
    for (Entry entry : input) {
      expected.get(partOfTrace(((Span) entry.item()).getTraceId().toByteArray())).add(entry);
    }
    return expected;
  }

  @Test
  void spansOfInterleavedTracesGoToTheirTracesPartInOrderWithTheirHeaders() throws Exception {
    Batch source = new Batch(Signal.TRACES);
    List<Entry> input = new ArrayList<>();
    int runs = 0;
    for (int r = 0; r < 3; r++) {
      ExportTraceServiceRequest request = interleavedTraces(r, 12);
      source.add(indexer.index(Signal.TRACES, request.toByteArray()));
      input.addAll(RequestTree.flatten(Signal.TRACES, request));
      runs += runsOfOnePart(request);
    }
    byte[] sourceBytes = OtlpMarshaler.toByteArray(source);
    Batch[] parts = newParts(Signal.TRACES, PARTS);

    source.partitionInto(parts, byTraceId(new byte[SpanView.TRACE_ID_BYTES]));

    List<List<Entry>> expected = byTrace(input);
    long units = 0;
    int slices = 0;
    int nonEmpty = 0;
    for (int p = 0; p < PARTS; p++) {
      assertThat(entries(parts[p])).as("part " + p).isEqualTo(expected.get(p));
      assertThat(parts[p].unitCount()).isEqualTo(expected.get(p).size());
      units += parts[p].unitCount();
      slices += parts[p].sliceCount();
      nonEmpty += expected.get(p).isEmpty() ? 0 : 1;
    }
    assertThat(nonEmpty).as("parts that the traces reach").isGreaterThan(2);
    assertThat(units).isEqualTo(input.size()).isEqualTo(source.unitCount());
    // One slice per run of consecutive spans of one part within a scope block.
    assertThat(slices).isEqualTo(runs);
    // The source is as it was, and still marshals and clears.
    assertThat(OtlpMarshaler.toByteArray(source)).isEqualTo(sourceBytes);
    source.clear();
    clear(parts);
  }

  /** Runs of consecutive spans of one part within each scope block, per protobuf-java. */
  private static int runsOfOnePart(ExportTraceServiceRequest request) {
    int runs = 0;
    for (ResourceSpans resource : request.getResourceSpansList()) {
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        int last = -1;
        for (Span span : scope.getSpansList()) {
          int part = partOfTrace(span.getTraceId().toByteArray());
          runs += part == last ? 0 : 1;
          last = part;
        }
      }
    }
    return runs;
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void everyUnitOfRandomRequestsLandsInTheKeysPartOnceInOrder(Signal signal) throws Exception {
    for (int c = 0; c < 40; c++) {
      Random random = new Random(signal.ordinal() * 1000L + c);
      Batch source = new Batch(signal);
      for (int r = 0; r < 1 + random.nextInt(3); r++) {
        Message request =
            RandomRequests.request(signal, random, RandomRequests.Sizes.DEFAULT, null);
        source.add(indexer.index(signal, request.toByteArray()));
      }
      // Slices cut inside metrics, as a batcher leaves them.
      Batch cut = new Batch(signal);
      source.moveTo(cut, random.nextInt((int) source.unitCount() + 1));
      cut.addAll(source);
      List<Entry> input = entries(cut);
      byte[] sourceBytes = OtlpMarshaler.toByteArray(cut);
      int partCount = 1 + random.nextInt(PARTS);
      Batch[] parts = newParts(signal, partCount);
      List<Integer> answers = new ArrayList<>();
      Random keys = new Random(c);

      cut.partitionInto(
          parts,
          item -> {
            int part = keys.nextInt(4) == 0 ? answers.size() % partCount : keys.nextInt(partCount);
            answers.add(part);
            return part;
          });

      String name = signal + " case " + c;
      assertThat(answers).as(name).hasSize((int) cut.unitCount());
      List<List<Entry>> expected = new ArrayList<>();
      for (int p = 0; p < partCount; p++) {
        expected.add(new ArrayList<>());
      }
      int unit = 0;
      for (Entry entry : input) {
        boolean zeroPointMetric = signal == Signal.METRICS && entry.point() == null;
        expected.get(zeroPointMetric ? 0 : answers.get(unit++)).add(entry);
      }
      long units = 0;
      for (int p = 0; p < partCount; p++) {
        assertThat(entries(parts[p])).as(name + ", part " + p).isEqualTo(expected.get(p));
        units += parts[p].unitCount();
      }
      assertThat(units).as(name).isEqualTo(cut.unitCount());
      assertThat(OtlpMarshaler.toByteArray(cut)).as(name).isEqualTo(sourceBytes);
      cut.clear();
      clear(parts);
    }
  }

  @Test
  void replacedItemsAndHeadersGoWithTheirItemsAndEditingAPartLeavesTheSource() throws Exception {
    EditOwnershipTest.Account account = new EditOwnershipTest.Account();
    Batch source = new Batch(Signal.TRACES);
    for (int r = 0; r < 2; r++) {
      OtlpIndex index = indexer.index(Signal.TRACES, interleavedTraces(r, 9).toByteArray());
      account.admit(index);
      source.add(index);
      index.releaseHold();
    }
    AttributeActions edited =
        AttributeActions.builder().upsert("edited", AttributeValue.string("yes")).build();
    source.visit(
        item -> {
          if (item.item() % 3 == 0) {
            ActionVisitors.apply(item, edited);
          }
          if (!item.resourceReplacedInThisVisit()) {
            item.editResource().apply(edited);
          }
          if (!item.scopeReplacedInThisVisit()) {
            item.editScope().apply(edited);
          }
        });
    List<Entry> input = entries(source);
    byte[] sourceBytes = OtlpMarshaler.toByteArray(source);
    Batch[] parts = newParts(Signal.TRACES, PARTS);

    source.partitionInto(parts, byTraceId(new byte[SpanView.TRACE_ID_BYTES]));

    List<List<Entry>> expected = byTrace(input);
    int editedSpans = 0;
    for (int p = 0; p < PARTS; p++) {
      List<Entry> got = entries(parts[p]);
      assertThat(got).as("part " + p).isEqualTo(expected.get(p));
      for (Entry entry : got) {
        assertThat(hasKey(resourceAttributes(entry), "edited")).isTrue();
        editedSpans += hasKey(((Span) entry.item()).getAttributesList(), "edited") ? 1 : 0;
      }
    }
    assertThat(editedSpans).as("spans replaced (every third of each request)").isEqualTo(24);

    // A part's edits write a copy: the source and the other parts do not see them.
    AttributeActions again =
        AttributeActions.builder().upsert("again", AttributeValue.string("1")).build();
    for (Batch part : parts) {
      part.visit(ActionVisitors.items(again));
    }
    assertThat(OtlpMarshaler.toByteArray(source)).isEqualTo(sourceBytes);
    assertThat(entries(source)).isEqualTo(input);

    source.clear();
    assertThat(account.released.get()).isZero();
    clear(parts);
    assertThat(account.released.get()).isEqualTo(2);
    assertThat(account.bytes.get()).isZero();
  }

  private static List<KeyValue> resourceAttributes(Entry entry) {
    return ((ResourceSpans) entry.resourceHeader()).getResource().getAttributesList();
  }

  private static boolean hasKey(List<KeyValue> attributes, String key) {
    return attributes.stream().anyMatch(kv -> kv.getKey().equals(key));
  }

  @Test
  void aMetricWhosePointsGoToSeveralPartsAppearsInEachWithItsHeader() throws Exception {
    Metric sum = OtlpTestData.sum(3);
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(OtlpTestData.resource(0))
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder().setScope(OtlpTestData.scope(0)).addMetrics(sum)))
            .build();
    Batch source = Batch.of(indexer.index(Signal.METRICS, request.toByteArray()));
    Batch[] parts = newParts(Signal.METRICS, 2);

    source.partitionInto(parts, item -> item.point() % 2);

    for (int p = 0; p < 2; p++) {
      ExportMetricsServiceRequest got =
          ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(parts[p]));
      List<Metric> metrics = got.getResourceMetrics(0).getScopeMetrics(0).getMetricsList();
      assertThat(metrics).hasSize(1);
      Sum.Builder points = sum.getSum().toBuilder().clearDataPoints();
      for (int i = p; i < sum.getSum().getDataPointsCount(); i += 2) {
        points.addDataPoints(sum.getSum().getDataPoints(i));
      }
      assertThat(metrics.get(0)).isEqualTo(sum.toBuilder().setSum(points).build());
      // Each part holds two runs of the one metric, which are written as one metric.
      assertThat(parts[p].sliceCount()).isEqualTo(2);
    }
    source.clear();
    clear(parts);
  }

  @Test
  void blocksWithoutUnitsGoToPartZeroAndTheKeyIsNotAskedAboutThem() throws Exception {
    ExportTraceServiceRequest traces =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(ResourceSpans.newBuilder().setResource(OtlpTestData.resource(0)))
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(OtlpTestData.resource(1))
                    .addScopeSpans(ScopeSpans.newBuilder().setScope(OtlpTestData.scope(0)))
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .setScope(OtlpTestData.scope(1))
                            .addSpans(OtlpTestData.realisticSpan(1))
                            .addSpans(OtlpTestData.realisticSpan(2))))
            .build();
    Batch source = Batch.of(indexer.index(Signal.TRACES, traces.toByteArray()));
    Batch[] parts = newParts(Signal.TRACES, 2);
    AtomicInteger asked = new AtomicInteger();

    source.partitionInto(
        parts,
        item -> {
          asked.incrementAndGet();
          return 1;
        });

    assertThat(asked.get()).isEqualTo(2);
    assertThat(parts[0].unitCount()).isZero();
    assertThat(ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(parts[0])))
        .isEqualTo(
            ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder().setResource(OtlpTestData.resource(0)))
                .addResourceSpans(
                    ResourceSpans.newBuilder()
                        .setResource(OtlpTestData.resource(1))
                        .addScopeSpans(ScopeSpans.newBuilder().setScope(OtlpTestData.scope(0))))
                .build());
    assertThat(ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(parts[1])))
        .isEqualTo(
            ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(
                    ResourceSpans.newBuilder()
                        .setResource(OtlpTestData.resource(1))
                        .addScopeSpans(traces.getResourceSpans(1).getScopeSpans(1)))
                .build());
    source.clear();
    clear(parts);
  }

  @Test
  void metricsWithoutPointsGoToPartZeroBetweenTheRunsAroundThem() throws Exception {
    Metric gauge = OtlpTestData.gauge(1);
    Metric empty = Metric.newBuilder().setName("no.points").setGauge(Gauge.newBuilder()).build();
    Metric noData = Metric.newBuilder().setName("no.data").build();
    ScopeMetrics.Builder scope =
        ScopeMetrics.newBuilder()
            .setScope(OtlpTestData.scope(0))
            .addMetrics(empty)
            .addMetrics(gauge)
            .addMetrics(noData)
            .addMetrics(empty)
            .addMetrics(gauge);
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(OtlpTestData.resource(0))
                    .addScopeMetrics(scope))
            .build();
    Batch source = Batch.of(indexer.index(Signal.METRICS, request.toByteArray()));
    Batch[] parts = newParts(Signal.METRICS, 2);
    AtomicInteger asked = new AtomicInteger();

    source.partitionInto(
        parts,
        item -> {
          asked.incrementAndGet();
          assertThat(item.point()).isNotNegative();
          return 1;
        });

    assertThat(asked.get()).isEqualTo(2 * gauge.getGauge().getDataPointsCount());
    assertThat(metricsOf(parts[0])).containsExactly(empty, noData, empty);
    assertThat(metricsOf(parts[1])).containsExactly(gauge, gauge);
    assertThat(parts[0].sliceCount()).isEqualTo(2);
    assertThat(parts[1].sliceCount()).isEqualTo(2);
    source.clear();
    clear(parts);
  }

  private static List<Metric> metricsOf(Batch batch) throws Exception {
    return ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch))
        .getResourceMetrics(0)
        .getScopeMetrics(0)
        .getMetricsList();
  }

  @Test
  void aKeyOutsideThePartsIsRefusedAndTheSourceStaysWhole() throws Exception {
    EditOwnershipTest.Account account = new EditOwnershipTest.Account();
    OtlpIndex index = indexer.index(Signal.TRACES, interleavedTraces(0, 6).toByteArray());
    account.admit(index);
    Batch source = Batch.of(index);
    index.releaseHold();
    byte[] sourceBytes = OtlpMarshaler.toByteArray(source);
    Batch[] parts = newParts(Signal.TRACES, 2);
    AtomicInteger asked = new AtomicInteger();

    for (int bad : new int[] {2, -1, Integer.MAX_VALUE}) {
      assertThatThrownBy(
              () -> source.partitionInto(parts, item -> asked.incrementAndGet() < 10 ? 0 : bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("gave " + bad + " for 2 parts");
      asked.set(0);
      clear(parts);
    }
    assertThatThrownBy(
            () ->
                source.partitionInto(
                    parts,
                    item -> {
                      item.drop();
                      return 0;
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("read-only");
    assertThatThrownBy(
            () ->
                source.partitionInto(
                    parts,
                    item -> {
                      item.replace(new byte[0], 0, 0);
                      return 0;
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> source.partitionInto(new Batch[0], item -> 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> source.partitionInto(new Batch[] {source}, item -> 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> source.partitionInto(new Batch[] {new Batch(Signal.LOGS)}, item -> 0))
        .isInstanceOf(IllegalArgumentException.class);
    clear(parts);

    assertThat(OtlpMarshaler.toByteArray(source)).isEqualTo(sourceBytes);
    assertThat(source.unitCount()).isEqualTo(24);
    source.clear();
    assertThat(account.released.get()).isEqualTo(1);
    assertThat(account.bytes.get()).isZero();
  }

  @Test
  void severalThreadsSplitOneSharedBatchAlike() throws Exception {
    Batch source = new Batch(Signal.TRACES);
    for (int r = 0; r < 3; r++) {
      source.add(indexer.index(Signal.TRACES, interleavedTraces(r, 40).toByteArray()));
    }
    List<List<Entry>> expected = byTrace(entries(source));
    int threads = 4;
    List<Batch[]> results = new ArrayList<>();
    List<Thread> running = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Batch[] parts = newParts(Signal.TRACES, PARTS);
      results.add(parts);
      Thread thread =
          new Thread(
              () -> {
                try {
                  for (int round = 0; round < 50; round++) {
                    clear(parts);
                    source.partitionInto(parts, byTraceId(new byte[SpanView.TRACE_ID_BYTES]));
                  }
                } catch (Throwable e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
              });
      running.add(thread);
      thread.start();
    }
    for (Thread thread : running) {
      thread.join();
    }
    assertThat(failures).isEmpty();
    for (Batch[] parts : results) {
      for (int p = 0; p < PARTS; p++) {
        assertThat(entries(parts[p])).isEqualTo(expected.get(p));
      }
      clear(parts);
    }
    source.clear();
  }

  // Allocation: O(parts + slices) per call, nothing per item.

  private static final int WARM_UP_CALLS = 300;
  private static final int MEASURED_CALLS = 50;
  private static final int ROUNDS = 3;

  /** Bytes one call allocates, the least over a few rounds (JIT one-offs show in one at most). */
  private static long allocatedPerCall(Batch source, Batch[] parts, PartKey key) {
    for (int i = 0; i < WARM_UP_CALLS; i++) {
      source.partitionInto(parts, key);
      clear(parts);
    }
    long least = Long.MAX_VALUE;
    for (int round = 0; round < ROUNDS; round++) {
      long bytes =
          AllocationBound.measure(
                  () -> {
                    for (int i = 0; i < MEASURED_CALLS; i++) {
                      source.partitionInto(parts, key);
                      clear(parts);
                    }
                  })
              .allocatedBytes();
      least = Math.min(least, bytes);
    }
    return least / MEASURED_CALLS;
  }

  /** What a call may allocate besides its slices: the walk's own state and the key's item. */
  private static final long FIXED_BYTES_PER_CALL = 512;

  /** What one new slice costs (a record of two references and six ints, padded). */
  private static final long BYTES_PER_SLICE = 64;

  @Test
  void splittingByWholeRequestAllocatesNothingPerItem() throws Exception {
    Batch source = new Batch(Signal.TRACES);
    OtlpIndex[] requests = new OtlpIndex[8];
    for (int r = 0; r < requests.length; r++) {
      requests[r] =
          indexer.index(Signal.TRACES, OtlpTestData.realisticTraces(2, 250).toByteArray());
      source.add(requests[r]);
    }
    assertThat(source.unitCount()).isEqualTo(4000);
    Batch[] parts = newParts(Signal.TRACES, PARTS);
    PartKey byRequest =
        item -> {
          for (int r = 0; r < requests.length; r++) {
            if (item.request() == requests[r]) {
              return r % PARTS;
            }
          }
          return 0;
        };

    long bytes = allocatedPerCall(source, parts, byRequest);

    // 4000 spans: one object per span would be 64 KB.
    assertThat(bytes).as("bytes allocated per call").isLessThanOrEqualTo(FIXED_BYTES_PER_CALL);
    source.partitionInto(parts, byRequest);
    assertThat(parts[1].unitCount()).isEqualTo(1000);
    assertThat(parts[1].sliceCount()).isEqualTo(4);
    clear(parts);
    source.clear();
  }

  @Test
  void splittingByTraceIdAllocatesPerSliceMadeNotPerItem() throws Exception {
    Batch source = new Batch(Signal.TRACES);
    for (int r = 0; r < 4; r++) {
      // Eight consecutive spans per trace.
      source.add(indexer.index(Signal.TRACES, OtlpTestData.realisticTraces(2, 250).toByteArray()));
    }
    Batch[] parts = newParts(Signal.TRACES, PARTS);
    PartKey key = byTraceId(new byte[SpanView.TRACE_ID_BYTES]);
    source.partitionInto(parts, key);
    long slices = 0;
    for (Batch part : parts) {
      slices += part.sliceCount();
    }
    clear(parts);
    assertThat(slices).isLessThan(source.unitCount() / 4);

    long bytes = allocatedPerCall(source, parts, key);

    assertThat(bytes)
        .as("bytes allocated per call making " + slices + " slices")
        .isLessThanOrEqualTo(FIXED_BYTES_PER_CALL + BYTES_PER_SLICE * slices);
    source.clear();
  }
}
