package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ExportResult;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.pdata.Batch;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The otlphttp exporter's connections, against {@link ScriptedHttpServer}: kept alive and reused,
 * one per concurrent export, discarded when the server closes them, when an answer is too large or
 * late, and closed by shutdown.
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
  void opensANewConnectionWhenTheServerClosesAfterEachAnswer() throws Exception {
    ScriptedHttpServer server = server(exchange -> exchange.reply(200, new byte[0], true));
    OtlpHttpExporter exporter = exporter(server.url());

    for (int i = 0; i < 3; i++) {
      assertThat(exporter.export(batch(i), inSeconds(5))).isEqualTo(ExportResult.SUCCESS);
    }

    assertThat(server.requests()).isEqualTo(3);
    assertThat(server.accepted()).isEqualTo(3);
    Await.until("3 connections closed", () -> server.closed() == 3);
  }

  @Test
  void honoursConnectionCloseEvenWhenTheServerLeavesTheConnectionOpen() throws Exception {
    ScriptedHttpServer server = server(exchange -> exchange.reply(200, new byte[0], true, false));
    OtlpHttpExporter exporter = exporter(server.url());

    for (int i = 0; i < 3; i++) {
      assertThat(exporter.export(batch(i), inSeconds(5))).isEqualTo(ExportResult.SUCCESS);
    }

    assertThat(server.accepted()).isEqualTo(3);
    // The client closed them.
    Await.until("3 connections closed", () -> server.closed() == 3);
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

  @Test
  void concurrentExportsEachHaveAConnectionOfTheirOwn() throws Exception {
    int threads = 4;
    List<ScriptedHttpServer.Exchange> waiting = new ArrayList<>();
    Set<Channel> connections = ConcurrentHashMap.newKeySet();
    // Answers only once all four requests are in: they must have been in flight together.
    ScriptedHttpServer server =
        server(
            exchange -> {
              connections.add(exchange.connection);
              waiting.add(exchange);
              if (waiting.size() == threads) {
                waiting.forEach(ScriptedHttpServer.Exchange::ok);
                waiting.clear();
              }
            });
    OtlpHttpExporter exporter = exporter(server.url());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    cleanup.add(pool::shutdownNow);

    for (int round = 0; round < 2; round++) {
      List<Callable<ExportResult>> exports = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        int first = (round * threads + i) * 10;
        exports.add(() -> exporter.export(batch(first), inSeconds(5)));
      }
      for (Future<ExportResult> result : pool.invokeAll(exports, 10, TimeUnit.SECONDS)) {
        assertThat(result.get()).isEqualTo(ExportResult.SUCCESS);
      }
    }

    assertThat(server.requests()).isEqualTo(2 * threads);
    // The second round reused the first round's connections.
    assertThat(server.accepted()).isEqualTo(threads);
    assertThat(connections).hasSize(threads);
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aSuccessWithABodyOverTheBoundIsASuccessAndItsConnectionIsDiscarded(boolean announced)
      throws Exception {
    byte[] huge = new byte[NettyHttpClient.MAX_RESPONSE_BYTES + 1];
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
    byte[] huge = new byte[NettyHttpClient.MAX_RESPONSE_BYTES + 1];
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
    byte[] huge = new byte[NettyHttpClient.MAX_RESPONSE_BYTES + 1];
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
  void theSignalsRoutesToOneOriginShareItsConnections() throws Exception {
    List<String> paths = new CopyOnWriteArrayList<>();
    ScriptedHttpServer server =
        server(
            exchange -> {
              paths.add(exchange.uri);
              exchange.ok();
            });
    NettyHttpClient client =
        new NettyHttpClient(
            "test-io", null, "", null, Duration.ofSeconds(5), 1024, Duration.ofSeconds(90));
    cleanup.add(() -> client.shutdown(inSeconds(5)));
    NettyHttpClient.Route traces = client.route(URI.create(server.url() + "/v1/traces"), Map.of());
    NettyHttpClient.Route logs = client.route(URI.create(server.url() + "/v1/logs"), Map.of());

    assertThat(client.send(traces, traces.post(Unpooled.buffer()), inSeconds(5)).status())
        .isEqualTo(200);
    assertThat(client.send(logs, logs.post(Unpooled.buffer()), inSeconds(5)).status())
        .isEqualTo(200);

    assertThat(paths).containsExactly("/v1/traces", "/v1/logs");
    assertThat(server.accepted()).isEqualTo(1);
  }

  @Test
  void doesNotReuseAConnectionIdleForLongerThanTheIdleTimeout() throws Exception {
    ScriptedHttpServer server = server(ScriptedHttpServer.Exchange::ok);
    NettyHttpClient client =
        new NettyHttpClient(
            "test-io", null, "", null, Duration.ofSeconds(5), 1024, Duration.ofMillis(200));
    cleanup.add(() -> client.shutdown(inSeconds(5)));
    NettyHttpClient.Route route = client.route(URI.create(server.url() + "/v1/logs"), Map.of());

    int first = client.send(route, route.post(Unpooled.buffer()), inSeconds(5)).status();
    // Longer than the idle timeout, however slow the machine. (That a connection idle for less is
    // used again is sendsSequentialExportsOnOneKeptAliveConnection's, with the default timeout: a
    // short one here could pass between two sends on a busy machine.)
    Thread.sleep(300);
    int later = client.send(route, route.post(Unpooled.buffer()), inSeconds(5)).status();

    assertThat(List.of(first, later)).containsOnly(200);
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
