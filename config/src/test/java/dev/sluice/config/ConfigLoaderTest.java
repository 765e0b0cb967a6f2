package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.config.fixtures.DebugExporterFactory;
import dev.sluice.config.fixtures.HealthCheckExtensionFactory;
import dev.sluice.config.fixtures.OtlpExporterFactory;
import dev.sluice.config.fixtures.OtlpReceiverFactory;
import dev.sluice.pdata.Signal;
import dev.sluice.processor.batch.BatchConfig;
import dev.sluice.processor.batch.BatchProcessorFactory;
import dev.sluice.processor.memorylimiter.MemoryLimiterConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  static final String TYPICAL =
      """
      extensions:
        health_check:
          endpoint: 0.0.0.0:13133

      receivers:
        otlp:
          protocols:
            grpc:
              endpoint: 0.0.0.0:4317
            http:
              endpoint: 0.0.0.0:4318
              cors:
                allowed_origins: ["https://*.example.com"]

      processors:
        memory_limiter:
          check_interval: 1s
          limit_mib: 4000
          spike_limit_mib: 800
        batch:
          send_batch_size: 10000
          timeout: 10s

      exporters:
        otlp:
          endpoint: ${env:BACKEND}:4317
          compression: zstd
          tls:
            insecure: false
            ca_file: /etc/ssl/ca.pem
          headers:
            authorization: "Bearer ${env:TOKEN}"
            x-tenant: "42"
          timeout: 15s
          sending_queue:
            enabled: true
            num_consumers: 4
            queue_size: 5000
          retry_on_failure:
            enabled: true
            initial_interval: 5s
            max_interval: 30s
            max_elapsed_time: 300s
        debug:
          verbosity: detailed

      service:
        extensions: [health_check]
        pipelines:
          traces:
            receivers: [otlp]
            processors: [memory_limiter, batch]
            exporters: [otlp, debug]
          metrics:
            receivers: [otlp]
            processors: [memory_limiter, batch]
            exporters: [otlp]
          logs:
            receivers: [otlp]
            processors: [memory_limiter, batch]
            exporters: [otlp]
        telemetry:
          metrics:
            address: 0.0.0.0:8888
          logs:
            level: debug
      """;

  private final ConfigLoader loader =
      new ConfigLoader()
          .withEnvironment(Map.of("BACKEND", "backend.example.com", "TOKEN", "s3cr3t"));

  private CollectorConfig load(String yaml) throws ConfigException {
    return loader.load(yaml, "config.yaml");
  }

  /** The problems loading {@code yaml} reports, as text. */
  private List<String> problems(String yaml) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> load(yaml));
    assertThat(e).as("loading should fail").isNotNull();
    return e.problems().stream().map(ConfigProblem::toString).toList();
  }

  /** A valid configuration with {@code sections} added before the service section. */
  private static String withPipelines(String sections, String pipelines) {
    return sections + "service:\n  pipelines:\n" + pipelines.indent(4);
  }

  private static final String MINIMAL_SECTIONS =
      """
      receivers:
        otlp:
          protocols:
            grpc:
      exporters:
        debug:
      """;

  @Test
  void loadsATypicalOpenTelemetryCollectorConfig() throws ConfigException {
    CollectorConfig config = load(TYPICAL);

    assertThat(config.source()).isEqualTo("config.yaml");
    assertThat(config.receivers()).extracting(c -> c.id().toString()).containsExactly("otlp");
    OtlpReceiverFactory.Config otlp =
        (OtlpReceiverFactory.Config) config.receivers().get(0).config();
    assertThat(otlp.protocols().grpc().endpoint()).isEqualTo("0.0.0.0:4317");
    assertThat(otlp.protocols().grpc().maxRecvMsgSizeMib()).isEqualTo(4);
    assertThat(otlp.protocols().http().endpoint()).isEqualTo("0.0.0.0:4318");
    assertThat(otlp.protocols().http().cors().allowedOrigins())
        .containsExactly("https://*.example.com");
    assertThat(otlp.protocols().http().tracesUrlPath()).isEqualTo("/v1/traces");

    assertThat(config.processors())
        .extracting(c -> c.id().toString())
        .containsExactly("memory_limiter", "batch");
    assertThat(config.processors().get(0).config())
        .isEqualTo(new MemoryLimiterConfig(Duration.ofSeconds(1), 4000, 800, 0, 0));
    assertThat(config.processors().get(1).config())
        .isEqualTo(new BatchConfig(10000, 0, Duration.ofSeconds(10)));
    assertThat(config.processors().get(1).factory()).isInstanceOf(BatchProcessorFactory.class);

    OtlpExporterFactory.Config exporter =
        (OtlpExporterFactory.Config) config.exporters().get(0).config();
    assertThat(exporter.endpoint()).isEqualTo("backend.example.com:4317");
    assertThat(exporter.compression()).isEqualTo(OtlpExporterFactory.Compression.ZSTD);
    assertThat(exporter.tls().caFile()).isEqualTo("/etc/ssl/ca.pem");
    assertThat(exporter.headers())
        .containsExactly(Map.entry("authorization", "Bearer s3cr3t"), Map.entry("x-tenant", "42"));
    assertThat(exporter.timeout()).isEqualTo(Duration.ofSeconds(15));
    assertThat(exporter.sendingQueue())
        .isEqualTo(new QueueConfig(true, 4, 5000, QueueConfig.Sizer.REQUESTS, false, false, null));
    assertThat(exporter.retryOnFailure())
        .isEqualTo(
            new RetryConfig(
                true,
                Duration.ofSeconds(5),
                Duration.ofSeconds(30),
                Duration.ofMinutes(5),
                1.5,
                0.5));
    assertThat(exporter.keepalive()).isEqualTo(OtlpExporterFactory.DEFAULT.keepalive());
    assertThat(config.exporters().get(1).config())
        .isEqualTo(
            new DebugExporterFactory.Config(DebugExporterFactory.Verbosity.DETAILED, 2, 1, true));

    assertThat(config.extensions().get(0).config())
        .isEqualTo(new HealthCheckExtensionFactory.Config("0.0.0.0:13133", "/"));
    assertThat(config.serviceExtensions()).containsExactly(ComponentId.parse("health_check"));

    assertThat(config.pipelines())
        .extracting(PipelineConfig::name, PipelineConfig::signal)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("traces", Signal.TRACES),
            org.assertj.core.groups.Tuple.tuple("metrics", Signal.METRICS),
            org.assertj.core.groups.Tuple.tuple("logs", Signal.LOGS));
    PipelineConfig traces = config.pipelines().get(0);
    assertThat(traces.receivers()).containsExactly(ComponentId.parse("otlp"));
    assertThat(traces.processors())
        .containsExactly(ComponentId.parse("memory_limiter"), ComponentId.parse("batch"));
    assertThat(traces.exporters())
        .containsExactly(ComponentId.parse("otlp"), ComponentId.parse("debug"));

    assertThat(config.telemetry())
        .isEqualTo(
            new TelemetrySettings(
                TelemetrySettings.MetricsLevel.NORMAL,
                "0.0.0.0",
                8888,
                TelemetrySettings.LogLevel.DEBUG,
                TelemetrySettings.LogEncoding.CONSOLE));
    assertThat(config.unused()).isEmpty();
    assertThat(config.warnings()).isEmpty();
  }

  @Test
  void aProtocolGivenEmptyInFlowStyleIsOnAndOneLeftOutIsOff() throws ConfigException {
    CollectorConfig config =
        load(
            withPipelines(
                "receivers:\n  otlp:\n    protocols: {grpc:}\nexporters:\n  debug:\n",
                "traces: {receivers: [otlp], exporters: [debug]}"));
    OtlpReceiverFactory.Config otlp =
        (OtlpReceiverFactory.Config) config.receivers().get(0).config();
    assertThat(otlp.protocols().grpc()).isEqualTo(OtlpReceiverFactory.DEFAULT.protocols().grpc());
    assertThat(otlp.protocols().http()).isNull();
  }

  @Test
  void aReceiverWithoutProtocolsFailsItsOwnValidation() {
    assertThat(
            problems(
                withPipelines(
                    "receivers:\n  otlp:\nexporters:\n  debug:\n",
                    "traces: {receivers: [otlp], exporters: [debug]}")))
        .containsExactly(
            "config.yaml:2:3: receivers.otlp.protocols: must specify at least one protocol when"
                + " using the OTLP receiver");
  }

  @Test
  void theDocumentMustBeAMapping() {
    assertThat(problems("- receivers\n- exporters\n"))
        .containsExactly(
            "config.yaml:1:1: expected a mapping with receivers, exporters, service and so on,"
                + " found a list");
  }

  @Test
  void reportsAnUnavailableComponentTypeWithItsKind() {
    assertThat(
            problems(
                withPipelines(
                    MINIMAL_SECTIONS + "processors:\n  groupbytrace:\n    wait_duration: 10s\n",
                    "traces: {receivers: [otlp], exporters: [debug]}")))
        .containsExactly(
            "config.yaml:8:3: processors.groupbytrace: processor type \"groupbytrace\" is not"
                + " available in this build");
  }

  @Test
  void reportsABadDurationWhereItIsWritten() {
    String yaml =
        """
        receivers:
          otlp:
            protocols:
              grpc:
        processors:
          batch:
        extensions:
          health_check:
        # a comment
        exporters:
          otlp:
            endpoint: backend:4317
            timeout: 5x
        service:
          pipelines:
            traces: {receivers: [otlp], exporters: [otlp]}
        """;
    assertThat(problems(yaml))
        .containsExactly(
            "config.yaml:13:5: exporters.otlp.timeout: expected a duration such as 5s or 200ms,"
                + " found \"5x\"");
  }

  @Test
  void reportsUnknownTopLevelAndServiceKeys() {
    assertThat(
            problems(
                MINIMAL_SECTIONS
                    + """
                    recievers: {}
                    service:
                      pipeline: {}
                      pipelines:
                        traces: {receivers: [otlp], exporters: [debug]}
                    """))
        .containsExactly(
            "config.yaml:7:1: recievers: unknown key \"recievers\" (did you mean \"receivers\"?);"
                + " valid keys: receivers, processors, exporters, extensions, connectors, service",
            "config.yaml:9:3: service.pipeline: unknown key \"pipeline\" (did you mean"
                + " \"pipelines\"?); valid keys: extensions, pipelines, telemetry");
  }

  @Test
  void reportsReferencesToComponentsThatAreNotConfigured() {
    assertThat(
            problems(
                MINIMAL_SECTIONS
                    + """
                    service:
                      extensions: [pprof]
                      pipelines:
                        traces:
                          receivers: [otlp, otlp/2]
                          processors: [batch]
                          exporters: [debug]
                    """))
        .containsExactly(
            "config.yaml:8:16: service.extensions: references extension \"pprof\" which is not"
                + " configured",
            "config.yaml:11:25: service.pipelines.traces: references receiver \"otlp/2\" which is"
                + " not configured",
            "config.yaml:12:20: service.pipelines.traces: references processor \"batch\" which is"
                + " not configured");
  }

  @Test
  void reportsPipelinesWithoutReceiversOrExporters() {
    assertThat(
            problems(
                withPipelines(
                    MINIMAL_SECTIONS,
                    """
                    traces:
                      exporters: [debug]
                    metrics:
                      receivers: [otlp]
                      exporters: []
                    """)))
        .containsExactly(
            "config.yaml:9:5: service.pipelines.traces: must have at least one receiver",
            "config.yaml:11:5: service.pipelines.metrics: must have at least one exporter");
  }

  @Test
  void reportsComponentsThatDoNotSupportThePipelinesSignal() {
    assertThat(
            problems(
                withPipelines(
                    """
                    receivers:
                      zipkin:
                    exporters:
                      prometheus:
                    """,
                    """
                    metrics: {receivers: [zipkin], exporters: [prometheus]}
                    traces: {receivers: [zipkin], exporters: [prometheus]}
                    """)))
        .containsExactly(
            "config.yaml:7:27: service.pipelines.metrics: receiver \"zipkin\" does not support"
                + " metrics",
            "config.yaml:8:47: service.pipelines.traces: exporter \"prometheus\" does not support"
                + " traces");
  }

  @Test
  void reportsAnUnknownPipelineType() {
    assertThat(
            problems(
                withPipelines(
                    MINIMAL_SECTIONS,
                    "traces: {receivers: [otlp], exporters: [debug]}\n"
                        + "profiles: {receivers: [otlp], exporters: [debug]}\n")))
        .containsExactly(
            "config.yaml:10:5: service.pipelines.profiles: unknown pipeline type \"profiles\";"
                + " valid pipeline types: traces, metrics, logs");
  }

  @Test
  void reportsDuplicateIdsIncludingThroughAnAlias() {
    assertThat(
            problems(
                withPipelines(
                    MINIMAL_SECTIONS
                        + "  otlp:\n    endpoint: a:1\n  otlp_grpc:\n    endpoint: b:1\n  debug:\n",
                    "traces: {receivers: [otlp], exporters: [debug]}")))
        .containsExactly(
            "config.yaml:9:3: exporters.otlp_grpc: duplicate exporter id: the same component as"
                + " \"otlp\" at line 7",
            "config.yaml:11:3: exporters.debug: duplicate key; it is first given at line 6");
  }

  @Test
  void reportsAComponentListedTwiceInOnePipeline() {
    assertThat(
            problems(
                withPipelines(
                    MINIMAL_SECTIONS, "traces: {receivers: [otlp, otlp], exporters: [debug]}")))
        .containsExactly(
            "config.yaml:9:32: service.pipelines.traces: references receiver \"otlp\" more than"
                + " once");
  }

  @Test
  void reportsInvalidIdsAndWrongTypes() {
    assertThat(
            problems(
                """
                receivers:
                  otlp/:
                  otlp:
                    protocols: [grpc]
                exporters: debug
                service:
                  pipelines:
                    traces/:
                      receivers: otlp
                """))
        .containsExactly(
            "config.yaml:2:3: receivers.otlp/: invalid component id \"otlp/\": empty name",
            "config.yaml:4:5: receivers.otlp.protocols: expected a mapping, found a list",
            "config.yaml:5:1: exporters: expected a mapping, found \"debug\"",
            "config.yaml:8:5: service.pipelines.traces/: invalid pipeline id \"traces/\": empty"
                + " name");
  }

  @Test
  void requiresAtLeastOnePipeline() {
    assertThat(problems(MINIMAL_SECTIONS))
        .containsExactly("config.yaml:1:1: service.pipelines: must have at least one pipeline");
    assertThat(problems(MINIMAL_SECTIONS + "service:\n  pipelines: {}\n"))
        .containsExactly("config.yaml:8:3: service.pipelines: must have at least one pipeline");
  }

  @Test
  void reportsEveryProblemAtOnceInFileOrder() {
    String yaml =
        """
        receivers:
          otlp:
            protocols:
              grpc:
                max_recv_msg_size_mib: lots
        processors:
          batch:
            send_batch_size: 0
          memory_limiter:
            limit_mib: ${env:LIMIT}
        exporters:
          otlp:
            timeout: 5x
            sending_queue: {num_consumers: 0}
          debug:
            verbosity: loud
        service:
          pipelines:
            traces:
              receivers: [otlp/9]
              exporters: [otlp]
            logs: {}
        """;
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () -> loader.withEnvironment(Map.of("LIMIT", "big")).load(yaml, "config.yaml"));
    assertThat(e.getMessage())
        .isEqualTo(
            String.join(
                "\n",
                "config.yaml:5:9: receivers.otlp.protocols.grpc.max_recv_msg_size_mib: expected"
                    + " an integer, found \"lots\"",
                "config.yaml:8:5: processors.batch.send_batch_size: must be at least 1, was 0",
                "config.yaml:10:5: processors.memory_limiter.limit_mib: expected an integer, found"
                    + " \"big\"",
                "config.yaml:13:5: exporters.otlp.timeout: expected a duration such as 5s or"
                    + " 200ms, found \"5x\"",
                "config.yaml:16:5: exporters.debug.verbosity: expected one of basic, normal,"
                    + " detailed, found \"loud\"",
                "config.yaml:20:19: service.pipelines.traces: references receiver \"otlp/9\" which"
                    + " is not configured",
                "config.yaml:22:5: service.pipelines.logs: must have at least one receiver",
                "config.yaml:22:5: service.pipelines.logs: must have at least one exporter"));
  }

  @Test
  void keepsUnusedComponentsButMarksThemAndWarns() throws ConfigException {
    CollectorConfig config =
        load(
            withPipelines(
                MINIMAL_SECTIONS
                    + "  otlp/spare:\n    endpoint: spare:4317\nextensions:\n  health_check:\n",
                "logs: {receivers: [otlp], exporters: [debug]}"));
    assertThat(config.exporters())
        .extracting(c -> c.id().toString(), ConfiguredComponent::used)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("debug", true),
            org.assertj.core.groups.Tuple.tuple("otlp/spare", false));
    assertThat(config.unused())
        .extracting(c -> c.kind() + " " + c.id())
        .containsExactly("EXPORTER otlp/spare", "EXTENSION health_check");
    assertThat(config.used(ComponentKind.EXPORTER)).hasSize(1);
    assertThat(config.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "config.yaml:7:3: exporters.otlp/spare: is configured but no pipeline uses it, so it"
                + " is not started",
            "config.yaml:10:3: extensions.health_check: is configured but not listed in"
                + " service.extensions, so it is not started");
  }

  @Test
  void aliasesResolveToTheFactorysOwnType() throws ConfigException {
    CollectorConfig config =
        load(
            withPipelines(
                MINIMAL_SECTIONS + "  otlp_grpc/b:\n    endpoint: b:4317\n",
                "traces: {receivers: [otlp], exporters: [otlp/b]}\n"
                    + "logs: {receivers: [otlp], exporters: [otlp_grpc/b]}"));
    assertThat(config.exporters().get(1).id()).isEqualTo(ComponentId.parse("otlp/b"));
    assertThat(config.pipelines().get(1).exporters()).containsExactly(ComponentId.parse("otlp/b"));
  }

  @Test
  void expandsEnvironmentVariablesIntoNumbersAndReturnsWarnings() throws ConfigException {
    CollectorConfig config =
        loader
            .withEnvironment(Map.of("SIZE", "512"))
            .load(
                withPipelines(
                    MINIMAL_SECTIONS
                        + "processors:\n  batch:\n    send_batch_size: ${env:SIZE}\n"
                        + "    timeout: ${env:BATCH_TIMEOUT}\n"
                        + "    send_batch_max_size: ${env:MAX:-1024}\n",
                    "traces: {receivers: [otlp], processors: [batch], exporters: [debug]}"),
                "config.yaml");
    assertThat(config.processors().get(0).config())
        .isEqualTo(new BatchConfig(512, 1024, Duration.ofMillis(200)));
    assertThat(config.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "config.yaml:10:14: processors.batch.timeout: environment variable BATCH_TIMEOUT is"
                + " not set: ${env:BATCH_TIMEOUT} leaves the value out, so the default applies");
  }

  @Test
  void readsTheNewerPrometheusReaderForm() throws ConfigException {
    CollectorConfig config =
        load(
            MINIMAL_SECTIONS
                + """
                service:
                  pipelines:
                    traces: {receivers: [otlp], exporters: [debug]}
                  telemetry:
                    resource:
                      service.name: gateway
                    logs:
                      encoding: json
                      sampling: {enabled: false}
                    metrics:
                      level: Detailed
                      readers:
                        - pull:
                            exporter:
                              prometheus:
                                host: "::1"
                                port: 9090
                                without_units: true
                        - periodic:
                            exporter: {otlp: {endpoint: x}}
                """);
    TelemetrySettings t = config.telemetry();
    assertThat(t.metricsLevel()).isEqualTo(TelemetrySettings.MetricsLevel.DETAILED);
    assertThat(t.metricsAddress()).isEqualTo("[::1]:9090");
    assertThat(t.logsEncoding()).isEqualTo(TelemetrySettings.LogEncoding.JSON);
    assertThat(t.logsLevel()).isEqualTo(TelemetrySettings.LogLevel.INFO);
    assertThat(config.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "config.yaml:11:5: service.telemetry.resource: is not supported by Sluice and is"
                + " ignored",
            "config.yaml:15:7: service.telemetry.logs.sampling: is not supported by Sluice and is"
                + " ignored",
            "config.yaml:24:17: service.telemetry.metrics.readers[0].pull.exporter.prometheus"
                + ".without_units: is not supported by Sluice and is ignored",
            "config.yaml:25:11: service.telemetry.metrics.readers[1].periodic: is not supported"
                + " by Sluice and is ignored");
  }

  @Test
  void telemetryDefaultsToNormalMetricsOnLocalhost8888AndInfoConsoleLogs() throws ConfigException {
    CollectorConfig config =
        load(withPipelines(MINIMAL_SECTIONS, "traces: {receivers: [otlp], exporters: [debug]}"));
    assertThat(config.telemetry()).isEqualTo(TelemetrySettings.DEFAULT);
    assertThat(config.telemetry().metricsAddress()).isEqualTo("localhost:8888");
    assertThat(config.telemetry().metricsEnabled()).isTrue();
  }

  @Test
  void reportsTelemetryProblems() {
    assertThat(
            problems(
                MINIMAL_SECTIONS
                    + """
                    service:
                      pipelines:
                        traces: {receivers: [otlp], exporters: [debug]}
                      telemetry:
                        logs: {level: verbose, encoding: xml}
                        metrics:
                          level: all
                          address: localhost
                          interval: 5s
                    """))
        .containsExactly(
            "config.yaml:11:12: service.telemetry.logs.level: expected one of debug, info, warn,"
                + " error, found \"verbose\"",
            "config.yaml:11:28: service.telemetry.logs.encoding: expected one of console, json,"
                + " found \"xml\"",
            "config.yaml:13:7: service.telemetry.metrics.level: expected one of none, basic,"
                + " normal, detailed, found \"all\"",
            "config.yaml:15:7: service.telemetry.metrics.interval: unknown key \"interval\";"
                + " valid keys: level, address, readers, views");
  }

  @Test
  void validatesTelemetryOnceItBindsAsComponentsAre() {
    assertThat(
            problems(
                MINIMAL_SECTIONS
                    + """
                    service:
                      pipelines:
                        traces: {receivers: [otlp], exporters: [debug]}
                      telemetry:
                        metrics:
                          address: localhost
                          readers:
                            - pull: {exporter: {prometheus: {host: localhost}}}
                            - pull: {exporter: {prometheus: {host: localhost, port: 70000}}}
                            - pull:
                    """))
        .containsExactly(
            "config.yaml:12:7: service.telemetry.metrics.address: expected host:port such as"
                + " localhost:8888, found \"localhost\"",
            "config.yaml:12:7: service.telemetry.metrics.address: give address or readers, not"
                + " both",
            "config.yaml:14:29: service.telemetry.metrics.readers[0].pull.exporter.prometheus"
                + ".port: must be specified",
            "config.yaml:15:11: service.telemetry.metrics.readers[1].pull: only one pull reader"
                + " is supported",
            "config.yaml:15:59: service.telemetry.metrics.readers[1].pull.exporter.prometheus"
                + ".port: expected a port between 0 and 65535, found 70000",
            "config.yaml:16:11: service.telemetry.metrics.readers[2].pull.exporter: a pull reader"
                + " needs an exporter: {prometheus: {host, port}}");
  }

  @Test
  void anEmptyTelemetryAddressIsNotAnAddress() {
    assertThat(
            problems(
                withPipelines(MINIMAL_SECTIONS, "traces: {receivers: [otlp], exporters: [debug]}")
                    + "  telemetry:\n    metrics: {address: \"\"}\n"))
        .containsExactly(
            "config.yaml:11:15: service.telemetry.metrics.address: expected host:port such as"
                + " localhost:8888, found \"\"");
  }

  @Test
  void loadsAFileAndNamesItInProblems(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("collector.yaml");
    Files.writeString(file, "receivers: 5\n");
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> loader.load(file));
    assertThat(e.problems().get(0).toString())
        .isEqualTo(file + ":1:1: receivers: expected a mapping, found 5");
  }

  @Test
  void aMissingFileIsOneProblem(@TempDir Path dir) {
    Path file = dir.resolve("absent.yaml");
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> loader.load(file));
    assertThat(e.getMessage()).isEqualTo(file + ":1:1: no such file");
  }

  @Test
  void loadsTheTypicalConfigFromAFile(@TempDir Path dir) throws IOException, ConfigException {
    Path file = dir.resolve("config.yaml");
    Files.writeString(file, TYPICAL);
    assertThat(loader.load(file).pipelines()).hasSize(3);
  }
}
