package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.receiver.otlp.OtlpReceiver;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The {@code routing} connector in a running collector: two services' spans from the OpenTelemetry
 * Java SDK, batched together, are routed by the {@code service.name} resource attribute to two
 * pipelines, each with its own OTLP exporter and backend.
 */
class RoutingConnectorEndToEndTest {
  private static final int SPANS = 30;

  private static String exporter(String id, OtlpSink sink) {
    return String.join(
        "\n",
        "  " + id + ":",
        "    endpoint: " + sink.endpoint(),
        "    tls:",
        "      insecure: true",
        "    timeout: 60s",
        "    retry_on_failure:",
        "      initial_interval: 50ms",
        "      max_interval: 200ms",
        "      max_elapsed_time: 60s");
  }

  /** Each span a backend received as {@code service/scope/span}. */
  private static List<String> spans(OtlpSink sink) {
    List<String> spans = new ArrayList<>();
    for (ExportTraceServiceRequest request : sink.traces()) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        String service =
            resource.getResource().getAttributesList().stream()
                .filter(kv -> kv.getKey().equals("service.name"))
                .map(KeyValue::getValue)
                .map(v -> v.getStringValue())
                .findFirst()
                .orElse("?");
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            spans.add(service + "/" + scope.getScope().getName() + "/" + span.getName());
          }
        }
      }
    }
    return spans;
  }

  private static SdkTracerProvider tracers(String service, int port) {
    return SdkTracerProvider.builder()
        .setResource(
            Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), service)))
        .addSpanProcessor(
            BatchSpanProcessor.builder(
                    OtlpGrpcSpanExporter.builder().setEndpoint("http://127.0.0.1:" + port).build())
                .build())
        .build();
  }

  private static List<String> expected(String service) {
    return IntStream.range(0, SPANS)
        .mapToObj(i -> service + "/" + service + ".http/" + service + "-" + i)
        .toList();
  }

  @Test
  void spansOfEachServiceReachTheBackendOfTheirRoute() throws Exception {
    try (OtlpSink shop = OtlpSink.start();
        OtlpSink cart = OtlpSink.start()) {
      String yaml =
          String.join(
              "\n",
              "receivers:",
              "  otlp:",
              "    protocols:",
              "      grpc:",
              "        endpoint: 127.0.0.1:0",
              "processors:",
              "  batch:",
              "    timeout: 200ms",
              "exporters:",
              exporter("otlp/shop", shop),
              exporter("otlp/cart", cart),
              "connectors:",
              "  routing:",
              "    table:",
              "      - condition: attributes[\"service.name\"] == \"shop\"",
              "        pipelines: [traces/shop]",
              "      - context: resource",
              "        statement: route() where attributes[\"service.name\"] == \"cart\"",
              "        pipelines: [traces/cart]",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      level: none",
              "  pipelines:",
              "    traces/in:",
              "      receivers: [otlp]",
              "      processors: [batch]",
              "      exporters: [routing]",
              "    traces/shop:",
              "      receivers: [routing]",
              "      exporters: [otlp/shop]",
              "    traces/cart:",
              "      receivers: [routing]",
              "      exporters: [otlp/cart]",
              "");
      Collector collector = TestCollectors.start(yaml, Collector.Options.defaults());
      try {
        int port = ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).grpcPort();
        SdkTracerProvider shopTracers = tracers("shop", port);
        SdkTracerProvider cartTracers = tracers("cart", port);
        Tracer shopTracer = shopTracers.get("shop.http");
        Tracer cartTracer = cartTracers.get("cart.http");
        for (int i = 0; i < SPANS; i++) {
          shopTracer.spanBuilder("shop-" + i).startSpan().end();
          cartTracer.spanBuilder("cart-" + i).startSpan().end();
        }
        shopTracers.forceFlush().join(30, TimeUnit.SECONDS);
        cartTracers.forceFlush().join(30, TimeUnit.SECONDS);
        shopTracers.shutdown().join(30, TimeUnit.SECONDS);
        cartTracers.shutdown().join(30, TimeUnit.SECONDS);

        assertThat(shop.await(() -> shop.spans() >= SPANS, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(cart.await(() -> cart.spans() >= SPANS, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(spans(shop)).containsExactlyInAnyOrderElementsOf(expected("shop"));
        assertThat(spans(cart)).containsExactlyInAnyOrderElementsOf(expected("cart"));
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  private static SdkTracerProvider tracers(String service, SpanExporter exporter) {
    return SdkTracerProvider.builder()
        .setResource(
            Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), service)))
        .addSpanProcessor(BatchSpanProcessor.builder(exporter).build())
        .build();
  }

  @Test
  void requestRoutesFollowTheTenantHeaderOfEachRequestThroughTheBatchProcessor() throws Exception {
    try (OtlpSink acme = OtlpSink.start();
        OtlpSink other = OtlpSink.start()) {
      String yaml =
          String.join(
              "\n",
              "receivers:",
              "  otlp:",
              "    protocols:",
              "      grpc:",
              "        endpoint: 127.0.0.1:0",
              "        include_metadata: true",
              "      http:",
              "        endpoint: 127.0.0.1:0",
              "        include_metadata: true",
              "processors:",
              "  batch:",
              "    timeout: 200ms",
              "exporters:",
              exporter("otlp/acme", acme),
              exporter("otlp/other", other),
              "connectors:",
              "  routing:",
              "    default_pipelines: [traces/other]",
              "    table:",
              "      - context: request",
              "        condition: request[\"X-Tenant\"] == \"acme\"",
              "        pipelines: [traces/acme]",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      level: none",
              "  pipelines:",
              "    traces/in:",
              "      receivers: [otlp]",
              "      processors: [batch]",
              "      exporters: [routing]",
              "    traces/acme:",
              "      receivers: [routing]",
              "      exporters: [otlp/acme]",
              "    traces/other:",
              "      receivers: [routing]",
              "      exporters: [otlp/other]",
              "");
      Collector collector = TestCollectors.start(yaml, Collector.Options.defaults());
      try {
        OtlpReceiver receiver = (OtlpReceiver) collector.receiver(ComponentId.parse("otlp"));
        String grpc = "http://127.0.0.1:" + receiver.grpcPort();
        String http = "http://127.0.0.1:" + receiver.httpPort() + "/v1/traces";
        // Four senders, batched together by the collector: acme over gRPC and over HTTP, another
        // tenant over gRPC, and one without the header over HTTP.
        List<SdkTracerProvider> providers =
            List.of(
                tracers(
                    "grpc-acme",
                    OtlpGrpcSpanExporter.builder()
                        .setEndpoint(grpc)
                        .addHeader("X-Tenant", "acme")
                        .build()),
                tracers(
                    "http-acme",
                    OtlpHttpSpanExporter.builder()
                        .setEndpoint(http)
                        .addHeader("x-tenant", "acme")
                        .build()),
                tracers(
                    "grpc-globex",
                    OtlpGrpcSpanExporter.builder()
                        .setEndpoint(grpc)
                        .addHeader("X-Tenant", "globex")
                        .build()),
                tracers("http-none", OtlpHttpSpanExporter.builder().setEndpoint(http).build()));
        for (SdkTracerProvider provider : providers) {
          Tracer tracer = provider.get(provider == providers.get(0) ? "a" : "b");
          for (int i = 0; i < SPANS; i++) {
            tracer.spanBuilder("s-" + i).startSpan().end();
          }
        }
        for (SdkTracerProvider provider : providers) {
          provider.forceFlush().join(30, TimeUnit.SECONDS);
          provider.shutdown().join(30, TimeUnit.SECONDS);
        }

        assertThat(acme.await(() -> acme.spans() >= 2 * SPANS, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(other.await(() -> other.spans() >= 2 * SPANS, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(services(acme)).containsOnlyKeys("grpc-acme", "http-acme");
        assertThat(services(acme).values()).containsOnly((long) SPANS);
        assertThat(services(other)).containsOnlyKeys("grpc-globex", "http-none");
        assertThat(services(other).values()).containsOnly((long) SPANS);
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  /** Spans a backend received, counted by service. */
  private static Map<String, Long> services(OtlpSink sink) {
    return spans(sink).stream()
        .collect(Collectors.groupingBy(s -> s.substring(0, s.indexOf('/')), Collectors.counting()));
  }
}
