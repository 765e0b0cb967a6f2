package dev.sluice.connector.count;

import static dev.sluice.connector.count.Otlp.batch;
import static dev.sluice.connector.count.Otlp.counts;
import static dev.sluice.connector.count.Otlp.event;
import static dev.sluice.connector.count.Otlp.gauge;
import static dev.sluice.connector.count.Otlp.kv;
import static dev.sluice.connector.count.Otlp.log;
import static dev.sluice.connector.count.Otlp.metric;
import static dev.sluice.connector.count.Otlp.metricNames;
import static dev.sluice.connector.count.Otlp.point;
import static dev.sluice.connector.count.Otlp.resource;
import static dev.sluice.connector.count.Otlp.scope;
import static dev.sluice.connector.count.Otlp.span;
import static dev.sluice.connector.count.Otlp.string;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.google.protobuf.ByteString;
import dev.sluice.component.Admission;
import dev.sluice.component.Connector;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.MetricsText;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CountConnectorTest {
  private final Otlp.Fixture fixture = new Otlp.Fixture();

  private static ExportTraceServiceRequest traces(Resource resource, Span... spans) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(resource)
                .addScopeSpans(
                    ScopeSpans.newBuilder().setScope(scope("lib")).addAllSpans(List.of(spans))))
        .build();
  }

  private static ExportLogsServiceRequest logs(
      Resource resource, io.opentelemetry.proto.logs.v1.LogRecord... records) {
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .setResource(resource)
                .addScopeLogs(
                    ScopeLogs.newBuilder()
                        .setScope(scope("lib"))
                        .addAllLogRecords(List.of(records))))
        .build();
  }

  private static ExportMetricsServiceRequest metrics(Resource resource, Metric... metrics) {
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(resource)
                .addScopeMetrics(
                    ScopeMetrics.newBuilder()
                        .setScope(scope("lib"))
                        .addAllMetrics(List.of(metrics))))
        .build();
  }

  private ExportMetricsServiceRequest count(Connector connector, Batch batch) {
    assertThat(connector.consume(batch)).isEqualTo(Admission.ACCEPTED);
    assertThat(batch.isEmpty()).as("the batch is let go of once accepted").isTrue();
    return fixture.output.accepted().get(fixture.output.accepted().size() - 1);
  }

  @Test
  void countsSpansAndSpanEventsPerResourceAsDeltaMonotonicSums() throws Exception {
    Connector connector = fixture.connector("{}\n", Signal.TRACES);
    Resource shop = resource(kv("service.name", "shop"), kv("host.name", "h1"));
    ExportTraceServiceRequest request =
        traces(
                shop,
                span("a").toBuilder().addEvents(event("e1")).addEvents(event("e2")).build(),
                span("b"),
                span("c").toBuilder().addEvents(event("e3")).build())
            .toBuilder()
            .addResourceSpans(
                traces(
                        resource(kv("service.name", "cart")),
                        span("d").toBuilder().addEvents(event("e4")).build())
                    .getResourceSpans(0))
            .build();

    ExportMetricsServiceRequest out = count(connector, batch(Signal.TRACES, request));

    assertThat(metricNames(out, "service.name"))
        .containsExactly(
            entry("shop", List.of("trace.span.count", "trace.span.event.count")),
            entry("cart", List.of("trace.span.count", "trace.span.event.count")));
    assertThat(out.getResourceMetrics(0).getResource()).isEqualTo(shop);
    assertThat(out.getResourceMetrics(0).getScopeMetrics(0).getScope().getName())
        .isEqualTo("dev.sluice.connector.count");
    Metric spans = metric(out, "service.name", "shop", "trace.span.count");
    assertThat(spans.getDescription()).isEqualTo("The number of spans observed.");
    assertThat(spans.getUnit()).isEmpty();
    assertThat(spans.getSum().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA);
    assertThat(spans.getSum().getIsMonotonic()).isTrue();
    assertThat(spans.getSum().getDataPoints(0).getValueCase())
        .isEqualTo(NumberDataPoint.ValueCase.AS_INT);
    assertThat(counts(spans)).containsExactly(entry("", 3L));
    assertThat(counts(metric(out, "service.name", "shop", "trace.span.event.count")))
        .containsExactly(entry("", 3L));
    assertThat(counts(metric(out, "service.name", "cart", "trace.span.count")))
        .containsExactly(entry("", 1L));
    assertThat(counts(metric(out, "service.name", "cart", "trace.span.event.count")))
        .containsExactly(entry("", 1L));
  }

  @Test
  void handsTheCountsOnWithTheBatchTheyWereCountedFromStillHeld() throws Exception {
    Connector connector = fixture.connector("{}\n", Signal.TRACES);
    Resource shop = resource(kv("service.name", "shop"));
    count(connector, batch(Signal.TRACES, traces(shop, span("a"), span("b"), span("c"))));

    // The output learns what the counts were made from, while the batch still holds it.
    assertThat(fixture.output.madeFromUnits()).containsExactly(3L);
    assertThat(new CountConnectorFactory().saysWhatItMadeFrom()).isTrue();
  }

  @Test
  void blocksWithTheSameResourceAttributesInAnyOrderAreOneResource() throws Exception {
    Connector connector = fixture.connector("{}\n", Signal.TRACES);
    Batch batch =
        batch(
            Signal.TRACES,
            traces(resource(kv("service.name", "shop"), kv("host.name", "h1")), span("a")),
            traces(resource(kv("service.name", "cart")), span("b")),
            traces(resource(kv("host.name", "h1"), kv("service.name", "shop")), span("c")));

    ExportMetricsServiceRequest out = count(connector, batch);

    assertThat(out.getResourceMetricsList()).hasSize(2);
    assertThat(counts(metric(out, "service.name", "shop", "trace.span.count")))
        .containsExactly(entry("", 2L));
    assertThat(counts(metric(out, "service.name", "cart", "trace.span.count")))
        .containsExactly(entry("", 1L));
    assertThat(metricNames(out, "service.name").get("shop"))
        .as("no span events, no span event count")
        .containsExactly("trace.span.count");
  }

  @Test
  void countsItemsMatchingAnyConditionOnly() throws Exception {
    Connector connector =
        fixture.connector(
            "spans:\n"
                + "  checkout.or.errors:\n"
                + "    description: Checkout spans or errors.\n"
                + "    conditions:\n"
                + "      - name == \"checkout\"\n"
                + "      - attributes[\"error\"] == true\n"
                + "spanevents:\n"
                + "  exceptions.in.checkout:\n"
                + "    conditions: ['name == \"exception\" and span.name == \"checkout\"']\n",
            Signal.TRACES);
    AnyValue yes = AnyValue.newBuilder().setBoolValue(true).build();
    Batch batch =
        batch(
            Signal.TRACES,
            traces(
                resource(kv("service.name", "shop")),
                span("checkout").toBuilder().addEvents(event("exception")).build(),
                span("pay", kv("error", yes)).toBuilder().addEvents(event("exception")).build(),
                span("browse").toBuilder().addEvents(event("log")).build()));

    ExportMetricsServiceRequest out = count(connector, batch);

    Metric spans = metric(out, "service.name", "shop", "checkout.or.errors");
    assertThat(spans.getDescription()).isEqualTo("Checkout spans or errors.");
    assertThat(counts(spans)).containsExactly(entry("", 2L));
    assertThat(counts(metric(out, "service.name", "shop", "exceptions.in.checkout")))
        .containsExactly(entry("", 1L));
    assertThat(metricNames(out, "service.name").get("shop"))
        .containsExactly("checkout.or.errors", "exceptions.in.checkout");
  }

  @Test
  void countsByAttributesFromTheItemThenItsScopeThenItsResourceThenTheDefault() throws Exception {
    Connector connector =
        fixture.connector(
            "spans:\n"
                + "  by.env:\n"
                + "    attributes:\n"
                + "      - key: env\n"
                + "      - key: zone\n"
                + "        default_value: unknown\n"
                + "  by.tenant:\n"
                + "    attributes: [{key: tenant}]\n",
            Signal.TRACES);
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(resource(kv("service.name", "shop"), kv("env", "from-resource")))
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .setScope(scope("lib", kv("env", "from-scope"), kv("zone", "z1")))
                            .addSpans(span("a", kv("env", "prod"), kv("tenant", "t1")))
                            .addSpans(span("b", kv("env", "prod"), kv("zone", "z2")))
                            .addSpans(span("c")))
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .setScope(scope("other"))
                            .addSpans(span("d", kv("tenant", "t1")))
                            .addSpans(span("e", kv("env", "prod")))))
            .build();

    ExportMetricsServiceRequest out = count(connector, batch(Signal.TRACES, request));

    assertThat(counts(metric(out, "service.name", "shop", "by.env")))
        .containsExactly(
            entry("env=prod,zone=z1", 1L),
            entry("env=prod,zone=z2", 1L),
            entry("env=from-scope,zone=z1", 1L),
            entry("env=from-resource,zone=unknown", 1L),
            entry("env=prod,zone=unknown", 1L));
    assertThat(counts(metric(out, "service.name", "shop", "by.tenant")))
        .as("spans without tenant and without a default are not counted")
        .containsExactly(entry("tenant=t1", 2L));
  }

  @Test
  void keepsAttributeValuesOfEveryTypeAndCountsDifferentTypesApart() throws Exception {
    Connector connector =
        fixture.connector(
            "logs:\n  by.code:\n    attributes: [{key: code, default_value: 0}]\n", Signal.LOGS);
    AnyValue array =
        AnyValue.newBuilder()
            .setArrayValue(ArrayValue.newBuilder().addValues(string("x")).addValues(string("y")))
            .build();
    AnyValue map =
        AnyValue.newBuilder()
            .setKvlistValue(KeyValueList.newBuilder().addValues(kv("inner", 1)))
            .build();
    AnyValue bytes =
        AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {1, 2})).build();
    AnyValue real = AnyValue.newBuilder().setDoubleValue(2.5).build();
    Batch batch =
        batch(
            Signal.LOGS,
            logs(
                resource(kv("service.name", "shop")),
                log(9, kv("code", 200)),
                log(9, kv("code", "200")),
                log(9, kv("code", 200)),
                log(9, kv("code", array)),
                log(9, kv("code", map)),
                log(9, kv("code", bytes)),
                log(9, kv("code", real)),
                log(9)));

    ExportMetricsServiceRequest out = count(connector, batch);

    List<NumberDataPoint> points =
        metric(out, "service.name", "shop", "by.code").getSum().getDataPointsList();
    assertThat(points)
        .extracting(p -> p.getAttributes(0).getValue(), NumberDataPoint::getAsInt)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(AnyValue.newBuilder().setIntValue(200).build(), 2L),
            org.assertj.core.groups.Tuple.tuple(string("200"), 1L),
            org.assertj.core.groups.Tuple.tuple(array, 1L),
            org.assertj.core.groups.Tuple.tuple(map, 1L),
            org.assertj.core.groups.Tuple.tuple(bytes, 1L),
            org.assertj.core.groups.Tuple.tuple(real, 1L),
            org.assertj.core.groups.Tuple.tuple(AnyValue.newBuilder().setIntValue(0).build(), 1L));
  }

  @Test
  void countsLogRecordsByConditionOnSeverity() throws Exception {
    Connector connector =
        fixture.connector(
            "logs:\n"
                + "  errors:\n"
                + "    conditions: ['severity_number >= SEVERITY_NUMBER_ERROR']\n"
                + "    attributes: [{key: env, default_value: none}]\n"
                + "  all: {}\n",
            Signal.LOGS);
    Batch batch =
        batch(
            Signal.LOGS,
            logs(
                resource(kv("service.name", "shop")),
                log(17, kv("env", "prod")),
                log(21, kv("env", "prod")),
                log(9, kv("env", "prod")),
                log(18)));

    ExportMetricsServiceRequest out = count(connector, batch);

    assertThat(counts(metric(out, "service.name", "shop", "errors")))
        .containsExactly(entry("env=prod", 2L), entry("env=none", 1L));
    assertThat(counts(metric(out, "service.name", "shop", "all"))).containsExactly(entry("", 4L));
  }

  @Test
  void countsMetricsAndDataPointsOfEveryKind() throws Exception {
    Connector connector = fixture.connector("{}\n", Signal.METRICS);
    Metric.Builder sum = Metric.newBuilder().setName("requests");
    sum.getSumBuilder().addDataPoints(point()).addDataPoints(point());
    Metric.Builder histogram = Metric.newBuilder().setName("latency");
    histogram
        .getHistogramBuilder()
        .addDataPoints(HistogramDataPoint.newBuilder().setTimeUnixNano(1).setCount(1))
        .addDataPoints(HistogramDataPoint.newBuilder().setTimeUnixNano(1).setCount(2))
        .addDataPoints(HistogramDataPoint.newBuilder().setTimeUnixNano(1).setCount(3));
    Metric.Builder exponential = Metric.newBuilder().setName("size");
    exponential
        .getExponentialHistogramBuilder()
        .addDataPoints(ExponentialHistogramDataPoint.newBuilder().setTimeUnixNano(1).setCount(1));
    Metric.Builder summary = Metric.newBuilder().setName("quantiles");
    summary
        .getSummaryBuilder()
        .addDataPoints(SummaryDataPoint.newBuilder().setTimeUnixNano(1).setCount(1));
    Batch batch =
        batch(
            Signal.METRICS,
            metrics(
                resource(kv("service.name", "shop")),
                gauge("cpu", point(), point()),
                sum.build(),
                histogram.build(),
                exponential.build(),
                summary.build(),
                Metric.newBuilder().setName("no.data").build()));

    ExportMetricsServiceRequest out = count(connector, batch);

    assertThat(metricNames(out, "service.name").get("shop"))
        .containsExactly("metric.count", "metric.datapoint.count");
    assertThat(counts(metric(out, "service.name", "shop", "metric.count")))
        .as("a metric without data is a metric too")
        .containsExactly(entry("", 6L));
    assertThat(counts(metric(out, "service.name", "shop", "metric.datapoint.count")))
        .containsExactly(entry("", 9L));
  }

  @Test
  void countsDataPointsByAttributeAndConditionOnTheirMetric() throws Exception {
    Connector connector =
        fixture.connector(
            "metrics:\n"
                + "  cpu.metrics:\n"
                + "    conditions: ['name == \"cpu\"']\n"
                + "datapoints:\n"
                + "  cpu.points:\n"
                + "    conditions: ['metric.name == \"cpu\"']\n"
                + "    attributes: [{key: core}]\n",
            Signal.METRICS);
    Batch batch =
        batch(
            Signal.METRICS,
            metrics(
                resource(kv("service.name", "node")),
                gauge("cpu", point(kv("core", 0)), point(kv("core", 1)), point(kv("core", 0))),
                gauge("mem", point(kv("core", 0)))));

    ExportMetricsServiceRequest out = count(connector, batch);

    assertThat(counts(metric(out, "service.name", "node", "cpu.metrics")))
        .containsExactly(entry("", 1L));
    assertThat(counts(metric(out, "service.name", "node", "cpu.points")))
        .containsExactly(entry("core=0", 2L), entry("core=1", 1L));
  }

  @Test
  void aMetricThatSlicesCutCountsOnceInABatch() throws Exception {
    Connector connector = fixture.connector("{}\n", Signal.METRICS);
    Batch whole =
        batch(
            Signal.METRICS,
            metrics(
                resource(kv("service.name", "node")),
                gauge("cpu", point(), point(), point(), point()),
                gauge("mem", point())));
    Batch cut = new Batch(Signal.METRICS);
    whole.moveTo(cut, 2);
    whole.moveTo(cut, 3);
    assertThat(cut.sliceCount()).as("the cpu metric is cut in two").isEqualTo(2);

    ExportMetricsServiceRequest out = count(connector, cut);

    assertThat(counts(metric(out, "service.name", "node", "metric.count")))
        .containsExactly(entry("", 2L));
    assertThat(counts(metric(out, "service.name", "node", "metric.datapoint.count")))
        .containsExactly(entry("", 5L));
  }

  @Test
  void aConditionThatFailsForAnItemDoesNotMatchItAndIsCounted() throws Exception {
    Connector connector =
        fixture.connector(
            "spans:\n"
                + "  long.get:\n"
                + "    conditions: ['Substring(name, 0, 12) == \"GET /users/{\"', 'name == \"x\"']\n",
            Signal.TRACES);
    Batch batch =
        batch(
            Signal.TRACES,
            traces(
                resource(kv("service.name", "shop")),
                span("GET /users/{id}"),
                span("short"),
                span("x")));

    ExportMetricsServiceRequest out = count(connector, batch);

    assertThat(counts(metric(out, "service.name", "shop", "long.get")))
        .containsExactly(entry("", 2L));
    assertThat(MetricsText.of(fixture.metrics))
        .contains("sluice_connector_count_condition_errors_total{connector=\"count\"} 2");
  }

  @Test
  void successiveBatchesCoverIntervalsThatFollowEachOther() throws Exception {
    Connector connector = fixture.connector("{}\n", Signal.LOGS);
    Resource shop = resource(kv("service.name", "shop"));

    fixture.scheduler.advance(Duration.ofSeconds(5));
    NumberDataPoint first =
        count(connector, batch(Signal.LOGS, logs(shop, log(9))))
            .getResourceMetrics(0)
            .getScopeMetrics(0)
            .getMetrics(0)
            .getSum()
            .getDataPoints(0);
    fixture.scheduler.advance(Duration.ofSeconds(2));
    NumberDataPoint second =
        count(connector, batch(Signal.LOGS, logs(shop, log(9), log(9))))
            .getResourceMetrics(0)
            .getScopeMetrics(0)
            .getMetrics(0)
            .getSum()
            .getDataPoints(0);
    NumberDataPoint third =
        count(connector, batch(Signal.LOGS, logs(shop, log(9))))
            .getResourceMetrics(0)
            .getScopeMetrics(0)
            .getMetrics(0)
            .getSum()
            .getDataPoints(0);

    assertThat(first.getTimeUnixNano() - first.getStartTimeUnixNano())
        .isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(second.getStartTimeUnixNano()).isEqualTo(first.getTimeUnixNano());
    assertThat(second.getTimeUnixNano() - second.getStartTimeUnixNano())
        .isEqualTo(Duration.ofSeconds(2).toNanos());
    assertThat(third.getStartTimeUnixNano()).isEqualTo(second.getTimeUnixNano());
    assertThat(third.getTimeUnixNano())
        .as("the clock did not move: the interval is still its own")
        .isEqualTo(second.getTimeUnixNano() + 1);
    assertThat(second.getAsInt()).isEqualTo(2);
  }

  @Test
  void aBatchWithNothingToCountIsTakenWithoutHandingAnythingOn() throws Exception {
    Connector connector =
        fixture.connector(
            "logs:\n  none:\n    conditions: ['severity_number > 100']\n", Signal.LOGS);
    Batch batch = batch(Signal.LOGS, logs(resource(kv("service.name", "shop")), log(9)));

    assertThat(connector.consume(batch)).isEqualTo(Admission.ACCEPTED);

    assertThat(batch.isEmpty()).isTrue();
    assertThat(fixture.output.accepted()).isEmpty();
    assertThat(fixture.output.refused()).isZero();
  }
}
