package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.Admission;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.grpc.OtlpGrpc;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Calls the gRPC receiver answers before their message is whole (refused at their headers, or at a
 * length prefix over {@code max_recv_msg_size_mib}) while a grpc-java client, its call half-closed,
 * still has most of a message larger than the flow-control window to send: each such stream must
 * end on both sides, or the connection runs out of {@code max_concurrent_streams} and every later
 * call on it waits for a stream forever.
 */
class GrpcEarlyAnswerTest {
  private static final int MIB = 1 << 20;
  private static final int MAX_RECV_MIB = 4;

  /** Few, so that streams left open show after a few calls rather than a hundred. */
  private static final int MAX_CONCURRENT_STREAMS = 4;

  /** Several times the streams a connection may have open at once. */
  private static final int CALLS = 3 * MAX_CONCURRENT_STREAMS;

  /** Over {@code max_recv_msg_size_mib}. */
  private static final int OVERSIZE_MESSAGE_BYTES = MAX_RECV_MIB * MIB + MIB;

  /**
   * Within {@code max_recv_msg_size_mib}, larger than the flow-control window ({@link
   * GrpcServer#FLOW_CONTROL_WINDOW_BYTES}): the client cannot send it all unless the server reads.
   */
  private static final int LARGE_MESSAGE_BYTES = 2 * GrpcServer.FLOW_CONTROL_WINDOW_BYTES;

  private static final long CALL_DEADLINE_SECONDS = 10;

  private final MetricRegistry metrics = new MetricRegistry();
  private final RecordingConsumer traces = new RecordingConsumer(1500);
  private OtlpReceiver receiver;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0",
            "tcp",
            null,
            MAX_RECV_MIB,
            MAX_CONCURRENT_STREAMS,
            GrpcServerConfig.Keepalive.DEFAULT,
            false,
            1000,
            32,
            Duration.ofSeconds(10),
            Duration.ofMinutes(1),
            null);
    receiver = TestReceivers.start(metrics, grpc, null, traces);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", receiver.grpcPort()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    TestReceivers.shutdown(receiver);
  }

  @Test
  void keepsServingAConnectionAfterMoreMessagesOverTheLimitThanItHasStreams() throws Exception {
    for (int i = 0; i < CALLS; i++) {
      assertRefused(new byte[OVERSIZE_MESSAGE_BYTES], Status.Code.RESOURCE_EXHAUSTED);
    }

    sendValid();
    assertThat(traces.requests).hasSize(1);
    Await.until(
        "no bytes in flight",
        () -> TestReceivers.value(metrics, "sluice_receiver_in_flight_bytes") == 0);
  }

  @Test
  void keepsServingAConnectionAfterMoreRefusalsAtTheHeadersThanItHasStreams() throws Exception {
    traces.atHeaders = Admission.FULL;
    for (int i = 0; i < CALLS; i++) {
      assertRefused(new byte[LARGE_MESSAGE_BYTES], Status.Code.UNAVAILABLE);
    }

    traces.atHeaders = Admission.ACCEPTED;
    sendValid();
    assertThat(traces.requests).hasSize(1);
  }

  @Test
  void resetsAStreamWithNoErrorAfterAnsweringItWhileItsClientIsStillSending() throws Exception {
    try (RawHttp2 client = new RawHttp2(receiver.grpcPort()).handshake()) {
      client.exportHeaders(1);
      client.partialMessage(1, 2 * MAX_RECV_MIB * MIB, RawHttp2.MAX_FRAME_BYTES);

      RawHttp2.Frame answer = client.readOn(1);
      assertThat(answer.type()).isEqualTo(RawHttp2.HEADERS);
      assertThat(answer.flags() & RawHttp2.END_STREAM).isEqualTo(RawHttp2.END_STREAM);
      assertThat(client.decode(answer).get("grpc-status").toString())
          .isEqualTo(Integer.toString(Status.Code.RESOURCE_EXHAUSTED.value()));

      RawHttp2.Frame reset = client.readOn(1);
      assertThat(reset.type()).isEqualTo(RawHttp2.RST_STREAM);
      assertThat(RawHttp2.errorCode(reset)).isZero(); // NO_ERROR
    }
  }

  @Test
  void leavesAStreamWhoseClientEndedItBeforeTheAnswerUnreset() throws Exception {
    try (RawHttp2 client = new RawHttp2(receiver.grpcPort()).handshake()) {
      client.exportHeaders(1);
      byte[] body = SequencedSpans.request("svc", 0, 3).toByteArray();
      byte[] message = new byte[5 + body.length];
      message[1] = (byte) (body.length >>> 24);
      message[2] = (byte) (body.length >>> 16);
      message[3] = (byte) (body.length >>> 8);
      message[4] = (byte) body.length;
      System.arraycopy(body, 0, message, 5, body.length);
      client.frame(RawHttp2.DATA, RawHttp2.END_STREAM, 1, message);

      RawHttp2.Frame trailers;
      do {
        trailers = client.readOn(1);
      } while ((trailers.flags() & RawHttp2.END_STREAM) == 0);
      assertThat(trailers.type()).isEqualTo(RawHttp2.HEADERS);
      assertThat(client.decode(trailers).get("grpc-status").toString()).isEqualTo("0");

      // A reset would be written right after the trailers, so before the answer to this ping.
      client.frame(RawHttp2.PING, 0, 0, new byte[8]);
      RawHttp2.Frame next;
      do {
        next = client.read();
        assertThat(next.type())
            .as("frame on stream %d", next.streamId())
            .isNotEqualTo(RawHttp2.RST_STREAM);
      } while (next.type() != RawHttp2.PING);
    }
    assertThat(traces.requests).hasSize(1);
  }

  private void assertRefused(byte[] body, Status.Code code) {
    assertThatThrownBy(() -> call(body))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
  }

  private void sendValid() {
    call(SequencedSpans.request("svc", 0, 3).toByteArray());
  }

  private byte[] call(byte[] body) {
    return ClientCalls.blockingUnaryCall(
        channel,
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(OtlpGrpc.exportMethod(Signal.TRACES))
            .setRequestMarshaller(OtlpGrpc.Bytes.MARSHALLER)
            .setResponseMarshaller(OtlpGrpc.Bytes.MARSHALLER)
            .build(),
        CallOptions.DEFAULT.withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS),
        body);
  }
}
