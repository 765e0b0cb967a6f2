package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import dev.sluice.pdata.view.AttributeCursor;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Views read a batch as it will be written: what an edit replaced (items, data points, resource and
 * scope headers) is what a later visit, or the same visit after the edit, sees.
 */
class EditsSeenByViewsTest {
  private final OtlpIndexer indexer = new OtlpIndexer();
  private final AttributeCursor attributes = new AttributeCursor();

  private Batch traces() throws Exception {
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(BatchEditTest.resource("svc-a"))
                    .setSchemaUrl("https://schema/a")
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .setScope(InstrumentationScope.newBuilder().setName("lib-1"))
                            .addSpans(BatchEditTest.span("a1"))
                            .addSpans(BatchEditTest.span("a2")))
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .setScope(InstrumentationScope.newBuilder().setName("lib-2"))
                            .addSpans(BatchEditTest.span("b1"))))
            .build();
    return Batch.of(indexer.index(Signal.TRACES, request.toByteArray()));
  }

  private static String stringAttribute(AttributeCursor cursor, String key) {
    return cursor.find(key) ? cursor.value().stringValue().toString() : null;
  }

  @Test
  void aLaterVisitReadsReplacedSpansAndHeaders() throws Exception {
    Batch batch = traces();
    AttributeActions editor =
        AttributeActions.builder().upsert("env", AttributeValue.string("prod")).build();
    AttributeActions resourceEditor =
        AttributeActions.builder().upsert("host.name", AttributeValue.string("h1")).build();
    batch.visit(
        item -> {
          ActionVisitors.apply(item, editor);
          if (!item.resourceReplacedInThisVisit()) {
            item.editResource().apply(resourceEditor);
          }
        });

    List<String> seen = new ArrayList<>();
    new BatchView()
        .forEachSpan(
            batch,
            (resource, scope, span) ->
                seen.add(
                    span.name()
                        + " env="
                        + stringAttribute(span.attributes(attributes), "env")
                        + " host="
                        + stringAttribute(resource.attributes(attributes), "host.name")
                        + " schema="
                        + resource.schemaUrl()
                        + " scope="
                        + scope.name()));

    assertThat(seen)
        .containsExactly(
            "a1 env=prod host=h1 schema=https://schema/a scope=lib-1",
            "a2 env=prod host=h1 schema=https://schema/a scope=lib-1",
            "b1 env=prod host=h1 schema=https://schema/a scope=lib-2");
    batch.clear();
  }

  @Test
  void theItemsViewsReadAnEditMadeEarlierInTheSameVisit() throws Exception {
    Batch batch = traces();
    AttributeActions editor =
        AttributeActions.builder().upsert("env", AttributeValue.string("dev")).build();
    AttributeActions resourceEditor =
        AttributeActions.builder().upsert("zone", AttributeValue.string("z1")).build();
    AttributeActions scopeEditor =
        AttributeActions.builder().upsert("s", AttributeValue.string("x")).build();
    List<String> seen = new ArrayList<>();

    batch.visit(
        item -> {
          String before = stringAttribute(item.span().attributes(attributes), "env");
          ActionVisitors.apply(item, editor);
          if (!item.resourceReplacedInThisVisit()) {
            item.editResource().apply(resourceEditor);
          }
          if (!item.scopeReplacedInThisVisit()) {
            item.editScope().apply(scopeEditor);
          }
          seen.add(
              item.span().name()
                  + " "
                  + before
                  + "->"
                  + stringAttribute(item.span().attributes(attributes), "env")
                  + " zone="
                  + stringAttribute(item.resourceView().attributes(attributes), "zone")
                  + " s="
                  + stringAttribute(item.scopeView().attributes(attributes), "s")
                  + " scope="
                  + item.scopeView().name());
        });

    assertThat(seen)
        .containsExactly(
            "a1 null->dev zone=z1 s=x scope=lib-1",
            "a2 null->dev zone=z1 s=x scope=lib-1",
            "b1 null->dev zone=z1 s=x scope=lib-2");
    batch.clear();
  }

  @Test
  void theSpanAskedForAgainInOneVisitReadsTheItemsCurrentBytes() throws Exception {
    Batch batch = traces();
    List<String> seen = new ArrayList<>();

    batch.visit(
        item -> {
          // Asked for several times, as policies reading one span in turn ask for it: each read is
          // of this item, and a typed edit made between two reads is seen by the second.
          String first = item.span().name().asString();
          long start = item.span().startTimeUnixNano();
          item.editSpan().setName(first + "-renamed");
          String second = item.span().name().asString();
          seen.add(first + "/" + second + "/" + (item.span().startTimeUnixNano() == start));
        });

    assertThat(seen)
        .containsExactly("a1/a1-renamed/true", "a2/a2-renamed/true", "b1/b1-renamed/true");
    List<String> names = new ArrayList<>();
    batch.visit(item -> names.add(item.span().name().asString()));
    assertThat(names).containsExactly("a1-renamed", "a2-renamed", "b1-renamed");
    batch.clear();
  }

  private static Metric gauge(String name, int points) {
    Gauge.Builder gauge = Gauge.newBuilder();
    for (int i = 0; i < points; i++) {
      gauge.addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(i + 1).setAsInt(i));
    }
    return Metric.newBuilder().setName(name).setUnit("1").setGauge(gauge).build();
  }

  @Test
  void replacedDataPointsAreReadByLaterVisitsAndWrittenByTheMetricView() throws Exception {
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(BatchEditTest.resource("svc"))
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder()
                            .addMetrics(gauge("m0", 3))
                            .addMetrics(gauge("m1", 2))))
            .build();
    Batch batch = Batch.of(indexer.index(Signal.METRICS, request.toByteArray()));
    byte[] replacement = NumberDataPoint.newBuilder().setAsInt(42).build().toByteArray();

    batch.visit(
        item -> {
          if (item.item() == 0 && item.point() == 1) {
            assertThat(item.dataPoint().intValue()).isEqualTo(1);
            item.replace(replacement, 0, replacement.length);
            assertThat(item.dataPoint().intValue()).isEqualTo(42);
          }
        });

    List<Long> values = new ArrayList<>();
    new BatchView()
        .forEachDataPoint(batch, (resource, scope, metric, point) -> values.add(point.intValue()));
    assertThat(values).containsExactly(0L, 42L, 2L, 0L, 1L);

    List<Metric> written = new ArrayList<>();
    new BatchView()
        .forEachMetric(
            batch,
            (resource, scope, metric) -> {
              dev.sluice.pdata.internal.ProtoWriter out =
                  new dev.sluice.pdata.internal.ProtoWriter(64);
              metric.writeTo(out);
              try {
                written.add(Metric.parseFrom(out.toByteArray()));
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    ExportMetricsServiceRequest marshaled =
        ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch));
    assertThat(written)
        .isEqualTo(marshaled.getResourceMetrics(0).getScopeMetrics(0).getMetricsList());
    assertThat(written.get(0).getGauge().getDataPoints(1).getAsInt()).isEqualTo(42);
    batch.clear();
  }
}
