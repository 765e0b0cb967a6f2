package dev.sluice.receiver.otlp;

import static dev.sluice.receiver.otlp.RawHttp.postHead;
import static dev.sluice.receiver.otlp.RawHttp.readBody;
import static dev.sluice.receiver.otlp.RawHttp.readHead;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP receiver's limits against overload and slow or greedy clients, each hit with raw sockets
 * on loopback: refusal at the headers, the bytes in flight, the read timeouts, the connection
 * limit, the header limits.
 */
class HttpEdgeLimitsTest {
  private static final int MIB = 1 << 20;
  private static final Duration LONG = Duration.ofMinutes(1);

  private final MetricRegistry metrics = new MetricRegistry();
  private final RecordingConsumer traces = new RecordingConsumer(2500);
  private final List<Socket> sockets = new ArrayList<>();
  private OtlpReceiver receiver;

  private void start(
      Duration readTimeout,
      Duration readHeaderTimeout,
      Duration idleTimeout,
      int maxConnections,
      int maxInFlightMib)
      throws Exception {
    HttpServerConfig http =
        new HttpServerConfig(
            "127.0.0.1:0",
            null,
            null,
            64L * MIB,
            false,
            "/v1/traces",
            "/v1/metrics",
            "/v1/logs",
            readTimeout,
            readHeaderTimeout,
            idleTimeout,
            maxConnections,
            maxInFlightMib,
            null);
    receiver = TestReceivers.start(metrics, null, http, traces);
  }

  private void startWithDefaults() throws Exception {
    start(LONG, LONG, LONG, 1000, 32);
  }

  @AfterEach
  void stop() throws Exception {
    for (Socket socket : sockets) {
      socket.close();
    }
    TestReceivers.shutdown(receiver);
  }

  @Test
  void refusesAtTheHeadersWhileThePipelinesAreFullWithoutWaitingForTheBody() throws Exception {
    startWithDefaults();
    traces.atHeaders = Admission.FULL;
    Socket socket = connect();

    // A 60 MiB body of which only the first KiB is ever sent: the answer cannot wait for it.
    socket.getOutputStream().write(postHead("/v1/traces", 60 * MIB, ""));
    socket.getOutputStream().write(new byte[1024]);
    socket.getOutputStream().flush();
    String head = readHead(socket.getInputStream());

    assertThat(head)
        .startsWith("HTTP/1.1 503 Service Unavailable")
        .containsIgnoringCase("retry-after: 3")
        .containsIgnoringCase("connection: close");
    com.google.rpc.Status status =
        com.google.rpc.Status.parseFrom(readBody(socket.getInputStream(), head));
    assertThat(status.getCode()).isEqualTo(RpcStatus.UNAVAILABLE);
    assertThat(status.getMessage()).isEqualTo(EdgeAdmission.FULL_MESSAGE);
    // What the client still sends is drained, then the connection is closed.
    socket.getOutputStream().write(new byte[64 * 1024]);
    assertThat(socket.getInputStream().read()).isEqualTo(-1);
    assertThat(traces.requests).isEmpty();
    assertThat(MetricsText.of(metrics))
        .contains(
            "sluice_receiver_refused_unread_requests_total{receiver=\"otlp\",transport=\"http\","
                + "reason=\"pipelines_full\"} 1")
        .contains("sluice_receiver_in_flight_bytes{receiver=\"otlp\",transport=\"http\"} 0");
  }

  @Test
  void answersExpectContinueWithTheRefusalInsteadOf100Continue() throws Exception {
    startWithDefaults();
    traces.atHeaders = Admission.CLOSED;
    Socket socket = connect();

    socket.getOutputStream().write(postHead("/v1/traces", 1000, "Expect: 100-continue\r\n"));
    socket.getOutputStream().flush();

    assertThat(readHead(socket.getInputStream()))
        .startsWith("HTTP/1.1 503")
        .containsIgnoringCase("retry-after: 3");
  }

  @Test
  void readsRequestsAgainOnceThePipelinesHaveRoom() throws Exception {
    startWithDefaults();
    traces.atHeaders = Admission.FULL;
    assertThat(send(connect(), spans(3))).startsWith("HTTP/1.1 503");

    traces.atHeaders = Admission.ACCEPTED;

    assertThat(send(connect(), spans(3))).startsWith("HTTP/1.1 200");
    assertThat(traces.requests).hasSize(1);
  }

  @Test
  void refusesNewRequestsWhileTheBytesInFlightAreAtTheirBound() throws Exception {
    start(LONG, LONG, LONG, 1000, 1);
    byte[] large = spansOfAtLeast(MIB + MIB / 16);
    assertThat(large.length).isLessThan(MIB + MIB / 4);
    Socket slow = connect();
    slow.getOutputStream().write(postHead("/v1/traces", large.length, ""));
    slow.getOutputStream().write(large, 0, large.length - 10);
    slow.getOutputStream().flush();
    Await.until("1 MiB in flight", () -> inFlightBytes() >= MIB);

    String refused = send(connect(), spans(3));

    assertThat(refused).startsWith("HTTP/1.1 503").containsIgnoringCase("retry-after: 3");
    slow.getOutputStream().write(large, large.length - 10, 10);
    slow.getOutputStream().flush();
    assertThat(readHead(slow.getInputStream())).startsWith("HTTP/1.1 200");
    Await.until("no bytes in flight", () -> inFlightBytes() == 0);
    assertThat(send(connect(), spans(3))).startsWith("HTTP/1.1 200");
    assertThat(traces.requests).hasSize(2);
    assertThat(MetricsText.of(metrics)).contains("reason=\"in_flight_bytes\"} 1");
  }

  @Test
  void refusesABodyThatTakesTheBytesInFlightPastTheBoundWhereItIs() throws Exception {
    start(LONG, LONG, LONG, 1000, 1);
    Socket socket = connect();
    // Chunked, so the body declares no length to reserve at its headers.
    socket
        .getOutputStream()
        .write(
            ("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
    // The server answers long before this ends; it drains what follows the answer.
    byte[] chunk = new byte[64 * 1024];
    for (int i = 0; i < 24; i++) {
      socket.getOutputStream().write("10000\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(chunk);
      socket.getOutputStream().write("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    socket.getOutputStream().flush();
    String head = readHead(socket.getInputStream());

    assertThat(head).startsWith("HTTP/1.1 503").containsIgnoringCase("connection: close");
    assertThat(
            com.google.rpc.Status.parseFrom(readBody(socket.getInputStream(), head)).getMessage())
        .isEqualTo(EdgeAdmission.IN_FLIGHT_MESSAGE);
    Await.until("no bytes in flight", () -> inFlightBytes() == 0);
    assertThat(traces.requests).isEmpty();
  }

  @Test
  void answersHeadersThatNeverCompleteWith408AfterReadHeaderTimeout() throws Exception {
    start(LONG, Duration.ofMillis(300), LONG, 1000, 32);
    // Before the connection: whenever the server's clock starts, it starts after this.
    long started = System.nanoTime();
    Socket socket = connect();
    socket
        .getOutputStream()
        .write("POST /v1/traces HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();

    String head = readHead(socket.getInputStream());

    assertThat(head).startsWith("HTTP/1.1 408").containsIgnoringCase("connection: close");
    assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(ms(200));
    readBody(socket.getInputStream(), head);
    assertThat(socket.getInputStream().read()).isEqualTo(-1);
  }

  @Test
  void answersABodyThatNeverCompletesWith408AfterReadTimeout() throws Exception {
    start(Duration.ofMillis(400), LONG, LONG, 1000, 32);
    Socket socket = connect();
    socket.getOutputStream().write(postHead("/v1/traces", 1000, ""));
    socket.getOutputStream().write(new byte[10]);
    socket.getOutputStream().flush();

    String head = readHead(socket.getInputStream());

    assertThat(head).startsWith("HTTP/1.1 408");
    readBody(socket.getInputStream(), head);
    assertThat(socket.getInputStream().read()).isEqualTo(-1);
    Await.until("no bytes in flight", () -> inFlightBytes() == 0);
  }

  @Test
  void closesAConnectionThatSendsNothingAfterReadHeaderTimeoutWithoutAnAnswer() throws Exception {
    start(LONG, Duration.ofMillis(300), LONG, 1000, 32);
    Socket socket = connect();

    assertThat(socket.getInputStream().read()).isEqualTo(-1);
  }

  @Test
  void closesAnIdleKeptAliveConnectionAfterIdleTimeout() throws Exception {
    start(LONG, LONG, Duration.ofMillis(300), 1000, 32);
    Socket socket = connect();
    String head = send(socket, spans(2));
    assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("connection: keep-alive");

    assertThat(socket.getInputStream().read()).isEqualTo(-1);
  }

  @Test
  void aRequestThatKeepsToTheTimeoutsIsServedOnAConnectionOlderThanThem() throws Exception {
    // The connection outlives the timeouts (4 x 500 ms), each request keeps to them with 1 s to
    // spare for a busy machine.
    start(Duration.ofMillis(1500), Duration.ofMillis(1500), Duration.ofMillis(1500), 1000, 32);
    Socket socket = connect();
    for (int i = 0; i < 4; i++) {
      assertThat(send(socket, spans(2))).startsWith("HTTP/1.1 200");
      Thread.sleep(500);
    }
    assertThat(traces.requests).hasSize(4);
  }

  @Test
  void closesConnectionsOverMaxConnectionsAtAccept() throws Exception {
    start(LONG, LONG, LONG, 2, 32);
    Socket first = connect();
    Socket second = connect();
    assertThat(send(first, spans(1))).startsWith("HTTP/1.1 200");
    assertThat(send(second, spans(1))).startsWith("HTTP/1.1 200");

    Socket third = connect();

    assertThat(readOrReset(third)).isEqualTo(-1);
    assertThat(MetricsText.of(metrics))
        .contains(
            "sluice_receiver_refused_connections_total{receiver=\"otlp\",transport=\"http\"} 1");
    first.close();
    Await.until(
        "a new connection taken once another closed",
        () -> {
          try {
            return send(connect(), spans(1)).startsWith("HTTP/1.1 200");
          } catch (IOException closed) {
            return false;
          }
        });
    assertThat(send(second, spans(1))).startsWith("HTTP/1.1 200");
  }

  @Test
  void answersHeaderFieldsOverTheLimitWith431AndALongRequestLineWith414() throws Exception {
    startWithDefaults();
    Socket socket = connect();
    String big = "X-Big: " + "a".repeat(HttpServer.MAX_HEADER_BYTES) + "\r\n";
    socket.getOutputStream().write(postHead("/v1/traces", 10, big));
    socket.getOutputStream().flush();
    assertThat(readHead(socket.getInputStream()))
        .startsWith("HTTP/1.1 431")
        .containsIgnoringCase("connection: close");

    Socket other = connect();
    other
        .getOutputStream()
        .write(
            postHead("/v1/traces?" + "a".repeat(HttpServer.MAX_INITIAL_LINE_BYTES), 10, "")
                .clone());
    other.getOutputStream().flush();
    assertThat(readHead(other.getInputStream())).startsWith("HTTP/1.1 414");
    assertThat(traces.requests).isEmpty();
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", receiver.httpPort());
    socket.setSoTimeout(10_000);
    sockets.add(socket);
    return socket;
  }

  /** Sends a whole request and returns its answer's head, reading the answer's body too. */
  private static String send(Socket socket, byte[] body) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(postHead("/v1/traces", body.length, ""));
    out.write(body);
    out.flush();
    String head = readHead(socket.getInputStream());
    readBody(socket.getInputStream(), head);
    return head;
  }

  private static int readOrReset(Socket socket) {
    try {
      return socket.getInputStream().read();
    } catch (IOException reset) {
      return -1;
    }
  }

  private static byte[] spans(int count) {
    return SequencedSpans.request("svc", 0, count).toByteArray();
  }

  /** A valid request of at least {@code bytes}, and not much more. */
  private static byte[] spansOfAtLeast(int bytes) {
    int perThousand = spans(1000).length;
    return spans((int) ((long) bytes * 1000 / perThousand) + 10);
  }

  private long inFlightBytes() {
    return TestReceivers.value(metrics, "sluice_receiver_in_flight_bytes");
  }

  private static long ms(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }
}
