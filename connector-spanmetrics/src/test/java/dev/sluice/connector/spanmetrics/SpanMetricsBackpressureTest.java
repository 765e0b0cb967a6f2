package dev.sluice.connector.spanmetrics;

import static dev.sluice.connector.spanmetrics.Harness.metric;
import static dev.sluice.connector.spanmetrics.Harness.request;
import static dev.sluice.connector.spanmetrics.Harness.service;
import static dev.sluice.connector.spanmetrics.Harness.span;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.Admission;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import org.junit.jupiter.api.Test;

/**
 * When the metrics pipelines refuse a flush: the state is kept as it was, spans are refused with
 * nothing counted, and the flush the pipelines take later carries everything.
 */
class SpanMetricsBackpressureTest {
  private static final long MS = 1_000_000L;

  @Test
  void aRefusedFlushKeepsTheStateAndRefusesSpansUntilAFlushIsTaken() throws Exception {
    Harness h = new Harness("aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA");
    assertThat(h.send(request(service("svc"), span("op", 2 * MS), span("op", 2 * MS))))
        .isEqualTo(Admission.ACCEPTED);
    long intervalStart = h.unixNow();

    h.output.answer = Admission.FULL;
    assertThat(h.tick()).isEmpty();
    assertThat(h.output.offers).isEqualTo(1);
    assertThat(h.connector.refusing()).isTrue();

    // Refused whole and left unchanged: the sender still owns the batch and may offer it again.
    ExportTraceServiceRequest more = request(service("svc"), span("op", 4 * MS));
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, more.toByteArray()));
    assertThat(h.connector.consume(batch)).isEqualTo(Admission.FULL);
    assertThat(batch.unitCount()).isEqualTo(1);
    batch.clear();

    // The next tick offers again; still refused, still kept.
    assertThat(h.tick()).isEmpty();
    assertThat(h.output.offers).isEqualTo(2);

    h.output.answer = Admission.ACCEPTED;
    ExportMetricsServiceRequest taken = h.flush();
    assertThat(h.connector.refusing()).isFalse();
    assertThat(metric(taken, "traces.span.metrics.calls").getSum().getDataPoints(0).getAsInt())
        .isEqualTo(2);
    HistogramDataPoint duration =
        metric(taken, "traces.span.metrics.duration").getHistogram().getDataPoints(0);
    assertThat(duration.getCount()).isEqualTo(2);
    assertThat(duration.getSum()).isEqualTo(4.0);
    assertThat(duration.getStartTimeUnixNano()).isEqualTo(intervalStart);
    assertThat(duration.getTimeUnixNano()).isEqualTo(h.unixNow());

    // Spans are taken again, into a new interval.
    assertThat(h.send(more)).isEqualTo(Admission.ACCEPTED);
    ExportMetricsServiceRequest next = h.flush();
    assertThat(metric(next, "traces.span.metrics.calls").getSum().getDataPoints(0).getAsInt())
        .isEqualTo(1);
    assertThat(
            metric(next, "traces.span.metrics.calls")
                .getSum()
                .getDataPoints(0)
                .getStartTimeUnixNano())
        .isEqualTo(duration.getTimeUnixNano());
  }

  @Test
  void theSpansOfAFlushStayItsSourcesUntilAFlushThatCountedThemIsTaken() {
    Harness h = new Harness("aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA");
    h.send(request(service("svc"), span("op", MS), span("op", MS)));
    assertThat(h.output.sourceEvents).containsExactly("add 2");

    h.output.answer = Admission.FULL;
    assertThat(h.tick()).isEmpty();
    assertThat(h.output.sourceEvents).containsExactly("add 2", "consume");

    h.output.answer = Admission.ACCEPTED;
    h.flush();
    assertThat(h.output.sourceEvents).containsExactly("add 2", "consume", "consume", "release");

    // A last flush refused at shutdown leaves its sources held: they stay owed in the log.
    h.send(request(service("svc"), span("op", MS)));
    h.output.answer = Admission.FULL;
    h.connector.shutdown(System.nanoTime());
    assertThat(h.output.sourceEvents)
        .containsExactly("add 2", "consume", "consume", "release", "add 1", "consume");
  }

  @Test
  void aCumulativeFirstPointRefusedIsStillZeroWhenTaken() {
    Harness h = new Harness("");
    h.send(request(service("svc"), span("op", MS)));
    h.output.answer = Admission.FULL;
    h.tick();
    h.output.answer = Admission.ACCEPTED;

    ExportMetricsServiceRequest first = h.flush();
    ExportMetricsServiceRequest second = h.flush();
    assertThat(metric(first, "traces.span.metrics.calls").getSum().getDataPoints(0).getAsInt())
        .isZero();
    assertThat(metric(second, "traces.span.metrics.calls").getSum().getDataPoints(0).getAsInt())
        .isEqualTo(1);
  }

  @Test
  void aFlushThatThrowsLeavesTheTimerRunning() {
    Harness h = new Harness("aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA");
    h.send(request(service("svc"), span("op", MS)));
    h.output.throwNext = true;

    assertThatThrownBy(h::tick).isInstanceOf(IllegalStateException.class);

    // Nothing was reset: the next flush hands the span on.
    ExportMetricsServiceRequest next = h.flush();
    assertThat(metric(next, "traces.span.metrics.calls").getSum().getDataPoints(0).getAsInt())
        .isEqualTo(1);
  }

  @Test
  void shutdownFlushesOnceMoreAndThenRefusesAsClosed() {
    Harness h = new Harness("aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA");
    h.send(request(service("svc"), span("op", MS)));

    h.connector.shutdown(System.nanoTime());

    assertThat(h.output.requests).hasSize(1);
    assertThat(
            metric(h.output.requests.get(0), "traces.span.metrics.calls")
                .getSum()
                .getDataPoints(0)
                .getAsInt())
        .isEqualTo(1);
    assertThat(h.send(request(service("svc"), span("op", MS)))).isEqualTo(Admission.CLOSED);
    assertThat(h.scheduler.pendingTimers()).isZero();
  }
}
