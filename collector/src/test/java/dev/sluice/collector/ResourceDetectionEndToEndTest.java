package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.receiver.otlp.OtlpReceiver;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resourcedetection processor in a collector started from YAML: spans the SDK sends arrive at
 * the sink with the machine's os.type added and the application's own host.name kept (override
 * off).
 */
class ResourceDetectionEndToEndTest {
  private static final int SPANS = 20;

  @Test
  void spansFromTheSdkArriveWithTheDetectedAttributes(@TempDir Path dir) throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      Path config = dir.resolve("sluice.yaml");
      Files.writeString(
          config,
          String.join(
              "\n",
              "receivers:",
              "  otlp:",
              "    protocols:",
              "      grpc:",
              "        endpoint: 127.0.0.1:0",
              "processors:",
              "  resourcedetection:",
              "    detectors: [system]",
              "    override: false",
              "    system:",
              "      hostname_sources: [os]",
              "      resource_attributes:",
              "        host.arch: {enabled: true}",
              "  batch:",
              "    timeout: 50ms",
              "exporters:",
              "  otlp:",
              "    endpoint: " + sink.endpoint(),
              "    tls:",
              "      insecure: true",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      level: none",
              "  pipelines:",
              "    traces:",
              "      receivers: [otlp]",
              "      processors: [resourcedetection, batch]",
              "      exporters: [otlp]",
              ""));
      Collector collector = new Collector(Main.load(config), Collector.Options.defaults());
      collector.start();
      try {
        int port = ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).grpcPort();
        Resource resource =
            Resource.create(
                Attributes.of(
                    AttributeKey.stringKey("service.name"),
                    "checkout",
                    AttributeKey.stringKey("host.name"),
                    "app-host"));
        try (SdkTracerProvider tracer =
            SdkTracerProvider.builder()
                .setResource(resource)
                .addSpanProcessor(
                    BatchSpanProcessor.builder(
                            OtlpGrpcSpanExporter.builder()
                                .setEndpoint("http://127.0.0.1:" + port)
                                .build())
                        .build())
                .build()) {
          for (int i = 0; i < SPANS; i++) {
            tracer.get("e2e").spanBuilder("span-" + i).startSpan().end();
          }
          tracer.forceFlush().join(10, TimeUnit.SECONDS);
        }

        assertThat(sink.await(() -> sink.spans() >= SPANS, 30, TimeUnit.SECONDS))
            .as("spans %d", sink.spans())
            .isTrue();
        for (var request : sink.traces()) {
          for (ResourceSpans resourceSpans : request.getResourceSpansList()) {
            Map<String, String> attributes = new HashMap<>();
            for (KeyValue kv : resourceSpans.getResource().getAttributesList()) {
              assertThat(attributes.put(kv.getKey(), kv.getValue().getStringValue()))
                  .as("%s once", kv.getKey())
                  .isNull();
            }
            assertThat(attributes)
                .containsEntry("service.name", "checkout")
                .containsEntry("host.name", "app-host")
                .containsKeys("os.type", "host.arch");
            assertThat(attributes.get("os.type")).matches("[a-z_]+");
          }
        }
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }
}
