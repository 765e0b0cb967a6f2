package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.rpc.RetryInfo;
import dev.sluice.component.Admission;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.grpc.OtlpGrpc;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.Await;
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
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Headers;
import io.grpc.protobuf.StatusProto;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The gRPC receiver's limits against overload and slow or greedy clients, hit with grpc-java
 * clients and, where a client must misbehave, with HTTP/2 written frame by frame.
 */
class GrpcEdgeLimitsTest {
  private static final int KIB = 1024;
  private static final int MIB = 1 << 20;
  private static final String EXPORT = OtlpGrpc.exportMethod(Signal.TRACES);

  private final MetricRegistry metrics = new MetricRegistry();
  private final RecordingConsumer traces = new RecordingConsumer(1500);
  private final List<AutoCloseable> clients = new ArrayList<>();
  private OtlpReceiver receiver;
  private ManagedChannel channel;

  private void start(
      int maxConcurrentStreams,
      Duration maxConnectionIdle,
      int maxConnections,
      int maxInFlightMib,
      Duration handshakeTimeout)
      throws Exception {
    start(
        maxConcurrentStreams,
        maxConnectionIdle,
        maxConnections,
        maxInFlightMib,
        handshakeTimeout,
        Duration.ofMinutes(1));
  }

  private void start(
      int maxConcurrentStreams,
      Duration maxConnectionIdle,
      int maxConnections,
      int maxInFlightMib,
      Duration handshakeTimeout,
      Duration maxCallDuration)
      throws Exception {
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0",
            "tcp",
            null,
            4,
            maxConcurrentStreams,
            new GrpcServerConfig.Keepalive(
                new GrpcServerConfig.ServerParameters(
                    maxConnectionIdle, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO),
                GrpcServerConfig.EnforcementPolicy.DEFAULT),
            false,
            maxConnections,
            maxInFlightMib,
            handshakeTimeout,
            maxCallDuration,
            null);
    receiver = TestReceivers.start(metrics, grpc, null, traces);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", receiver.grpcPort()).usePlaintext().build();
  }

  private void startWithDefaults() throws Exception {
    start(100, Duration.ofMinutes(1), 1000, 32, Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable client : clients) {
      client.close();
    }
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    TestReceivers.shutdown(receiver);
  }

  @Test
  void refusesACallAtItsHeadersWhileThePipelinesAreFullBeforeItsMessageIsSent() throws Exception {
    startWithDefaults();
    traces.atHeaders = Admission.FULL;
    CompletableFuture<Status> closed = new CompletableFuture<>();
    CompletableFuture<Metadata> trailers = new CompletableFuture<>();

    // The call is started and its message never sent: the answer must not wait for it.
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            method(MethodDescriptor.MethodType.CLIENT_STREAMING),
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata metadata) {
            trailers.complete(metadata);
            closed.complete(status);
          }
        },
        new Metadata());
    call.request(1);

    Status status = closed.get(5, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(status.getDescription()).isEqualTo(EdgeAdmission.FULL_MESSAGE);
    com.google.rpc.Status details = StatusProto.fromStatusAndTrailers(status, trailers.get());
    RetryInfo retry = details.getDetails(0).unpack(RetryInfo.class);
    assertThat(retry.getRetryDelay().getSeconds()).isEqualTo(1);
    assertThat(retry.getRetryDelay().getNanos()).isEqualTo(500_000_000);
    assertThat(traces.requests).isEmpty();
    assertThat(MetricsText.of(metrics))
        .contains(
            "sluice_receiver_refused_unread_requests_total{receiver=\"otlp\",transport=\"grpc\","
                + "reason=\"pipelines_full\"} 1");
  }

  @Test
  void refusesACallWhoseMessageWouldTakeSecondsAtOnce() throws Exception {
    startWithDefaults();
    traces.atHeaders = Admission.FULL;
    try (RawHttp2 client = raw().handshake()) {
      client.exportHeaders(1);
      // 3 MiB declared, a few bytes sent: the rest would come at the client's pace.
      client.partialMessage(1, 3 * MIB, 100);

      RawHttp2.Frame answer = client.readOn(1);

      assertThat(answer.type()).isEqualTo(RawHttp2.HEADERS);
      Http2Headers headers = client.decode(answer);
      assertThat(headers.get("grpc-status").toString())
          .isEqualTo(Integer.toString(Status.Code.UNAVAILABLE.value()));
      assertThat(headers.contains("grpc-status-details-bin")).isTrue();
    }
    assertThat(traces.requests).isEmpty();
  }

  @Test
  void servesCallsAgainOnceThePipelinesHaveRoom() throws Exception {
    startWithDefaults();
    traces.atHeaders = Admission.FULL;
    assertThatThrownBy(() -> export(3))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));

    traces.atHeaders = Admission.ACCEPTED;
    export(3);

    assertThat(traces.requests).hasSize(1);
  }

  @Test
  void refusesNewCallsWhileTheBytesInFlightAreAtTheirBound() throws Exception {
    start(100, Duration.ofMinutes(1), 1000, 1, Duration.ofSeconds(10));
    // Two connections, each holding 600 KiB of a message it never finishes: 1.2 MiB in flight.
    RawHttp2 first = raw().handshake();
    RawHttp2 second = raw().handshake();
    first.exportHeaders(1);
    first.partialMessage(1, 3 * MIB, 600 * KIB);
    second.exportHeaders(1);
    second.partialMessage(1, 3 * MIB, 600 * KIB);
    Await.until("1 MiB in flight", () -> inFlightBytes() >= MIB);

    assertThatThrownBy(() -> export(3))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(e.getStatus().getDescription()).isEqualTo(EdgeAdmission.IN_FLIGHT_MESSAGE);
              assertThat(StatusProto.fromThrowable(e).getDetailsCount()).isEqualTo(1);
            });

    first.close();
    second.close();
    Await.until("no bytes in flight", () -> inFlightBytes() == 0);
    export(3);
    assertThat(traces.requests).hasSize(1);
  }

  /**
   * When calls let through bring more than the bound together, the call whose bytes take the total
   * past the bound by more than a quarter of it is refused there, with RetryInfo.
   */
  @Test
  void refusesACallWhoseBytesTakeTheTotalPastTheBoundWhereItIs() throws Exception {
    start(100, Duration.ofMinutes(1), 1000, 1, Duration.ofSeconds(10));
    RawHttp2 first = raw().handshake();
    RawHttp2 second = raw().handshake();
    first.exportHeaders(1);
    first.partialMessage(1, 3 * MIB, 700 * KIB);
    Await.until("700 KiB in flight", () -> inFlightBytes() >= 700 * KIB);
    // The second call starts only now, so that the first one's message began to arrive first: the
    // two connections are read on different event loops, and that call is never refused.
    second.exportHeaders(1);
    second.partialMessage(1, 3 * MIB, 700 * KIB);
    RawHttp2.Frame answer = second.readOn(1);

    assertThat(answer.type()).isEqualTo(RawHttp2.HEADERS);
    Http2Headers headers = second.decode(answer);
    assertThat(headers.get("grpc-status").toString()).isEqualTo("14");
    assertThat(headers.get("grpc-message").toString()).isEqualTo(EdgeAdmission.IN_FLIGHT_MESSAGE);
    assertThat(headers.contains("grpc-status-details-bin")).isTrue();
    // Once the answer is written the server drops the refused call's bytes, client or no client.
    Await.until("exactly 700 KiB in flight", () -> inFlightBytes() == 700 * KIB);
    second.close();
    first.close();
    Await.until("no bytes in flight", () -> inFlightBytes() == 0);
    assertThat(traces.requests).isEmpty();
  }

  /**
   * Many calls started at once over several connections, as an open-loop client with a thousand
   * requests in flight does: each is served or refused with RetryInfo, and the bytes in flight stay
   * near their bound (what each connection's reads bring before a refusal is written comes on top)
   * instead of growing with the number of calls (8 MiB here).
   */
  @Test
  void keepsTheBytesInFlightNearTheBoundWhenManyCallsStartAtOnce() throws Exception {
    start(100, Duration.ofMinutes(1), 1000, 1, Duration.ofSeconds(10));
    byte[] body = SequencedSpans.request("svc", 0, 3600).toByteArray();
    assertThat(body.length).isBetween(150 * KIB, 250 * KIB);
    int connections = 4;
    int callsPerConnection = 10;
    List<ManagedChannel> channels = new ArrayList<>();
    List<com.google.common.util.concurrent.ListenableFuture<byte[]>> answers = new ArrayList<>();
    try {
      for (int c = 0; c < connections; c++) {
        ManagedChannel each =
            NettyChannelBuilder.forAddress("127.0.0.1", receiver.grpcPort()).usePlaintext().build();
        channels.add(each);
        for (int i = 0; i < callsPerConnection; i++) {
          answers.add(
              io.grpc.stub.ClientCalls.futureUnaryCall(
                  each.newCall(
                      method(MethodDescriptor.MethodType.UNARY),
                      CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS)),
                  body));
        }
      }
      int served = 0;
      for (com.google.common.util.concurrent.ListenableFuture<byte[]> answer : answers) {
        try {
          answer.get(30, TimeUnit.SECONDS);
          served++;
        } catch (java.util.concurrent.ExecutionException e) {
          Status status = Status.fromThrowable(e.getCause());
          assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(StatusProto.fromThrowable(e.getCause()).getDetailsCount()).isEqualTo(1);
        }
      }
      assertThat(served).isPositive();
      assertThat(traces.requests).hasSize(served);
      assertThat(peakInFlightBytes())
          .isLessThanOrEqualTo(MIB + MIB / 4 + connections * (long) MIB)
          .isLessThan((long) connections * callsPerConnection * body.length);
      Await.until("no bytes in flight", () -> inFlightBytes() == 0);
    } finally {
      for (ManagedChannel each : channels) {
        each.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void cancelsACallWhoseMessageNeverCompletesAfterMaxCallDuration() throws Exception {
    // Long enough for the part of the message to be seen in flight first on a busy machine.
    start(100, Duration.ofMinutes(1), 1000, 32, Duration.ofSeconds(10), Duration.ofSeconds(2));
    try (RawHttp2 client = raw().handshake()) {
      client.exportHeaders(1);
      client.partialMessage(1, 3 * MIB, 200 * KIB);
      Await.until("200 KiB in flight", () -> inFlightBytes() >= 200 * KIB);

      RawHttp2.Frame answer = client.readOn(1);

      assertThat(answer.type()).isEqualTo(RawHttp2.RST_STREAM);
      assertThat(RawHttp2.errorCode(answer)).isEqualTo(0x8); // CANCEL
      Await.until("no bytes in flight", () -> inFlightBytes() == 0);
    }
    export(3);
    assertThat(traces.requests).hasSize(1);
  }

  @Test
  void countsAMessageInFlightUntilItIsHandedOn() throws Exception {
    startWithDefaults();
    for (int i = 0; i < 3; i++) {
      export(2000);
    }

    assertThat(inFlightBytes()).isZero();
    assertThat(traces.requests).hasSize(3);
  }

  @Test
  void refusesStreamsOverMaxConcurrentStreams() throws Exception {
    start(2, Duration.ofMinutes(1), 1000, 32, Duration.ofSeconds(10));
    try (RawHttp2 client = raw().handshake()) {
      client.exportHeaders(1);
      client.exportHeaders(3);
      client.exportHeaders(5);

      RawHttp2.Frame refused = client.readOn(5);

      assertThat(refused.type()).isEqualTo(RawHttp2.RST_STREAM);
      assertThat(RawHttp2.errorCode(refused)).isEqualTo(0x7); // REFUSED_STREAM
    }
  }

  @Test
  void defaultsToOneHundredConcurrentStreams() {
    assertThat(GrpcServerConfig.DEFAULT.maxConcurrentStreams()).isEqualTo(100);
  }

  @Test
  void answersHeadersOverTheLimitWith431AndKeepsServing() throws Exception {
    startWithDefaults();
    try (RawHttp2 client = raw().handshake()) {
      // The advertised limit is ignored here, as a hostile client would.
      client.exportHeaders(1, "x-big", "a".repeat(GrpcServer.MAX_HEADER_LIST_BYTES));

      RawHttp2.Frame answer = client.readOn(1);

      assertThat(answer.type()).isEqualTo(RawHttp2.HEADERS);
      assertThat(client.decode(answer).status().toString()).isEqualTo("431");
    }
    export(2);
    assertThat(traces.requests).hasSize(1);
  }

  @Test
  void closesAConnectionThatNeverSendsItsPrefaceAfterHandshakeTimeout() throws Exception {
    start(100, Duration.ofMinutes(1), 1000, 32, Duration.ofMillis(300));
    try (RawHttp2 client = raw()) {
      client.writeRaw(new byte[] {'P', 'R', 'I'});

      client.readUntilClosed();
    }
  }

  /**
   * A call whose HEADERS frame never completes is no call to grpc-java, so the connection counts as
   * idle. grpc-java closes an idle connection gracefully: GOAWAY and a PING, then, as a client in
   * the middle of a frame cannot answer the PING, the close 10 s later.
   */
  @Test
  void closesAConnectionWhoseHeadersNeverCompleteAfterMaxConnectionIdle() throws Exception {
    start(100, Duration.ofMillis(300), 1000, 32, Duration.ofSeconds(10));
    try (RawHttp2 client = raw().handshake()) {
      client.socket.setSoTimeout(30_000);
      byte[] block = RawHttp2.exportHeaderBlock();
      client.frameHeader(block.length, RawHttp2.HEADERS, RawHttp2.END_HEADERS, 1);
      client.writeRaw(java.util.Arrays.copyOf(block, 10));

      assertThat(client.readUntilClosed()).as("GOAWAY before the close").isTrue();
    }
  }

  @Test
  void closesConnectionsOverMaxConnectionsAtAccept() throws Exception {
    start(100, Duration.ofMinutes(1), 2, 32, Duration.ofSeconds(10));
    RawHttp2 first = raw().handshake();
    RawHttp2 second = raw().handshake();

    try (RawHttp2 third = raw()) {
      assertThat(third.readUntilClosed()).isFalse();
    }
    assertThat(MetricsText.of(metrics))
        .contains(
            "sluice_receiver_refused_connections_total{receiver=\"otlp\",transport=\"grpc\"} 1");
    // A grpc-java client over the limit sees UNAVAILABLE, which it may retry.
    assertThatThrownBy(() -> export(1))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));

    first.close();
    second.close();
    Await.until(
        "a connection taken again once the others closed",
        () -> {
          try {
            export(1);
            return true;
          } catch (StatusRuntimeException e) {
            return false;
          }
        });
  }

  private RawHttp2 raw() throws IOException {
    RawHttp2 client = new RawHttp2(receiver.grpcPort());
    clients.add(client);
    return client;
  }

  private void export(int spans) {
    TraceServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .export(SequencedSpans.request("svc", 0, spans));
  }

  private static MethodDescriptor<byte[], byte[]> method(MethodDescriptor.MethodType type) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(type)
        .setFullMethodName(EXPORT)
        .setRequestMarshaller(OtlpGrpc.Bytes.MARSHALLER)
        .setResponseMarshaller(OtlpGrpc.Bytes.MARSHALLER)
        .build();
  }

  private long inFlightBytes() {
    return TestReceivers.value(metrics, "sluice_receiver_in_flight_bytes");
  }

  private long peakInFlightBytes() {
    return TestReceivers.value(metrics, "sluice_receiver_in_flight_peak_bytes");
  }
}
