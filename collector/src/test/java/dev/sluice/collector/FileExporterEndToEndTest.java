package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.Await;
import dev.sluice.testkit.RandomRequests;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
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
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real OpenTelemetry Java SDK sends through Sluice (otlp receiver -> batch -> file exporter),
 * and the OTLP/JSON lines the file holds after a clean stop are read back with protobuf-java's JSON
 * parser: every span, log record and metric arrives once, with its resource, scope and attributes.
 */
class FileExporterEndToEndTest {
  private static final int SPANS = 3_000;
  private static final int LOGS = 2_000;
  private static final int COUNTER_ADDS = 50;

  @ParameterizedTest
  @ValueSource(strings = {"grpc", "http/protobuf"})
  void everyItemFromTheSdkIsInTheFileOnceWithResourceScopeAndAttributes(
      String protocol, @TempDir Path dir) throws Exception {
    FileSinkHarness.Written written =
        FileSinkHarness.run(
            FileSinkHarness.pipelines(""),
            dir,
            endpoints ->
                emit(
                    protocol.equals("grpc")
                        ? grpcExporters(endpoints.grpc())
                        : httpExporters(endpoints.http())));

    assertThat(written.spans()).isEqualTo(SPANS);
    assertThat(written.logRecords()).isEqualTo(LOGS);
    checkSpans(written.traces());
    checkLogs(written.logs());
    checkMetrics(written.metrics());
  }

  @Test
  void requestsSentThroughTheHarnessComeBackAsTheyWereSent(@TempDir Path dir) throws Exception {
    ExportTraceServiceRequest traces = SequencedSpans.request("svc", 0, 20);
    ExportMetricsServiceRequest metrics = RandomRequests.metrics(11);
    ExportLogsServiceRequest logs = RandomRequests.logs(12);

    FileSinkHarness.Written written =
        FileSinkHarness.run(FileSinkHarness.pipelines(""), dir, traces, metrics, logs);

    assertThat(written.traces()).containsExactly(traces);
    assertThat(written.metrics()).hasSize(1);
    assertThat(written.metrics().get(0).getResourceMetricsCount())
        .isEqualTo(metrics.getResourceMetricsCount());
    assertThat(written.logs()).hasSize(1);
    assertThat(written.logRecords())
        .isEqualTo(
            logs.getResourceLogsList().stream()
                .flatMap(r -> r.getScopeLogsList().stream())
                .mapToLong(ScopeLogs::getLogRecordsCount)
                .sum());
  }

  @Test
  void aWriteThatFailsIsRetriedUntilTheDirectoryIsBackAndArrivesOnce(@TempDir Path dir)
      throws Exception {
    Path sub = Files.createDirectory(dir.resolve("sub"));
    Path file = sub.resolve("traces.json");
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
            "    timeout: 10ms",
            "exporters:",
            "  file:",
            "    path: " + file,
            "    retry_on_failure:",
            "      initial_interval: 50ms",
            "      max_interval: 100ms",
            "service:",
            "  telemetry:",
            "    metrics:",
            "      level: none",
            "  pipelines:",
            "    traces:",
            "      receivers: [otlp]",
            "      processors: [batch]",
            "      exporters: [file]",
            "");
    ExportTraceServiceRequest request = SequencedSpans.request("svc", 0, 30);
    Collector collector = TestCollectors.start(yaml, Collector.Options.defaults());
    try {
      assertThat(TestCollectors.prometheus(collector))
          .contains("sluice_exporter_file_write_failures_total{exporter=\"file\"} 0");
      Files.delete(file);
      Files.delete(sub);
      ManagedChannel channel = TestCollectors.channel(collector);
      try {
        TraceServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .export(request);
      } finally {
        channel.shutdownNow();
      }
      Await.until(
          "a failed file write counted",
          () ->
              !TestCollectors.prometheus(collector)
                  .contains("sluice_exporter_file_write_failures_total{exporter=\"file\"} 0"));

      Files.createDirectory(sub);
      Await.until("the file written once its directory exists", () -> Files.exists(file));
    } finally {
      collector.shutdown(TimeUnit.SECONDS.toNanos(10));
    }

    assertThat(FileSinkHarness.read(file).traces()).containsExactly(request);
    assertThat(TestCollectors.prometheus(collector))
        .contains("otelcol_exporter_sent_spans_total{exporter=\"file\"} 30")
        .contains("otelcol_exporter_send_failed_spans_total{exporter=\"file\"} 0");
  }

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

  /** Emits the spans, log records and metrics and returns once the SDK has exported them. */
  private static void emit(Exporters exporters) {
    Resource resource =
        Resource.getDefault()
            .merge(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "files")));
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

    Tracer tracer = tracerProvider.get("files.tracer", "1.0.0");
    for (int i = 0; i < SPANS; i++) {
      Span span =
          tracer
              .spanBuilder("span-" + i)
              .setSpanKind(SpanKind.CLIENT)
              .setAttribute("file.index", i)
              .startSpan();
      span.end();
    }
    Logger logger = loggerProvider.get("files.logger");
    for (int i = 0; i < LOGS; i++) {
      logger
          .logRecordBuilder()
          .setBody("log-" + i)
          .setAttribute(AttributeKey.longKey("n"), (long) i)
          .emit();
    }
    Meter meter = meterProvider.get("files.meter");
    LongCounter writes = meter.counterBuilder("writes").build();
    for (int i = 0; i < COUNTER_ADDS; i++) {
      writes.add(2, Attributes.of(AttributeKey.stringKey("disk"), "d" + (i % 2)));
    }

    tracerProvider.forceFlush().join(30, TimeUnit.SECONDS);
    loggerProvider.forceFlush().join(30, TimeUnit.SECONDS);
    meterProvider.forceFlush().join(30, TimeUnit.SECONDS);
    tracerProvider.shutdown().join(30, TimeUnit.SECONDS);
    loggerProvider.shutdown().join(30, TimeUnit.SECONDS);
    meterProvider.shutdown().join(30, TimeUnit.SECONDS);
  }

  private static void checkSpans(List<ExportTraceServiceRequest> traces) {
    Map<String, Integer> seen = new HashMap<>();
    for (ExportTraceServiceRequest request : traces) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        assertThat(attribute(resource.getResource().getAttributesList(), "service.name"))
            .isEqualTo("files");
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          assertThat(scope.getScope().getName()).isEqualTo("files.tracer");
          assertThat(scope.getScope().getVersion()).isEqualTo("1.0.0");
          scope
              .getSpansList()
              .forEach(
                  span -> {
                    seen.merge(span.getName(), 1, Integer::sum);
                    assertThat(intAttribute(span.getAttributesList(), "file.index"))
                        .isEqualTo(Long.parseLong(span.getName().substring("span-".length())));
                    // The hex IDs of OTLP/JSON came back as the SDK's 16 and 8 bytes.
                    assertThat(span.getTraceId().size()).isEqualTo(16);
                    assertThat(span.getSpanId().size()).isEqualTo(8);
                  });
        }
      }
    }
    assertThat(seen).hasSize(SPANS);
    assertThat(seen.values()).allMatch(count -> count == 1);
  }

  private static void checkLogs(List<ExportLogsServiceRequest> logs) {
    Set<String> bodies = new HashSet<>();
    for (ExportLogsServiceRequest request : logs) {
      for (ResourceLogs resource : request.getResourceLogsList()) {
        assertThat(attribute(resource.getResource().getAttributesList(), "service.name"))
            .isEqualTo("files");
        for (ScopeLogs scope : resource.getScopeLogsList()) {
          assertThat(scope.getScope().getName()).isEqualTo("files.logger");
          for (LogRecord record : scope.getLogRecordsList()) {
            assertThat(bodies.add(record.getBody().getStringValue())).isTrue();
            assertThat(intAttribute(record.getAttributesList(), "n"))
                .isEqualTo(Long.parseLong(record.getBody().getStringValue().substring(4)));
          }
        }
      }
    }
    assertThat(bodies).hasSize(LOGS);
  }

  private static void checkMetrics(List<ExportMetricsServiceRequest> metrics) {
    Map<String, Long> sums = new HashMap<>();
    for (ExportMetricsServiceRequest request : metrics) {
      for (ResourceMetrics resource : request.getResourceMetricsList()) {
        assertThat(attribute(resource.getResource().getAttributesList(), "service.name"))
            .isEqualTo("files");
        for (ScopeMetrics scope : resource.getScopeMetricsList()) {
          if (!scope.getScope().getName().equals("files.meter")) {
            continue; // the SDK's own metrics about itself
          }
          for (Metric metric : scope.getMetricsList()) {
            assertThat(metric.getName()).isEqualTo("writes");
            for (NumberDataPoint point : metric.getSum().getDataPointsList()) {
              sums.merge(attribute(point.getAttributesList(), "disk"), point.getAsInt(), Long::max);
            }
          }
        }
      }
    }
    // Cumulative sums: each disk was added to COUNTER_ADDS / 2 times, by 2.
    assertThat(sums)
        .containsOnly(Map.entry("d0", (long) COUNTER_ADDS), Map.entry("d1", (long) COUNTER_ADDS));
  }

  private static String attribute(List<KeyValue> attributes, String key) {
    return attributes.stream()
        .filter(kv -> kv.getKey().equals(key))
        .map(kv -> kv.getValue().getStringValue())
        .findFirst()
        .orElse(null);
  }

  private static long intAttribute(List<KeyValue> attributes, String key) {
    return attributes.stream()
        .filter(kv -> kv.getKey().equals(key))
        .mapToLong(kv -> kv.getValue().getIntValue())
        .findFirst()
        .orElse(-1);
  }
}
