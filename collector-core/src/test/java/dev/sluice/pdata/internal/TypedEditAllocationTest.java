package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.edit.DataPointEditor;
import dev.sluice.pdata.edit.SpanEditor;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanLinkView;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Typed edits allocate nothing per item once warm: a visit that changes many fields of each of a
 * thousand spans (names, status, IDs, attributes, an added event and link, removals by predicate),
 * or of each data point, costs what any visit of a fresh batch that replaces its items costs (the
 * batch, its overlay), whatever the number of items. The editors, their buffers and the rewrite
 * engine are the visit's own, reused from batch to batch on a thread.
 */
class TypedEditAllocationTest {
  private static final int POINTS_PER_METRIC = 500;

  /** The batch, its first slice and an overlay with its small per-block tables. */
  private static final long PER_VISIT_BYTES = 160 + 1024;

  private static final byte[] LINKED_TRACE = new byte[16];
  private static final byte[] LINKED_SPAN = new byte[8];
  private static final Predicate<SpanEventView> NAMED_RETRY = event -> event.nameEquals("retry");
  private static final Predicate<SpanLinkView> SAMPLED = link -> (link.flags() & 1) == 1;

  @Test
  void editingEverySpanOfAThousandAllocatesNothingPerSpan() throws Exception {
    OtlpIndex index =
        new OtlpIndexer().index(Signal.TRACES, OtlpTestData.realisticTraces(1, 1000).toByteArray());
    ItemVisitor edit =
        item -> {
          SpanEditor span = item.editSpan();
          span.setName("GET /api/v1/orders/{id} é")
              .setKind(OtlpEnums.SpanKind.CLIENT)
              .setStatus(OtlpEnums.StatusCode.ERROR, "upstream timed out")
              .setParentSpanId(item.item())
              .setFlags(0x301)
              .putAttribute("deployment.environment", "production")
              .putAttribute("http.response.status_code", 504L)
              .putAttribute("sampled", true)
              .removeAttribute("user_agent.original")
              .removeEvents(NAMED_RETRY)
              .removeLinks(SAMPLED);
          span.addEvent(item.item(), "timeout").addAttribute("timeout.ms", 250.5);
          span.addLink(LINKED_TRACE, LINKED_SPAN).setFlags(1);
        };

    assertThat(VisitAllocationTest.leastPerVisit(index, edit))
        .as("bytes per visit of a fresh batch changing 13 fields of each of 1000 spans")
        .isLessThanOrEqualTo(PER_VISIT_BYTES);
  }

  @Test
  void editingEveryDataPointAllocatesNothingPerPoint() throws Exception {
    Gauge.Builder gauge = Gauge.newBuilder();
    Histogram.Builder histogram = Histogram.newBuilder();
    for (int i = 0; i < POINTS_PER_METRIC; i++) {
      gauge.addDataPoints(OtlpTestData.numberPoint(i, i % 2 == 0));
      histogram.addDataPoints(
          HistogramDataPoint.newBuilder().setCount(i).addAllBucketCounts(List.of(1L, 2L)));
    }
    ExportMetricsServiceRequest request =
        OtlpTestData.metricsInOneScope(
            Metric.newBuilder().setName("g").setGauge(gauge),
            Metric.newBuilder().setName("h").setHistogram(histogram));
    OtlpIndex index = new OtlpIndexer().index(Signal.METRICS, request.toByteArray());
    ItemVisitor edit =
        item -> {
          DataPointEditor point = item.editDataPoint();
          point.setTimeUnixNano(1_700_000_000_000_000_000L).putAttribute("host", "a");
          if (item.metricDataField() == OtlpFields.Metric.GAUGE) {
            point.setIntValue(item.point());
          }
        };

    assertThat(VisitAllocationTest.leastPerVisit(index, edit))
        .as("bytes per visit of a fresh batch changing each of 1000 data points")
        .isLessThanOrEqualTo(PER_VISIT_BYTES);
  }
}
