package dev.sluice.bench.fault;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The collector configurations of the fault run: one OTLP/gRPC receiver on loopback, and durable
 * pipelines ({@code receiver -> batch -> otlp exporter with sending_queue.storage}, or without the
 * batch processor), in the order given, all on one {@code file_storage}.
 */
final class FaultConfigs {
  /** A durable pipeline {@code traces/NAME} to exporter {@code otlp/NAME} and its sink. */
  record Route(String name, int sinkPort) {}

  /**
   * @param maxRetryIntervalMillis the exporters' longest wait between retries
   * @param metricsPort the collector's metrics endpoint, or 0 for none
   * @param batch whether the pipelines batch; without, each exporter's in-memory queue holds two
   *     requests and sends on one thread, so that a full queue refuses requests already logged
   */
  record Settings(
      int receiverPort,
      Path walDirectory,
      int segmentSizeMib,
      int maxSizeMib,
      long maxRetryIntervalMillis,
      int metricsPort,
      boolean batch) {}

  private FaultConfigs() {}

  static String durable(Settings settings, List<Route> routes) {
    List<String> lines = new ArrayList<>();
    lines.addAll(
        List.of(
            "extensions:",
            "  file_storage:",
            "    directory: " + settings.walDirectory(),
            "    segment_size_mib: " + settings.segmentSizeMib(),
            "    max_size_mib: " + settings.maxSizeMib(),
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        endpoint: " + FaultDaemon.HOST + ":" + settings.receiverPort()));
    if (settings.batch()) {
      lines.addAll(List.of("processors:", "  batch:", "    timeout: 50ms"));
    }
    lines.add("exporters:");
    for (Route route : routes) {
      lines.addAll(
          List.of(
              "  otlp/" + route.name() + ":",
              "    endpoint: " + FaultDaemon.HOST + ":" + route.sinkPort(),
              "    compression: none",
              "    tls:",
              "      insecure: true",
              "    retry_on_failure:",
              "      initial_interval: 20ms",
              "      max_interval: " + settings.maxRetryIntervalMillis() + "ms",
              "      max_elapsed_time: 0s",
              "    sending_queue:",
              "      storage: file_storage"));
      if (!settings.batch()) {
        lines.addAll(List.of("      queue_size: 2", "      num_consumers: 1"));
      }
    }
    lines.addAll(
        List.of("service:", "  extensions: [file_storage]", "  telemetry:", "    metrics:"));
    if (settings.metricsPort() > 0) {
      lines.add("      address: " + FaultDaemon.HOST + ":" + settings.metricsPort());
    } else {
      lines.add("      level: none");
    }
    lines.add("  pipelines:");
    for (Route route : routes) {
      lines.addAll(List.of("    traces/" + route.name() + ":", "      receivers: [otlp]"));
      if (settings.batch()) {
        lines.add("      processors: [batch]");
      }
      lines.add("      exporters: [otlp/" + route.name() + "]");
    }
    lines.add("");
    return String.join("\n", lines);
  }
}
