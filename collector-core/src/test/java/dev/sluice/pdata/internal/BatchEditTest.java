package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Dropping and replacing items of a batch, checked against protobuf-java's view of the output. */
class BatchEditTest {
  private final OtlpIndexer indexer = new OtlpIndexer();

  // Traces: two resources, the first with two scopes.

  private static ExportTraceServiceRequest traces() {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(resource("svc-a"))
                .setSchemaUrl("https://schema/a")
                .addScopeSpans(scopeSpans("lib-1", "a1", "a2", "a3", "a4"))
                .addScopeSpans(scopeSpans("lib-2", "b1", "b2")))
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(resource("svc-b"))
                .addScopeSpans(scopeSpans("lib-3", "c1", "c2", "c3")))
        .build();
  }

  static Resource resource(String service) {
    return Resource.newBuilder()
        .addAttributes(
            KeyValue.newBuilder()
                .setKey("service.name")
                .setValue(AnyValue.newBuilder().setStringValue(service)))
        .build();
  }

  private static ScopeSpans.Builder scopeSpans(String scope, String... names) {
    ScopeSpans.Builder builder =
        ScopeSpans.newBuilder().setScope(InstrumentationScope.newBuilder().setName(scope));
    for (String name : names) {
      builder.addSpans(span(name));
    }
    return builder;
  }

  static Span span(String name) {
    return Span.newBuilder()
        .setName(name)
        .setKind(Span.SpanKind.SPAN_KIND_SERVER)
        .setStartTimeUnixNano(1_000)
        .setEndTimeUnixNano(2_000)
        .build();
  }

  /** The request with only the spans {@code keep} accepts; blocks left empty removed. */
  private static ExportTraceServiceRequest keepOnly(
      ExportTraceServiceRequest request, Predicate<Span> keep) {
    ExportTraceServiceRequest.Builder out = ExportTraceServiceRequest.newBuilder();
    for (ResourceSpans resource : request.getResourceSpansList()) {
      ResourceSpans.Builder r = resource.toBuilder().clearScopeSpans();
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        ScopeSpans.Builder s = scope.toBuilder().clearSpans();
        scope.getSpansList().stream().filter(keep).forEach(s::addSpans);
        if (s.getSpansCount() > 0) {
          r.addScopeSpans(s);
        }
      }
      if (r.getScopeSpansCount() > 0) {
        out.addResourceSpans(r);
      }
    }
    return out.build();
  }

  private Batch tracesBatch() throws Exception {
    return Batch.of(indexer.index(Signal.TRACES, traces().toByteArray()));
  }

  private static ExportTraceServiceRequest marshalTraces(Batch batch) throws Exception {
    return ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch));
  }

  private static Set<String> dropNames(Set<String> names, Batch batch) throws Exception {
    batch.dropIf(item -> names.contains(spanName(item)));
    return names;
  }

  /** The span's name, read the slow way (a test helper, not an edit API). */
  static String spanName(BatchItem item) {
    try {
      return Span.parseFrom(
              java.nio.ByteBuffer.wrap(item.array(), item.offset(), item.length()).slice())
          .getName();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void dropsTheFirstMiddleAndLastSpansOfAScope() throws Exception {
    Batch batch = tracesBatch();
    Set<String> dropped = dropNames(Set.of("a1", "a3", "a4"), batch);

    assertThat(marshalTraces(batch))
        .isEqualTo(keepOnly(traces(), s -> !dropped.contains(s.getName())));
    assertThat(batch.unitCount()).isEqualTo(6);
  }

  @Test
  void droppingEverySpanOfAScopeRemovesTheScopeBlock() throws Exception {
    Batch batch = tracesBatch();
    Set<String> dropped = dropNames(Set.of("a1", "a2", "a3", "a4"), batch);

    ExportTraceServiceRequest output = marshalTraces(batch);

    assertThat(output).isEqualTo(keepOnly(traces(), s -> !dropped.contains(s.getName())));
    assertThat(output.getResourceSpans(0).getScopeSpansCount()).isEqualTo(1);
    assertThat(output.getResourceSpans(0).getSchemaUrl()).isEqualTo("https://schema/a");
  }

  @Test
  void droppingEverySpanOfEveryScopeOfAResourceRemovesTheResourceBlock() throws Exception {
    Batch batch = tracesBatch();
    Set<String> dropped = dropNames(Set.of("a1", "a2", "a3", "a4", "b1", "b2"), batch);

    ExportTraceServiceRequest output = marshalTraces(batch);

    assertThat(output).isEqualTo(keepOnly(traces(), s -> !dropped.contains(s.getName())));
    assertThat(output.getResourceSpansList())
        .extracting(ResourceSpans::getResource)
        .containsExactly(resource("svc-b"));
  }

  @Test
  void droppingEverythingLeavesAnEmptyBatchThatFreesItsRequest() throws Exception {
    OtlpIndex index = indexer.index(Signal.TRACES, traces().toByteArray());
    int[] released = new int[1];
    index.hold(request -> released[0]++);
    Batch batch = Batch.of(index);
    index.releaseHold();

    long dropped = batch.dropIf(item -> true);

    assertThat(dropped).isEqualTo(9);
    assertThat(batch.isEmpty()).isTrue();
    assertThat(batch.unitCount()).isZero();
    assertThat(released[0]).isEqualTo(1);
    assertThat(marshalTraces(batch)).isEqualTo(ExportTraceServiceRequest.getDefaultInstance());
  }

  @Test
  void dropsAcrossSliceBoundariesOfABatchMadeOfParts() throws Exception {
    Batch source = tracesBatch();
    Batch batch = new Batch(Signal.TRACES);
    source.moveTo(batch, 2);
    source.moveTo(batch, 3);
    batch.addAll(source);
    assertThat(batch.sliceCount()).isGreaterThan(3);
    Set<String> dropped = dropNames(Set.of("a2", "a3", "b1", "c3"), batch);

    assertThat(marshalTraces(batch))
        .isEqualTo(keepOnly(traces(), s -> !dropped.contains(s.getName())));
  }

  @Test
  void replacesSpansAndResourceAndDropsOthersInOneVisit() throws Exception {
    Batch batch = tracesBatch();
    Span renamed = span("a2").toBuilder().setName("a2-renamed").build();
    byte[] renamedBytes = renamed.toByteArray();
    byte[] newResource = resource("svc-a-edited").toByteArray();

    batch.visit(
        item -> {
          String name = spanName(item);
          if (name.equals("a2")) {
            item.replace(renamedBytes, 0, renamedBytes.length);
          } else if (name.equals("a3") || name.equals("c1")) {
            item.drop();
          }
          if (item.resource() == 0 && !item.resourceReplacedInThisVisit()) {
            item.replaceResource(newResource, 0, newResource.length);
          }
        });

    ExportTraceServiceRequest.Builder expected =
        keepOnly(traces(), s -> !Set.of("a3", "c1").contains(s.getName())).toBuilder();
    expected.getResourceSpansBuilder(0).setResource(resource("svc-a-edited"));
    expected.getResourceSpansBuilder(0).getScopeSpansBuilder(0).setSpans(1, renamed);
    assertThat(marshalTraces(batch)).isEqualTo(expected.build());
  }

  @Test
  void replacedScopeIsSharedByEveryItemOfTheBlockAcrossSlices() throws Exception {
    Batch source = tracesBatch();
    Batch batch = new Batch(Signal.TRACES);
    source.moveTo(batch, 1);
    batch.addAll(source);
    byte[] scope = InstrumentationScope.newBuilder().setName("lib-1b").build().toByteArray();

    batch.visit(
        item -> {
          if (item.scope() == 0 && !item.scopeReplacedInThisVisit()) {
            item.replaceScope(scope, 0, scope.length);
          }
        });

    ExportTraceServiceRequest output = marshalTraces(batch);
    assertThat(output.getResourceSpans(0).getScopeSpansCount()).isEqualTo(2);
    ScopeSpans first = output.getResourceSpans(0).getScopeSpans(0);
    assertThat(first.getScope().getName()).isEqualTo("lib-1b");
    assertThat(first.getSpansList()).extracting(Span::getName).contains("a1", "a2", "a3", "a4");
  }

  @Test
  void editsOfOnePartOfASplitBatchDoNotReachTheOtherPart() throws Exception {
    Batch first = tracesBatch();
    byte[] resourceBytes = resource("edited").toByteArray();
    first.visit(item -> item.replaceResource(resourceBytes, 0, resourceBytes.length));
    Batch second = new Batch(Signal.TRACES);
    first.moveTo(second, 2);
    byte[] again = resource("edited-again").toByteArray();

    second.visit(item -> item.replaceResource(again, 0, again.length));

    assertThat(marshalTraces(second).getResourceSpans(0).getResource())
        .isEqualTo(resource("edited-again"));
    assertThat(marshalTraces(first).getResourceSpans(0).getResource())
        .isEqualTo(resource("edited"));
    first.clear();
    second.clear();
  }

  @Test
  void aVisitorThatThrowsLeavesTheItemsItDidNotReach() throws Exception {
    Batch batch = tracesBatch();

    assertThatThrownBy(
            () ->
                batch.visit(
                    item -> {
                      if (spanName(item).equals("a2")) {
                        item.drop();
                      }
                      if (spanName(item).equals("b1")) {
                        throw new IllegalStateException("visitor failed");
                      }
                    }))
        .hasMessage("visitor failed");

    assertThat(marshalTraces(batch)).isEqualTo(keepOnly(traces(), s -> !s.getName().equals("a2")));
    assertThat(batch.unitCount()).isEqualTo(8);
  }

  // Logs: dropping by a predicate over the item's bytes.

  @Test
  void dropsLogRecordsByAPredicateOverTheirBytes() throws Exception {
    ExportLogsServiceRequest request =
        ExportLogsServiceRequest.newBuilder()
            .addResourceLogs(
                ResourceLogs.newBuilder()
                    .setResource(resource("svc"))
                    .addScopeLogs(
                        ScopeLogs.newBuilder()
                            .addLogRecords(log("keep me"))
                            .addLogRecords(log("debug: drop me"))
                            .addLogRecords(log("keep me too"))))
            .build();
    Batch batch = Batch.of(indexer.index(Signal.LOGS, request.toByteArray()));
    byte[] needle = "debug:".getBytes(StandardCharsets.UTF_8);

    long dropped = batch.dropIf(item -> contains(item, needle));

    assertThat(dropped).isEqualTo(1);
    ExportLogsServiceRequest.Builder expected = request.toBuilder();
    expected.getResourceLogsBuilder(0).getScopeLogsBuilder(0).removeLogRecords(1);
    assertThat(ExportLogsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch)))
        .isEqualTo(expected.build());
  }

  private static LogRecord log(String body) {
    return LogRecord.newBuilder()
        .setTimeUnixNano(5)
        .setBody(AnyValue.newBuilder().setStringValue(body))
        .build();
  }

  private static boolean contains(BatchItem item, byte[] needle) {
    byte[] bytes = item.array();
    for (int i = item.offset(); i + needle.length <= item.offset() + item.length(); i++) {
      if (java.util.Arrays.equals(bytes, i, i + needle.length, needle, 0, needle.length)) {
        return true;
      }
    }
    return false;
  }

  // Metrics: data points, across slice boundaries.

  private static Metric gauge(String name, int points) {
    Gauge.Builder gauge = Gauge.newBuilder();
    for (int i = 0; i < points; i++) {
      gauge.addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(i + 1).setAsInt(i));
    }
    return Metric.newBuilder().setName(name).setUnit("1").setGauge(gauge).build();
  }

  private static ExportMetricsServiceRequest metrics() {
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(resource("svc"))
                .addScopeMetrics(
                    ScopeMetrics.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("meter"))
                        .addMetrics(gauge("m0", 2))
                        .addMetrics(gauge("m1", 6))
                        .addMetrics(gauge("m2", 3))))
        .build();
  }

  /** The metrics request with only the points {@code keep} accepts ({@code metric, value}). */
  private static ExportMetricsServiceRequest keepPoints(PointFilter keep) {
    ExportMetricsServiceRequest.Builder out = metrics().toBuilder();
    ScopeMetrics.Builder scope = out.getResourceMetricsBuilder(0).getScopeMetricsBuilder(0);
    List<Metric> kept = new ArrayList<>();
    for (Metric metric : scope.getMetricsList()) {
      Gauge.Builder gauge = metric.getGauge().toBuilder().clearDataPoints();
      for (NumberDataPoint point : metric.getGauge().getDataPointsList()) {
        if (keep.keep(metric.getName(), (int) point.getAsInt())) {
          gauge.addDataPoints(point);
        }
      }
      if (gauge.getDataPointsCount() > 0) {
        kept.add(metric.toBuilder().setGauge(gauge).build());
      }
    }
    scope.clearMetrics().addAllMetrics(kept);
    return out.build();
  }

  private interface PointFilter {
    boolean keep(String metric, int point);
  }

  private Batch metricsBatchCutInside() throws Exception {
    Batch source = Batch.of(indexer.index(Signal.METRICS, metrics().toByteArray()));
    Batch batch = new Batch(Signal.METRICS);
    // Cuts inside m1 (after its 1st and 4th points) and inside m2.
    source.moveTo(batch, 3);
    source.moveTo(batch, 3);
    source.moveTo(batch, 3);
    batch.addAll(source);
    assertThat(batch.sliceCount()).isEqualTo(4);
    return batch;
  }

  @Test
  void dropsDataPointsOfAMetricAcrossSliceBoundaries() throws Exception {
    Batch batch = metricsBatchCutInside();

    long dropped = batch.dropIf(item -> item.item() == 1 && item.point() >= 1 && item.point() <= 4);

    assertThat(dropped).isEqualTo(4);
    assertThat(ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch)))
        .isEqualTo(keepPoints((metric, point) -> !metric.equals("m1") || point < 1 || point > 4));
    assertThat(batch.unitCount()).isEqualTo(7);
  }

  @Test
  void aMetricLeftWithoutDataPointsDisappears() throws Exception {
    Batch batch = metricsBatchCutInside();

    batch.dropIf(item -> item.item() == 1 || item.item() == 2 && item.point() == 0);

    assertThat(ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch)))
        .isEqualTo(
            keepPoints(
                (metric, point) -> !metric.equals("m1") && !(metric.equals("m2") && point == 0)));
  }

  @Test
  void replacesDataPointsInsideAMetricCutAcrossSlices() throws Exception {
    Batch batch = metricsBatchCutInside();
    NumberDataPoint replacement =
        NumberDataPoint.newBuilder().setTimeUnixNano(99).setAsInt(42).build();
    byte[] bytes = replacement.toByteArray();

    batch.visit(
        item -> {
          if (item.item() == 1 && (item.point() == 0 || item.point() == 3)) {
            item.replace(bytes, 0, bytes.length);
          } else if (item.item() == 1 && item.point() == 5) {
            item.drop();
          }
        });

    ExportMetricsServiceRequest.Builder expected =
        keepPoints((metric, point) -> !(metric.equals("m1") && point == 5)).toBuilder();
    Gauge.Builder m1 =
        expected
            .getResourceMetricsBuilder(0)
            .getScopeMetricsBuilder(0)
            .getMetricsBuilder(1)
            .getGaugeBuilder();
    m1.setDataPoints(0, replacement).setDataPoints(3, replacement);
    assertThat(ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch)))
        .isEqualTo(expected.build());
    assertThat(batch.unitCount()).isEqualTo(10);
  }

  @Test
  void aMetricWithReplacedPointsIsWrittenWholeWhenItsSliceHoldsAllOfIt() throws Exception {
    Batch batch = Batch.of(indexer.index(Signal.METRICS, metrics().toByteArray()));
    NumberDataPoint replacement = NumberDataPoint.newBuilder().setAsDouble(0.5).build();
    byte[] bytes = replacement.toByteArray();

    batch.visit(
        item -> {
          if (item.item() == 1 && item.point() == 2) {
            item.replace(bytes, 0, bytes.length);
          }
        });

    ExportMetricsServiceRequest.Builder expected = metrics().toBuilder();
    expected
        .getResourceMetricsBuilder(0)
        .getScopeMetricsBuilder(0)
        .getMetricsBuilder(1)
        .getGaugeBuilder()
        .setDataPoints(2, replacement);
    byte[] output = OtlpMarshaler.toByteArray(batch);
    assertThat(ExportMetricsServiceRequest.parseFrom(output)).isEqualTo(expected.build());
    assertThat(batch.marshaledSizeEstimate()).isGreaterThanOrEqualTo(output.length);
  }

  // Visits of headers: one item per slice.

  @Test
  void aVisitOfHeadersShowsTheFirstItemTheBatchHoldsOfEachSlice() throws Exception {
    Batch source = tracesBatch();
    Batch batch = new Batch(Signal.TRACES);
    source.moveTo(batch, 2); // a1, a2 in a slice of their own
    batch.addAll(source);
    batch.dropIf(item -> spanName(item).equals("a3"));
    List<String> shown = new ArrayList<>();

    batch.visitHeaders(item -> shown.add(spanName(item)));

    // Slices: [a1 a2], [a3 a4] with a3 dropped, [b1 b2], [c1 c2 c3].
    assertThat(shown).containsExactly("a1", "a4", "b1", "c1");
  }

  @Test
  void aResourceReplacedInAVisitOfHeadersIsWrittenForEveryItemUnderIt() throws Exception {
    Batch batch = tracesBatch();
    byte[] edited = resource("svc-a-edited").toByteArray();

    batch.visitHeaders(
        item -> {
          if (item.resource() == 0 && !item.resourceReplacedInThisVisit()) {
            item.replaceResource(edited, 0, edited.length);
          }
        });

    ExportTraceServiceRequest.Builder expected = traces().toBuilder();
    expected.getResourceSpansBuilder(0).setResource(resource("svc-a-edited"));
    assertThat(marshalTraces(batch)).isEqualTo(expected.build());
  }

  @Test
  void aVisitOfHeadersMayNotDropOrReplaceTheItem() throws Exception {
    Batch batch = tracesBatch();
    byte[] span = span("x").toByteArray();

    assertThatThrownBy(() -> batch.visitHeaders(BatchItem::drop))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("may replace headers only");
    assertThatThrownBy(() -> batch.visitHeaders(item -> item.replace(span, 0, span.length)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("may replace headers only");
    // Nothing changed, and the next visit of items may edit them again.
    assertThat(marshalTraces(batch)).isEqualTo(traces());
    batch.visit(item -> item.replace(span, 0, span.length));
    assertThat(marshalTraces(batch).getResourceSpans(1).getScopeSpans(0).getSpans(2))
        .isEqualTo(span("x"));
  }

  @Test
  void aVisitOfMetricHeadersShowsAScopeWhoseMetricsHaveNoDataPoints() throws Exception {
    ExportMetricsServiceRequest request =
        metrics().toBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(resource("svc-empty"))
                    .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(gauge("none", 0))))
            .build();
    Batch batch = Batch.of(indexer.index(Signal.METRICS, request.toByteArray()));
    List<Integer> resources = new ArrayList<>();

    batch.visitHeaders(
        item -> {
          resources.add(item.resource());
          // Told apart, or the marshaler writes the two blocks as one.
          byte[] edited = resource("svc-edited-" + item.resource()).toByteArray();
          item.replaceResource(edited, 0, edited.length);
        });

    assertThat(resources).containsExactly(0, 1);
    ExportMetricsServiceRequest output =
        ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch));
    assertThat(output.getResourceMetricsList())
        .extracting(ResourceMetrics::getResource)
        .containsExactly(resource("svc-edited-0"), resource("svc-edited-1"));
    assertThat(output.getResourceMetrics(1).getScopeMetrics(0).getMetrics(0).getName())
        .isEqualTo("none");
  }
}
