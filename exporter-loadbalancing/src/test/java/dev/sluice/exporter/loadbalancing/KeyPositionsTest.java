package dev.sluice.exporter.loadbalancing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
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
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Ring positions read through the views. The expected numbers are CRC-32 (IEEE) of the key's bytes
 * modulo 36000, computed apart with Python's zlib.crc32: the bytes the Go exporter hashes.
 */
class KeyPositionsTest {
  private final KeyPositions positions = new KeyPositions();
  private final BatchView views = new BatchView();

  private static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static Batch batch(Signal signal, com.google.protobuf.Message request) {
    try {
      return Batch.of(new OtlpIndexer().index(signal, request.toByteArray()));
    } catch (MalformedOtlpException e) {
      throw new AssertionError(e);
    }
  }

  private static ResourceSpans resourceSpans(List<KeyValue> attributes, byte[] traceId) {
    return ResourceSpans.newBuilder()
        .setResource(Resource.newBuilder().addAllAttributes(attributes))
        .addScopeSpans(
            ScopeSpans.newBuilder()
                .addSpans(
                    Span.newBuilder()
                        .setTraceId(ByteString.copyFrom(traceId))
                        .setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
                        .setName("s")))
        .build();
  }

  @Test
  void tracesAndServicesHashTheBytesTheGoExporterHashes() {
    byte[] w3c = HexFormat.of().parseHex("4bf92f3577b34da6a3ce929d0e0e4736");
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(resourceSpans(List.of(attribute("service.name", "checkout")), w3c))
            .addResourceSpans(resourceSpans(List.of(attribute("host.name", "a")), new byte[16]))
            .build();
    Batch batch = batch(Signal.TRACES, request);
    List<Integer> spans = new ArrayList<>();
    List<Integer> services = new ArrayList<>();

    views.forEachSpan(
        batch,
        (resource, scope, span) -> {
          spans.add(positions.ofSpan(span));
          services.add(positions.ofService(resource));
        });
    batch.clear();

    assertThat(spans).containsExactly(4869, 33493);
    // No service.name: the empty key, as in the Go exporter.
    assertThat(services).containsExactly(6414, 0);
  }

  @Test
  void metricsHashTheirNameAndResourcesTheirAttributesInAnyOrder() {
    Metric metric =
        Metric.newBuilder()
            .setName("http.server.duration")
            .setGauge(Gauge.newBuilder().addDataPoints(NumberDataPoint.newBuilder().setAsInt(1)))
            .build();
    List<KeyValue> ab = List.of(attribute("service.name", "a"), attribute("zone", "b"));
    List<KeyValue> ba = List.of(attribute("zone", "b"), attribute("service.name", "a"));
    List<KeyValue> other = List.of(attribute("service.name", "a"), attribute("zone", "c"));
    ExportMetricsServiceRequest.Builder request = ExportMetricsServiceRequest.newBuilder();
    for (List<KeyValue> attributes : List.of(ab, ba, other)) {
      request.addResourceMetrics(
          ResourceMetrics.newBuilder()
              .setResource(Resource.newBuilder().addAllAttributes(attributes))
              .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(metric)));
    }
    Batch batch = batch(Signal.METRICS, request.build());
    List<Integer> names = new ArrayList<>();
    List<Integer> resources = new ArrayList<>();

    views.forEachMetric(
        batch,
        (resource, scope, m) -> {
          names.add(positions.ofMetric(m));
          resources.add(positions.ofResource(resource));
        });
    batch.clear();

    assertThat(names).containsExactly(21936, 21936, 21936);
    assertThat(resources.get(0)).isEqualTo(resources.get(1));
    assertThat(resources.get(2)).isNotEqualTo(resources.get(0));
  }
}
