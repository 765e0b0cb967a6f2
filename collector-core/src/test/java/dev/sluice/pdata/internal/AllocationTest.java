package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The hot paths do not allocate per item: marshaling a batch allocates nothing once the context has
 * grown, and indexing allocates the index's own exact-size tables and a constant more.
 */
class AllocationTest {
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

  @BeforeAll
  static void allocationIsMeasurable() {
    assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
    THREADS.setThreadAllocatedMemoryEnabled(true);
    // The measurement itself allocates nothing, so the bounds below are the code's own.
    allocated();
    long before = allocated();
    long after = allocated();
    assertThat(after - before).isZero();
  }

  /** Bytes this thread has allocated so far. */
  private static long allocated() {
    return THREADS.getCurrentThreadAllocatedBytes();
  }

  @Test
  void marshalingAThousandSpansAThousandTimesAllocatesUnderOneKibibyte() throws Exception {
    byte[] request = OtlpTestData.realisticTraces(2, 500).toByteArray();
    OtlpIndex index = new OtlpIndexer().index(Signal.TRACES, request);
    assertThat(index.unitCount()).isEqualTo(1000);
    Batch batch = Batch.of(index);
    MarshalContext context = new MarshalContext(new ProtoWriter(256));
    for (int i = 0; i < 300; i++) {
      OtlpMarshaler.marshal(batch, context);
    }
    long before = allocated();
    for (int i = 0; i < 1000; i++) {
      OtlpMarshaler.marshal(batch, context);
    }
    long bytes = allocated() - before;
    assertThat(bytes).as("bytes allocated by 1000 marshals").isLessThan(1024);
    assertThat(context.output().toByteArray()).isEqualTo(request);
  }

  private static ExportMetricsServiceRequest manyDataPoints(int metrics, int pointsPerMetric) {
    ScopeMetrics.Builder scope = ScopeMetrics.newBuilder().setScope(OtlpTestData.scope(0));
    int seed = 0;
    for (int m = 0; m < metrics; m++) {
      Metric.Builder metric = Metric.newBuilder().setName("m" + m).setUnit("1");
      if (m % 2 == 0) {
        Gauge.Builder gauge = Gauge.newBuilder();
        for (int p = 0; p < pointsPerMetric; p++) {
          gauge.addDataPoints(OtlpTestData.numberPoint(seed++, false));
        }
        metric.setGauge(gauge);
      } else {
        Sum.Builder sum = Sum.newBuilder().setIsMonotonic(true);
        for (int p = 0; p < pointsPerMetric; p++) {
          sum.addDataPoints(OtlpTestData.numberPoint(seed++, true));
        }
        metric.setSum(sum);
      }
      scope.addMetrics(metric);
    }
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(OtlpTestData.resource(0))
                .addScopeMetrics(scope))
        .build();
  }

  /**
   * Bytes {@code index()} allocates beyond the tables the index keeps, after the indexer has seen
   * the largest request: the index object and the tables' array headers, whatever the size.
   */
  private static void assertIndexingOverheadIsConstant(
      Signal signal, byte[] small, byte[] large, long smallUnits, long largeUnits)
      throws Exception {
    OtlpIndexer indexer = new OtlpIndexer();
    // Warm-up grows the indexer's scratch tables to the large request's needs.
    for (int i = 0; i < 3; i++) {
      indexer.index(signal, large);
      for (int j = 0; j < 100; j++) {
        indexer.index(signal, small);
      }
    }
    for (byte[] request : new byte[][] {small, large}) {
      long before = allocated();
      OtlpIndex index = indexer.index(signal, request);
      long bytes = allocated() - before;
      long tables = index.retainedBytes() - index.sourceLength();
      assertThat(index.unitCount()).isEqualTo(request == small ? smallUnits : largeUnits);
      assertThat(bytes - tables)
          .as("%s: %d bytes allocated, %d bytes of tables", index, bytes, tables)
          .isBetween(0L, 2048L);
    }
  }

  @Test
  void indexingSpansAllocatesAConstantBeyondTheIndexTables() throws Exception {
    assertIndexingOverheadIsConstant(
        Signal.TRACES,
        OtlpTestData.realisticTraces(1, 10).toByteArray(),
        OtlpTestData.realisticTraces(4, 2500).toByteArray(),
        10,
        10_000);
  }

  @Test
  void indexingDataPointsAllocatesAConstantBeyondTheIndexTables() throws Exception {
    assertIndexingOverheadIsConstant(
        Signal.METRICS,
        manyDataPoints(2, 5).toByteArray(),
        manyDataPoints(100, 100).toByteArray(),
        10,
        10_000);
  }

  @Test
  void indexingLogRecordsAllocatesAConstantBeyondTheIndexTables() throws Exception {
    ExportLogsServiceRequest small = OtlpTestData.logs(new int[] {1}, 10);
    ExportLogsServiceRequest large = OtlpTestData.logs(new int[] {3, 2}, 2000);
    assertIndexingOverheadIsConstant(
        Signal.LOGS, small.toByteArray(), large.toByteArray(), 10, 10_000);
  }

  @Test
  void marshalingASplitAndMergedBatchAllocatesNothing() throws Exception {
    // Two metrics requests and two traces requests, cut into slices and put back together in
    // another order: slices from several indexes, a metric cut between data points, resource
    // blocks with equal headers merged by comparing bytes.
    OtlpIndexer indexer = new OtlpIndexer();
    ExportMetricsServiceRequest requestA = manyDataPoints(3, 10);
    ExportMetricsServiceRequest requestB = manyDataPoints(2, 10);
    OtlpIndex metricsA = indexer.index(Signal.METRICS, requestA.toByteArray());
    OtlpIndex metricsB = indexer.index(Signal.METRICS, requestB.toByteArray());
    Batch source = Batch.of(metricsA);
    source.add(metricsB);
    Batch first = new Batch(Signal.METRICS);
    Batch second = new Batch(Signal.METRICS);
    assertThat(source.moveTo(first, 15)).isEqualTo(15); // cuts the second metric in half
    assertThat(source.moveTo(second, 22)).isEqualTo(22); // cuts metricsB's first metric
    Batch merged = new Batch(Signal.METRICS);
    merged.addAll(second);
    merged.addAll(source);
    merged.addAll(first);
    assertThat(merged.unitCount()).isEqualTo(50);
    assertThat(merged.sliceCount()).isGreaterThanOrEqualTo(4);

    ExportTraceServiceRequest spansA = OtlpTestData.realisticTraces(2, 20);
    ExportTraceServiceRequest spansB = OtlpTestData.realisticTraces(1, 30);
    OtlpIndex tracesA = indexer.index(Signal.TRACES, spansA.toByteArray());
    OtlpIndex tracesB = indexer.index(Signal.TRACES, spansB.toByteArray());
    Batch spans = Batch.of(tracesA);
    spans.add(tracesB);
    Batch head = new Batch(Signal.TRACES);
    spans.moveTo(head, 25);
    Batch mergedSpans = new Batch(Signal.TRACES);
    mergedSpans.addAll(spans);
    mergedSpans.addAll(head);
    assertThat(mergedSpans.unitCount()).isEqualTo(70);

    MarshalContext context = new MarshalContext(new ProtoWriter(64));
    for (int i = 0; i < 2000; i++) {
      OtlpMarshaler.marshal(merged, context);
      OtlpMarshaler.marshal(mergedSpans, context);
    }
    // Five rounds: an allocation of the marshaler's shows in every round (400 marshals make it
    // kilobytes), while the JVM's own occasional work on this thread (recompiling a method that
    // another test's class loading invalidated, say) shows in one.
    long least = Long.MAX_VALUE;
    for (int round = 0; round < 5; round++) {
      long before = allocated();
      for (int i = 0; i < 200; i++) {
        OtlpMarshaler.marshal(merged, context);
        OtlpMarshaler.marshal(mergedSpans, context);
      }
      long bytes = allocated() - before;
      assertThat(bytes).as("bytes allocated by 400 marshals").isLessThan(1024);
      least = Math.min(least, bytes);
    }
    assertThat(least).as("bytes allocated by 400 marshals, in the quietest round").isZero();

    // And what it wrote is right: every data point and span once, in the merged order.
    List<Map.Entry<String, NumberDataPoint>> points = dataPoints(requestA);
    points.addAll(dataPoints(requestB));
    OtlpMarshaler.marshal(merged, context);
    assertThat(dataPoints(ExportMetricsServiceRequest.parseFrom(context.output().toByteArray())))
        .containsExactlyElementsOf(
            concat(points.subList(15, 37), points.subList(37, 50), points.subList(0, 15)));

    List<Map.Entry<String, Span>> allSpans = spans(spansA);
    allSpans.addAll(spans(spansB));
    OtlpMarshaler.marshal(mergedSpans, context);
    ExportTraceServiceRequest traces =
        ExportTraceServiceRequest.parseFrom(context.output().toByteArray());
    assertThat(spans(traces))
        .containsExactlyElementsOf(concat(allSpans.subList(25, 70), allSpans.subList(0, 25)));
    // tracesA and tracesB share their resource: every span lands in one resource block.
    assertThat(traces.getResourceSpansCount()).isEqualTo(1);
  }

  @SafeVarargs
  private static <T> List<T> concat(List<T>... parts) {
    List<T> all = new ArrayList<>();
    for (List<T> part : parts) {
      all.addAll(part);
    }
    return all;
  }

  /** The data points in order, each with its metric's name. */
  private static List<Map.Entry<String, NumberDataPoint>> dataPoints(
      ExportMetricsServiceRequest request) {
    List<Map.Entry<String, NumberDataPoint>> points = new ArrayList<>();
    for (ResourceMetrics r : request.getResourceMetricsList()) {
      for (ScopeMetrics s : r.getScopeMetricsList()) {
        for (Metric m : s.getMetricsList()) {
          List<NumberDataPoint> list =
              m.hasGauge() ? m.getGauge().getDataPointsList() : m.getSum().getDataPointsList();
          for (NumberDataPoint p : list) {
            points.add(Map.entry(m.getName(), p));
          }
        }
      }
    }
    return points;
  }

  /** The spans in order, each with its scope's name. */
  private static List<Map.Entry<String, Span>> spans(ExportTraceServiceRequest request) {
    List<Map.Entry<String, Span>> spans = new ArrayList<>();
    for (ResourceSpans r : request.getResourceSpansList()) {
      for (ScopeSpans s : r.getScopeSpansList()) {
        for (Span span : s.getSpansList()) {
          spans.add(Map.entry(s.getScope().getName(), span));
        }
      }
    }
    return spans;
  }
}
