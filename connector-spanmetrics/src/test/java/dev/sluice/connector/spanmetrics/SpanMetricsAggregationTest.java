package dev.sluice.connector.spanmetrics;

import static dev.sluice.connector.spanmetrics.Harness.attribute;
import static dev.sluice.connector.spanmetrics.Harness.attributes;
import static dev.sluice.connector.spanmetrics.Harness.error;
import static dev.sluice.connector.spanmetrics.Harness.metric;
import static dev.sluice.connector.spanmetrics.Harness.request;
import static dev.sluice.connector.spanmetrics.Harness.service;
import static dev.sluice.connector.spanmetrics.Harness.span;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.sluice.component.Admission;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** What the connector counts, and the metrics it makes of it, read back with protobuf-java. */
class SpanMetricsAggregationTest {
  private static final long MS = 1_000_000L;

  /** The data points of a sum by one attribute's value. */
  private static Map<String, NumberDataPoint> sumBy(Metric metric, String key) {
    return metric.getSum().getDataPointsList().stream()
        .collect(Collectors.toMap(p -> attributes(p.getAttributesList()).get(key), p -> p));
  }

  private static Map<String, HistogramDataPoint> histogramBy(Metric metric, String key) {
    return metric.getHistogram().getDataPointsList().stream()
        .collect(Collectors.toMap(p -> attributes(p.getAttributesList()).get(key), p -> p));
  }

  @Test
  void countsCallsAndDurationsPerSeriesOfTheDefaultDimensions() {
    Harness h = new Harness("");
    assertThat(
            h.send(
                request(
                    service("checkout", attribute("host.name", "h1")),
                    span("GET /a", 3 * MS),
                    span("GET /a", 7 * MS),
                    error(span("GET /a", 70 * MS)),
                    span("POST /b", Span.SpanKind.SPAN_KIND_CLIENT, 2 * MS))))
        .isEqualTo(Admission.ACCEPTED);
    h.flush(); // a cumulative sum's first point is 0: see cumulativeSumsStartAtZero
    ExportMetricsServiceRequest out = h.flush();

    assertThat(out.getResourceMetricsCount()).isEqualTo(1);
    assertThat(attributes(out.getResourceMetrics(0).getResource().getAttributesList()))
        .containsExactly(entry("service.name", "checkout"), entry("host.name", "h1"));
    assertThat(out.getResourceMetrics(0).getScopeMetrics(0).getScope().getName())
        .isEqualTo("spanmetricsconnector");

    Metric calls = metric(out, "traces.span.metrics.calls");
    assertThat(calls.getUnit()).isEmpty();
    assertThat(calls.getSum().getIsMonotonic()).isTrue();
    assertThat(calls.getSum().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
    List<Map<String, String>> callAttributes =
        calls.getSum().getDataPointsList().stream()
            .map(p -> attributes(p.getAttributesList()))
            .toList();
    assertThat(callAttributes)
        .containsExactly(
            Map.of(
                "service.name", "checkout",
                "span.name", "GET /a",
                "span.kind", "SPAN_KIND_SERVER",
                "status.code", "STATUS_CODE_UNSET",
                "collector.instance.id", Harness.INSTANCE),
            Map.of(
                "service.name", "checkout",
                "span.name", "GET /a",
                "span.kind", "SPAN_KIND_SERVER",
                "status.code", "STATUS_CODE_ERROR",
                "collector.instance.id", Harness.INSTANCE),
            Map.of(
                "service.name", "checkout",
                "span.name", "POST /b",
                "span.kind", "SPAN_KIND_CLIENT",
                "status.code", "STATUS_CODE_UNSET",
                "collector.instance.id", Harness.INSTANCE));
    assertThat(calls.getSum().getDataPointsList())
        .extracting(NumberDataPoint::getAsInt)
        .containsExactly(2L, 1L, 1L);

    Metric duration = metric(out, "traces.span.metrics.duration");
    assertThat(duration.getUnit()).isEqualTo("ms");
    assertThat(duration.getHistogram().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
    HistogramDataPoint unset = duration.getHistogram().getDataPoints(0);
    assertThat(unset.getExplicitBoundsList())
        .containsExactly(
            2.0, 4.0, 6.0, 8.0, 10.0, 50.0, 100.0, 200.0, 400.0, 800.0, 1000.0, 1400.0, 2000.0,
            5000.0, 10000.0, 15000.0);
    assertThat(unset.getCount()).isEqualTo(2);
    assertThat(unset.getSum()).isEqualTo(10.0);
    // 3 ms in (2, 4], 7 ms in (6, 8].
    assertThat(unset.getBucketCountsList())
        .containsExactly(0L, 1L, 0L, 1L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L);
    assertThat(attributes(unset.getAttributesList())).isEqualTo(callAttributes.get(0));
    assertThat(duration.getHistogram().getDataPoints(1).getBucketCountsList().get(6)).isEqualTo(1L);
  }

  @Test
  void cumulativeSumsStartAtZeroAndHistogramsDoNot() {
    Harness h = new Harness("");
    h.send(request(service("svc"), span("op", 5 * MS), span("op", 5 * MS)));

    ExportMetricsServiceRequest first = h.flush();
    assertThat(metric(first, "traces.span.metrics.calls").getSum().getDataPoints(0).getAsInt())
        .isZero();
    assertThat(
            metric(first, "traces.span.metrics.duration")
                .getHistogram()
                .getDataPoints(0)
                .getCount())
        .isEqualTo(2);

    ExportMetricsServiceRequest second = h.flush();
    assertThat(metric(second, "traces.span.metrics.calls").getSum().getDataPoints(0).getAsInt())
        .isEqualTo(2);
  }

  @Test
  void durationsInSecondsUseTheDefaultBucketsInSeconds() {
    Harness h = new Harness("histogram: {unit: s}");
    h.send(request(service("svc"), span("op", 1500 * MS), span("op", 0)));

    HistogramDataPoint point =
        metric(h.flush(), "traces.span.metrics.duration").getHistogram().getDataPoints(0);
    assertThat(metric(h.flush(), "traces.span.metrics.duration").getUnit()).isEqualTo("s");
    assertThat(point.getExplicitBoundsList())
        .containsExactly(
            0.002, 0.004, 0.006, 0.008, 0.01, 0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.4, 2.0, 5.0, 10.0,
            15.0);
    assertThat(point.getSum()).isEqualTo(1.5);
    assertThat(point.getBucketCounts(0)).isEqualTo(1); // 0 s
    assertThat(point.getBucketCounts(12)).isEqualTo(1); // 1.5 s in (1.4, 2]
  }

  @Test
  void explicitBucketsAreDurationsAndABoundBelongsToItsBucket() {
    Harness h = new Harness("histogram: {explicit: {buckets: [100us, 1ms, 2ms]}}");
    h.send(
        request(
            service("svc"),
            span("op", 100_000), // exactly the first bound: first bucket
            span("op", 100_001),
            span("op", 2 * MS),
            span("op", 3 * MS)));

    HistogramDataPoint point =
        metric(h.flush(), "traces.span.metrics.duration").getHistogram().getDataPoints(0);
    assertThat(point.getExplicitBoundsList()).containsExactly(0.1, 1.0, 2.0);
    assertThat(point.getBucketCountsList()).containsExactly(1L, 1L, 1L, 1L);
    assertThat(point.getSum())
        .isEqualTo(0.1 + 0.100001 + 2 + 3, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void anEndBeforeTheStartCountsAsNoDuration() {
    Harness h = new Harness("");
    h.send(
        request(
            service("svc"),
            span("op", 0).setStartTimeUnixNano(2_000_000_000L).setEndTimeUnixNano(1_000_000_000L)));

    HistogramDataPoint point =
        metric(h.flush(), "traces.span.metrics.duration").getHistogram().getDataPoints(0);
    assertThat(point.getSum()).isZero();
    assertThat(point.getBucketCounts(0)).isEqualTo(1);
  }

  @Test
  void dimensionsComeFromTheSpanThenTheResourceThenTheirDefault() {
    Harness h =
        new Harness(
            String.join(
                "\n",
                "dimensions:",
                "  - name: http.request.method",
                "    default: GET",
                "  - name: http.response.status_code",
                "  - name: host.name"));
    h.send(
        request(
            service("svc", attribute("host.name", "resource-host")),
            span("a", MS)
                .addAttributes(attribute("http.request.method", "POST"))
                .addAttributes(attribute("http.response.status_code", 201))
                .addAttributes(attribute("host.name", "span-host")),
            span("b", MS),
            span("b", MS)));
    h.flush();
    Metric calls = metric(h.flush(), "traces.span.metrics.calls");

    Map<String, NumberDataPoint> byName = sumBy(calls, "span.name");
    assertThat(attributes(byName.get("a").getAttributesList()))
        .contains(
            entry("http.request.method", "POST"),
            entry("http.response.status_code", "201"),
            entry("host.name", "span-host"));
    assertThat(byName.get("a").getAttributesList())
        .filteredOn(kv -> kv.getKey().equals("http.response.status_code"))
        .extracting(KeyValue::getValue)
        .extracting(AnyValue::getIntValue)
        .containsExactly(201L);
    // No status code and no default: the dimension is left out.
    assertThat(attributes(byName.get("b").getAttributesList()))
        .contains(entry("http.request.method", "GET"), entry("host.name", "resource-host"))
        .doesNotContainKey("http.response.status_code");
    assertThat(byName.get("b").getAsInt()).isEqualTo(2);
  }

  @Test
  void spansDifferingOnlyInADimensionAreSeparateSeries() {
    Harness h = new Harness("dimensions: [{name: region}]");
    h.send(
        request(
            service("svc"),
            span("op", MS).addAttributes(attribute("region", "eu")),
            span("op", MS).addAttributes(attribute("region", "us")),
            span("op", MS).addAttributes(attribute("region", "eu")),
            span("op", MS).addAttributes(attribute("region", 1)), // an int is not the string
            span("op", MS)));
    h.flush();
    Metric calls = metric(h.flush(), "traces.span.metrics.calls");

    assertThat(calls.getSum().getDataPointsList())
        .extracting(p -> attributes(p.getAttributesList()).getOrDefault("region", "-"))
        .containsExactly("eu", "us", "1", "-");
    assertThat(calls.getSum().getDataPointsList())
        .extracting(NumberDataPoint::getAsInt)
        .containsExactly(2L, 1L, 1L, 1L);
  }

  @Test
  void excludedDefaultDimensionsAreLeftOutAndMergeTheirSeries() {
    Harness h = new Harness("exclude_dimensions: [status.code, span.kind, collector.instance.id]");
    h.send(
        request(
            service("svc"),
            span("op", Span.SpanKind.SPAN_KIND_CLIENT, MS),
            error(span("op", Span.SpanKind.SPAN_KIND_SERVER, MS))));
    h.flush();
    ExportMetricsServiceRequest out = h.flush();

    NumberDataPoint point = metric(out, "traces.span.metrics.calls").getSum().getDataPoints(0);
    assertThat(metric(out, "traces.span.metrics.calls").getSum().getDataPointsCount()).isEqualTo(1);
    assertThat(attributes(point.getAttributesList()))
        .containsExactly(entry("service.name", "svc"), entry("span.name", "op"));
    assertThat(point.getAsInt()).isEqualTo(2);
  }

  @Test
  void callsAndHistogramDimensionsAddToTheirOwnMetricOnly() {
    Harness h =
        new Harness(
            String.join(
                "\n",
                "dimensions: [{name: common}]",
                "calls_dimensions: [{name: only.calls}]",
                "histogram: {dimensions: [{name: only.duration, default: none}]}"));
    h.send(
        request(
            service("svc"),
            span("op", MS)
                .addAttributes(attribute("common", "c"))
                .addAttributes(attribute("only.calls", "x"))
                .addAttributes(attribute("only.duration", "y")),
            span("op", MS).addAttributes(attribute("common", "c"))));
    ExportMetricsServiceRequest out = h.flush();

    assertThat(metric(out, "traces.span.metrics.calls").getSum().getDataPointsList())
        .extracting(p -> attributes(p.getAttributesList()))
        .allSatisfy(
            a -> assertThat(a).containsEntry("common", "c").doesNotContainKey("only.duration"))
        .extracting(a -> a.getOrDefault("only.calls", "-"))
        .containsExactly("x", "-");
    assertThat(metric(out, "traces.span.metrics.duration").getHistogram().getDataPointsList())
        .extracting(p -> attributes(p.getAttributesList()))
        .allSatisfy(a -> assertThat(a).containsEntry("common", "c").doesNotContainKey("only.calls"))
        .extracting(a -> a.get("only.duration"))
        .containsExactly("y", "none");
  }

  @Test
  void eventsAreCountedByTheirDimensionsFromTheEventTheSpanOrTheResource() {
    Harness h =
        new Harness(
            String.join(
                "\n",
                "dimensions: [{name: tier}]",
                "events:",
                "  enabled: true",
                "  dimensions: [{name: exception.type}]"));
    Span.Event timeout =
        Span.Event.newBuilder()
            .setName("exception")
            .addAttributes(attribute("exception.type", "Timeout"))
            .addAttributes(attribute("tier", "from-event"))
            .build();
    Span.Event npe =
        Span.Event.newBuilder()
            .setName("exception")
            .addAttributes(attribute("exception.type", "NullPointerException"))
            .build();
    h.send(
        request(
            service("svc", attribute("tier", "from-resource")),
            span("op", MS).addEvents(timeout).addEvents(timeout).addEvents(npe),
            span("op", MS).addAttributes(attribute("tier", "from-span")).addEvents(npe),
            span("quiet", MS)));
    h.flush();
    Metric events = metric(h.flush(), "traces.span.metrics.events");

    assertThat(events.getSum().getIsMonotonic()).isTrue();
    Map<String, Long> counts =
        events.getSum().getDataPointsList().stream()
            .collect(
                Collectors.toMap(
                    p -> {
                      Map<String, String> a = attributes(p.getAttributesList());
                      return a.get("span.name")
                          + "/"
                          + a.get("tier")
                          + "/"
                          + a.get("exception.type");
                    },
                    NumberDataPoint::getAsInt));
    assertThat(counts)
        .containsOnly(
            entry("op/from-event/Timeout", 2L),
            entry("op/from-resource/NullPointerException", 1L),
            entry("op/from-span/NullPointerException", 1L));
  }

  @Test
  void exemplarsKeepAtMostMaxPerDataPointUntilTheFlushHandsThemOn() {
    Harness h = new Harness("exemplars: {enabled: true, max_per_data_point: 2}");
    Span.Builder a = span("op", 3 * MS);
    Span.Builder b = span("op", 4 * MS);
    h.send(request(service("svc"), a, b, span("op", 5 * MS)));
    ExportMetricsServiceRequest out = h.flush();

    HistogramDataPoint point =
        metric(out, "traces.span.metrics.duration").getHistogram().getDataPoints(0);
    assertThat(point.getExemplarsCount()).isEqualTo(2);
    assertThat(point.getExemplars(0).getTraceId()).isEqualTo(a.getTraceId());
    assertThat(point.getExemplars(0).getSpanId()).isEqualTo(a.getSpanId());
    assertThat(point.getExemplars(0).getAsDouble()).isEqualTo(3.0);
    assertThat(point.getExemplars(1).getSpanId()).isEqualTo(b.getSpanId());
    assertThat(point.getExemplars(1).getTimeUnixNano()).isEqualTo(h.unixNow());
    NumberDataPoint calls = metric(out, "traces.span.metrics.calls").getSum().getDataPoints(0);
    assertThat(calls.getExemplarsList())
        .extracting(e -> e.getSpanId())
        .containsExactly(a.getSpanId(), b.getSpanId());

    // Handed on: the next flush has none until spans come again.
    ExportMetricsServiceRequest next = h.flush();
    assertThat(
            metric(next, "traces.span.metrics.duration")
                .getHistogram()
                .getDataPoints(0)
                .getExemplarsCount())
        .isZero();
  }

  @Test
  void exemplarsAreOffByDefault() {
    Harness h = new Harness("");
    h.send(request(service("svc"), span("op", MS)));

    assertThat(
            metric(h.flush(), "traces.span.metrics.duration")
                .getHistogram()
                .getDataPoints(0)
                .getExemplarsCount())
        .isZero();
  }

  @Test
  void spansOfAResourceWithoutServiceNameAreNotCounted() {
    Harness h = new Harness("");
    h.send(request(Harness.resource(attribute("host.name", "h")), span("op", MS)));

    assertThat(h.tick()).isEmpty();
  }

  @Test
  void resourcesAreToldApartByTheirKeyAttributesAndKeepTheAttributesFirstSeen() {
    Harness h = new Harness("resource_metrics_key_attributes: [service.name]");
    h.send(request(service("svc", attribute("pod", "p1")), span("op", MS)));
    h.send(request(service("svc", attribute("pod", "p2")), span("op", MS)));
    h.send(request(service("other", attribute("pod", "p2")), span("op", MS)));
    h.flush();
    ExportMetricsServiceRequest out = h.flush();

    assertThat(out.getResourceMetricsList())
        .extracting(r -> attributes(r.getResource().getAttributesList()))
        .containsExactly(
            Map.of("service.name", "svc", "pod", "p1"),
            Map.of("service.name", "other", "pod", "p2"));
    assertThat(
            metric(out.getResourceMetrics(0), "traces.span.metrics.calls")
                .orElseThrow()
                .getSum()
                .getDataPoints(0)
                .getAsInt())
        .isEqualTo(2);
  }

  @Test
  void resourcesWithTheSameAttributesInAnotherOrderAreOne() {
    Harness h = new Harness("");
    h.send(
        request(
            Harness.resource(attribute("service.name", "s"), attribute("a", "1")), span("op", MS)));
    h.send(
        request(
            Harness.resource(attribute("a", "1"), attribute("service.name", "s")), span("op", MS)));
    h.flush();

    ExportMetricsServiceRequest out = h.flush();
    assertThat(out.getResourceMetricsCount()).isEqualTo(1);
    assertThat(metric(out, "traces.span.metrics.calls").getSum().getDataPoints(0).getAsInt())
        .isEqualTo(2);
  }

  @Test
  void includedInstrumentationScopesAddTheirNameAndVersion() {
    Harness h = new Harness("include_instrumentation_scope: [io.opentelemetry.jdbc]");
    h.send(
        request(
            service("svc"),
            InstrumentationScope.newBuilder()
                .setName("io.opentelemetry.jdbc")
                .setVersion("2.1")
                .build(),
            span("SELECT", MS)));
    h.send(
        request(
            service("svc"),
            InstrumentationScope.newBuilder()
                .setName("io.opentelemetry.http")
                .setVersion("2.1")
                .build(),
            span("GET", MS)));
    Metric calls = metric(h.flush(), "traces.span.metrics.calls");

    Map<String, Map<String, String>> byName =
        calls.getSum().getDataPointsList().stream()
            .map(p -> attributes(p.getAttributesList()))
            .collect(Collectors.toMap(a -> a.get("span.name"), Function.identity()));
    assertThat(byName.get("SELECT"))
        .contains(
            entry("span.instrumentation.scope.name", "io.opentelemetry.jdbc"),
            entry("span.instrumentation.scope.version", "2.1"));
    assertThat(byName.get("GET")).doesNotContainKey("span.instrumentation.scope.name");
  }

  @Test
  void theNamespacePrefixesTheMetricNamesAndMayBeEmpty() {
    Harness named = new Harness("namespace: shop");
    named.send(request(service("svc"), span("op", MS)));
    assertThat(named.flush().getResourceMetrics(0).getScopeMetrics(0).getMetricsList())
        .extracting(Metric::getName)
        .containsExactly("shop.calls", "shop.duration");

    Harness bare = new Harness("namespace: ''\nhistogram: {disable: true}");
    bare.send(request(service("svc"), span("op", MS)));
    assertThat(bare.flush().getResourceMetrics(0).getScopeMetrics(0).getMetricsList())
        .extracting(Metric::getName)
        .containsExactly("calls");
  }

  @Test
  void histogramByDimensionKeepsSeriesApart() {
    Harness h = new Harness("");
    h.send(request(service("svc"), span("a", MS), span("b", 20 * MS)));
    Map<String, HistogramDataPoint> points =
        histogramBy(metric(h.flush(), "traces.span.metrics.duration"), "span.name");

    assertThat(points.get("a").getSum()).isEqualTo(1.0);
    assertThat(points.get("b").getSum()).isEqualTo(20.0);
  }
}
