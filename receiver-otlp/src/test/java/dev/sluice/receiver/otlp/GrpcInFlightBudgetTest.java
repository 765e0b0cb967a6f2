package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The gRPC receiver's bytes in flight against clients that open calls and stall: a call holds what
 * has arrived of its message, never what it might bring. The stalled calls are HTTP/2 written frame
 * by frame on loopback, the good client is grpc-java's; the server has handled every stalled call's
 * frames (a PING sent after them is acknowledged) before the good client starts.
 */
class GrpcInFlightBudgetTest {
  private static final int KIB = 1024;
  private static final int MIB = 1 << 20;

  /** 200 stalled calls, within the default max_concurrent_streams (100) of each connection. */
  private static final int STALLED_CONNECTIONS = 4;

  private static final int STALLED_CALLS_PER_CONNECTION = 50;

  /** What a stalled call that starts its message sends of it (of 3 MiB declared). */
  private static final int STALLED_MESSAGE_BYTES = KIB;

  private static final int GOOD_EXPORTS = 30;

  private final MetricRegistry metrics = new MetricRegistry();
  private final RecordingConsumer traces = new RecordingConsumer(1500);
  private final List<RawHttp2> rawClients = new ArrayList<>();
  private OtlpReceiver receiver;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws Exception {
    for (RawHttp2 client : rawClients) {
      client.close();
    }
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    TestReceivers.shutdown(receiver);
  }

  /**
   * 200 calls that stall, at the defaults (32 MiB in flight, 4 MiB messages, calls cut after a
   * minute): half send only their headers, half their headers and 1 KiB of a message. Together they
   * hold the 100 KiB they sent, and a client sending exports meanwhile is served every time.
   */
  @Test
  void stalledCallsHoldWhatTheySentSoOtherClientsAreServed() throws Exception {
    start(GrpcServerConfig.DEFAULT_MAX_IN_FLIGHT_BYTES_MIB);
    long sent = 0;
    for (int c = 0; c < STALLED_CONNECTIONS; c++) {
      RawHttp2 client = raw().handshake();
      for (int i = 0; i < STALLED_CALLS_PER_CONNECTION; i++) {
        int streamId = 1 + 2 * i;
        client.exportHeaders(streamId);
        if (i % 2 == 1) {
          client.partialMessage(streamId, 3 * MIB, STALLED_MESSAGE_BYTES);
          sent += STALLED_MESSAGE_BYTES;
        }
      }
      client.roundTrip();
    }
    long stalledBytes = sent;
    assertThat(stalledBytes).isEqualTo(100 * KIB);

    List<Status.Code> answers = new ArrayList<>();
    for (int i = 0; i < GOOD_EXPORTS; i++) {
      answers.add(export());
    }

    assertThat(answers).hasSize(GOOD_EXPORTS).containsOnly(Status.Code.OK);
    assertThat(traces.requests).hasSize(GOOD_EXPORTS);
    assertThat(inFlightBytes()).isEqualTo(stalledBytes);
    for (RawHttp2 client : rawClients) {
      assertThat(client.roundTrip())
          .as("answers to stalled calls")
          .noneMatch(frame -> frame.type() == RawHttp2.HEADERS)
          .noneMatch(frame -> frame.type() == RawHttp2.RST_STREAM);
      client.close();
    }
    Await.until("no bytes in flight", () -> inFlightBytes() == 0);
  }

  /**
   * The call that may go past the bound (so that the receiver always finishes one) is the one whose
   * message began to arrive first: a call admitted before it that has sent nothing does not take
   * its place. 1 MiB in flight: past 1280 KiB, every other call's bytes get it refused.
   */
  @Test
  void aStalledCallThatSentNothingDoesNotTakeThePlaceOfTheCallThatMayPassTheBound()
      throws Exception {
    start(1);
    RawHttp2 stalled = raw().handshake();
    stalled.exportHeaders(1);
    stalled.roundTrip();

    byte[] message = grpcMessage(SequencedSpans.request("svc", 0, 1).toByteArray(), 700 * KIB);
    int first = 600 * KIB;
    RawHttp2 leading = raw().handshake();
    leading.exportHeaders(1);
    sendData(leading, message, 0, first, false);
    leading.roundTrip();
    RawHttp2 second = raw().handshake();
    second.exportHeaders(1);
    second.partialMessage(1, 3 * MIB, first);
    second.roundTrip();
    // About 1200 KiB: past the bound, within what the calls being received may take.
    assertThat(inFlightBytes()).isBetween(2L * first - 5, 1280L * KIB);

    // The rest of the leading call's message takes the total past 1280 KiB.
    sendData(leading, message, first, message.length, true);
    RawHttp2.Frame answer;
    do {
      answer = leading.readOn(1);
    } while (answer.type() != RawHttp2.RST_STREAM && (answer.flags() & RawHttp2.END_STREAM) == 0);

    assertThat(answer.type()).isEqualTo(RawHttp2.HEADERS);
    assertThat(leading.decode(answer).get("grpc-status").toString()).isEqualTo("0");
    assertThat(traces.requests).hasSize(1);
    Await.until("the first call's 600 KiB in flight", () -> inFlightBytes() == first);
    second.close();
    stalled.close();
    Await.until("no bytes in flight", () -> inFlightBytes() == 0);
  }

  /** The defaults, on loopback, with {@code maxInFlightMib}. */
  private void start(int maxInFlightMib) throws Exception {
    GrpcServerConfig defaults = GrpcServerConfig.DEFAULT;
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0",
            "tcp",
            null,
            defaults.maxRecvMsgSizeMib(),
            defaults.maxConcurrentStreams(),
            defaults.keepalive(),
            false,
            defaults.maxConnections(),
            maxInFlightMib,
            defaults.handshakeTimeout(),
            defaults.maxCallDuration(),
            null);
    assertThat(grpc.maxCallDuration()).isEqualTo(Duration.ofMinutes(1));
    receiver = TestReceivers.start(metrics, grpc, null, traces);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", receiver.grpcPort()).usePlaintext().build();
  }

  /** One export of a few spans; its status code. */
  private Status.Code export() {
    try {
      TraceServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .export(SequencedSpans.request("svc", 0, 3));
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  /**
   * A gRPC message of {@code body} followed by enough of an unknown length-delimited field (number
   * 15, which an OTLP request may carry and the receiver keeps) to make it {@code bytes} long.
   */
  private static byte[] grpcMessage(byte[] body, int bytes) {
    int padding = bytes - 5 - body.length - 1 - 3;
    assertThat(padding).isBetween(1 << 14, (1 << 21) - 1);
    byte[] message = new byte[bytes];
    int length = bytes - 5;
    message[1] = (byte) (length >>> 24);
    message[2] = (byte) (length >>> 16);
    message[3] = (byte) (length >>> 8);
    message[4] = (byte) length;
    System.arraycopy(body, 0, message, 5, body.length);
    int at = 5 + body.length;
    message[at++] = (byte) (15 << 3 | 2);
    message[at++] = (byte) (padding & 0x7f | 0x80);
    message[at++] = (byte) (padding >>> 7 & 0x7f | 0x80);
    message[at] = (byte) (padding >>> 14);
    return message;
  }

  /** Sends {@code message[from, to)} in DATA frames, the last one ending the stream if asked. */
  private static void sendData(RawHttp2 client, byte[] message, int from, int to, boolean end)
      throws IOException {
    for (int at = from; at < to; at += RawHttp2.MAX_FRAME_BYTES) {
      int next = Math.min(to, at + RawHttp2.MAX_FRAME_BYTES);
      int flags = end && next == to ? RawHttp2.END_STREAM : 0;
      client.frame(RawHttp2.DATA, flags, 1, Arrays.copyOfRange(message, at, next));
    }
  }

  private RawHttp2 raw() throws IOException {
    RawHttp2 client = new RawHttp2(receiver.grpcPort());
    rawClients.add(client);
    return client;
  }

  private long inFlightBytes() {
    return TestReceivers.value(metrics, "sluice_receiver_in_flight_bytes");
  }
}
