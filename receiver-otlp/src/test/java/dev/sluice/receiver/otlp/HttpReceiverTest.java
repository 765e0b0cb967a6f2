package dev.sluice.receiver.otlp;

import static dev.sluice.receiver.otlp.RawHttp.readHead;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import dev.sluice.component.Admission;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyFramedOutputStream;

class HttpReceiverTest {
  private static final long MAX_BODY = 256 * 1024;

  private final MetricRegistry metrics = new MetricRegistry();
  private final RecordingConsumer traces = new RecordingConsumer(2500);
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private OtlpReceiver receiver;
  private String base;

  @BeforeEach
  void start() throws Exception {
    HttpServerConfig http =
        new HttpServerConfig(
            "127.0.0.1:0",
            null,
            new HttpServerConfig.Cors(List.of("https://*.shop.example"), List.of("x-tenant"), 600),
            MAX_BODY,
            false,
            "/v1/traces",
            "/v1/metrics",
            "/v1/logs");
    receiver = TestReceivers.start(metrics, null, http, traces);
    base = "http://127.0.0.1:" + receiver.httpPort();
  }

  @AfterEach
  void stop() throws Exception {
    TestReceivers.shutdown(receiver);
  }

  private HttpResponse<byte[]> post(String path, String contentType, byte[] body, String... headers)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static byte[] spans(int count) {
    return SequencedSpans.request("svc", 0, count).toByteArray();
  }

  @Test
  void acceptsProtobufAndAnswersAnEmptyExportResponse() throws Exception {
    HttpResponse<byte[]> response = post("/v1/traces", "application/x-protobuf", spans(12));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/x-protobuf");
    assertThat(response.body()).isEmpty();
    assertThat(traces.requests)
        .singleElement()
        .satisfies(r -> assertThat(r.unitCount()).isEqualTo(12));
  }

  @Test
  void acceptsTheSpecificationsJsonExampleAsItsProtobufForm() throws Exception {
    byte[] json;
    try (InputStream in = getClass().getResourceAsStream("/otlp-examples/trace.json")) {
      json = in.readAllBytes();
    }

    HttpResponse<byte[]> response = post("/v1/traces", "application/json; charset=utf-8", json);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("{}");
    ExportTraceServiceRequest.Builder expected = ExportTraceServiceRequest.newBuilder();
    JsonFormat.parser().merge(hexIdsToBase64(new String(json, StandardCharsets.UTF_8)), expected);
    assertThat(traces.requests).hasSize(1);
    assertThat(ExportTraceServiceRequest.parseFrom(marshaled(traces.requests.get(0))))
        .isEqualTo(expected.build());
  }

  @Test
  void answersBadJsonWith400AndAJsonStatus() throws Exception {
    HttpResponse<byte[]> response =
        post(
            "/v1/traces",
            "application/json",
            "{\"resourceSpans\":[{\"scopeSpans\":7}]}".getBytes(StandardCharsets.UTF_8));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(new String(response.body(), StandardCharsets.UTF_8))
        .startsWith("{\"code\":3,\"message\":\"resource_spans[0].scope_spans: expected an array");
  }

  @Test
  void answersBadProtobufWith400AndTheValidatorsMessageInAStatus() throws Exception {
    byte[] whole = spans(3);
    byte[] body = java.util.Arrays.copyOf(whole, whole.length - 1);

    HttpResponse<byte[]> response = post("/v1/traces", "application/x-protobuf", body);

    assertThat(response.statusCode()).isEqualTo(400);
    com.google.rpc.Status status = com.google.rpc.Status.parseFrom(response.body());
    assertThat(status.getCode()).isEqualTo(3);
    assertThat(status.getMessage()).startsWith("resource_spans[0]").contains("at offset");
    assertThat(traces.requests).isEmpty();
  }

  @Test
  void answersAnotherContentTypeWith415() throws Exception {
    assertThat(post("/v1/traces", "text/plain", spans(1)).statusCode()).isEqualTo(415);
  }

  @Test
  void answersOtherMethodsWith405AndAllow() throws Exception {
    HttpResponse<byte[]> response =
        client.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/traces")).GET().build(),
            HttpResponse.BodyHandlers.ofByteArray());

    assertThat(response.statusCode()).isEqualTo(405);
    assertThat(response.headers().firstValue("Allow")).contains("POST, OPTIONS");
  }

  @Test
  void answersOtherPathsWith404() throws Exception {
    assertThat(post("/v1/profiles", "application/x-protobuf", spans(1)).statusCode())
        .isEqualTo(404);
    assertThat(post("/v1/logs", "application/x-protobuf", new byte[0]).statusCode())
        .as("a signal without a pipeline")
        .isEqualTo(404);
  }

  @Test
  void answersABodyOverTheLimitWith413() throws Exception {
    byte[] body = new byte[(int) MAX_BODY + 1];

    assertThat(post("/v1/traces", "application/x-protobuf", body).statusCode()).isEqualTo(413);
  }

  @Test
  void answersAZipBombWith413() throws Exception {
    // A few KiB of gzip that inflates to 16 MiB.
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(compressed)) {
      gzip.write(new byte[16 << 20]);
    }
    assertThat(compressed.size()).isLessThan((int) MAX_BODY);

    HttpResponse<byte[]> response =
        post(
            "/v1/traces",
            "application/x-protobuf",
            compressed.toByteArray(),
            "Content-Encoding",
            "gzip");

    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(com.google.rpc.Status.parseFrom(response.body()).getMessage())
        .contains("more than the limit of " + MAX_BODY);
  }

  @Test
  void answersAnUnknownEncodingWith400() throws Exception {
    HttpResponse<byte[]> response =
        post("/v1/traces", "application/x-protobuf", spans(1), "Content-Encoding", "br");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(com.google.rpc.Status.parseFrom(response.body()).getMessage())
        .contains("unsupported Content-Encoding \"br\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "deflate", "zstd", "snappy", "snappy-framed", "x-snappy-framed"})
  void acceptsCompressedBodies(String encoding) throws Exception {
    byte[] body = spans(40);
    byte[] compressed;
    String header = encoding;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    switch (encoding) {
      case "gzip":
        try (OutputStream gzip = new GZIPOutputStream(out)) {
          gzip.write(body);
        }
        compressed = out.toByteArray();
        break;
      case "deflate":
        try (OutputStream deflate = new DeflaterOutputStream(out)) {
          deflate.write(body);
        }
        compressed = out.toByteArray();
        break;
      case "zstd":
        compressed = com.github.luben.zstd.Zstd.compress(body);
        break;
      case "snappy":
        compressed = Snappy.compress(body);
        break;
      default:
        try (OutputStream framed = new SnappyFramedOutputStream(out)) {
          framed.write(body);
        }
        compressed = out.toByteArray();
        header = encoding.equals("snappy-framed") ? "snappy" : encoding;
    }

    HttpResponse<byte[]> response =
        post("/v1/traces", "application/x-protobuf", compressed, "Content-Encoding", header);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(marshaled(traces.requests.get(0))).isEqualTo(body);
  }

  @Test
  void answersAFullPipelineWith503AndRetryAfter() throws Exception {
    traces.answer = Admission.FULL;

    HttpResponse<byte[]> response = post("/v1/traces", "application/x-protobuf", spans(2));

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.headers().firstValue("Retry-After")).contains("3");
    assertThat(com.google.rpc.Status.parseFrom(response.body()).getCode()).isEqualTo(14);
  }

  @Test
  void answersCorsPreflightsForAllowedOriginsAndHeaders() throws Exception {
    HttpResponse<byte[]> allowed =
        client.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/traces"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", "https://web.shop.example")
                .header("Access-Control-Request-Method", "POST")
                .header("Access-Control-Request-Headers", "content-type, x-tenant")
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    HttpResponse<byte[]> stranger =
        client.send(
            HttpRequest.newBuilder(URI.create(base + "/v1/traces"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", "https://evil.example")
                .header("Access-Control-Request-Method", "POST")
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    HttpResponse<byte[]> actual =
        post(
            "/v1/traces", "application/x-protobuf", spans(1), "Origin", "https://web.shop.example");

    assertThat(allowed.statusCode()).isEqualTo(204);
    assertThat(allowed.headers().firstValue("Access-Control-Allow-Origin"))
        .contains("https://web.shop.example");
    assertThat(allowed.headers().firstValue("Access-Control-Allow-Headers"))
        .contains("content-type, x-tenant");
    assertThat(allowed.headers().firstValue("Access-Control-Max-Age")).contains("600");
    assertThat(stranger.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
    assertThat(actual.headers().firstValue("Access-Control-Allow-Origin"))
        .contains("https://web.shop.example");
  }

  @Test
  void keepsTheConnectionOpenBetweenRequests() throws Exception {
    byte[] body = spans(1);
    try (Socket socket = new Socket("127.0.0.1", receiver.httpPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      for (int i = 0; i < 3; i++) {
        out.write(requestHead(body.length));
        out.write(body);
        out.flush();
        String head = readHead(in);
        assertThat(head)
            .startsWith("HTTP/1.1 200 OK")
            .containsIgnoringCase("connection: keep-alive");
      }
    }
    assertThat(traces.requests).hasSize(3);
  }

  @Test
  void stoppingClosesIdleKeptAliveConnectionsWithoutWaitingForTheDeadline() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", receiver.httpPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(requestHead(spans(1).length));
      socket.getOutputStream().write(spans(1));
      assertThat(readHead(socket.getInputStream())).startsWith("HTTP/1.1 200 OK");

      long started = System.nanoTime();
      receiver.shutdown(started + TimeUnit.SECONDS.toNanos(60));

      // Well before the deadline: the idle connection did not hold the stop up.
      assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(30));
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void stoppingLetsARequestInProgressFinishAndThenClosesItsConnection() throws Exception {
    byte[] body = spans(7);
    int port = receiver.httpPort();
    try (Socket socket = servedConnection()) {
      OutputStream out = socket.getOutputStream();
      startRequest(socket, body.length);
      out.write(body, 0, body.length / 2);
      out.flush();
      Thread stopping =
          new Thread(
              () -> {
                try {
                  receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(20));
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      stopping.start();
      // Once new connections are refused, the stop has begun.
      for (int tries = 0; tries < 500 && accepts(port); tries++) {
        Thread.sleep(10);
      }
      assertThat(accepts(port)).isFalse();

      out.write(body, body.length / 2, body.length - body.length / 2);
      out.flush();

      assertThat(readHead(socket.getInputStream()))
          .startsWith("HTTP/1.1 200 OK")
          .containsIgnoringCase("connection: close");
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
      stopping.join(TimeUnit.SECONDS.toMillis(20));
      assertThat(stopping.isAlive()).isFalse();
    }
    assertThat(traces.requests).hasSize(2);
    assertThat(traces.requests.get(1).unitCount()).isEqualTo(7);
  }

  @Test
  void aClientThatNeverFinishesItsRequestDoesNotHoldTheStopPastTheGrace() throws Exception {
    byte[] body = spans(7);
    try (Socket socket = servedConnection()) {
      startRequest(socket, body.length);
      socket.getOutputStream().write(body, 0, body.length / 2);
      socket.getOutputStream().flush();

      long started = System.nanoTime();
      receiver.shutdown(started + TimeUnit.SECONDS.toNanos(120));

      // The grace, not the deadline: the exporters' draining must not wait on this client.
      assertThat(System.nanoTime() - started)
          .isGreaterThanOrEqualTo(OtlpReceiver.DRAIN_GRACE_NANOS)
          .isLessThan(TimeUnit.SECONDS.toNanos(60));
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    }
    assertThat(traces.requests).hasSize(1);
  }

  /**
   * Sends a request's head asking {@code Expect: 100-continue} and waits for the server's {@code
   * 100 Continue}: from then on the server knows a request is in progress on this connection.
   */
  private static void startRequest(Socket socket, int contentLength) throws Exception {
    socket
        .getOutputStream()
        .write(RawHttp.postHead("/v1/traces", contentLength, "Expect: 100-continue\r\n"));
    socket.getOutputStream().flush();
    assertThat(readHead(socket.getInputStream())).startsWith("HTTP/1.1 100 Continue");
  }

  /**
   * A kept-alive connection that has already been served one request: the server has taken it in,
   * so what a test sends next on it is a request on an established connection.
   */
  private Socket servedConnection() throws Exception {
    Socket socket = new Socket("127.0.0.1", receiver.httpPort());
    socket.setSoTimeout(10_000);
    byte[] first = spans(1);
    socket.getOutputStream().write(requestHead(first.length));
    socket.getOutputStream().write(first);
    socket.getOutputStream().flush();
    assertThat(readHead(socket.getInputStream()))
        .startsWith("HTTP/1.1 200 OK")
        .containsIgnoringCase("connection: keep-alive");
    return socket;
  }

  private static boolean accepts(int port) {
    try (Socket probe = new Socket("127.0.0.1", port)) {
      return true;
    } catch (java.io.IOException refused) {
      return false;
    }
  }

  private static byte[] requestHead(int contentLength) {
    return RawHttp.postHead("/v1/traces", contentLength, "");
  }

  private static byte[] marshaled(OtlpIndex request) {
    return dev.sluice.pdata.codec.OtlpMarshaler.toByteArray(dev.sluice.pdata.Batch.of(request));
  }

  private static String hexIdsToBase64(String json) {
    Matcher m =
        Pattern.compile("\"(traceId|spanId|parentSpanId)\"\\s*:\\s*\"([0-9A-Fa-f]*)\"")
            .matcher(json);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          out,
          "\""
              + m.group(1)
              + "\":\""
              + Base64.getEncoder().encodeToString(HexFormat.of().parseHex(m.group(2)))
              + "\"");
    }
    m.appendTail(out);
    return out.toString();
  }
}
