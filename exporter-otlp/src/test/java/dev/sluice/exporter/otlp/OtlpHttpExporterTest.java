package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.component.ExportResult;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.http.testkit.ScriptedHttpServer;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.receiver.otlp.HttpServerConfig;
import dev.sluice.receiver.otlp.OtlpReceiver;
import dev.sluice.receiver.otlp.OtlpReceiverConfig;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OtlpHttpExporterTest {
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : cleanup) {
      c.close();
    }
  }

  private OtlpHttpExporter exporter(String endpoint, String encoding, String compression)
      throws Exception {
    return TestComponents.httpExporter(
        cleanup,
        endpoint,
        encoding,
        compression,
        TlsClientConfig.DEFAULT,
        Map.of("x-tenant", "blue"));
  }

  private static long deadline() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
  }

  @ParameterizedTest
  @CsvSource({
    "proto, gzip",
    "proto, zstd",
    "proto, deflate",
    "proto, none",
    "json, gzip",
    "json, none"
  })
  void deliversToSluicesOwnHttpReceiver(String encoding, String compression) throws Exception {
    List<OtlpIndex> received = new ArrayList<>();
    HttpServerConfig http =
        new HttpServerConfig(
            "127.0.0.1:0", null, null, 20 << 20, false, "/v1/traces", "/v1/metrics", "/v1/logs");
    OtlpReceiver receiver =
        TestComponents.tracesReceiver(
            cleanup, new OtlpReceiverConfig.Protocols(null, http), received);
    OtlpHttpExporter exporter =
        exporter("http://127.0.0.1:" + receiver.httpPort(), encoding, compression);
    OtlpIndex request = SequencedSpans.indexed("svc", 0, 300);

    ExportResult result = exporter.export(Batch.of(request), deadline());

    assertThat(result).isEqualTo(ExportResult.SUCCESS);
    assertThat(received).hasSize(1);
    assertThat(OtlpMarshaler.toByteArray(Batch.of(received.get(0))))
        .isEqualTo(SequencedSpans.request("svc", 0, 300).toByteArray());
  }

  /**
   * The body of one export of 1000 spans compressed at {@code level}, as a server received it under
   * the compression's {@code Content-Encoding}.
   */
  private byte[] bodySentAtLevel(String compression, int level) throws Exception {
    List<ScriptedHttpServer.Exchange> exchanges = new CopyOnWriteArrayList<>();
    ScriptedHttpServer server =
        ScriptedHttpServer.start(
            exchange -> {
              exchanges.add(exchange);
              exchange.ok();
            });
    cleanup.add(server);
    OtlpHttpExporter exporter =
        TestComponents.httpExporter(
            cleanup,
            server.url(),
            "proto",
            compression,
            new CompressionParams(level),
            TlsClientConfig.DEFAULT,
            Map.of());

    ExportResult result =
        exporter.export(Batch.of(SequencedSpans.indexed("svc", 0, 1000)), deadline());

    assertThat(result).isEqualTo(ExportResult.SUCCESS);
    assertThat(exchanges).hasSize(1);
    assertThat(exchanges.get(0).headers.get("Content-Encoding")).isEqualTo(compression);
    return exchanges.get(0).body;
  }

  @ParameterizedTest
  @CsvSource({"gzip, 1, 9", "deflate, 1, 9", "zstd, 0, 19"})
  void compressesAtTheConfiguredLevel(String compression, int fast, int small) throws Exception {
    byte[] request = SequencedSpans.request("svc", 0, 1000).toByteArray();

    byte[] fastBody = bodySentAtLevel(compression, fast);
    byte[] smallBody = bodySentAtLevel(compression, small);

    assertThat(smallBody.length).isLessThan(fastBody.length);
    assertThat(HttpBodyCompressorTest.decompress(compression, fastBody, request.length))
        .isEqualTo(request);
    assertThat(HttpBodyCompressorTest.decompress(compression, smallBody, request.length))
        .isEqualTo(request);
  }

  /** A destination that answers every request with one status, headers and body. */
  private String server(int status, Map<String, String> headers, byte[] body) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          headers.forEach(exchange.getResponseHeaders()::set);
          exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    cleanup.add(() -> server.stop(0));
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private ExportResult sendTo(String endpoint, String encoding) throws Exception {
    return exporter(endpoint, encoding, "gzip")
        .export(Batch.of(SequencedSpans.indexed("svc", 0, 10)), deadline());
  }

  @Test
  void retries429AfterRetryAfterSeconds() throws Exception {
    ExportResult result = sendTo(server(429, Map.of("Retry-After", "7"), new byte[0]), "proto");

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(result.retryAfterNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(7));
  }

  @Test
  void retries503AfterARetryAfterDate() throws Exception {
    String in90Seconds =
        DateTimeFormatter.RFC_1123_DATE_TIME.format(
            ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(90));

    ExportResult result =
        sendTo(server(503, Map.of("Retry-After", in90Seconds), new byte[0]), "proto");

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(result.retryAfterNanos())
        .isBetween(TimeUnit.SECONDS.toNanos(80), TimeUnit.SECONDS.toNanos(91));
  }

  @Test
  void doesNotRetry400AndKeepsTheStatusMessage() throws Exception {
    byte[] status =
        com.google.rpc.Status.newBuilder()
            .setCode(3)
            .setMessage("bad span at offset 7")
            .build()
            .toByteArray();

    ExportResult result =
        sendTo(server(400, Map.of("Content-Type", "application/x-protobuf"), status), "proto");

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.PERMANENT);
    assertThat(result.malformed()).as("the data's own fault").isTrue();
    assertThat(result.message()).isEqualTo("HTTP 400: bad span at offset 7");
  }

  @Test
  void readsPartialSuccessInProtobufAndJson() throws Exception {
    byte[] proto =
        ExportTraceServiceResponse.newBuilder()
            .setPartialSuccess(
                io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess.newBuilder()
                    .setRejectedSpans(3)
                    .setErrorMessage("too old"))
            .build()
            .toByteArray();
    byte[] json =
        "{\"partialSuccess\":{\"rejectedSpans\":\"2\",\"errorMessage\":\"dup\"}}"
            .getBytes(StandardCharsets.UTF_8);

    ExportResult fromProto = sendTo(server(200, Map.of(), proto), "proto");
    ExportResult fromJson = sendTo(server(200, Map.of(), json), "json");

    assertThat(fromProto).isEqualTo(ExportResult.partialSuccess(3, "too old"));
    assertThat(fromJson).isEqualTo(ExportResult.partialSuccess(2, "dup"));
  }

  @Test
  void reportsAnUnreachableDestinationAsRetryable() throws Exception {
    java.net.ServerSocket closed = new java.net.ServerSocket(0);
    int port = closed.getLocalPort();
    closed.close();

    ExportResult result = sendTo("http://127.0.0.1:" + port, "proto");

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
  }
}
