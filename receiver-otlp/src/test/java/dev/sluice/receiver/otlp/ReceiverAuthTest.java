package dev.sluice.receiver.otlp;

import static dev.sluice.receiver.otlp.RawHttp.readHead;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.rpc.Code;
import dev.sluice.component.AuthConfig;
import dev.sluice.component.AuthOutcome;
import dev.sluice.component.ComponentId;
import dev.sluice.component.Host;
import dev.sluice.component.RequestHeaders;
import dev.sluice.component.ServerAuthenticator;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.grpc.OtlpGrpc;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The receiver's authentication hooks, with a stand-in authenticator that wants one token. */
class ReceiverAuthTest {
  private static final String GOOD = "Bearer good-token";
  private static final String LATER = "Bearer check-me-later";
  private static final int SOCKET_TIMEOUT_MILLIS = 10_000;

  /**
   * Accepts {@code Authorization: Bearer good-token}, says try later to {@link #LATER}; counts the
   * checks.
   */
  static final class OneToken implements ServerAuthenticator {
    final AtomicInteger checks = new AtomicInteger();

    @Override
    public boolean authenticate(RequestHeaders headers) {
      checks.incrementAndGet();
      return GOOD.equals(headers.get("Authorization"));
    }

    @Override
    public AuthOutcome check(RequestHeaders headers) {
      return LATER.equals(headers.get("Authorization"))
          ? AuthOutcome.TRY_LATER
          : ServerAuthenticator.super.check(headers);
    }

    @Override
    public String challenge() {
      return "Bearer realm=\"test\"";
    }
  }

  private final MetricRegistry metrics = new MetricRegistry();
  private final RecordingConsumer traces = new RecordingConsumer(1000);
  private final OneToken authenticator = new OneToken();
  private OtlpReceiver receiver;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    AuthConfig auth = new AuthConfig("oauth/test");
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0",
            "tcp",
            null,
            4,
            0,
            GrpcServerConfig.Keepalive.DEFAULT,
            false,
            GrpcServerConfig.DEFAULT_MAX_CONNECTIONS,
            GrpcServerConfig.DEFAULT_MAX_IN_FLIGHT_BYTES_MIB,
            GrpcServerConfig.DEFAULT_HANDSHAKE_TIMEOUT,
            GrpcServerConfig.DEFAULT_MAX_CALL_DURATION,
            auth);
    HttpServerConfig http =
        new HttpServerConfig(
            "127.0.0.1:0",
            null,
            new HttpServerConfig.Cors(List.of("https://web.example"), List.of(), 0),
            64 * 1024,
            false,
            "/v1/traces",
            "/v1/metrics",
            "/v1/logs",
            HttpServerConfig.DEFAULT_READ_TIMEOUT,
            HttpServerConfig.DEFAULT_READ_HEADER_TIMEOUT,
            HttpServerConfig.DEFAULT_IDLE_TIMEOUT,
            HttpServerConfig.DEFAULT_MAX_CONNECTIONS,
            HttpServerConfig.DEFAULT_MAX_IN_FLIGHT_BYTES_MIB,
            auth);
    receiver = TestReceivers.create(metrics, grpc, http, traces);
    receiver.start(Host.of(Map.of(ComponentId.parse("oauth/test"), authenticator)));
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", receiver.grpcPort()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    TestReceivers.shutdown(receiver);
  }

  @Test
  void grpcCallsWithTheTokenGetThroughAndOthersAreUnauthenticated() throws Exception {
    Metadata good = new Metadata();
    good.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), GOOD);
    Metadata wrong = new Metadata();
    wrong.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer bad");

    TraceServiceGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(good))
        .export(SequencedSpans.request("svc", 0, 3));
    assertThatThrownBy(
            () ->
                TraceServiceGrpc.newBlockingStub(channel)
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(wrong))
                    .export(SequencedSpans.request("svc", 0, 3)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
              assertThat(e.getStatus().getDescription()).doesNotContain("bad");
            });
    assertThatThrownBy(
            () ->
                TraceServiceGrpc.newBlockingStub(channel).export(SequencedSpans.request("s", 0, 1)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));

    assertThat(traces.requests).hasSize(1);
    assertThat(MetricsText.of(metrics))
        .contains(
            "sluice_receiver_unauthenticated_requests_total{receiver=\"otlp\",transport=\"grpc\"} 2");
  }

  @Test
  void aGrpcCallTheAuthenticatorCannotCheckNowIsUnavailableWithRetryInfo() throws Exception {
    Metadata later = new Metadata();
    later.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), LATER);

    assertThatThrownBy(
            () ->
                TraceServiceGrpc.newBlockingStub(channel)
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(later))
                    .export(SequencedSpans.request("svc", 0, 3)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              com.google.rpc.Status details = io.grpc.protobuf.StatusProto.fromThrowable(e);
              assertThat(details).isNotNull();
              assertThat(details.getCode()).isEqualTo(Code.UNAVAILABLE_VALUE);
              assertThat(details.getDetailsList())
                  .singleElement()
                  .satisfies(
                      any ->
                          assertThat(
                                  any.unpack(com.google.rpc.RetryInfo.class)
                                      .getRetryDelay()
                                      .getSeconds())
                              .isEqualTo(1));
              assertThat(e.getStatus().getDescription()).doesNotContain("check-me-later");
            });

    assertThat(traces.requests).isEmpty();
    assertThat(MetricsText.of(metrics))
        .contains(
            "sluice_receiver_auth_deferred_requests_total{receiver=\"otlp\",transport=\"grpc\"} 1")
        .doesNotContain(
            "sluice_receiver_unauthenticated_requests_total{receiver=\"otlp\",transport=\"grpc\"} 1");
  }

  @Test
  void anHttpRequestTheAuthenticatorCannotCheckNowGets503WithRetryAfterAndNoChallenge()
      throws Exception {
    byte[] body = SequencedSpans.request("svc", 0, 2).toByteArray();
    try (Socket socket = connect()) {
      send(socket, head("/v1/traces", body.length, "Authorization: " + LATER), body);
      String answer = readHead(socket.getInputStream());

      assertThat(answer)
          .startsWith("HTTP/1.1 503 ")
          .containsIgnoringCase("retry-after: 1\r\n")
          .containsIgnoringCase("connection: close")
          .doesNotContainIgnoringCase("www-authenticate");
      com.google.rpc.Status status = com.google.rpc.Status.parseFrom(rest(socket, answer));
      assertThat(status.getCode()).isEqualTo(Code.UNAVAILABLE_VALUE);
      assertThat(status.getMessage()).isNotEmpty().doesNotContain("check-me-later");
    }
    assertThat(traces.requests).isEmpty();
    assertThat(MetricsText.of(metrics))
        .contains(
            "sluice_receiver_auth_deferred_requests_total{receiver=\"otlp\",transport=\"http\"} 1");
  }

  @Test
  void aGrpcCallWithoutTheTokenIsRefusedBeforeItSendsItsMessage() throws Exception {
    // Streaming on the client's side only: grpc-java holds a unary call's headers back until its
    // message, while a streaming call sends them at once. The server sees the same Export call.
    MethodDescriptor<byte[], byte[]> export =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
            .setFullMethodName(OtlpGrpc.exportMethod(Signal.TRACES))
            .setRequestMarshaller(OtlpGrpc.Bytes.MARSHALLER)
            .setResponseMarshaller(OtlpGrpc.Bytes.MARSHALLER)
            .build();
    ClientCall<byte[], byte[]> call =
        channel.newCall(export, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS));
    CompletableFuture<Status> closed = new CompletableFuture<>();
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.request(1);

    // No message, no half-close: only a refusal from the headers can end the call this early.
    Status status = closed.get(10, TimeUnit.SECONDS);

    assertThat(status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    call.cancel("done", null);
  }

  @Test
  void httpRequestsWithTheTokenGetThroughAndOthersGet401WithAChallenge() throws Exception {
    byte[] body = SequencedSpans.request("svc", 0, 2).toByteArray();
    try (Socket socket = connect()) {
      send(socket, head("/v1/traces", body.length, "Authorization: " + GOOD), body);
      assertThat(readHead(socket.getInputStream())).startsWith("HTTP/1.1 200 OK");
    }
    try (Socket socket = connect()) {
      send(socket, head("/v1/traces", body.length, "Authorization: Bearer bad"), body);
      String refused = readHead(socket.getInputStream());

      assertThat(refused)
          .startsWith("HTTP/1.1 401 Unauthorized")
          .containsIgnoringCase("www-authenticate: Bearer realm=\"test\"")
          .containsIgnoringCase("connection: close")
          .containsIgnoringCase("content-type: application/x-protobuf");
      com.google.rpc.Status status = com.google.rpc.Status.parseFrom(rest(socket, refused));
      assertThat(status.getCode()).isEqualTo(Code.UNAUTHENTICATED_VALUE);
      assertThat(status.getMessage()).isNotEmpty().doesNotContain("bad");
    }
    assertThat(traces.requests).hasSize(1);
    assertThat(MetricsText.of(metrics))
        .contains(
            "sluice_receiver_unauthenticated_requests_total{receiver=\"otlp\",transport=\"http\"} 1");
  }

  @Test
  void aRefusedHttpRequestGetsIts401WithoutSendingTheBodyItDeclares() throws Exception {
    try (Socket socket = connect()) {
      // Larger than max_request_body_size too: authentication answers first, from the head.
      send(socket, head("/v1/traces", 100 << 20, "Expect: 100-continue"), new byte[0]);

      String answer = readHead(socket.getInputStream());

      assertThat(answer).startsWith("HTTP/1.1 401 ").containsIgnoringCase("www-authenticate:");
      rest(socket, answer);
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void theBodyOfARefusedChunkedRequestIsDroppedAsItComes() throws Exception {
    try (Socket socket = connect()) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  + "Transfer-Encoding: chunked\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String answer = readHead(socket.getInputStream());
      assertThat(answer).startsWith("HTTP/1.1 401 ").containsIgnoringCase("application/json");
      assertThat(new String(rest(socket, answer), StandardCharsets.UTF_8))
          .startsWith("{\"code\":16,");

      // What the client still sends goes nowhere; the server closes the connection.
      try {
        out.write("5\r\nhello\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
      } catch (java.io.IOException closedAlready) {
        // The close may have won the race; either way nothing reached the pipeline.
      }
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    }
    assertThat(traces.requests).isEmpty();
  }

  @Test
  void corsPreflightsPassWithoutCredentials() throws Exception {
    try (Socket socket = connect()) {
      send(
          socket,
          ("OPTIONS /v1/traces HTTP/1.1\r\nHost: x\r\nOrigin: https://web.example\r\n"
                  + "Access-Control-Request-Method: POST\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII),
          new byte[0]);

      assertThat(readHead(socket.getInputStream()))
          .startsWith("HTTP/1.1 204")
          .containsIgnoringCase("access-control-allow-origin: https://web.example");
    }
    assertThat(authenticator.checks).hasValue(0);
  }

  @Test
  void anOptionsRequestThatIsNoPreflightNeedsCredentials() throws Exception {
    // No Access-Control-Request-Method: not a preflight, whatever its method.
    String options = "OPTIONS /v1/traces HTTP/1.1\r\nHost: x\r\nOrigin: https://web.example\r\n";
    try (Socket socket = connect()) {
      send(socket, (options + "\r\n").getBytes(StandardCharsets.US_ASCII), new byte[0]);

      assertThat(readHead(socket.getInputStream()))
          .startsWith("HTTP/1.1 401 ")
          .containsIgnoringCase("www-authenticate:");
    }
    try (Socket socket = connect()) {
      send(
          socket,
          (options + "Authorization: " + GOOD + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII),
          new byte[0]);

      assertThat(readHead(socket.getInputStream()))
          .startsWith("HTTP/1.1 405 ")
          .containsIgnoringCase("allow: POST, OPTIONS");
    }
    assertThat(authenticator.checks).hasValue(2);
  }

  @Test
  void aRefusalCarriesTheCorsHeadersSoThatTheBrowserCanReadIt() throws Exception {
    try (Socket socket = connect()) {
      send(socket, head("/v1/traces", 0, "Origin: https://web.example"), new byte[0]);

      assertThat(readHead(socket.getInputStream()))
          .startsWith("HTTP/1.1 401 ")
          .containsIgnoringCase("access-control-allow-origin: https://web.example");
    }
  }

  private Socket connect() throws Exception {
    Socket socket = new Socket("127.0.0.1", receiver.httpPort());
    socket.setSoTimeout(SOCKET_TIMEOUT_MILLIS);
    return socket;
  }

  private static byte[] head(String path, int contentLength, String extraHeader) {
    return RawHttp.postHead(path, contentLength, extraHeader + "\r\n");
  }

  private static void send(Socket socket, byte[] head, byte[] body) throws Exception {
    socket.getOutputStream().write(head);
    socket.getOutputStream().write(body);
    socket.getOutputStream().flush();
  }

  /** The body after {@code head}, as long as its Content-Length says. */
  private static byte[] rest(Socket socket, String head) throws Exception {
    int size = RawHttp.contentLength(head);
    assertThat(size).isNotNegative();
    byte[] body = socket.getInputStream().readNBytes(size);
    assertThat(body).hasSize(size);
    return body;
  }
}
