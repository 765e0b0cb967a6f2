package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.SequencedSpans;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Answers the body aggregator gives at a request's headers, before its body ({@code Expect} refused
 * with 417, or 413 instead of {@code 100 Continue}): the connection must not be left in a state
 * that no read timeout covers, nor read what the client sends next as the refused body.
 */
class HttpEarlyAnswerTest {
  private static final int MAX_BODY_BYTES = 64 * 1024;

  /**
   * The server's timeouts: short, so that the idle close comes soon, yet with room for a busy
   * machine between one write of the test and the next.
   */
  private static final Duration SHORT = Duration.ofSeconds(1);

  /**
   * Much longer than every timeout of the server under test, so a timeout that never fires shows.
   */
  private static final int CLIENT_WAIT_MILLIS = 5000;

  private final RecordingConsumer traces = new RecordingConsumer(2500);
  private final List<Socket> sockets = new ArrayList<>();
  private OtlpReceiver receiver;

  @BeforeEach
  void start() throws Exception {
    HttpServerConfig http =
        new HttpServerConfig(
            "127.0.0.1:0",
            null,
            null,
            MAX_BODY_BYTES,
            false,
            "/v1/traces",
            "/v1/metrics",
            "/v1/logs",
            SHORT,
            SHORT,
            SHORT,
            1000,
            32,
            null);
    Map<Signal, RequestConsumer> consumers = new EnumMap<>(Signal.class);
    consumers.put(Signal.TRACES, traces);
    receiver =
        (OtlpReceiver)
            new OtlpReceiverFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlp"), ComponentKind.RECEIVER, new MetricRegistry()),
                    new OtlpReceiverConfig(new OtlpReceiverConfig.Protocols(null, http)),
                    consumers);
    receiver.start();
  }

  @AfterEach
  void stop() throws Exception {
    for (Socket socket : sockets) {
      socket.close();
    }
    receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
  }

  @Test
  void closesTheConnectionAfterRefusingAnUnsupportedExpectation() throws Exception {
    Socket socket = connect();
    byte[] body = spans();
    OutputStream out = socket.getOutputStream();
    out.write(head(body.length, "Expect: x-unknown\r\n"));
    out.write(body);
    out.flush();

    String head = readHead(socket.getInputStream());

    assertThat(head).startsWith("HTTP/1.1 417").containsIgnoringCase("connection: close");
    readBody(socket.getInputStream(), head);
    assertThat(readOrTimeOut(socket)).as("the connection is closed").isEqualTo(-1);
    assertThat(traces.requests).isEmpty();
  }

  @Test
  void answersExpectContinueOverTheLimitWith413AndClosesTheConnection() throws Exception {
    Socket socket = connect();
    socket.getOutputStream().write(head(MAX_BODY_BYTES + 1, "Expect: 100-continue\r\n"));
    socket.getOutputStream().flush();

    String head = readHead(socket.getInputStream());

    assertThat(head).startsWith("HTTP/1.1 413").containsIgnoringCase("connection: close");
    com.google.rpc.Status status =
        com.google.rpc.Status.parseFrom(readBody(socket.getInputStream(), head));
    assertThat(status.getCode()).isEqualTo(RpcStatus.RESOURCE_EXHAUSTED);
    assertThat(status.getMessage()).contains("max_request_body_size");
    // The client sent no body, as the 413 asked; a request it sends next is never read as one.
    assertThat(readOrTimeOut(socket)).as("the connection is closed").isEqualTo(-1);
    assertThat(traces.requests).isEmpty();
  }

  @Test
  void stillAnswersExpectContinueWithinTheLimitOnAKeptAliveConnection() throws Exception {
    Socket socket = connect();
    byte[] body = spans();
    OutputStream out = socket.getOutputStream();
    for (int i = 0; i < 3; i++) {
      out.write(head(body.length, "Expect: 100-continue\r\n"));
      out.flush();
      assertThat(readHead(socket.getInputStream())).startsWith("HTTP/1.1 100");
      out.write(body);
      out.flush();
      String head = readHead(socket.getInputStream());
      assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("connection: keep-alive");
      readBody(socket.getInputStream(), head);
    }
    assertThat(traces.requests).hasSize(3);
    // Idle after its answers, the connection is closed by idle_timeout.
    assertThat(readOrTimeOut(socket)).as("closed by idle_timeout").isEqualTo(-1);
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", receiver.httpPort());
    socket.setSoTimeout(CLIENT_WAIT_MILLIS);
    sockets.add(socket);
    return socket;
  }

  /** The next byte, -1 at the end or on a reset, or -2 when nothing came in the client's wait. */
  private static int readOrTimeOut(Socket socket) {
    try {
      return socket.getInputStream().read();
    } catch (SocketTimeoutException timedOut) {
      return -2;
    } catch (IOException reset) {
      return -1;
    }
  }

  private static byte[] spans() {
    return SequencedSpans.request("svc", 0, 3).toByteArray();
  }

  private static byte[] head(long contentLength, String extraHeaders) {
    return ("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
            + extraHeaders
            + "Content-Length: "
            + contentLength
            + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static String readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.append((char) b);
    }
    return head.toString();
  }

  private static byte[] readBody(InputStream in, String head) throws IOException {
    java.util.regex.Matcher length =
        java.util.regex.Pattern.compile("(?i)content-length: (\\d+)").matcher(head);
    return length.find() ? in.readNBytes(Integer.parseInt(length.group(1))) : new byte[0];
  }
}
