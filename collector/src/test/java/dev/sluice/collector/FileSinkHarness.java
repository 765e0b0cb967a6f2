package dev.sluice.collector;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.sluice.component.ComponentId;
import dev.sluice.config.ConfigLoader;
import dev.sluice.receiver.otlp.OtlpReceiver;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.LogsServiceGrpc;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.MetricsServiceGrpc;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A whole collector, started from YAML, whose {@code file} exporter writes OTLP/JSON lines into a
 * test's directory; what it wrote comes back parsed by protobuf-java, per signal. The sink of
 * end-to-end tests of processors, in one call:
 *
 * <pre>{@code
 * FileSinkHarness.Written written =
 *     FileSinkHarness.run(
 *         FileSinkHarness.pipelines("  attributes:\n    actions: [...]", "attributes"),
 *         dir,
 *         request);
 * assertThat(written.traces()).containsExactly(expected);
 * }</pre>
 *
 * <p>The collector is stopped cleanly before the file is read: the batch processor flushes, the
 * exporter flushes and closes, so everything the collector answered is in the file and nothing
 * needs to be waited for.
 */
final class FileSinkHarness {
  /** Where the YAML names the file exporter's path; replaced by a file in the test's directory. */
  static final String PATH = "@file_sink_path@";

  private static final String FILE_NAME = "file-sink.json";
  private static final long SHUTDOWN_NANOS = TimeUnit.SECONDS.toNanos(30);
  private static final Pattern HEX_ID =
      Pattern.compile("\"(traceId|spanId|parentSpanId)\":\"([0-9a-f]*)\"");

  private FileSinkHarness() {}

  /** The loopback endpoints of the collector's {@code otlp} receiver. */
  record Endpoints(int grpcPort, int httpPort) {
    /** For the SDK's gRPC exporters: {@code http://127.0.0.1:port}. */
    String grpc() {
      return "http://127.0.0.1:" + grpcPort;
    }

    /** For the SDK's HTTP exporters: {@code http://127.0.0.1:port}, before {@code /v1/traces}. */
    String http() {
      return "http://127.0.0.1:" + httpPort;
    }
  }

  /** What sends to the collector while it runs; returns once everything was answered. */
  interface Client {
    void send(Endpoints endpoints) throws Exception;
  }

  /** The requests the file exporter wrote, in the order it wrote them, parsed per signal. */
  record Written(
      List<ExportTraceServiceRequest> traces,
      List<ExportMetricsServiceRequest> metrics,
      List<ExportLogsServiceRequest> logs) {
    long spans() {
      return traces.stream()
          .flatMap(r -> r.getResourceSpansList().stream())
          .flatMap(r -> r.getScopeSpansList().stream())
          .mapToLong(s -> s.getSpansCount())
          .sum();
    }

    long logRecords() {
      return logs.stream()
          .flatMap(r -> r.getResourceLogsList().stream())
          .flatMap(r -> r.getScopeLogsList().stream())
          .mapToLong(s -> s.getLogRecordsCount())
          .sum();
    }
  }

  /**
   * The usual pipeline for all three signals: the {@code otlp} receiver (gRPC and HTTP on free
   * loopback ports) -> {@code processorNames}, then {@code batch} -> the {@code file} exporter.
   *
   * @param processorsYaml the processors' configurations, indented under {@code processors:} (two
   *     spaces for each name); {@code batch} is added
   */
  static String pipelines(String processorsYaml, String... processorNames) {
    List<String> names = new ArrayList<>(List.of(processorNames));
    names.add("batch");
    String processors = "      processors: [" + String.join(", ", names) + "]";
    List<String> lines = new ArrayList<>();
    lines.addAll(
        List.of(
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        endpoint: 127.0.0.1:0",
            "      http:",
            "        endpoint: 127.0.0.1:0",
            "processors:",
            "  batch:",
            "    timeout: 50ms"));
    if (!processorsYaml.isBlank()) {
      lines.add(processorsYaml);
    }
    lines.addAll(
        List.of(
            "exporters:",
            "  file:",
            "    path: " + PATH,
            "service:",
            "  telemetry:",
            "    metrics:",
            "      level: none",
            "  pipelines:"));
    for (String signal : List.of("traces", "metrics", "logs")) {
      lines.addAll(
          List.of(
              "    " + signal + ":",
              "      receivers: [otlp]",
              processors,
              "      exporters: [file]"));
    }
    return String.join("\n", lines) + "\n";
  }

  /**
   * Starts a collector from {@code yaml} (whose {@code file} exporter's path is {@link #PATH}, with
   * {@code format: json} and no compression), lets {@code client} send, stops the collector and
   * returns what the file holds.
   */
  static Written run(String yaml, Path dir, Client client) throws Exception {
    Path file = dir.resolve(FILE_NAME);
    if (!yaml.contains(PATH)) {
      throw new IllegalArgumentException("the configuration does not write to " + PATH);
    }
    Collector collector =
        new Collector(
            new ConfigLoader().load(yaml.replace(PATH, file.toString()), "file-sink.yaml"),
            Collector.Options.defaults());
    collector.start();
    try {
      OtlpReceiver receiver = (OtlpReceiver) collector.receiver(ComponentId.parse("otlp"));
      client.send(new Endpoints(receiver.grpcPort(), receiver.httpPort()));
    } finally {
      collector.shutdown(SHUTDOWN_NANOS);
    }
    return read(file);
  }

  /** {@link #run(String, Path, Client)} sending each request as one gRPC call. */
  static Written run(String yaml, Path dir, Message... requests) throws Exception {
    return run(
        yaml,
        dir,
        endpoints -> {
          ManagedChannel channel =
              NettyChannelBuilder.forAddress("127.0.0.1", endpoints.grpcPort())
                  .usePlaintext()
                  .build();
          try {
            for (Message request : requests) {
              send(channel, request);
            }
          } finally {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
          }
        });
  }

  private static void send(ManagedChannel channel, Message request) {
    if (request instanceof ExportTraceServiceRequest traces) {
      TraceServiceGrpc.newBlockingStub(channel).export(traces);
    } else if (request instanceof ExportMetricsServiceRequest metrics) {
      MetricsServiceGrpc.newBlockingStub(channel).export(metrics);
    } else if (request instanceof ExportLogsServiceRequest logs) {
      LogsServiceGrpc.newBlockingStub(channel).export(logs);
    } else {
      throw new IllegalArgumentException("not an OTLP request: " + request.getClass());
    }
  }

  /** Reads a file of OTLP/JSON lines, telling each line's signal by its first key. */
  static Written read(Path file) throws IOException {
    List<ExportTraceServiceRequest> traces = new ArrayList<>();
    List<ExportMetricsServiceRequest> metrics = new ArrayList<>();
    List<ExportLogsServiceRequest> logs = new ArrayList<>();
    String text = Files.readString(file, StandardCharsets.UTF_8);
    if (!text.isEmpty() && !text.endsWith("\n")) {
      throw new IOException(file + " ends in a partial line");
    }
    for (String line : text.lines().toList()) {
      if (line.startsWith("{\"resourceSpans\"")) {
        traces.add(parse(line, ExportTraceServiceRequest.newBuilder()));
      } else if (line.startsWith("{\"resourceMetrics\"")) {
        metrics.add(parse(line, ExportMetricsServiceRequest.newBuilder()));
      } else if (line.startsWith("{\"resourceLogs\"")) {
        logs.add(parse(line, ExportLogsServiceRequest.newBuilder()));
      } else {
        throw new IOException("not an OTLP/JSON request: " + line);
      }
    }
    return new Written(List.copyOf(traces), List.copyOf(metrics), List.copyOf(logs));
  }

  /**
   * protobuf-java's JSON parser, after turning OTLP/JSON's hex trace and span IDs into the base64
   * that proto3 JSON has for bytes.
   */
  @SuppressWarnings("unchecked")
  private static <M extends Message> M parse(String line, Message.Builder builder)
      throws InvalidProtocolBufferException {
    Matcher id = HEX_ID.matcher(line);
    StringBuilder json = new StringBuilder(line.length());
    while (id.find()) {
      String base64 = Base64.getEncoder().encodeToString(HexFormat.of().parseHex(id.group(2)));
      id.appendReplacement(json, "\"" + id.group(1) + "\":\"" + base64 + "\"");
    }
    id.appendTail(json);
    JsonFormat.parser().merge(json.toString(), builder);
    return (M) builder.build();
  }
}
