package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ExportResult;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.http.HttpClient;
import dev.sluice.http.testkit.ScriptedHttpServer;
import dev.sluice.pdata.Batch;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The otlphttp exporter over the core's {@link HttpClient}, against {@link ScriptedHttpServer}: one
 * kept-alive connection for sequential exports from the exporter's reused buffers, what an answer
 * too large or too late means for a batch, the signal's path and headers, and shutdown. How the
 * client keeps, shares and discards connections is {@code HttpClientTest}'s, in collector-core.
 */
class OtlpHttpConnectionsTest {
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  private ScriptedHttpServer server(ScriptedHttpServer.Script script) throws Exception {
    ScriptedHttpServer server = ScriptedHttpServer.start(script);
    cleanup.add(server);
    return server;
  }

  private OtlpHttpExporter exporter(String endpoint) throws Exception {
    return exporter(endpoint, Map.of());
  }

  private OtlpHttpExporter exporter(String endpoint, Map<String, String> headers) throws Exception {
    return TestComponents.httpExporter(
        cleanup, endpoint, "proto", "gzip", TlsClientConfig.DEFAULT, headers);
  }

  private static Batch batch(int first) {
    return Batch.of(SequencedSpans.indexed("svc", first, 10));
  }

  private static long inSeconds(int seconds) {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
  }

  /** The spans' numbers in a gzip OTLP/protobuf body. */
  private static List<Integer> numbers(byte[] gzipBody) throws Exception {
    return SequencedSpans.numbers(
        new GZIPInputStream(new ByteArrayInputStream(gzipBody)).readAllBytes());
  }

  /** The number of the first span in a gzip OTLP/protobuf body. */
  private static int firstNumber(byte[] gzipBody) {
    try {
      return numbers(gzipBody).get(0);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void sendsSequentialExportsOnOneKeptAliveConnection() throws Exception {
    List<byte[]> bodies = new CopyOnWriteArrayList<>();
    ScriptedHttpServer server =
        server(
            exchange -> {
              bodies.add(exchange.body);
              exchange.ok();
            });
    OtlpHttpExporter exporter = exporter(server.url());

    for (int i = 0; i < 5; i++) {
      assertThat(exporter.export(batch(i * 10), inSeconds(5))).isEqualTo(ExportResult.SUCCESS);
    }

    assertThat(server.requests()).isEqualTo(5);
    assertThat(server.accepted()).isEqualTo(1);
    assertThat(server.closed()).isZero();
    // Each body is its own batch, though all were written from one reused buffer.
    for (int i = 0; i < 5; i++) {
      assertThat(numbers(bodies.get(i))).hasSize(10).first().isEqualTo(i * 10);
    }
  }

  @Test
  void readsABodyThatEndsWhenTheServerCloses() throws Exception {
    byte[] partial =
        ExportTraceServiceResponse.newBuilder()
            .setPartialSuccess(
                ExportTracePartialSuccess.newBuilder().setRejectedSpans(4).setErrorMessage("old"))
            .build()
            .toByteArray();
    ScriptedHttpServer server = server(exchange -> exchange.replyUntilClose(200, partial));
    OtlpHttpExporter exporter = exporter(server.url());

    assertThat(exporter.export(batch(0), inSeconds(5)))
        .isEqualTo(ExportResult.partialSuccess(4, "old"));
    assertThat(exporter.export(batch(1), inSeconds(5)))
        .isEqualTo(ExportResult.partialSuccess(4, "old"));
    assertThat(server.accepted()).isEqualTo(2);
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aSuccessWithABodyOverTheBoundIsASuccessAndItsConnectionIsDiscarded(boolean announced)
      throws Exception {
    byte[] huge = new byte[HttpClient.MAX_RESPONSE_BYTES + 1];
    ScriptedHttpServer server =
        server(
            exchange -> {
              if (exchange.number > 1) {
                exchange.ok();
              } else if (announced) {
                exchange.reply(200, huge, false);
              } else {
                exchange.replyChunked(huge);
              }
            });
    OtlpHttpExporter exporter = exporter(server.url());

    ExportResult tooLarge = exporter.export(batch(0), inSeconds(5));
    ExportResult next = exporter.export(batch(10), inSeconds(5));

    // The destination took the data: sending it again would duplicate it.
    assertThat(tooLarge).isEqualTo(ExportResult.SUCCESS);
    assertThat(next).isEqualTo(ExportResult.SUCCESS);
    assertThat(server.accepted()).isEqualTo(2);
    Await.until("a connection closed", () -> server.closed() == 1);
  }

  @Test
  void aRefusalWithABodyOverTheBoundIsPermanent() throws Exception {
    byte[] huge = new byte[HttpClient.MAX_RESPONSE_BYTES + 1];
    ScriptedHttpServer server = server(exchange -> exchange.reply(400, huge, false));
    OtlpHttpExporter exporter = exporter(server.url());

    ExportResult refused = exporter.export(batch(0), inSeconds(5));

    assertThat(refused.outcome()).isEqualTo(ExportResult.Outcome.PERMANENT);
    assertThat(refused.message())
        .isEqualTo("HTTP 400 with a response body larger than 4194304 bytes");
    assertThat(server.requests()).isEqualTo(1);
  }

  @Test
  void aThrottleWithABodyOverTheBoundIsRetriedAfterItsRetryAfter() throws Exception {
    byte[] huge = new byte[HttpClient.MAX_RESPONSE_BYTES + 1];
    ScriptedHttpServer server = server(exchange -> exchange.replyRetryAfter(503, huge, "7"));
    OtlpHttpExporter exporter = exporter(server.url());

    ExportResult throttled = exporter.export(batch(0), inSeconds(5));

    assertThat(throttled.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(throttled.retryAfterNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(7));
    assertThat(throttled.message())
        .isEqualTo("HTTP 503 with a response body larger than 4194304 bytes");
  }

  @Test
  void aDeadlineClosesTheConnectionOfAServerThatNeverAnswers() throws Exception {
    // The first batch is never answered, whenever it arrives; the next one is.
    ScriptedHttpServer server =
        server(
            exchange -> {
              if (firstNumber(exchange.body) != 0) {
                exchange.ok();
              }
            });
    OtlpHttpExporter exporter = exporter(server.url());

    long start = System.nanoTime();
    ExportResult late =
        exporter.export(batch(0), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300));
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    ExportResult next = exporter.export(batch(10), inSeconds(5));

    assertThat(late).isEqualTo(ExportResult.retryable("no answer before the deadline", 0));
    // Not before the deadline; how long after it depends on the machine, so it is not asserted.
    assertThat(waitedMillis).isGreaterThanOrEqualTo(250L);
    assertThat(next).isEqualTo(ExportResult.SUCCESS);
    assertThat(server.accepted()).isEqualTo(2);
    Await.until("a connection closed", () -> server.closed() == 1);
  }

  @Test
  void shutdownClosesTheConnections() throws Exception {
    ScriptedHttpServer server = server(ScriptedHttpServer.Exchange::ok);
    OtlpHttpExporter exporter = exporter(server.url());
    assertThat(exporter.export(batch(0), inSeconds(5))).isEqualTo(ExportResult.SUCCESS);

    exporter.shutdown(inSeconds(5));

    Await.until("a connection closed", () -> server.closed() == 1);
    assertThat(exporter.export(batch(10), inSeconds(5)).outcome())
        .isEqualTo(ExportResult.Outcome.RETRYABLE);
  }

  @Test
  void postsToTheSignalsPathWithTheHeaders() throws Exception {
    List<ScriptedHttpServer.Exchange> exchanges = new CopyOnWriteArrayList<>();
    ScriptedHttpServer server =
        server(
            exchange -> {
              exchanges.add(exchange);
              exchange.ok();
            });
    OtlpHttpExporter exporter = exporter(server.url() + "/otlp/", Map.of("x-tenant", "blue"));

    assertThat(exporter.export(batch(0), inSeconds(5))).isEqualTo(ExportResult.SUCCESS);
    assertThat(exporter.export(batch(10), inSeconds(5))).isEqualTo(ExportResult.SUCCESS);

    for (ScriptedHttpServer.Exchange exchange : exchanges) {
      assertThat(exchange.uri).isEqualTo("/otlp/v1/traces");
      assertThat(exchange.headers.get("Host"))
          .isEqualTo(server.url().substring("http://".length()));
      assertThat(exchange.headers.get("Content-Type")).isEqualTo("application/x-protobuf");
      assertThat(exchange.headers.get("Content-Encoding")).isEqualTo("gzip");
      assertThat(exchange.headers.getInt("Content-Length")).isEqualTo(exchange.body.length);
      assertThat(exchange.headers.get("User-Agent")).isEqualTo("Sluice");
      assertThat(exchange.headers.getAll("x-tenant")).containsExactly("blue");
    }
  }
}
