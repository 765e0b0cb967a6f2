package dev.sluice.connector.servicegraph;

import static dev.sluice.connector.servicegraph.Harness.call;
import static dev.sluice.connector.servicegraph.Harness.metric;
import static dev.sluice.connector.servicegraph.Harness.request;
import static dev.sluice.connector.servicegraph.Harness.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.pdata.Batch;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import org.junit.jupiter.api.Test;

/**
 * When the metrics pipelines refuse a flush: spans are refused with nothing paired, the state is
 * kept, and the flush taken later carries everything once.
 */
class ServiceGraphBackpressureTest {
  private static ExportTraceServiceRequest aCall() {
    Span.Builder[] c = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3, 2);
    return request(service("web"), c[0], service("api"), c[1]);
  }

  @Test
  void aRefusedFlushRefusesSpansAndLeavesNoTrace() {
    Harness h = new Harness("");
    assertThat(h.send(aCall())).isEqualTo(Admission.ACCEPTED);

    h.output.answer = Admission.FULL;
    assertThat(h.tick()).isEmpty();
    assertThat(h.connector.refusing()).isTrue();

    // Refused whole and unchanged: the sender still owns the batch and offers it again later.
    ExportTraceServiceRequest retried = aCall();
    Batch batch = Harness.batch(retried);
    assertThat(h.connector.consume(batch)).isEqualTo(Admission.FULL);
    assertThat(batch.unitCount()).isEqualTo(2);
    batch.clear();
    assertThat(h.connector.openEdges()).isZero();
    assertThat(h.counter("otelcol_connector_servicegraph_total_edges")).isEqualTo(1);

    assertThat(h.tick()).isEmpty();
    assertThat(h.output.offers).isEqualTo(2);

    h.output.answer = Admission.ACCEPTED;
    ExportMetricsServiceRequest taken = h.flush();
    assertThat(h.connector.refusing()).isFalse();
    assertThat(metric(taken, RequestWriter.REQUEST_TOTAL).getSum().getDataPoints(0).getAsInt())
        .isEqualTo(1);

    // The retried batch is counted once, when it is taken.
    assertThat(h.send(retried)).isEqualTo(Admission.ACCEPTED);
    assertThat(metric(h.flush(), RequestWriter.REQUEST_TOTAL).getSum().getDataPoints(0).getAsInt())
        .isEqualTo(2);
  }

  @Test
  void withAFlushAfterEveryBatchARefusalIsRetriedOnTheExpirationLoop() {
    Harness h = new Harness("metrics_flush_interval: 0s");
    h.output.answer = Admission.FULL;
    assertThat(h.send(aCall())).isEqualTo(Admission.ACCEPTED);
    assertThat(h.output.offers).isEqualTo(1);
    assertThat(h.send(aCall())).isEqualTo(Admission.FULL);

    h.output.answer = Admission.ACCEPTED;
    h.advance(java.time.Duration.ofSeconds(2));
    assertThat(h.connector.refusing()).isFalse();
    assertThat(h.output.requests).hasSize(1);
    assertThat(h.send(aCall())).isEqualTo(Admission.ACCEPTED);
    assertThat(h.output.requests).hasSize(2);
    assertThat(
            metric(h.output.requests.get(1), RequestWriter.REQUEST_TOTAL)
                .getSum()
                .getDataPoints(0)
                .getAsInt())
        .isEqualTo(2);
  }

  @Test
  void seriesAreNotForgottenAsStaleWhileFlushesAreRefused() {
    Harness h = new Harness("");
    assertThat(h.send(aCall())).isEqualTo(Admission.ACCEPTED);
    h.output.answer = Admission.FULL;
    h.advance(java.time.Duration.ofMinutes(17)); // past the 15 minutes, with cache_loop ticks
    assertThat(h.connector.refusing()).isTrue();

    h.output.answer = Admission.ACCEPTED;
    ExportMetricsServiceRequest taken = h.flush();
    assertThat(metric(taken, RequestWriter.REQUEST_TOTAL).getSum().getDataPoints(0).getAsInt())
        .isEqualTo(1);
  }

  @Test
  void shutdownFlushesOnceMoreAndThenRefusesAsClosed() {
    Harness h = new Harness("");
    h.send(aCall());
    h.connector.shutdown(System.nanoTime());
    assertThat(h.output.requests).hasSize(1);
    assertThat(h.send(aCall())).isEqualTo(Admission.CLOSED);
    assertThat(h.scheduler.pendingTimers()).isZero();
  }
}
