package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.ReceiverTelemetry;
import dev.sluice.pdata.Signal;
import io.grpc.Attributes;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The in-flight bound of gRPC calls, driven call by call as a transport would. */
class GrpcInFlightTracerTest {
  private static final int KIB = 1024;
  private static final long MAX_IN_FLIGHT_BYTES = 1L << 20;

  /** Rounds of parts between a refusal and the end of its stream, while the answer goes out. */
  private static final int CLOSE_ROUNDS = 2;

  private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor();
  private final InFlightBytes inFlight = new InFlightBytes(MAX_IN_FLIGHT_BYTES);
  private final GrpcInFlightTracer.Factory factory =
      new GrpcInFlightTracer.Factory(inFlight, TimeUnit.MINUTES.toNanos(1), deadlines);
  private final EdgeAdmission admission =
      new EdgeAdmission(
          new RequestHandler(
              Map.of(),
              new ReceiverTelemetry(new MetricRegistry(), ComponentId.parse("otlp"), "grpc")),
          inFlight,
          new ComponentSettings(
              ComponentId.parse("otlp"), ComponentKind.RECEIVER, new MetricRegistry()),
          "grpc");

  @AfterEach
  void stop() {
    deadlines.shutdownNow();
  }

  /**
   * Sixteen calls admitted at their headers, whose 200 KiB bodies arrive in 16 KiB parts taken in
   * turn, as HTTP/2 interleaves streams: together they pass the bound before any completes. A
   * refused call holds its bytes until its answer is out and its stream ends, a little later. Some
   * are refused, but not all: the call whose message began to arrive first is never refused for
   * overshooting, so the receiver keeps serving under this load, and the bytes in flight stay
   * within the bound plus one message and what each call brings before its refusal.
   */
  @Test
  void servesTheLeadingCallWhenInterleavedCallsPassTheBoundTogether() {
    int calls = 16;
    long messageBytes = 200 * KIB;
    long partBytes = 16 * KIB;
    List<GrpcInFlightTracer> tracers = new ArrayList<>();
    List<RecordingCall> closes = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      GrpcInFlightTracer tracer =
          (GrpcInFlightTracer) factory.newServerStreamTracer("Export", new Metadata());
      RecordingCall call = new RecordingCall();
      tracer.admitted(new GrpcAdmission.GuardedCall<>(call, admission, Signal.TRACES));
      tracers.add(tracer);
      closes.add(call);
    }
    long[] received = new long[calls];
    boolean[] done = new boolean[calls];
    int[] refusedInRound = new int[calls];
    java.util.Arrays.fill(refusedInRound, -1);
    int served = 0;
    int refused = 0;
    for (int round = 0; served + refused < calls; round++) {
      assertThat(round).as("rounds").isLessThan(1000);
      for (int i = 0; i < calls; i++) {
        if (done[i]) {
          continue;
        }
        if (refusedInRound[i] >= 0) {
          // Refused: the transport drops the rest, and the stream ends once the answer is out.
          if (round - refusedInRound[i] >= CLOSE_ROUNDS) {
            tracers.get(i).streamClosed(closes.get(i).status);
            done[i] = true;
            refused++;
          }
          continue;
        }
        tracers.get(i).inboundWireSize(partBytes);
        received[i] += partBytes;
        assertThat(inFlight.bytes())
            .isLessThanOrEqualTo(
                MAX_IN_FLIGHT_BYTES + inFlight.overshootBytes() + messageBytes + calls * partBytes);
        if (closes.get(i).status != null) {
          refusedInRound[i] = round;
        } else if (received[i] >= messageBytes) {
          tracers.get(i).inboundMessageRead(0, received[i], received[i]);
          tracers.get(i).streamClosed(Status.OK);
          done[i] = true;
          served++;
        }
      }
    }
    assertThat(refused).as("refused with RetryInfo").isPositive();
    assertThat(served).as("served").isPositive();
    assertThat(inFlight.bytes()).isZero();
    for (RecordingCall call : closes) {
      if (call.status != null) {
        assertThat(call.status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      }
    }
  }

  /** A server call that records how it was closed. */
  private static final class RecordingCall extends ServerCall<InputStream, InputStream> {
    Status status;

    @Override
    public void request(int count) {}

    @Override
    public void sendHeaders(Metadata headers) {}

    @Override
    public void sendMessage(InputStream message) {}

    @Override
    public void close(Status status, Metadata trailers) {
      this.status = status;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public Attributes getAttributes() {
      return Attributes.EMPTY;
    }

    @Override
    public MethodDescriptor<InputStream, InputStream> getMethodDescriptor() {
      MethodDescriptor.Marshaller<InputStream> bytes =
          new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(InputStream value) {
              return value;
            }

            @Override
            public InputStream parse(InputStream stream) {
              return stream;
            }
          };
      return MethodDescriptor.<InputStream, InputStream>newBuilder(bytes, bytes)
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("opentelemetry.proto.collector.trace.v1.TraceService/Export")
          .build();
    }
  }
}
