package dev.sluice.collector;

import dev.sluice.component.ComponentId;
import dev.sluice.config.ConfigLoader;
import dev.sluice.receiver.otlp.OtlpReceiver;
import dev.sluice.testkit.MetricsText;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

/** Collectors for tests, started from YAML text the way the command line starts them. */
final class TestCollectors {
  private TestCollectors() {}

  static Collector start(String yaml, Collector.Options options) throws Exception {
    Collector collector = new Collector(new ConfigLoader().load(yaml, "test.yaml"), options);
    collector.start();
    return collector;
  }

  /** A plaintext channel to the {@code otlp} receiver's gRPC port. */
  static ManagedChannel channel(Collector collector) {
    int port = ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).grpcPort();
    return NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }

  /** The metrics page of {@code collector}. */
  static String prometheus(Collector collector) {
    return MetricsText.of(collector.metrics());
  }

  /**
   * The YAML lines of an otlp exporter {@code id} to {@code endpoint} with fast retries (for a
   * minute) and {@code sending_queue.storage: file_storage}, then {@code queueLines} (more keys of
   * its sending queue).
   */
  static java.util.List<String> durableOtlpExporter(
      String id, String endpoint, String... queueLines) {
    java.util.List<String> lines =
        new java.util.ArrayList<>(
            java.util.List.of(
                "  " + id + ":",
                "    endpoint: " + endpoint,
                "    tls:",
                "      insecure: true",
                "    timeout: 2s",
                "    retry_on_failure:",
                "      initial_interval: 50ms",
                "      max_interval: 200ms",
                "      max_elapsed_time: 60s",
                "    sending_queue:",
                "      storage: file_storage"));
    lines.addAll(java.util.List.of(queueLines));
    return lines;
  }

  /** otlp (gRPC, any port) -> batch -> otlp exporter to {@code endpoint}, with fast retries. */
  static String tracesToSink(String endpoint, String batch, String queue) {
    return String.join(
        "\n",
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:0",
        "processors:",
        "  batch:",
        batch,
        "exporters:",
        "  otlp:",
        "    endpoint: " + endpoint,
        "    tls:",
        "      insecure: true",
        "    timeout: 2s",
        "    retry_on_failure:",
        "      initial_interval: 50ms",
        "      max_interval: 200ms",
        "      max_elapsed_time: 60s",
        queue,
        "service:",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      processors: [batch]",
        "      exporters: [otlp]",
        "");
  }
}
