package dev.sluice.receiver.otlp;

import static dev.sluice.receiver.otlp.RawHttp.postHead;
import static dev.sluice.receiver.otlp.RawHttp.readBody;
import static dev.sluice.receiver.otlp.RawHttp.readHead;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.AuthConfig;
import dev.sluice.component.ComponentId;
import dev.sluice.component.Host;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP receiver's bytes in flight against clients that declare large bodies and send little of
 * them: a request holds what has arrived of its body, never what its headers announce, and a
 * request that is no export holds nothing, whatever body it declares or sends. Raw sockets on
 * loopback; the stalled requests are known to the server before the good client starts.
 */
class HttpInFlightBudgetTest {
  private static final int KIB = 1024;
  private static final int MIB = 1 << 20;

  /** The default max_request_body_size, which each stalled request declares. */
  private static final long DECLARED = HttpServerConfig.DEFAULT.maxRequestBodySize();

  private static final int STALLED = 3;
  private static final int GOOD_REQUESTS = 30;
  private static final String GOOD_TOKEN = "Bearer good-token";

  private final MetricRegistry metrics = new MetricRegistry();
  private final RecordingConsumer traces = new RecordingConsumer(2500);
  private final List<Socket> sockets = new ArrayList<>();
  private OtlpReceiver receiver;

  @AfterEach
  void stop() throws Exception {
    for (Socket socket : sockets) {
      socket.close();
    }
    TestReceivers.shutdown(receiver);
  }

  @Test
  void stalledExportsHoldWhatTheySentSoOtherClientsAreServed() throws Exception {
    // The defaults: 20 MiB bodies, 32 MiB in flight; two declared bodies would fill it.
    receiver =
        TestReceivers.start(
            metrics, null, config(HttpServerConfig.DEFAULT_MAX_IN_FLIGHT_BYTES_MIB, null), traces);
    for (int i = 0; i < STALLED; i++) {
      Socket stalled = connect();
      stalled.getOutputStream().write(postHead("/v1/traces", DECLARED, ""));
      stalled.getOutputStream().write(new byte[KIB]);
      stalled.getOutputStream().flush();
    }
    // Each stalled request's first KiB is counted only once its headers have been read.
    Await.until("a KiB of each stalled request in flight", () -> inFlightBytes() >= STALLED * KIB);

    List<Integer> answers = new ArrayList<>();
    for (int i = 0; i < GOOD_REQUESTS; i++) {
      answers.add(status(exchange(connect(), postHead("/v1/traces", spans().length, ""), spans())));
    }

    assertThat(answers).hasSize(GOOD_REQUESTS).containsOnly(200);
    assertThat(traces.requests).hasSize(GOOD_REQUESTS);
    Await.until("only the stalled requests' KiB in flight", () -> inFlightBytes() == STALLED * KIB);
    for (Socket stalled : sockets.subList(0, STALLED)) {
      assertThat(stalled.getInputStream().available()).as("still unanswered").isZero();
      stalled.close();
    }
    Await.until("no bytes in flight", () -> inFlightBytes() == 0);
  }

  @Test
  void requestsThatAreNoExportsHoldNothingWhateverBodyTheyDeclare() throws Exception {
    HttpServerConfig http =
        config(HttpServerConfig.DEFAULT_MAX_IN_FLIGHT_BYTES_MIB, new AuthConfig("oauth/test"));
    receiver = TestReceivers.create(metrics, null, http, traces);
    receiver.start(
        Host.of(Map.of(ComponentId.parse("oauth/test"), new ReceiverAuthTest.OneToken())));
    String declares = "Content-Length: " + DECLARED + "\r\n\r\n";
    String credentials = "Authorization: " + GOOD_TOKEN + "\r\n";
    // Each declares 20 MiB, sends 256 KiB of it and stalls; it is answered from its headers.
    List<Map.Entry<String, Integer>> stalled =
        List.of(
            Map.entry(
                "OPTIONS /v1/traces HTTP/1.1\r\nHost: x\r\nOrigin: https://web.example\r\n"
                    + "Access-Control-Request-Method: POST\r\n"
                    + declares,
                204),
            Map.entry("OPTIONS /v1/traces HTTP/1.1\r\nHost: x\r\n" + declares, 401),
            Map.entry("PUT /v1/traces HTTP/1.1\r\nHost: x\r\n" + declares, 401),
            Map.entry("OPTIONS /v1/traces HTTP/1.1\r\nHost: x\r\n" + credentials + declares, 405),
            Map.entry("GET /v1/traces HTTP/1.1\r\nHost: x\r\n" + credentials + declares, 405),
            Map.entry("POST /v1/elsewhere HTTP/1.1\r\nHost: x\r\n" + credentials + declares, 404));
    List<Socket> stalledSockets = new ArrayList<>();
    for (Map.Entry<String, Integer> request : stalled) {
      Socket socket = connect();
      socket.getOutputStream().write(request.getKey().getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(new byte[256 * KIB]);
      socket.getOutputStream().flush();
      String head = readHead(socket.getInputStream());
      assertThat(head)
          .as(request.getKey())
          .startsWith("HTTP/1.1 " + request.getValue() + " ")
          .containsIgnoringCase("connection: close");
      readBody(socket.getInputStream(), head);
      stalledSockets.add(socket);
    }

    List<Integer> answers = new ArrayList<>();
    for (int i = 0; i < GOOD_REQUESTS; i++) {
      byte[] head = postHead("/v1/traces", spans().length, credentials);
      answers.add(status(exchange(connect(), head, spans())));
    }

    assertThat(answers).hasSize(GOOD_REQUESTS).containsOnly(200);
    assertThat(traces.requests).hasSize(GOOD_REQUESTS);
    // 1.5 MiB of their bodies arrived; none of it was ever counted.
    assertThat(peakInFlightBytes()).isLessThan(MIB);
    for (Socket socket : stalledSockets) {
      assertThat(readOrReset(socket)).as("closed by the server").isEqualTo(-1);
    }
    Await.until("no bytes in flight", () -> inFlightBytes() == 0);
  }

  @Test
  void clientsThatReallySendAreHeldToTheBoundAndTheOneThatWouldPassItIsRefused() throws Exception {
    // 1 MiB in flight: new requests are refused from 1024 KiB on, and no part of a body may take
    // the total past 1280 KiB (a quarter over, for the requests already being read).
    receiver = TestReceivers.start(metrics, null, config(1, null), traces);
    byte[] body = spansOfAtLeast(600 * KIB);
    assertThat(body.length).isLessThan(640 * KIB);
    int first = 200 * KIB;
    List<Socket> clients = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Socket client = connect();
      client.getOutputStream().write(postHead("/v1/traces", body.length, ""));
      client.getOutputStream().write(body, 0, first);
      client.getOutputStream().flush();
      clients.add(client);
    }
    // 1200 KiB: past the bound, within what the requests being read may take.
    Await.until("six requests' first 200 KiB in flight", () -> inFlightBytes() == 6L * first);

    // A new request is refused at its headers.
    assertRefused(exchange(connect(), postHead("/v1/traces", body.length, ""), new byte[0]));
    // The part that would take the total past 1280 KiB gets its request refused where it is.
    Socket passing = clients.get(0);
    passing.getOutputStream().write(body, first, 100 * KIB);
    passing.getOutputStream().flush();
    assertRefused(answer(passing));
    Await.until("five requests' first 200 KiB in flight", () -> inFlightBytes() == 5L * first);
    // So does the next one that would: 1000 KiB held, and 400 more do not fit.
    assertRefused(send(clients.get(1), body, first));
    Await.until("four requests' first 200 KiB in flight", () -> inFlightBytes() == 4L * first);
    // The others fit one after the other.
    for (int i = 2; i < 6; i++) {
      assertThat(status(send(clients.get(i), body, first))).isEqualTo(200);
      long stillReceiving = 5 - i;
      Await.until(
          "the first 200 KiB of those still being received in flight",
          () -> inFlightBytes() == stillReceiving * first);
    }

    assertThat(traces.requests).hasSize(4);
    assertThat(peakInFlightBytes()).isBetween(6L * first, 1280L * KIB);
  }

  /**
   * The default limits (20 MiB bodies, timeouts of a minute) with {@code maxInFlightMib}; with
   * {@code auth}, also CORS for {@code https://web.example}.
   */
  private static HttpServerConfig config(int maxInFlightMib, AuthConfig auth) {
    return new HttpServerConfig(
        "127.0.0.1:0",
        null,
        auth == null
            ? null
            : new HttpServerConfig.Cors(List.of("https://web.example"), List.of(), 0),
        DECLARED,
        false,
        "/v1/traces",
        "/v1/metrics",
        "/v1/logs",
        HttpServerConfig.DEFAULT_READ_TIMEOUT,
        HttpServerConfig.DEFAULT_READ_HEADER_TIMEOUT,
        HttpServerConfig.DEFAULT_IDLE_TIMEOUT,
        HttpServerConfig.DEFAULT_MAX_CONNECTIONS,
        maxInFlightMib,
        auth);
  }

  private static void assertRefused(String answer) {
    assertThat(answer)
        .startsWith("HTTP/1.1 503 ")
        .containsIgnoringCase("retry-after: 3")
        .containsIgnoringCase("connection: close")
        .contains(EdgeAdmission.IN_FLIGHT_MESSAGE);
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", receiver.httpPort());
    socket.setSoTimeout(10_000);
    sockets.add(socket);
    return socket;
  }

  /** Sends a request and returns its answer, head and body (as ISO-8859-1 text). */
  private static String exchange(Socket socket, byte[] head, byte[] body) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(head);
    out.write(body);
    out.flush();
    return answer(socket);
  }

  /** Sends the rest of {@code body} from {@code from} and returns the answer. */
  private static String send(Socket socket, byte[] body, int from) throws IOException {
    socket.getOutputStream().write(body, from, body.length - from);
    socket.getOutputStream().flush();
    return answer(socket);
  }

  private static String answer(Socket socket) throws IOException {
    String head = readHead(socket.getInputStream());
    return head + new String(readBody(socket.getInputStream(), head), StandardCharsets.ISO_8859_1);
  }

  private static int status(String answer) {
    return Integer.parseInt(answer.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3));
  }

  private static int readOrReset(Socket socket) {
    try {
      return socket.getInputStream().read();
    } catch (IOException reset) {
      return -1;
    }
  }

  private static byte[] spans() {
    return SequencedSpans.request("svc", 0, 3).toByteArray();
  }

  /** A valid request of at least {@code bytes}, and not much more. */
  private static byte[] spansOfAtLeast(int bytes) {
    int perThousand = SequencedSpans.request("svc", 0, 1000).toByteArray().length;
    return SequencedSpans.request("svc", 0, (int) ((long) bytes * 1000 / perThousand) + 10)
        .toByteArray();
  }

  private long inFlightBytes() {
    return TestReceivers.value(metrics, "sluice_receiver_in_flight_bytes");
  }

  private long peakInFlightBytes() {
    return TestReceivers.value(metrics, "sluice_receiver_in_flight_peak_bytes");
  }
}
