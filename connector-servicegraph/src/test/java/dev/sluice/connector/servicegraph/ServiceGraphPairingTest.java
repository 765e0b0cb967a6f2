package dev.sluice.connector.servicegraph;

import static dev.sluice.connector.servicegraph.Harness.MS;
import static dev.sluice.connector.servicegraph.Harness.attribute;
import static dev.sluice.connector.servicegraph.Harness.attributes;
import static dev.sluice.connector.servicegraph.Harness.call;
import static dev.sluice.connector.servicegraph.Harness.error;
import static dev.sluice.connector.servicegraph.Harness.find;
import static dev.sluice.connector.servicegraph.Harness.metric;
import static dev.sluice.connector.servicegraph.Harness.request;
import static dev.sluice.connector.servicegraph.Harness.service;
import static dev.sluice.connector.servicegraph.Harness.span;
import static dev.sluice.connector.servicegraph.Harness.spanId;
import static dev.sluice.connector.servicegraph.Harness.traceId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Client and server spans paired into edges, and the metrics the edges become. */
class ServiceGraphPairingTest {
  private static final String TOTAL = RequestWriter.REQUEST_TOTAL;
  private static final String FAILED = RequestWriter.REQUEST_FAILED_TOTAL;
  private static final String SERVER = RequestWriter.REQUEST_SERVER;
  private static final String CLIENT = RequestWriter.REQUEST_CLIENT;

  @Test
  void pairsAClientSpanWithTheServerSpanItCalled() {
    Harness h = new Harness("");
    long start = h.unixNow();
    Span.Builder[] c = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 30, 20);
    h.send(request(service("frontend"), c[0], service("backend"), c[1]));

    ExportMetricsServiceRequest r = h.flush();
    assertThat(r.getResourceMetricsCount()).isEqualTo(1);
    assertThat(r.getResourceMetrics(0).getResource().getAttributesList()).isEmpty();
    assertThat(r.getResourceMetrics(0).getScopeMetrics(0).getScope().getName())
        .isEqualTo("traces_service_graph");

    Metric total = metric(r, TOTAL);
    assertThat(total.getSum().getIsMonotonic()).isTrue();
    assertThat(total.getSum().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
    NumberDataPoint point = total.getSum().getDataPoints(0);
    assertThat(point.getAsInt()).isEqualTo(1);
    assertThat(point.getStartTimeUnixNano()).isEqualTo(start);
    assertThat(point.getTimeUnixNano()).isEqualTo(h.unixNow());
    assertThat(attributes(point.getAttributesList()))
        .containsExactly(
            entry("client", "frontend"),
            entry("server", "backend"),
            entry("connection_type", ""),
            entry("failed", "false"));
    assertThat(find(r, FAILED)).isEmpty();

    Metric server = metric(r, SERVER);
    assertThat(server.getUnit()).isEqualTo("s");
    HistogramDataPoint s = server.getHistogram().getDataPoints(0);
    assertThat(s.getCount()).isEqualTo(1);
    assertThat(s.getSum()).isEqualTo(0.02);
    assertThat(s.getExplicitBoundsList())
        .containsExactly(
            0.002, 0.004, 0.006, 0.008, 0.01, 0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 1.4, 2.0, 5.0, 10.0,
            15.0);
    assertThat(s.getBucketCounts(5)).isEqualTo(1);
    assertThat(s.getStartTimeUnixNano()).isEqualTo(start);
    HistogramDataPoint client = metric(r, CLIENT).getHistogram().getDataPoints(0);
    assertThat(client.getSum()).isEqualTo(0.03);
    assertThat(metric(r, CLIENT).getUnit()).isEqualTo("s");
    assertThat(h.connector.openEdges()).isZero();
    assertThat(h.counter("otelcol_connector_servicegraph_total_edges")).isEqualTo(1);
  }

  @Test
  void pairsWhicheverSideArrivesFirstAndCountsCumulatively() {
    Harness h = new Harness("");
    Span.Builder[] first = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    h.send(request(service("backend"), first[1]));
    assertThat(h.connector.openEdges()).isEqualTo(1);
    h.advance(java.time.Duration.ofSeconds(1));
    h.send(request(service("frontend"), first[0]));
    assertThat(h.connector.openEdges()).isZero();
    assertThat(metric(h.flush(), TOTAL).getSum().getDataPoints(0).getAsInt()).isEqualTo(1);

    Span.Builder[] second = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    h.send(request(service("frontend"), second[0], service("backend"), second[1]));
    ExportMetricsServiceRequest r = h.flush();
    assertThat(metric(r, TOTAL).getSum().getDataPoints(0).getAsInt()).isEqualTo(2);
    assertThat(metric(r, SERVER).getHistogram().getDataPoints(0).getCount()).isEqualTo(2);
  }

  @Test
  void producerAndConsumerMakeAMessagingEdge() {
    Harness h = new Harness("");
    Span.Builder[] c = call(SpanKind.SPAN_KIND_PRODUCER, SpanKind.SPAN_KIND_CONSUMER, 1, 5);
    h.send(request(service("orders"), c[0], service("billing"), c[1]));

    assertThat(attributes(metric(h.flush(), TOTAL).getSum().getDataPoints(0).getAttributesList()))
        .contains(
            entry("client", "orders"),
            entry("server", "billing"),
            entry("connection_type", "messaging_system"));
  }

  @Test
  void anErrorOnEitherSideMakesTheEdgeFailed() {
    Harness h = new Harness("");
    Span.Builder[] a = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    Span.Builder[] b = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    Span.Builder[] ok = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    h.send(request(service("web"), error(a[0]), service("api"), a[1]));
    h.send(request(service("web"), b[0], service("api"), error(b[1])));
    h.send(request(service("web"), ok[0], service("api"), ok[1]));

    ExportMetricsServiceRequest r = h.flush();
    List<NumberDataPoint> totals = metric(r, TOTAL).getSum().getDataPointsList();
    assertThat(totals).hasSize(2);
    assertThat(totals)
        .anySatisfy(
            p -> {
              assertThat(attributes(p.getAttributesList())).containsEntry("failed", "true");
              assertThat(p.getAsInt()).isEqualTo(2);
            });
    List<NumberDataPoint> failed = metric(r, FAILED).getSum().getDataPointsList();
    assertThat(failed).hasSize(1);
    assertThat(failed.get(0).getAsInt()).isEqualTo(2);
    assertThat(attributes(failed.get(0).getAttributesList())).containsEntry("failed", "true");
  }

  @Test
  void aClientSpanWithADatabaseNameIsADatabaseEdgeAtOnce() {
    Harness h = new Harness("database_name_attributes: [db.namespace, db.name]");
    Span.Builder query =
        span(traceId(), spanId(), SpanKind.SPAN_KIND_CLIENT, 4 * MS)
            .addAttributes(attribute("db.name", "orders-db"))
            .addAttributes(attribute("db.system", "postgresql"));
    h.send(request(service("api"), query));
    assertThat(h.connector.openEdges()).isZero();

    ExportMetricsServiceRequest r = h.flush();
    assertThat(attributes(metric(r, TOTAL).getSum().getDataPoints(0).getAttributesList()))
        .contains(
            entry("client", "api"),
            entry("server", "orders-db"),
            entry("connection_type", "database"));
    assertThat(metric(r, SERVER).getHistogram().getDataPoints(0).getSum()).isEqualTo(0.004);
    assertThat(metric(r, CLIENT).getHistogram().getDataPoints(0).getSum()).isEqualTo(0.004);
  }

  @Test
  void dimensionsComeFromEachSideWithItsPrefix() {
    Harness h = new Harness("dimensions: [http.method, k8s.namespace]");
    Span.Builder[] c = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    c[0].addAttributes(attribute("http.method", "GET"));
    c[1].addAttributes(attribute("http.method", "get"))
        .addAttributes(attribute("k8s.namespace", 7));
    h.send(request(service("web", attribute("k8s.namespace", "edge")), c[0], service("api"), c[1]));

    assertThat(attributes(metric(h.flush(), TOTAL).getSum().getDataPoints(0).getAttributesList()))
        .contains(
            entry("client_http.method", "GET"),
            entry("server_http.method", "get"),
            entry("client_k8s.namespace", "edge"),
            entry("server_k8s.namespace", "7"));
  }

  @Test
  void spansOfOtherKindsOrWithoutAServiceNameAreNotPaired() {
    Harness h = new Harness("");
    h.send(
        request(
            service("web"),
            span(traceId(), spanId(), SpanKind.SPAN_KIND_INTERNAL, MS),
            span(traceId(), spanId(), SpanKind.SPAN_KIND_UNSPECIFIED, MS)));
    h.send(
        request(
            io.opentelemetry.proto.resource.v1.Resource.getDefaultInstance(),
            span(traceId(), spanId(), SpanKind.SPAN_KIND_CLIENT, MS)));
    assertThat(h.connector.openEdges()).isZero();
    assertThat(h.tick()).isEmpty();
  }

  @Test
  void exponentialHistogramsWhenAsked() {
    Harness h = new Harness("exponential_histogram_max_size: 160");
    Span.Builder[] c = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 30, 20);
    h.send(request(service("web"), c[0], service("api"), c[1]));

    ExportMetricsServiceRequest r = h.flush();
    Metric server = metric(r, SERVER);
    assertThat(server.getUnit()).isEqualTo("s");
    assertThat(server.getExponentialHistogram().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
    ExponentialHistogramDataPoint p = server.getExponentialHistogram().getDataPoints(0);
    assertThat(p.getCount()).isEqualTo(1);
    assertThat(p.getSum()).isEqualTo(0.02);
    assertThat(metric(r, CLIENT).getExponentialHistogram().getDataPoints(0).getSum())
        .isEqualTo(0.03);
  }

  @Test
  void theTimestampOffsetMovesTheTimeBack() {
    Harness h = new Harness("metrics_timestamp_offset: 30s");
    Span.Builder[] c = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    h.send(request(service("web"), c[0], service("api"), c[1]));
    ExportMetricsServiceRequest r = h.flush();
    assertThat(metric(r, TOTAL).getSum().getDataPoints(0).getTimeUnixNano())
        .isEqualTo(h.unixNow() - 30_000 * MS);
  }

  @Test
  void seriesPastMaxSeriesCountIntoTheOverflowSeries() {
    Harness h = new Harness("max_series: 1");
    for (String server : List.of("a", "b", "c")) {
      Span.Builder[] c = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
      h.send(request(service("web"), c[0], service(server), c[1]));
    }
    List<NumberDataPoint> totals = metric(h.flush(), TOTAL).getSum().getDataPointsList();
    assertThat(totals).hasSize(2);
    assertThat(attributes(totals.get(0).getAttributesList())).containsEntry("server", "a");
    assertThat(attributes(totals.get(1).getAttributesList()))
        .containsExactly(entry("otel.metric.overflow", "true"));
    assertThat(totals.get(1).getAsInt()).isEqualTo(2);
  }
}
