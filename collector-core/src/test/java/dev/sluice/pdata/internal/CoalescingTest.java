package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which blocks the marshaler writes for parts of requests merged into one batch. */
class CoalescingTest {
  private final OtlpIndexer indexer = new OtlpIndexer();

  @Test
  void partsOfTwoRequestsWithTheSameResourceAndScopeBecomeOneBlockOfEach() throws Exception {
    Batch first = batch(traces(block(resource("svc"), "", scope("lib"), "a", "b", "c")));
    Batch second = batch(traces(block(resource("svc"), "", scope("lib"), "d", "e")));
    first.moveTo(new Batch(Signal.TRACES), 1);
    Batch merged = new Batch(Signal.TRACES);
    merged.addAll(first);
    second.moveTo(merged, 1);

    ExportTraceServiceRequest output = marshal(merged);

    assertThat(output.getResourceSpansCount()).isEqualTo(1);
    assertThat(output.getResourceSpans(0).getResource()).isEqualTo(resource("svc"));
    assertThat(output.getResourceSpans(0).getScopeSpansCount()).isEqualTo(1);
    assertThat(output.getResourceSpans(0).getScopeSpans(0).getScope()).isEqualTo(scope("lib"));
    assertThat(spanNames(output)).containsExactly("b", "c", "d");
  }

  @Test
  void partsFromDifferentResourcesStaySeparateAndInOrder() throws Exception {
    Batch merged = new Batch(Signal.TRACES);
    merged.add(
        indexer.index(
            Signal.TRACES, traces(block(resource("a"), "", scope("lib"), "1")).toByteArray()));
    merged.add(
        indexer.index(
            Signal.TRACES, traces(block(resource("b"), "", scope("lib"), "2")).toByteArray()));
    merged.add(
        indexer.index(
            Signal.TRACES, traces(block(resource("a"), "", scope("lib"), "3")).toByteArray()));

    ExportTraceServiceRequest output = marshal(merged);

    assertThat(output.getResourceSpansList())
        .extracting(ResourceSpans::getResource)
        .containsExactly(resource("a"), resource("b"), resource("a"));
    assertThat(spanNames(output)).containsExactly("1", "2", "3");
  }

  @Test
  void sameResourceWithDifferentScopesIsOneResourceBlockWithTwoScopeBlocks() throws Exception {
    Batch merged = batch(traces(block(resource("svc"), "", scope("x"), "1")));
    merged.addAll(batch(traces(block(resource("svc"), "", scope("y"), "2"))));

    ExportTraceServiceRequest output = marshal(merged);

    assertThat(output.getResourceSpansCount()).isEqualTo(1);
    assertThat(output.getResourceSpans(0).getScopeSpansList())
        .extracting(ScopeSpans::getScope)
        .containsExactly(scope("x"), scope("y"));
  }

  @Test
  void headersThatDifferOnlyInSchemaUrlOrUnknownFieldsAreNotCoalesced() throws Exception {
    ResourceSpans plain = block(resource("svc"), "", scope("lib"), "1");
    ResourceSpans otherSchema = block(resource("svc"), "https://s/1", scope("lib"), "2");
    ResourceSpans withUnknown =
        block(resource("svc"), "", scope("lib"), "3").toBuilder()
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .mergeField(9, UnknownFieldSet.Field.newBuilder().addVarint(1).build())
                    .build())
            .build();
    Batch merged = batch(traces(plain));
    merged.addAll(batch(traces(otherSchema)));
    merged.addAll(batch(traces(withUnknown)));

    ExportTraceServiceRequest output = marshal(merged);

    assertThat(output.getResourceSpansList()).containsExactly(plain, otherSchema, withUnknown);
  }

  @Test
  void metricCutBetweenDataPointsAndPutBackInOrderComesBackAsOneMetric() throws Exception {
    Gauge.Builder gauge = Gauge.newBuilder();
    for (int i = 0; i < 4; i++) {
      gauge.addDataPoints(NumberDataPoint.newBuilder().setAsInt(i));
    }
    Metric metric = Metric.newBuilder().setName("m").setUnit("1").setGauge(gauge).build();
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(resource("svc"))
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder().setScope(scope("lib")).addMetrics(metric)))
            .build();
    Batch all = Batch.of(indexer.index(Signal.METRICS, request.toByteArray()));
    Batch merged = new Batch(Signal.METRICS);
    all.moveTo(merged, 1);
    merged.addAll(all);

    ExportMetricsServiceRequest output =
        ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(merged));

    assertThat(output.getResourceMetricsCount()).isEqualTo(1);
    assertThat(output.getResourceMetrics(0).getScopeMetricsCount()).isEqualTo(1);
    List<Metric> metrics = output.getResourceMetrics(0).getScopeMetrics(0).getMetricsList();
    assertThat(metrics).containsExactly(metric);
  }

  private Batch batch(ExportTraceServiceRequest request) throws Exception {
    return Batch.of(indexer.index(Signal.TRACES, request.toByteArray()));
  }

  private static ExportTraceServiceRequest marshal(Batch batch) throws Exception {
    return ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch));
  }

  private static List<String> spanNames(ExportTraceServiceRequest request) {
    List<String> names = new ArrayList<>();
    for (ResourceSpans resource : request.getResourceSpansList()) {
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        for (Span span : scope.getSpansList()) {
          names.add(span.getName());
        }
      }
    }
    return names;
  }

  private static ExportTraceServiceRequest traces(ResourceSpans... blocks) {
    return ExportTraceServiceRequest.newBuilder().addAllResourceSpans(List.of(blocks)).build();
  }

  private static ResourceSpans block(
      Resource resource, String schemaUrl, InstrumentationScope scope, String... spans) {
    ScopeSpans.Builder scopeSpans = ScopeSpans.newBuilder().setScope(scope);
    for (String name : spans) {
      scopeSpans.addSpans(Span.newBuilder().setName(name));
    }
    return ResourceSpans.newBuilder()
        .setResource(resource)
        .setSchemaUrl(schemaUrl)
        .addScopeSpans(scopeSpans)
        .build();
  }

  private static Resource resource(String service) {
    return Resource.newBuilder()
        .addAttributes(
            KeyValue.newBuilder()
                .setKey("service.name")
                .setValue(AnyValue.newBuilder().setStringValue(service)))
        .build();
  }

  private static InstrumentationScope scope(String name) {
    return InstrumentationScope.newBuilder().setName(name).setVersion("1.0").build();
  }
}
