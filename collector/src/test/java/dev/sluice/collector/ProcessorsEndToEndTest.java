package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each processor end to end: the real OpenTelemetry Java SDK sends spans and log records to a
 * collector running the processor, whose {@code file} exporter writes OTLP/JSON lines that are read
 * back with protobuf-java's JSON parser.
 */
class ProcessorsEndToEndTest {
  private static final int SPANS = 40;
  private static final int HEALTH_EVERY = 4;
  private static final int LOGS = 20;

  /** 40 spans (every 4th a health check), each with a user's e-mail; 20 logs, INFO and WARN. */
  private static void emit(FileSinkHarness.Endpoints endpoints) {
    io.opentelemetry.sdk.resources.Resource resource =
        io.opentelemetry.sdk.resources.Resource.create(
            Attributes.of(AttributeKey.stringKey("service.name"), "shop"));
    SdkTracerProvider tracers =
        SdkTracerProvider.builder()
            .setResource(resource)
            .addSpanProcessor(
                BatchSpanProcessor.builder(
                        OtlpGrpcSpanExporter.builder().setEndpoint(endpoints.grpc()).build())
                    .build())
            .build();
    SdkLoggerProvider loggers =
        SdkLoggerProvider.builder()
            .setResource(resource)
            .addLogRecordProcessor(
                BatchLogRecordProcessor.builder(
                        OtlpGrpcLogRecordExporter.builder().setEndpoint(endpoints.grpc()).build())
                    .build())
            .build();
    Tracer tracer = tracers.get("shop.http", "1.0");
    for (int i = 0; i < SPANS; i++) {
      boolean health = i % HEALTH_EVERY == 0;
      tracer
          .spanBuilder(health ? "GET /health" : "GET /cart")
          .setAttribute("http.route", health ? "/health" : "/cart")
          .setAttribute("user.email", "user" + i + "@example.com")
          .setAttribute("n", i)
          .startSpan()
          .end();
    }
    Logger logger = loggers.get("shop.log");
    for (int i = 0; i < LOGS; i++) {
      logger
          .logRecordBuilder()
          .setSeverity(i % 2 == 0 ? Severity.INFO : Severity.WARN)
          .setBody("log-" + i)
          .emit();
    }
    tracers.forceFlush().join(30, TimeUnit.SECONDS);
    loggers.forceFlush().join(30, TimeUnit.SECONDS);
    tracers.shutdown().join(30, TimeUnit.SECONDS);
    loggers.shutdown().join(30, TimeUnit.SECONDS);
  }

  private static FileSinkHarness.Written run(Path dir, String processorsYaml, String... names)
      throws Exception {
    return FileSinkHarness.run(
        FileSinkHarness.pipelines(processorsYaml, names), dir, ProcessorsEndToEndTest::emit);
  }

  /** For processors of traces and logs only: the harness's pipelines without the metrics one. */
  private static FileSinkHarness.Written runWithoutMetrics(
      Path dir, String processorsYaml, String... names) throws Exception {
    String yaml = FileSinkHarness.pipelines(processorsYaml, names);
    int metrics = yaml.indexOf("    metrics:\n      receivers:");
    int logs = yaml.indexOf("    logs:\n", metrics);
    return FileSinkHarness.run(
        yaml.substring(0, metrics) + yaml.substring(logs), dir, ProcessorsEndToEndTest::emit);
  }

  private static List<Span> spans(List<ExportTraceServiceRequest> traces) {
    List<Span> spans = new ArrayList<>();
    traces.forEach(
        r ->
            r.getResourceSpansList()
                .forEach(
                    rs -> rs.getScopeSpansList().forEach(s -> spans.addAll(s.getSpansList()))));
    return spans;
  }

  private static List<LogRecord> logs(List<ExportLogsServiceRequest> logs) {
    List<LogRecord> records = new ArrayList<>();
    logs.forEach(
        r ->
            r.getResourceLogsList()
                .forEach(
                    rl ->
                        rl.getScopeLogsList().forEach(s -> records.addAll(s.getLogRecordsList()))));
    return records;
  }

  private static List<Resource> resources(FileSinkHarness.Written written) {
    List<Resource> resources = new ArrayList<>();
    written
        .traces()
        .forEach(r -> r.getResourceSpansList().forEach(rs -> resources.add(rs.getResource())));
    written
        .logs()
        .forEach(r -> r.getResourceLogsList().forEach(rl -> resources.add(rl.getResource())));
    return resources;
  }

  private static Optional<String> string(List<KeyValue> attributes, String key) {
    return attributes.stream()
        .filter(a -> a.getKey().equals(key))
        .map(a -> a.getValue().getStringValue())
        .findFirst();
  }

  private static String sha256(String text) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void attributesUpsertsHashesAndDeletesInEverySpan(@TempDir Path dir) throws Exception {
    FileSinkHarness.Written written =
        run(
            dir,
            String.join(
                "\n",
                "  attributes:",
                "    actions:",
                "      - {key: deployment.environment, value: prod, action: upsert}",
                "      - {key: user.email, action: hash}",
                "      - {key: http.route, action: delete}"),
            "attributes");

    List<Span> spans = spans(written.traces());
    assertThat(spans).hasSize(SPANS);
    for (Span span : spans) {
      long n =
          span.getAttributesList().stream()
              .filter(a -> a.getKey().equals("n"))
              .findFirst()
              .orElseThrow()
              .getValue()
              .getIntValue();
      assertThat(string(span.getAttributesList(), "deployment.environment")).contains("prod");
      assertThat(string(span.getAttributesList(), "user.email"))
          .contains(sha256("user" + n + "@example.com"));
      assertThat(string(span.getAttributesList(), "http.route")).isEmpty();
    }
    // Log records went through the same processor: they gain the attribute too.
    assertThat(logs(written.logs()))
        .hasSize(LOGS)
        .allSatisfy(
            r ->
                assertThat(string(r.getAttributesList(), "deployment.environment"))
                    .contains("prod"));
  }

  @Test
  void resourceInsertsAnAttributeIntoEveryResource(@TempDir Path dir) throws Exception {
    FileSinkHarness.Written written =
        run(
            dir,
            String.join(
                "\n",
                "  resource:",
                "    attributes:",
                "      - {key: team, value: core, action: insert}",
                "      - {key: service.name, value: ignored, action: insert}"),
            "resource");

    assertThat(spans(written.traces())).hasSize(SPANS);
    assertThat(resources(written))
        .isNotEmpty()
        .allSatisfy(
            r -> {
              assertThat(string(r.getAttributesList(), "team")).contains("core");
              assertThat(string(r.getAttributesList(), "service.name")).contains("shop");
            });
  }

  @Test
  void resourceDetectionAddsTheHostsAttributes(@TempDir Path dir) throws Exception {
    FileSinkHarness.Written written =
        run(
            dir,
            String.join(
                "\n",
                "  resourcedetection:",
                "    detectors: [system]",
                "    system:",
                "      hostname_sources: [os]",
                "      resource_attributes:",
                "        host.arch: {enabled: true}"),
            "resourcedetection");

    assertThat(spans(written.traces())).hasSize(SPANS);
    assertThat(resources(written))
        .isNotEmpty()
        .allSatisfy(
            r -> {
              assertThat(string(r.getAttributesList(), "host.name")).get().asString().isNotBlank();
              assertThat(string(r.getAttributesList(), "os.type")).contains("linux");
              assertThat(string(r.getAttributesList(), "host.arch")).get().asString().isNotBlank();
              assertThat(string(r.getAttributesList(), "service.name")).contains("shop");
            });
  }

  @Test
  void filterDropsHealthChecksAndQuietLogs(@TempDir Path dir) throws Exception {
    FileSinkHarness.Written written =
        run(
            dir,
            String.join(
                "\n",
                "  filter:",
                "    error_mode: ignore",
                "    traces:",
                "      span:",
                "        - 'attributes[\"http.route\"] == \"/health\"'",
                "    logs:",
                "      log_record:",
                "        - severity_number < SEVERITY_NUMBER_WARN"),
            "filter");

    assertThat(spans(written.traces()))
        .hasSize(SPANS - SPANS / HEALTH_EVERY)
        .allSatisfy(span -> assertThat(span.getName()).isEqualTo("GET /cart"));
    assertThat(logs(written.logs()))
        .hasSize(LOGS / 2)
        .allSatisfy(
            r ->
                assertThat(r.getSeverityNumber())
                    .isEqualTo(io.opentelemetry.proto.logs.v1.SeverityNumber.SEVERITY_NUMBER_WARN));
  }

  @Test
  void theSamplerKeepsEverythingAtOneHundredPercentAndMarksIt(@TempDir Path dir) throws Exception {
    FileSinkHarness.Written written =
        runWithoutMetrics(
            dir,
            String.join(
                "\n",
                "  probabilistic_sampler:",
                "    sampling_percentage: 100",
                "    mode: proportional"),
            "probabilistic_sampler");

    assertThat(spans(written.traces()))
        .hasSize(SPANS)
        .allSatisfy(span -> assertThat(span.getTraceState()).contains("th:0"));
  }

  @Test
  void theSamplerKeepsNothingAtZeroPercent(@TempDir Path dir) throws Exception {
    FileSinkHarness.Written written =
        runWithoutMetrics(
            dir,
            String.join("\n", "  probabilistic_sampler:", "    sampling_percentage: 0"),
            "probabilistic_sampler");

    assertThat(spans(written.traces())).isEmpty();
  }

  @Test
  void transformSetsAttributesResourcesAndLogFields(@TempDir Path dir) throws Exception {
    FileSinkHarness.Written written =
        run(
            dir,
            String.join(
                "\n",
                "  transform:",
                "    error_mode: ignore",
                "    trace_statements:",
                "      - 'set(span.attributes[\"probe\"], \"yes\") where span.attributes[\"http.route\"] == \"/health\"'",
                "      - 'delete_key(span.attributes, \"user.email\")'",
                "      - context: resource",
                "        statements:",
                "          - 'set(attributes[\"deployment.environment.name\"], \"production\")'",
                "    log_statements:",
                "      - 'set(log.severity_text, \"LOUD\") where log.severity_number >= SEVERITY_NUMBER_WARN'",
                "      - 'set(log.body, Concat([\"seen\", log.body], \":\"))'"),
            "transform");

    List<Span> spans = spans(written.traces());
    assertThat(spans).hasSize(SPANS);
    assertThat(spans)
        .allSatisfy(
            span -> {
              assertThat(string(span.getAttributesList(), "user.email")).isEmpty();
              assertThat(string(span.getAttributesList(), "probe"))
                  .isEqualTo(
                      span.getName().equals("GET /health") ? Optional.of("yes") : Optional.empty());
            });
    // The resource group is one of the trace statements: the logs' resources stay as sent.
    assertThat(written.traces())
        .isNotEmpty()
        .allSatisfy(
            request ->
                request
                    .getResourceSpansList()
                    .forEach(
                        rs ->
                            assertThat(
                                    string(
                                        rs.getResource().getAttributesList(),
                                        "deployment.environment.name"))
                                .contains("production")));
    assertThat(written.logs())
        .allSatisfy(
            request ->
                request
                    .getResourceLogsList()
                    .forEach(
                        rl ->
                            assertThat(
                                    string(
                                        rl.getResource().getAttributesList(),
                                        "deployment.environment.name"))
                                .isEmpty()));
    List<LogRecord> records = logs(written.logs());
    assertThat(records).hasSize(LOGS);
    assertThat(records)
        .allSatisfy(
            r -> {
              assertThat(r.getBody().getStringValue()).startsWith("seen:log-");
              boolean loud =
                  r.getSeverityNumber()
                      == io.opentelemetry.proto.logs.v1.SeverityNumber.SEVERITY_NUMBER_WARN;
              if (loud) {
                assertThat(r.getSeverityText()).isEqualTo("LOUD");
              } else {
                assertThat(r.getSeverityText()).isNotEqualTo("LOUD");
              }
            });
  }
}
