package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.receiver.otlp.OtlpReceiver;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter;
import io.opentelemetry.exporter.otlp.metrics.OtlpGrpcMetricExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.metrics.export.PeriodicMetricReader;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real OpenTelemetry Java SDK sends through Sluice, started from a YAML file the way the
 * command line starts it, to a grpc-java OTLP sink: every item arrives once, intact.
 */
class EndToEndTest {
  private static final int SPANS = 10_000;
  private static final int LOGS = 5_000;

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "http/protobuf"})
  void everyItemFromTheSdkArrivesOnceWithResourceScopeAndAttributes(
      String protocol, @TempDir Path dir) throws Exception {
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
              "      http:",
              "        endpoint: 127.0.0.1:0",
              "processors:",
              "  batch:",
              "    send_batch_size: 1000",
              "    send_batch_max_size: 1500",
              "    timeout: 50ms",
              "exporters:",
              "  otlp:",
              "    endpoint: " + sink.endpoint(),
              "    tls:",
              "      insecure: true",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      address: 127.0.0.1:0",
              "  pipelines:",
              "    traces:",
              "      receivers: [otlp]",
              "      processors: [batch]",
              "      exporters: [otlp]",
              "    metrics:",
              "      receivers: [otlp]",
              "      processors: [batch]",
              "      exporters: [otlp]",
              "    logs:",
              "      receivers: [otlp]",
              "      processors: [batch]",
              "      exporters: [otlp]",
              ""));
      Collector collector = new Collector(Main.load(config), Collector.Options.defaults());
      collector.start();
      try {
        OtlpReceiver receiver = (OtlpReceiver) collector.receiver(ComponentId.parse("otlp"));
        if (protocol.equals("grpc")) {
          emit(grpcExporters("http://127.0.0.1:" + receiver.grpcPort()));
        } else {
          emit(httpExporters("http://127.0.0.1:" + receiver.httpPort()));
        }

        assertThat(
                sink.await(
                    () -> sink.spans() >= SPANS && sink.logRecords() >= LOGS, 60, TimeUnit.SECONDS))
            .as("spans %d, log records %d", sink.spans(), sink.logRecords())
            .isTrue();
        assertThat(
                sink.await(
                    () ->
                        metricNames(sink).containsAll(Set.of("requests", "latency", "queue.depth")),
                    30,
                    TimeUnit.SECONDS))
            .isTrue();
        checkSpans(sink);
        checkLogs(sink);
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
      assertThat(sink.spans()).isEqualTo(SPANS);
      assertThat(sink.logRecords()).isEqualTo(LOGS);
    }
  }

  /** The SDK's exporters of one protocol. */
  private record Exporters(SpanExporter spans, LogRecordExporter logs, MetricExporter metrics) {}

  private static Exporters grpcExporters(String endpoint) {
    return new Exporters(
        OtlpGrpcSpanExporter.builder().setEndpoint(endpoint).build(),
        OtlpGrpcLogRecordExporter.builder().setEndpoint(endpoint).build(),
        OtlpGrpcMetricExporter.builder().setEndpoint(endpoint).build());
  }

  private static Exporters httpExporters(String base) {
    return new Exporters(
        OtlpHttpSpanExporter.builder().setEndpoint(base + "/v1/traces").build(),
        OtlpHttpLogRecordExporter.builder().setEndpoint(base + "/v1/logs").build(),
        OtlpHttpMetricExporter.builder().setEndpoint(base + "/v1/metrics").build());
  }

  private static void emit(Exporters exporters) {
    Resource resource =
        Resource.getDefault()
            .merge(
                Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "checkout")));
    SdkTracerProvider tracerProvider =
        SdkTracerProvider.builder()
            .setResource(resource)
            .addSpanProcessor(
                BatchSpanProcessor.builder(exporters.spans())
                    .setMaxQueueSize(SPANS)
                    .setMaxExportBatchSize(512)
                    .build())
            .build();
    SdkLoggerProvider loggerProvider =
        SdkLoggerProvider.builder()
            .setResource(resource)
            .addLogRecordProcessor(
                BatchLogRecordProcessor.builder(exporters.logs()).setMaxQueueSize(LOGS).build())
            .build();
    SdkMeterProvider meterProvider =
        SdkMeterProvider.builder()
            .setResource(resource)
            .registerMetricReader(
                PeriodicMetricReader.builder(exporters.metrics())
                    .setInterval(Duration.ofSeconds(60))
                    .build())
            .build();

    Tracer tracer = tracerProvider.get("shop.cart", "2.1.0");
    for (int i = 0; i < SPANS; i++) {
      Span span =
          tracer
              .spanBuilder("span-" + i)
              .setSpanKind(SpanKind.SERVER)
              .setAttribute("http.route", "/cart/{id}")
              .setAttribute("item.index", i)
              .startSpan();
      span.end();
    }
    Logger logger = loggerProvider.get("shop.audit");
    for (int i = 0; i < LOGS; i++) {
      logger
          .logRecordBuilder()
          .setBody("log-" + i)
          .setAttribute(AttributeKey.longKey("n"), (long) i)
          .emit();
    }
    Meter meter = meterProvider.get("shop.metrics");
    LongCounter requests = meter.counterBuilder("requests").build();
    DoubleHistogram latency = meter.histogramBuilder("latency").setUnit("ms").build();
    meter.gaugeBuilder("queue.depth").buildWithCallback(gauge -> gauge.record(7.0));
    for (int i = 0; i < 100; i++) {
      requests.add(1, Attributes.of(AttributeKey.stringKey("route"), "r" + (i % 3)));
      latency.record(i * 1.5);
    }

    tracerProvider.forceFlush().join(30, TimeUnit.SECONDS);
    loggerProvider.forceFlush().join(30, TimeUnit.SECONDS);
    meterProvider.forceFlush().join(30, TimeUnit.SECONDS);
    tracerProvider.shutdown().join(30, TimeUnit.SECONDS);
    loggerProvider.shutdown().join(30, TimeUnit.SECONDS);
    meterProvider.shutdown().join(30, TimeUnit.SECONDS);
  }

  private static void checkSpans(OtlpSink sink) {
    Map<String, Integer> seen = new HashMap<>();
    sink.traces()
        .forEach(
            request -> {
              for (ResourceSpans resource : request.getResourceSpansList()) {
                assertThat(attribute(resource.getResource().getAttributesList(), "service.name"))
                    .isEqualTo("checkout");
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                  assertThat(scope.getScope().getName()).isEqualTo("shop.cart");
                  assertThat(scope.getScope().getVersion()).isEqualTo("2.1.0");
                  scope
                      .getSpansList()
                      .forEach(
                          span -> {
                            seen.merge(span.getName(), 1, Integer::sum);
                            int index =
                                Integer.parseInt(span.getName().substring("span-".length()));
                            assertThat(attribute(span.getAttributesList(), "http.route"))
                                .isEqualTo("/cart/{id}");
                            assertThat(intAttribute(span.getAttributesList(), "item.index"))
                                .isEqualTo(index);
                            assertThat(span.getTraceId().size()).isEqualTo(16);
                          });
                }
              }
            });
    assertThat(seen).hasSize(SPANS);
    assertThat(seen.values()).allMatch(count -> count == 1);
  }

  private static void checkLogs(OtlpSink sink) {
    Set<String> bodies = new HashSet<>();
    sink.logs()
        .forEach(
            request -> {
              for (ResourceLogs resource : request.getResourceLogsList()) {
                assertThat(attribute(resource.getResource().getAttributesList(), "service.name"))
                    .isEqualTo("checkout");
                for (ScopeLogs scope : resource.getScopeLogsList()) {
                  assertThat(scope.getScope().getName()).isEqualTo("shop.audit");
                  for (LogRecord record : scope.getLogRecordsList()) {
                    assertThat(bodies.add(record.getBody().getStringValue())).isTrue();
                    assertThat(intAttribute(record.getAttributesList(), "n"))
                        .isEqualTo(Long.parseLong(record.getBody().getStringValue().substring(4)));
                  }
                }
              }
            });
    assertThat(bodies).hasSize(LOGS);
  }

  private static Set<String> metricNames(OtlpSink sink) {
    Set<String> names = new HashSet<>();
    sink.metrics()
        .forEach(
            request -> {
              for (ResourceMetrics resource : request.getResourceMetricsList()) {
                for (ScopeMetrics scope : resource.getScopeMetricsList()) {
                  for (Metric metric : scope.getMetricsList()) {
                    names.add(metric.getName());
                  }
                }
              }
            });
    return names;
  }

  private static String attribute(java.util.List<KeyValue> attributes, String key) {
    return attributes.stream()
        .filter(kv -> kv.getKey().equals(key))
        .map(kv -> kv.getValue().getStringValue())
        .findFirst()
        .orElse(null);
  }

  private static long intAttribute(java.util.List<KeyValue> attributes, String key) {
    return attributes.stream()
        .filter(kv -> kv.getKey().equals(key))
        .mapToLong(kv -> kv.getValue().getIntValue())
        .findFirst()
        .orElse(-1);
  }
}
