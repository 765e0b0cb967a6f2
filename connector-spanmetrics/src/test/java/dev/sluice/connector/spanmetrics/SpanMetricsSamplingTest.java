package dev.sluice.connector.spanmetrics;

import static dev.sluice.connector.spanmetrics.Harness.attributes;
import static dev.sluice.connector.spanmetrics.Harness.metric;
import static dev.sluice.connector.spanmetrics.Harness.request;
import static dev.sluice.connector.spanmetrics.Harness.service;
import static dev.sluice.connector.spanmetrics.Harness.span;
import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Spans sampled with an OpenTelemetry threshold in their tracestate count as what they stand for.
 */
class SpanMetricsSamplingTest {
  private static final long MS = 1_000_000L;
  private static final String DELTA = "aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA\n";

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "ot=th:8|2|extrapolated",
        "ot=th:c;rv:123456789abcde|4|extrapolated",
        "vendor=a:b , ot=rv:00000000000000;th:f|16|extrapolated",
        "ot=th:0|1|extrapolated",
        "ot=th:8,ot=th:0|1|extrapolated",
        "ot=th:|1|counted",
        "ot=th:123456789abcdef|1|counted",
        "ot=th:ZZ|1|counted",
        "ot=rv:abcdefabcdefab|1|counted",
        "vendor=th:8|1|counted",
      })
  void readsTheAdjustedCountFromTheThreshold(String traceState, long count, String method) {
    Harness h = new Harness(DELTA + "enable_metrics_sampling_method: true");
    h.send(request(service("svc"), span("op", MS).setTraceState(traceState)));

    NumberDataPoint point =
        metric(h.flush(), "traces.span.metrics.calls").getSum().getDataPoints(0);
    assertThat(point.getAsInt()).isEqualTo(count);
    assertThat(attributes(point.getAttributesList())).containsEntry("sampling.method", method);
  }

  @Test
  void aSampledSpanCountsAsTheSpansItStandsFor() {
    Harness h =
        new Harness(DELTA + "events: {enabled: true, dimensions: [{name: exception.type}]}");
    h.send(
        request(
            service("svc"),
            span("op", 3 * MS)
                .setTraceState("ot=th:c")
                .addEvents(Span.Event.newBuilder().setName("exception")),
            span("op", 5 * MS)));
    ExportMetricsServiceRequest out = h.flush();

    assertThat(metric(out, "traces.span.metrics.calls").getSum().getDataPoints(0).getAsInt())
        .isEqualTo(5);
    HistogramDataPoint duration =
        metric(out, "traces.span.metrics.duration").getHistogram().getDataPoints(0);
    assertThat(duration.getCount()).isEqualTo(5);
    assertThat(duration.getSum()).isEqualTo(4 * 3 + 5.0);
    assertThat(duration.getBucketCounts(1)).isEqualTo(4); // 3 ms, four times
    assertThat(metric(out, "traces.span.metrics.events").getSum().getDataPoints(0).getAsInt())
        .isEqualTo(4);
  }

  @Test
  void theSamplingMethodTellsExtrapolatedFromCountedSeries() {
    Harness h = new Harness(DELTA + "enable_metrics_sampling_method: true");
    h.send(
        request(
            service("svc"),
            span("op", MS).setTraceState("ot=th:8"),
            span("op", MS),
            span("op", MS).setTraceState("ot=th:0")));
    ExportMetricsServiceRequest out = h.flush();

    Map<String, Long> calls =
        metric(out, "traces.span.metrics.calls").getSum().getDataPointsList().stream()
            .collect(
                Collectors.toMap(
                    p -> attributes(p.getAttributesList()).get("sampling.method"),
                    NumberDataPoint::getAsInt));
    assertThat(calls).containsOnly(Map.entry("extrapolated", 3L), Map.entry("counted", 1L));
  }

  @Test
  void withoutTheSamplingMethodSampledAndCountedSpansShareASeries() {
    Harness h = new Harness(DELTA);
    h.send(request(service("svc"), span("op", MS).setTraceState("ot=th:8"), span("op", MS)));
    ExportMetricsServiceRequest out = h.flush();

    NumberDataPoint point = metric(out, "traces.span.metrics.calls").getSum().getDataPoints(0);
    assertThat(point.getAsInt()).isEqualTo(3);
    assertThat(attributes(point.getAttributesList())).doesNotContainKey("sampling.method");
  }

  @Test
  void aFractionalCountIsRoundedSoThatTheSumIsRightOnAverage() {
    Harness h = new Harness(DELTA);
    // th:55555555555555 keeps a span with probability 2/3: each stands for 1.5.
    List<Span.Builder> spans = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      spans.add(span("op", MS).setTraceState("ot=th:55555555555555"));
    }
    h.send(request(service("svc"), spans.toArray(Span.Builder[]::new)));

    long calls =
        metric(h.flush(), "traces.span.metrics.calls").getSum().getDataPoints(0).getAsInt();
    // 2000 + Binomial(2000, 1/2): mean 3000, standard deviation 22.4.
    assertThat(calls).isBetween(2850L, 3150L);
  }
}
