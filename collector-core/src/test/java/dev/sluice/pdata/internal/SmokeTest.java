package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
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
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import org.junit.jupiter.api.Test;

class SmokeTest {
  @Test
  void tracesRoundTrip() throws Exception {
    ScopeSpans.Builder scope =
        ScopeSpans.newBuilder()
            .setScope(InstrumentationScope.newBuilder().setName("lib"))
            .setSchemaUrl("https://x");
    for (int i = 0; i < 10; i++) {
      scope.addSpans(
          Span.newBuilder()
              .setTraceId(ByteString.copyFrom(new byte[16]))
              .setName("span" + i)
              .addAttributes(
                  KeyValue.newBuilder()
                      .setKey("k")
                      .setValue(AnyValue.newBuilder().setStringValue("v" + i))));
    }
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(
                        Resource.newBuilder()
                            .addAttributes(
                                KeyValue.newBuilder()
                                    .setKey("service.name")
                                    .setValue(AnyValue.newBuilder().setStringValue("svc"))))
                    .addScopeSpans(scope)
                    .setSchemaUrl("https://r"))
            .build();
    byte[] bytes = request.toByteArray();
    OtlpIndex index = new OtlpIndexer().index(Signal.TRACES, bytes);
    assertThat(index.unitCount()).isEqualTo(10);
    assertThat(OtlpMarshaler.toByteArray(Batch.of(index))).isEqualTo(bytes);

    Batch all = Batch.of(index);
    Batch a = new Batch(Signal.TRACES);
    Batch b = new Batch(Signal.TRACES);
    all.moveTo(a, 3);
    all.moveTo(b, 100);
    assertThat(a.unitCount()).isEqualTo(3);
    assertThat(b.unitCount()).isEqualTo(7);
    a.addAll(b);
    assertThat(ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(a)))
        .isEqualTo(request);
  }

  @Test
  void metricSplitBetweenDataPoints() throws Exception {
    Gauge.Builder gauge = Gauge.newBuilder();
    for (int i = 0; i < 5; i++) {
      gauge.addDataPoints(NumberDataPoint.newBuilder().setAsInt(i).setTimeUnixNano(i));
    }
    ExportMetricsServiceRequest request =
        OtlpTestData.metricsInOneScope(
            Metric.newBuilder().setName("m").setGauge(gauge), Metric.newBuilder().setName("empty"));
    byte[] bytes = request.toByteArray();
    OtlpIndex index = new OtlpIndexer().index(Signal.METRICS, bytes);
    assertThat(index.unitCount()).isEqualTo(5);
    Batch all = Batch.of(index);
    Batch a = new Batch(Signal.METRICS);
    all.moveTo(a, 2);
    ExportMetricsServiceRequest first =
        ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(a));
    ExportMetricsServiceRequest rest =
        ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(all));
    Metric m1 = first.getResourceMetrics(0).getScopeMetrics(0).getMetrics(0);
    assertThat(m1.getName()).isEqualTo("m");
    assertThat(m1.getGauge().getDataPointsCount()).isEqualTo(2);
    ScopeMetrics restScope = rest.getResourceMetrics(0).getScopeMetrics(0);
    assertThat(restScope.getMetrics(0).getGauge().getDataPointsList())
        .isEqualTo(gauge.getDataPointsList().subList(2, 5));
    assertThat(restScope.getMetrics(1).getName()).isEqualTo("empty");
  }
}
