package dev.sluice.exporter.prometheusremotewrite;

import static dev.sluice.exporter.prometheusremotewrite.Otlp.T0;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.batch;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.kv;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.request;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.service;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.testkit.ManualScheduler;
import dev.sluice.testkit.MetricsText;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.prometheus.write.v2.Types;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;
import prometheus.Remote.WriteRequest;
import prometheus.Types.TimeSeries;

/** The exporter against a real HTTP server on loopback, which decodes what it is sent. */
class PrometheusRemoteWriteExporterTest {
  /** One answer the server gives: status, Retry-After (or null), body, other headers. */
  record Answer(int status, String retryAfter, String body, Map<String, String> headers) {
    Answer(int status, String retryAfter, String body) {
      this(status, retryAfter, body, Map.of());
    }
  }

  /** One request the server got: a 1.0 request parsed, a 2.0 one in {@code v2}. */
  record Received(String path, Headers headers, WriteRequest request, Types.Request v2) {}

  private HttpServer server;
  private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final List<Exporter> exporters = new ArrayList<>();

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] body = Snappy.uncompress(exchange.getRequestBody().readAllBytes());
          boolean v2 =
              "2.0.0"
                  .equals(
                      exchange.getRequestHeaders().getFirst("X-Prometheus-Remote-Write-Version"));
          received.add(
              new Received(
                  exchange.getRequestURI().getPath(),
                  exchange.getRequestHeaders(),
                  v2 ? null : WriteRequest.parseFrom(body),
                  v2 ? Types.Request.parseFrom(body) : null));
          Answer answer = answers.poll();
          if (answer == null) {
            answer = new Answer(204, null, "");
          }
          if (answer.retryAfter() != null) {
            exchange.getResponseHeaders().add("Retry-After", answer.retryAfter());
          }
          answer.headers().forEach(exchange.getResponseHeaders()::add);
          byte[] text = answer.body().getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(answer.status(), text.length == 0 ? -1 : text.length);
          if (text.length > 0) {
            exchange.getResponseBody().write(text);
          }
          exchange.close();
        });
    server.start();
  }

  @AfterEach
  void stop() throws Exception {
    for (Exporter exporter : exporters) {
      exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
    try {
      server.stop(0);
    } catch (IllegalStateException alreadyStopped) {
      // anUnreachableEndpointIsRetryable stops it first.
    }
  }

  private String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/write";
  }

  private final MetricRegistry metrics = new MetricRegistry();

  private Exporter exporter(String extraYaml) throws Exception {
    PrometheusRemoteWriteConfig config =
        PrometheusRemoteWriteConfigTest.config("endpoint: " + endpoint() + "\n" + extraYaml);
    Exporter exporter =
        new PrometheusRemoteWriteExporterFactory()
            .create(
                new ComponentSettings(
                    ComponentId.parse("prometheusremotewrite"),
                    ComponentKind.EXPORTER,
                    metrics,
                    new ManualScheduler()),
                config);
    exporter.start();
    exporters.add(exporter);
    return exporter;
  }

  private static long deadline() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
  }

  private static Metric gauge(String name, int points) {
    Gauge.Builder gauge = Gauge.newBuilder();
    for (int i = 0; i < points; i++) {
      gauge.addDataPoints(
          NumberDataPoint.newBuilder()
              .setTimeUnixNano(T0)
              .setAsInt(i)
              .addAttributes(kv("point", i))
              .addAttributes(kv("padding", "x".repeat(40))));
    }
    return Metric.newBuilder().setName(name).setGauge(gauge).build();
  }

  @Test
  void postsSnappyCompressedWriteRequestsWithTheProtocolsHeaders() throws Exception {
    Exporter exporter = exporter("headers: {X-Scope-OrgID: tenant-7}");
    Batch batch = batch(request(service("api"), gauge("queue.depth", 2)));

    ExportResult result = exporter.export(batch, deadline());

    assertThat(result).isEqualTo(ExportResult.SUCCESS);
    assertThat(received).hasSize(1);
    Received got = received.get(0);
    assertThat(got.path()).isEqualTo("/api/v1/write");
    assertThat(got.headers().getFirst("Content-Encoding")).isEqualTo("snappy");
    assertThat(got.headers().getFirst("Content-Type")).isEqualTo("application/x-protobuf");
    assertThat(got.headers().getFirst("X-Prometheus-Remote-Write-Version")).isEqualTo("0.1.0");
    assertThat(got.headers().getFirst("User-Agent")).startsWith("Sluice");
    assertThat(got.headers().getFirst("X-Scope-OrgID")).isEqualTo("tenant-7");
    assertThat(got.request().getTimeseriesList())
        .extracting(Otlp::text)
        .containsExactlyInAnyOrder(
            "queue_depth{job=\"api\",otel_scope_name=\"lib\",otel_scope_version=\"1.2\","
                + "padding=\""
                + "x".repeat(40)
                + "\",point=\"0\"}",
            "queue_depth{job=\"api\",otel_scope_name=\"lib\",otel_scope_version=\"1.2\","
                + "padding=\""
                + "x".repeat(40)
                + "\",point=\"1\"}");
  }

  @Test
  void remoteWriteTwoIsAnnouncedAndWhatTheReceiverWroteIsCounted() throws Exception {
    Exporter exporter = exporter("protobuf_message: io.prometheus.write.v2.Request");
    answers.add(
        new Answer(
            204,
            null,
            "",
            Map.of(
                "X-Prometheus-Remote-Write-Samples-Written", "2",
                "X-Prometheus-Remote-Write-Histograms-Written", "0",
                "X-Prometheus-Remote-Write-Exemplars-Written", "0")));

    ExportResult result =
        exporter.export(batch(request(service("api"), gauge("g", 2))), deadline());

    assertThat(result).isEqualTo(ExportResult.SUCCESS);
    Received got = received.get(0);
    assertThat(got.headers().getFirst("Content-Type"))
        .isEqualTo("application/x-protobuf;proto=io.prometheus.write.v2.Request");
    assertThat(got.headers().getFirst("X-Prometheus-Remote-Write-Version")).isEqualTo("2.0.0");
    assertThat(got.v2().getTimeseriesCount()).isEqualTo(2);
    assertThat(got.v2().getSymbols(0)).isEmpty();
    assertThat(MetricsText.of(metrics))
        .contains("otelcol_exporter_prometheusremotewrite_written_samples")
        .containsPattern(
            "otelcol_exporter_prometheusremotewrite_written_samples_total\\{[^}]*\\} 2\\b");
  }

  @Test
  void serverErrorsAndTooManyRequestsAreRetriedNoSoonerThanAsked() throws Exception {
    Exporter exporter = exporter("");
    Batch batch = batch(request(service("api"), gauge("g", 1)));
    answers.add(new Answer(503, "7", "overloaded"));
    answers.add(new Answer(429, "2", ""));

    ExportResult unavailable = exporter.export(batch, deadline());
    ExportResult throttled = exporter.export(batch, deadline());

    assertThat(unavailable.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(unavailable.retryAfterNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(7));
    assertThat(unavailable.message()).contains("503").contains("overloaded");
    assertThat(throttled.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(throttled.retryAfterNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(2));
  }

  @Test
  void otherClientErrorsAreNeverRetried() throws Exception {
    Exporter exporter = exporter("");
    answers.add(new Answer(400, null, "out of order sample"));
    answers.add(new Answer(404, null, ""));

    ExportResult refused = exporter.export(batch(request(service("a"), gauge("g", 1))), deadline());
    ExportResult missing = exporter.export(batch(request(service("a"), gauge("g", 1))), deadline());

    assertThat(refused.outcome()).isEqualTo(ExportResult.Outcome.PERMANENT);
    assertThat(refused.message()).contains("out of order sample");
    assertThat(missing.outcome()).isEqualTo(ExportResult.Outcome.PERMANENT);
  }

  @Test
  void aBatchOverTheSizeLimitGoesAsSeveralRequestsAndStopsAtTheFirstFailure() throws Exception {
    Exporter exporter = exporter("max_batch_size_bytes: 2000");
    Batch batch = batch(request(service("api"), gauge("g", 100)));

    assertThat(exporter.export(batch, deadline())).isEqualTo(ExportResult.SUCCESS);
    int requests = received.size();
    assertThat(requests).isGreaterThan(3);
    assertThat(received.stream().mapToInt(r -> r.request().getTimeseriesCount()).sum())
        .isEqualTo(100);

    received.clear();
    answers.add(new Answer(204, null, ""));
    answers.add(new Answer(500, null, "disk full"));
    ExportResult failed = exporter.export(batch, deadline());
    assertThat(failed.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(received).hasSize(2);
  }

  @Test
  void pointsPrometheusCannotTakeAreReportedAsRejectedWhileTheRestIsSent() throws Exception {
    Exporter exporter = exporter("");
    Metric delta =
        Metric.newBuilder()
            .setName("jobs")
            .setSum(
                Sum.newBuilder()
                    .setIsMonotonic(true)
                    .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                    .addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(T0).setAsInt(1))
                    .addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(T0).setAsInt(2)))
            .build();

    ExportResult result =
        exporter.export(batch(request(service("a"), delta, gauge("g", 1))), deadline());

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.SUCCESS);
    assertThat(result.rejectedUnits()).isEqualTo(2);
    assertThat(result.message()).contains("jobs");
    assertThat(received).hasSize(1);
    assertThat(received.get(0).request().getTimeseriesList())
        .extracting(TimeSeries::getLabelsList)
        .allSatisfy(labels -> assertThat(labels.get(0).getValue()).isEqualTo("g"));
  }

  @Test
  void anUnreachableEndpointIsRetryable() throws Exception {
    Exporter exporter = exporter("");
    server.stop(0);

    ExportResult result = exporter.export(batch(request(service("a"), gauge("g", 1))), deadline());

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
  }
}
