package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.extension.healthcheck.HealthCheckExtension;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The health check and the Prometheus metrics endpoint of a running collector. */
class EndpointsTest {
  private static final String YAML =
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
          "  blackhole:",
          "extensions:",
          "  health_check:",
          "    endpoint: 127.0.0.1:0",
          "    path: /health",
          "service:",
          "  extensions: [health_check]",
          "  telemetry:",
          "    metrics:",
          "      address: 127.0.0.1:0",
          "  pipelines:",
          "    traces:",
          "      receivers: [otlp]",
          "      processors: [batch]",
          "      exporters: [blackhole]",
          "");

  private final HttpClient client = HttpClient.newHttpClient();

  private HttpResponse<String> get(String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void healthIs200WhileRunningAnd503OnceStopping() throws Exception {
    Collector collector = TestCollectors.start(YAML, Collector.Options.defaults());
    HealthCheckExtension health =
        (HealthCheckExtension) collector.extension(ComponentId.parse("health_check"));
    String url = "http://127.0.0.1:" + health.port() + "/health";
    try {
      HttpResponse<String> running = get(url);

      assertThat(running.statusCode()).isEqualTo(200);
      assertThat(running.body()).contains("\"status\":\"Server available\"");
    } finally {
      collector.shutdown(TimeUnit.SECONDS.toNanos(10));
    }
    assertThat(collector.state()).isEqualTo(Collector.State.STOPPED);
  }

  @Test
  void healthIs503WhileStarting() throws Exception {
    Collector collector =
        new Collector(
            new dev.sluice.config.ConfigLoader().load(YAML, "test.yaml"),
            Collector.Options.defaults());
    HealthCheckExtension health =
        (HealthCheckExtension) collector.extension(ComponentId.parse("health_check"));
    health.start();
    try {
      assertThat(get("http://127.0.0.1:" + health.port() + "/health").statusCode()).isEqualTo(503);
    } finally {
      health.shutdown(System.nanoTime());
    }
  }

  @Test
  void metricsEndpointServesTheCollectorsOwnMetricsUnderTheOpenTelemetryCollectorsNames()
      throws Exception {
    Collector collector = TestCollectors.start(YAML, Collector.Options.defaults());
    try {
      ManagedChannel channel = TestCollectors.channel(collector);
      try {
        TraceServiceGrpc.newBlockingStub(channel).export(SequencedSpans.request("svc", 0, 42));
      } finally {
        channel.shutdownNow();
      }
      Await.until(
          "42 spans sent by the blackhole exporter",
          () ->
              TestCollectors.prometheus(collector)
                  .contains("otelcol_exporter_sent_spans_total{exporter=\"blackhole\"} 42"));

      HttpResponse<String> response =
          get("http://127.0.0.1:" + collector.metricsPort() + "/metrics");

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Type"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
      assertThat(response.body())
          .contains("# TYPE otelcol_receiver_accepted_spans_total counter")
          .contains(
              "otelcol_receiver_accepted_spans_total{receiver=\"otlp\",transport=\"grpc\"} 42")
          .contains("otelcol_exporter_sent_spans_total{exporter=\"blackhole\"} 42")
          .contains("otelcol_processor_batch_timeout_trigger_send_total{processor=\"batch\"}")
          .contains(
              "otelcol_processor_batch_batch_send_size_bucket{processor=\"batch\",le=\"50\"} 1")
          .contains("otelcol_process_uptime_seconds")
          .contains("sluice_pipeline_memory_limit_bytes");
    } finally {
      collector.shutdown(TimeUnit.SECONDS.toNanos(10));
    }
  }
}
