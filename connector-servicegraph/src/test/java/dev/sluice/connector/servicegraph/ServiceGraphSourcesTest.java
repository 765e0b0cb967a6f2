package dev.sluice.connector.servicegraph;

import static dev.sluice.connector.servicegraph.Harness.attributes;
import static dev.sluice.connector.servicegraph.Harness.call;
import static dev.sluice.connector.servicegraph.Harness.index;
import static dev.sluice.connector.servicegraph.Harness.metric;
import static dev.sluice.connector.servicegraph.Harness.request;
import static dev.sluice.connector.servicegraph.Harness.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.pdata.codec.OtlpIndex;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What each flush is said to be made from, for the write-ahead log: a request whose span is half of
 * an edge waiting in the store stays owed (held by the connector's sources, or by a flush taken
 * that counted the edge) until the edge is decided, paired or expired, and a flush carrying it is
 * taken. The clock moves a second at a time: flushes every second, the store's expiration every
 * two, edges live five.
 */
class ServiceGraphSourcesTest {
  private static final String CONFIG =
      String.join("\n", "metrics_flush_interval: 1s", "store:", "  ttl: 5s", "");

  /** Long enough for any edge to be decided and a flush after it: ttl + 2 loops + a flush. */
  private static final int SECONDS_TO_DECIDE = 5 + 2 * 2 + 1;

  private static OtlpIndex clientHalf(Span.Builder[] call) {
    return index(request(service("web"), call[0]));
  }

  private static OtlpIndex serverHalf(Span.Builder[] call) {
    return index(request(service("api"), call[1]));
  }

  private static OtlpIndex wholeCall() {
    Span.Builder[] c = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    return index(request(service("web"), c[0], service("api"), c[1]));
  }

  private static Span.Builder[] aCall() {
    return call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
  }

  /** The requests counted for the edge {@code client} to {@code server} in {@code metrics}. */
  private static long requests(ExportMetricsServiceRequest metrics, String client, String server) {
    List<NumberDataPoint> points =
        metric(metrics, RequestWriter.REQUEST_TOTAL).getSum().getDataPointsList();
    long total = 0;
    for (NumberDataPoint point : points) {
      Map<String, String> attributes = attributes(point.getAttributesList());
      if (client.equals(attributes.get("client")) && server.equals(attributes.get("server"))) {
        total += point.getAsInt();
      }
    }
    return total;
  }

  @Test
  void aRequestWhoseSpanWaitsForItsOtherHalfIsNotLetGoOfByAFlush() {
    Harness h = new Harness(CONFIG);
    OtlpIndex complete = wholeCall();
    OtlpIndex half = clientHalf(aCall());
    assertThat(h.send(complete)).isEqualTo(Admission.ACCEPTED);
    assertThat(h.send(half)).isEqualTo(Admission.ACCEPTED);

    for (int second = 1; second <= 5; second++) {
      h.advance(Duration.ofSeconds(1));
      assertThat(h.connector.openEdges()).isEqualTo(1);
      assertThat(h.output.owed(half)).as("owed after %d s", second).isTrue();
      assertThat(h.output.madeFrom(half)).isEmpty();
    }
    assertThat(h.output.requests).as("flushes taken meanwhile").hasSize(5);
  }

  @Test
  void aRequestIsLetGoOfOnceItsPairIsCountedInAFlushTaken() {
    Harness h = new Harness(CONFIG);
    Span.Builder[] call = aCall();
    OtlpIndex client = clientHalf(call);
    OtlpIndex server = serverHalf(call);
    assertThat(h.send(client)).isEqualTo(Admission.ACCEPTED);
    h.advance(Duration.ofSeconds(1));
    h.advance(Duration.ofMillis(500));
    assertThat(h.output.owed(client)).as("owed while its edge waits").isTrue();
    assertThat(h.send(server)).isEqualTo(Admission.ACCEPTED);
    assertThat(h.connector.openEdges()).isZero();

    for (int second = 1; second <= SECONDS_TO_DECIDE; second++) {
      h.advance(Duration.ofSeconds(1));
      for (OtlpIndex half : List.of(client, server)) {
        List<ExportMetricsServiceRequest> made = h.output.madeFrom(half);
        assertThat(h.output.owed(half) || !made.isEmpty())
            .as("owed, or handed on, after %d s", second)
            .isTrue();
        for (ExportMetricsServiceRequest flush : made) {
          assertThat(requests(flush, "web", "api")).as("the pair in what was made from it").isOne();
        }
      }
    }
    assertThat(h.output.owed(client)).isFalse();
    assertThat(h.output.owed(server)).isFalse();
    assertThat(h.output.madeFrom(client)).hasSize(1);
    assertThat(h.connector.sourceGenerations()).isZero();
  }

  @Test
  void aRequestIsLetGoOfOnceItsExpiredEdgeIsCountedInAFlushTaken() {
    Harness h = new Harness(CONFIG);
    OtlpIndex half = clientHalf(aCall());
    assertThat(h.send(half)).isEqualTo(Admission.ACCEPTED);

    for (int second = 1; second <= SECONDS_TO_DECIDE; second++) {
      h.advance(Duration.ofSeconds(1));
      if (h.counter("otelcol_connector_servicegraph_expired_edges") == 0) {
        assertThat(h.output.owed(half)).as("owed before its edge expired, %d s", second).isTrue();
      }
    }
    assertThat(h.counter("otelcol_connector_servicegraph_expired_edges")).isOne();
    assertThat(h.output.owed(half)).isFalse();
    List<ExportMetricsServiceRequest> made = h.output.madeFrom(half);
    assertThat(made).hasSize(1);
    // Expired without a server: a virtual node's edge, counted as the Collector does.
    assertThat(requests(made.get(0), "web", "unknown")).isOne();
  }

  @Test
  void withAFlushAfterEveryBatchTheExpirationLoopHandsOnWhatIsDecided() {
    Harness h = new Harness("metrics_flush_interval: 0s\nstore:\n  ttl: 5s\n");
    OtlpIndex half = clientHalf(aCall());
    assertThat(h.send(half)).isEqualTo(Admission.ACCEPTED);
    assertThat(h.output.owed(half)).isTrue();

    h.advance(Duration.ofSeconds(4));
    assertThat(h.output.owed(half)).isTrue();
    h.advance(Duration.ofSeconds(2)); // the expiration at 6 s takes the edge out and flushes
    assertThat(h.output.owed(half)).isFalse();
    assertThat(requests(h.output.madeFrom(half).get(0), "web", "unknown")).isOne();
  }

  @Test
  void aRefusedFlushKeepsItsRequestsOwedAndOneTakenWhileAnEdgeWaitsKeepsThatOne() {
    Harness h = new Harness(CONFIG);
    OtlpIndex complete = wholeCall();
    OtlpIndex half = clientHalf(aCall());
    h.send(complete);
    h.send(half);

    h.output.answer = Admission.FULL;
    h.advance(Duration.ofSeconds(1));
    assertThat(h.connector.refusing()).isTrue();
    assertThat(h.output.owed(half)).isTrue();
    assertThat(h.output.owed(complete)).isTrue();

    // Taken while the half edge waits: neither request of its generation is let go of.
    h.output.answer = Admission.ACCEPTED;
    h.advance(Duration.ofSeconds(1));
    assertThat(h.connector.refusing()).isFalse();
    assertThat(h.output.owed(half)).isTrue();
    assertThat(h.output.owed(complete)).isTrue();

    // Refused once their edges are decided: still owed, and spans are refused.
    h.advance(Duration.ofMillis(3500));
    h.output.answer = Admission.FULL;
    h.advance(Duration.ofMillis(3500));
    assertThat(h.connector.sourceGenerations()).isZero();
    assertThat(h.connector.refusing()).isTrue();
    assertThat(h.send(wholeCall())).isEqualTo(Admission.FULL);
    assertThat(h.output.owed(half)).isTrue();
    assertThat(h.output.owed(complete)).isTrue();

    h.output.answer = Admission.ACCEPTED;
    h.advance(Duration.ofSeconds(1));
    assertThat(h.output.owed(half)).isFalse();
    assertThat(h.output.owed(complete)).isFalse();
    ExportMetricsServiceRequest taken = h.output.madeFrom(half).get(0);
    assertThat(h.output.madeFrom(complete)).containsExactly(taken);
    assertThat(requests(taken, "web", "api")).isOne();
    assertThat(requests(taken, "web", "unknown")).isOne();
  }
}
