package dev.sluice.connector.spanmetrics;

import static dev.sluice.connector.spanmetrics.Harness.attribute;
import static dev.sluice.connector.spanmetrics.Harness.metric;
import static dev.sluice.connector.spanmetrics.Harness.request;
import static dev.sluice.connector.spanmetrics.Harness.service;
import static dev.sluice.connector.spanmetrics.Harness.span;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bounds on the state: series per metric and resource, and resources. */
class SpanMetricsLimitsTest {
  private static final long MS = 1_000_000L;

  private static final KeyValue OVERFLOW =
      KeyValue.newBuilder()
          .setKey("otel.metric.overflow")
          .setValue(AnyValue.newBuilder().setBoolValue(true))
          .build();

  @Test
  void seriesPastTheCardinalityLimitAreCountedIntoTheOverflowSeries() {
    Harness h =
        new Harness(
            "aggregation_cardinality_limit: 3\nexemplars: {enabled: true}\nhistogram: {unit: s}");
    List<Span.Builder> spans = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      spans.add(span("op-" + i, (i + 1) * 1000 * MS));
    }
    // Series already made keep counting past the limit.
    spans.add(span("op-0", 1000 * MS));
    spans.add(span("op-7", 8000 * MS));
    h.send(request(service("svc"), spans.toArray(Span.Builder[]::new)));
    h.flush();
    ExportMetricsServiceRequest out = h.flush();

    List<NumberDataPoint> calls =
        metric(out, "traces.span.metrics.calls").getSum().getDataPointsList();
    assertThat(calls).hasSize(4);
    assertThat(calls.subList(0, 3))
        .extracting(p -> Harness.attributes(p.getAttributesList()).get("span.name"))
        .containsExactly("op-0", "op-1", "op-2");
    assertThat(calls.get(0).getAsInt()).isEqualTo(2);
    NumberDataPoint overflow = calls.get(3);
    // Marked as the Collector marks it: one bool attribute, nothing else.
    assertThat(overflow.getAttributesList()).containsExactly(OVERFLOW);
    assertThat(overflow.getAsInt()).isEqualTo(6); // op-3 .. op-7, and op-7 again
    assertThat(overflow.getExemplarsCount()).isZero();

    List<HistogramDataPoint> durations =
        metric(out, "traces.span.metrics.duration").getHistogram().getDataPointsList();
    assertThat(durations).hasSize(4);
    HistogramDataPoint durationOverflow = durations.get(3);
    assertThat(durationOverflow.getAttributesList()).containsExactly(OVERFLOW);
    assertThat(durationOverflow.getCount()).isEqualTo(6);
    assertThat(durationOverflow.getSum()).isEqualTo(4 + 5 + 6 + 7 + 8 + 8.0);
  }

  @Test
  void theLimitIsPerResource() {
    Harness h = new Harness("aggregation_cardinality_limit: 1");
    h.send(request(service("a"), span("x", MS), span("y", MS)));
    h.send(request(service("b"), span("x", MS)));
    ExportMetricsServiceRequest out = h.flush();

    assertThat(out.getResourceMetricsList())
        .extracting(
            r -> metric(r, "traces.span.metrics.calls").orElseThrow().getSum().getDataPointsCount())
        .containsExactly(2, 1);
  }

  @Test
  void aDeltaLimitCountsTheSeriesOfTheInterval() {
    Harness h =
        new Harness(
            "aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA\naggregation_cardinality_limit: 1");
    h.send(request(service("svc"), span("a", MS), span("b", MS)));
    ExportMetricsServiceRequest first = h.flush();
    h.send(request(service("svc"), span("b", MS)));
    ExportMetricsServiceRequest second = h.flush();

    assertThat(metric(first, "traces.span.metrics.calls").getSum().getDataPointsList())
        .extracting(p -> Harness.attributes(p.getAttributesList()).get("span.name"))
        .containsExactly("a", null);
    // The interval starts empty: b now fits.
    assertThat(metric(second, "traces.span.metrics.calls").getSum().getDataPointsList())
        .extracting(p -> Harness.attributes(p.getAttributesList()).get("span.name"))
        .containsExactly("b");
  }

  @Test
  void moreResourcesThanTheBoundAreRefusedUntilTheNextFlush() {
    Harness h = new Harness("resource_metrics_cache_size: 2");
    // Two live, and two more evict the least recently used, which wait for the flush.
    for (int i = 0; i < 4; i++) {
      assertThat(h.send(request(service("s" + i), span("op", MS)))).isEqualTo(Admission.ACCEPTED);
    }
    // A fifth would exceed twice the bound: refused whole, nothing of it counted.
    assertThat(
            h.send(
                request(service("s1"), span("op", MS)).toBuilder()
                    .addResourceSpans(request(service("s4"), span("op", MS)).getResourceSpans(0))
                    .build()))
        .isEqualTo(Admission.FULL);
    // Held resources still count.
    assertThat(h.send(request(service("s3"), span("op", MS)))).isEqualTo(Admission.ACCEPTED);

    ExportMetricsServiceRequest out = h.flush();
    assertThat(out.getResourceMetricsList())
        .extracting(
            r -> Harness.attributes(r.getResource().getAttributesList()).get("service.name"))
        .containsExactly("s0", "s1", "s2", "s3");
    assertThat(
            metric(out.getResourceMetrics(1), "traces.span.metrics.duration")
                .orElseThrow()
                .getHistogram()
                .getDataPoints(0)
                .getCount())
        .isEqualTo(1);

    // The evicted ones were emitted once and forgotten: there is room again.
    assertThat(h.send(request(service("s4"), span("op", MS)))).isEqualTo(Admission.ACCEPTED);
    ExportMetricsServiceRequest next = h.flush();
    assertThat(next.getResourceMetricsList())
        .extracting(
            r -> Harness.attributes(r.getResource().getAttributesList()).get("service.name"))
        .containsExactly("s2", "s3", "s4");
  }

  @Test
  void aBatchOfMoreNewResourcesThanTheBoundIsTakenSinceNoFlushCouldMakeRoom() {
    Harness h = new Harness("resource_metrics_cache_size: 2");
    for (int i = 0; i < 4; i++) {
      h.send(request(service("s" + i), span("op", MS)));
    }
    var three = request(service("a"), span("op", MS)).toBuilder();
    three.addResourceSpans(request(service("b"), span("op", MS)).getResourceSpans(0));
    three.addResourceSpans(request(service("c"), span("op", MS)).getResourceSpans(0));
    var two = request(service("x"), span("op", MS)).toBuilder();
    two.addResourceSpans(request(service("y"), span("op", MS)).getResourceSpans(0));

    assertThat(h.send(two.build())).isEqualTo(Admission.FULL); // fits after a flush
    assertThat(h.send(three.build())).isEqualTo(Admission.ACCEPTED); // never would

    assertThat(h.flush().getResourceMetricsList())
        .extracting(
            r -> Harness.attributes(r.getResource().getAttributesList()).get("service.name"))
        .containsExactly("s0", "s1", "s2", "s3", "a", "b", "c");
    assertThat(h.send(two.build())).isEqualTo(Admission.ACCEPTED);
  }

  @Test
  void aResourceDimensionIsReadFromEachResourceBlock() {
    Harness h =
        new Harness("resource_metrics_key_attributes: [service.name]\ndimensions: [{name: pod}]");
    h.send(
        request(service("svc", attribute("pod", "p1")), span("op", MS)).toBuilder()
            .addResourceSpans(
                request(service("svc", attribute("pod", "p2")), span("op", MS)).getResourceSpans(0))
            .build());
    h.flush();

    assertThat(metric(h.flush(), "traces.span.metrics.calls").getSum().getDataPointsList())
        .extracting(p -> Harness.attributes(p.getAttributesList()).get("pod"))
        .containsExactly("p1", "p2");
  }
}
