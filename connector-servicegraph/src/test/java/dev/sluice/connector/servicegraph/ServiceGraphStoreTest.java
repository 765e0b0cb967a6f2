package dev.sluice.connector.servicegraph;

import static dev.sluice.connector.servicegraph.Harness.MS;
import static dev.sluice.connector.servicegraph.Harness.attribute;
import static dev.sluice.connector.servicegraph.Harness.attributes;
import static dev.sluice.connector.servicegraph.Harness.call;
import static dev.sluice.connector.servicegraph.Harness.metric;
import static dev.sluice.connector.servicegraph.Harness.request;
import static dev.sluice.connector.servicegraph.Harness.service;
import static dev.sluice.connector.servicegraph.Harness.span;
import static dev.sluice.connector.servicegraph.Harness.spanId;
import static dev.sluice.connector.servicegraph.Harness.traceId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The store of open edges on a manual clock: ttl expiry (and the virtual nodes it makes), the
 * {@code max_items} bound and what it drops, all counted.
 */
class ServiceGraphStoreTest {
  private static final String EXPIRED = "otelcol_connector_servicegraph_expired_edges";
  private static final String DROPPED = "otelcol_connector_servicegraph_dropped_spans";
  private static final String TOTAL_EDGES = "otelcol_connector_servicegraph_total_edges";

  @Test
  void anEdgeExpiresAfterItsTtlAndIsCountedAsExpired() {
    Harness h = new Harness("store: {ttl: 5s}\nvirtual_node_peer_attributes: []");
    h.send(request(service("web"), span(traceId(), spanId(), SpanKind.SPAN_KIND_CLIENT, MS)));
    assertThat(h.connector.openEdges()).isEqualTo(1);

    h.advance(Duration.ofSeconds(4)); // two expiration loops, not yet past the ttl
    assertThat(h.connector.openEdges()).isEqualTo(1);
    assertThat(h.counter(EXPIRED)).isZero();

    h.advance(Duration.ofSeconds(2));
    assertThat(h.connector.openEdges()).isZero();
    assertThat(h.counter(EXPIRED)).isEqualTo(1);
    // Without peer attributes, an expired edge makes no request.
    assertThat(h.tick()).isEmpty();
  }

  @Test
  void anExpiredClientSpanGetsAVirtualServerFromItsPeerAttribute() {
    Harness h = new Harness("virtual_node_extra_label: true");
    h.send(
        request(
            service("web"),
            span(traceId(), spanId(), SpanKind.SPAN_KIND_CLIENT, 3 * MS)
                .addAttributes(attribute("peer.service", "payments-api"))));
    h.send(request(service("web"), span(traceId(), spanId(), SpanKind.SPAN_KIND_CLIENT, MS)));
    h.advance(Duration.ofSeconds(4));
    assertThat(h.counter(EXPIRED)).isEqualTo(2);

    List<NumberDataPoint> totals =
        metric(h.flush(), RequestWriter.REQUEST_TOTAL).getSum().getDataPointsList();
    assertThat(totals).hasSize(2);
    assertThat(attributes(totals.get(0).getAttributesList()))
        .containsExactly(
            entry("client", "web"),
            entry("server", "payments-api"),
            entry("connection_type", "virtual_node"),
            entry("failed", "false"),
            entry("virtual_node", "server"));
    assertThat(attributes(totals.get(1).getAttributesList()))
        .contains(entry("server", "unknown"), entry("virtual_node", "server"));
  }

  @Test
  void anExpiredRootServerSpanGetsTheClientUser() {
    Harness h = new Harness("virtual_node_extra_label: true");
    h.send(request(service("gateway"), span(traceId(), spanId(), SpanKind.SPAN_KIND_SERVER, MS)));
    // A server span whose caller is traced but never arrived makes no request.
    h.send(
        request(
            service("gateway"),
            span(traceId(), spanId(), SpanKind.SPAN_KIND_SERVER, MS).setParentSpanId(spanId())));
    h.advance(Duration.ofSeconds(4));
    assertThat(h.counter(EXPIRED)).isEqualTo(2);

    List<NumberDataPoint> totals =
        metric(h.flush(), RequestWriter.REQUEST_TOTAL).getSum().getDataPointsList();
    assertThat(totals).hasSize(1);
    assertThat(attributes(totals.get(0).getAttributesList()))
        .contains(
            entry("client", "user"),
            entry("server", "gateway"),
            entry("connection_type", "virtual_node"),
            entry("virtual_node", "client"));
  }

  @Test
  void anUnpairedRootServerSpanAndAnUnpairedClientSpanBecomeTwoVirtualEdges() {
    Harness h =
        new Harness("dimensions: [peer.service]\nlatency_histogram_buckets: [100ms, 1s, 10s]");
    h.send(
        request(service("foo-server"), span(traceId(), spanId(), SpanKind.SPAN_KIND_CLIENT, 1000)));
    h.send(
        request(
            service("bar-requester"),
            span(traceId(), spanId(), SpanKind.SPAN_KIND_SERVER, 1000)
                .addAttributes(attribute("peer.service", "external-platform"))));
    h.advance(Duration.ofSeconds(4));

    io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest r = h.flush();
    List<NumberDataPoint> totals =
        metric(r, RequestWriter.REQUEST_TOTAL).getSum().getDataPointsList();
    assertThat(totals).hasSize(2);
    assertThat(attributes(totals.get(0).getAttributesList()))
        .containsExactly(
            entry("client", "foo-server"),
            entry("server", "unknown"),
            entry("connection_type", "virtual_node"),
            entry("failed", "false"));
    assertThat(attributes(totals.get(1).getAttributesList()))
        .containsExactly(
            entry("client", "user"),
            entry("server", "bar-requester"),
            entry("connection_type", "virtual_node"),
            entry("failed", "false"),
            entry("server_peer.service", "external-platform"));
    var server = metric(r, RequestWriter.REQUEST_SERVER).getHistogram().getDataPointsList();
    assertThat(server.get(0).getExplicitBoundsList()).containsExactly(0.1, 1.0, 10.0);
    assertThat(server.get(0).getBucketCountsList()).containsExactly(1L, 0L, 0L, 0L);
    // The side that never came has a latency of 0.
    assertThat(server.get(0).getSum()).isZero();
    assertThat(server.get(1).getSum()).isEqualTo(1e-6);
    var client = metric(r, RequestWriter.REQUEST_CLIENT).getHistogram().getDataPointsList();
    assertThat(client.get(0).getSum()).isEqualTo(1e-6);
    assertThat(client.get(1).getSum()).isZero();
  }

  @Test
  void spansPastMaxItemsAreDroppedAndCountedUntilTheOldestExpires() {
    Harness h = new Harness("store: {max_items: 3, ttl: 1s}\nstore_expiration_loop: 1h");
    for (int i = 0; i < 5; i++) {
      h.send(request(service("web"), span(traceId(), spanId(), SpanKind.SPAN_KIND_CLIENT, MS)));
    }
    assertThat(h.connector.openEdges()).isEqualTo(3);
    assertThat(h.counter(DROPPED)).isEqualTo(2);
    assertThat(h.counter(TOTAL_EDGES)).isEqualTo(3);

    // Its server span comes later; the client span, one more new edge, is dropped.
    Span.Builder[] c = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    h.send(request(service("web"), c[0]));
    assertThat(h.counter(DROPPED)).isEqualTo(3);

    // Once the oldest has expired, a new edge takes its place, and the expired one is counted.
    h.advance(Duration.ofMillis(1500));
    h.send(request(service("api"), c[1]));
    assertThat(h.connector.openEdges()).isEqualTo(3);
    assertThat(h.counter(EXPIRED)).isEqualTo(1);
    assertThat(h.counter(DROPPED)).isEqualTo(3);
    assertThat(h.counter(TOTAL_EDGES)).isEqualTo(4);
  }

  @Test
  void manyEdgesInAndOutKeepTheStoreConsistent() {
    Harness h = new Harness("store: {max_items: 50, ttl: 1s}");
    long pairs = 0;
    for (int round = 0; round < 40; round++) {
      Span.Builder[][] calls = new Span.Builder[30][];
      for (int i = 0; i < calls.length; i++) {
        calls[i] = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
        h.send(request(service("web"), calls[i][0]));
      }
      for (int i = 0; i < calls.length; i += 2) {
        h.send(request(service("api"), calls[i][1]));
        pairs++;
      }
      h.advance(Duration.ofSeconds(3));
    }
    assertThat(h.connector.openEdges()).isZero();
    long paired = pairs;
    assertThat(metric(h.flush(), RequestWriter.REQUEST_TOTAL).getSum().getDataPointsList())
        .filteredOn(p -> attributes(p.getAttributesList()).get("server").equals("api"))
        .singleElement()
        .satisfies(p -> assertThat(p.getAsInt()).isEqualTo(paired));
  }

  @Test
  void seriesWithoutRequestsForFifteenMinutesAreForgotten() {
    Harness h = new Harness("store_expiration_loop: 1h");
    Span.Builder[] c = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    h.send(request(service("web"), c[0], service("api"), c[1]));
    assertThat(h.flush().getResourceMetricsCount()).isEqualTo(1);
    h.advance(Duration.ofMinutes(16));
    int before = h.output.requests.size();
    h.advance(Duration.ofMinutes(2));
    assertThat(h.output.requests).hasSize(before);

    // The same edge again starts a new series, from 1.
    Span.Builder[] again = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    h.send(request(service("web"), again[0], service("api"), again[1]));
    Span.Builder[] other = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    h.send(request(service("web"), other[0], service("db"), other[1]));
    h.send(request(service("web"), again[0], service("api"), again[1]));
    List<NumberDataPoint> totals =
        metric(h.flush(), RequestWriter.REQUEST_TOTAL).getSum().getDataPointsList();
    assertThat(totals).hasSize(2);
    assertThat(totals.get(0).getAsInt()).isEqualTo(2);
    assertThat(attributes(totals.get(0).getAttributesList())).containsEntry("server", "api");
  }
}
