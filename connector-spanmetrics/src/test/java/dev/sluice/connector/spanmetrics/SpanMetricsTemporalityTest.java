package dev.sluice.connector.spanmetrics;

import static dev.sluice.connector.spanmetrics.Harness.attributes;
import static dev.sluice.connector.spanmetrics.Harness.metric;
import static dev.sluice.connector.spanmetrics.Harness.request;
import static dev.sluice.connector.spanmetrics.Harness.service;
import static dev.sluice.connector.spanmetrics.Harness.span;
import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cumulative and delta series across flushes, their start times, and expiration. */
class SpanMetricsTemporalityTest {
  private static final long MS = 1_000_000L;
  private static final String CALLS = "traces.span.metrics.calls";
  private static final String DURATION = "traces.span.metrics.duration";

  private static NumberDataPoint call(ExportMetricsServiceRequest out, String spanName) {
    return metric(out, CALLS).getSum().getDataPointsList().stream()
        .filter(p -> attributes(p.getAttributesList()).get("span.name").equals(spanName))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no calls of " + spanName + " in " + out));
  }

  private static List<String> spanNames(ExportMetricsServiceRequest out) {
    return metric(out, CALLS).getSum().getDataPointsList().stream()
        .map(p -> attributes(p.getAttributesList()).get("span.name"))
        .toList();
  }

  @Test
  void cumulativeSeriesKeepTheirStartAndAddUp() {
    Harness h = new Harness("metrics_flush_interval: 10s");
    h.advance(Duration.ofSeconds(3));
    long created = h.unixNow();
    h.send(request(service("svc"), span("op", 2 * MS)));
    ExportMetricsServiceRequest first = h.flush();
    long firstFlush = h.unixNow();

    h.send(request(service("svc"), span("op", 4 * MS), span("op", 4 * MS)));
    ExportMetricsServiceRequest second = h.flush();
    long secondFlush = h.unixNow();

    assertThat(call(first, "op").getStartTimeUnixNano()).isEqualTo(created);
    assertThat(call(first, "op").getTimeUnixNano()).isEqualTo(firstFlush);
    assertThat(call(second, "op").getStartTimeUnixNano()).isEqualTo(created);
    assertThat(call(second, "op").getTimeUnixNano()).isEqualTo(secondFlush);
    assertThat(call(second, "op").getAsInt()).isEqualTo(3);
    HistogramDataPoint duration = metric(second, DURATION).getHistogram().getDataPoints(0);
    assertThat(duration.getStartTimeUnixNano()).isEqualTo(created);
    assertThat(duration.getCount()).isEqualTo(3);
    assertThat(duration.getSum()).isEqualTo(10.0);

    // Nothing new: a cumulative series is shown again as it is.
    ExportMetricsServiceRequest third = h.flush();
    assertThat(call(third, "op").getAsInt()).isEqualTo(3);
    assertThat(call(third, "op").getStartTimeUnixNano()).isEqualTo(created);
  }

  @Test
  void deltaSeriesCountEachIntervalFromTheLastFlush() {
    Harness h =
        new Harness(
            "aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA\nmetrics_flush_interval: 10s");
    h.advance(Duration.ofSeconds(2));
    long created = h.unixNow();
    h.send(request(service("svc"), span("op", 2 * MS), span("op", 2 * MS)));
    ExportMetricsServiceRequest first = h.flush();
    long firstFlush = h.unixNow();

    assertThat(metric(first, CALLS).getSum().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA);
    assertThat(metric(first, DURATION).getHistogram().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA);
    // Delta sums show their count at once.
    assertThat(call(first, "op").getAsInt()).isEqualTo(2);
    assertThat(call(first, "op").getStartTimeUnixNano()).isEqualTo(created);
    assertThat(call(first, "op").getTimeUnixNano()).isEqualTo(firstFlush);

    h.send(request(service("svc"), span("op", 6 * MS), span("other", MS)));
    ExportMetricsServiceRequest second = h.flush();
    long secondFlush = h.unixNow();

    assertThat(call(second, "op").getAsInt()).isEqualTo(1);
    assertThat(call(second, "op").getStartTimeUnixNano()).isEqualTo(firstFlush);
    assertThat(call(second, "op").getTimeUnixNano()).isEqualTo(secondFlush);
    HistogramDataPoint opDuration = metric(second, DURATION).getHistogram().getDataPoints(0);
    assertThat(opDuration.getCount()).isEqualTo(1);
    assertThat(opDuration.getSum()).isEqualTo(6.0);
    assertThat(opDuration.getStartTimeUnixNano()).isEqualTo(firstFlush);
    assertThat(call(second, "other").getAsInt()).isEqualTo(1);

    // An interval without spans hands nothing on.
    assertThat(h.tick()).isEmpty();
    h.send(request(service("svc"), span("other", MS)));
    ExportMetricsServiceRequest fourth = h.flush();
    assertThat(spanNames(fourth)).containsExactly("other");
    assertThat(call(fourth, "other").getAsInt()).isEqualTo(1);
  }

  @Test
  void aResourceWithoutSpansForMetricsExpirationIsEmittedOnceMoreAndForgotten() {
    Harness h = new Harness("metrics_flush_interval: 10s\nmetrics_expiration: 25s");
    h.send(request(service("old"), span("op", MS)));
    h.flush(); // t=10s
    h.send(request(service("live"), span("op", MS)));
    h.flush(); // t=20s: old seen 20s ago
    ExportMetricsServiceRequest third = h.flush(); // t=30s: old 30s ago, expires after this flush
    h.send(request(service("live"), span("op", MS)));
    ExportMetricsServiceRequest fourth = h.flush(); // t=40s

    assertThat(third.getResourceMetricsList())
        .extracting(r -> attributes(r.getResource().getAttributesList()).get("service.name"))
        .containsExactly("old", "live");
    assertThat(fourth.getResourceMetricsList())
        .extracting(r -> attributes(r.getResource().getAttributesList()).get("service.name"))
        .containsExactly("live");
  }

  @Test
  void aSeriesWithoutSpansForSeriesExpirationIsEmittedOnceMoreAndForgotten() {
    Harness h = new Harness("metrics_flush_interval: 10s\nseries_expiration: 15s");
    h.send(request(service("svc"), span("gone", MS), span("kept", MS)));
    h.flush(); // t=10s
    h.send(request(service("svc"), span("kept", MS)));
    ExportMetricsServiceRequest second = h.flush(); // t=20s: "gone" seen 20s ago
    h.send(request(service("svc"), span("kept", MS)));
    ExportMetricsServiceRequest third = h.flush();

    assertThat(spanNames(second)).containsExactly("gone", "kept");
    assertThat(spanNames(third)).containsExactly("kept");
    assertThat(call(third, "kept").getAsInt()).isEqualTo(3);
    assertThat(metric(third, DURATION).getHistogram().getDataPointsCount()).isEqualTo(1);
  }

  @Test
  void expiredSeriesComeBackWithANewStart() {
    Harness h = new Harness("metrics_flush_interval: 10s\nseries_expiration: 5s");
    h.send(request(service("svc"), span("op", MS)));
    h.flush(); // seen 10s ago: shown, then forgotten
    assertThat(h.tick()).isEmpty();
    long back = h.unixNow();
    h.send(request(service("svc"), span("op", MS)));
    ExportMetricsServiceRequest out = h.flush();

    NumberDataPoint point = call(out, "op");
    assertThat(point.getStartTimeUnixNano()).isEqualTo(back);
    assertThat(point.getAsInt()).isZero(); // a new cumulative series again starts at 0
    List<ResourceMetrics> resources = out.getResourceMetricsList();
    assertThat(resources).hasSize(1);
  }
}
