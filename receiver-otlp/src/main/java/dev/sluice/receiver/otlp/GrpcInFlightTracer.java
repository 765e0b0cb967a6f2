package dev.sluice.receiver.otlp;

import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * Counts a call's message bytes in {@link InFlightBytes} while grpc-java's deframer gathers them,
 * through the documented stream-tracer API: the deframer reports each part of a message body it
 * takes from the transport ({@code inboundWireSize}, compressed size) and then the whole message
 * ({@code inboundMessageRead}), right before the request marshaller copies it out. The count is
 * given back there, or when the call ends without a whole message.
 */
final class GrpcInFlightTracer extends ServerStreamTracer {
  private static final AtomicLongFieldUpdater<GrpcInFlightTracer> HELD =
      AtomicLongFieldUpdater.newUpdater(GrpcInFlightTracer.class, "held");

  private final InFlightBytes inFlight;

  /** Bytes of this call's message counted so far; touched by the transport thread and on close. */
  private volatile long held;

  private GrpcInFlightTracer(InFlightBytes inFlight) {
    this.inFlight = inFlight;
  }

  /** One tracer per call. */
  static ServerStreamTracer.Factory factory(InFlightBytes inFlight) {
    return new ServerStreamTracer.Factory() {
      @Override
      public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
        return new GrpcInFlightTracer(inFlight);
      }
    };
  }

  @Override
  public void inboundWireSize(long bytes) {
    HELD.addAndGet(this, bytes);
    inFlight.add(bytes);
  }

  @Override
  public void inboundMessageRead(int seqNo, long wireSize, long uncompressedSize) {
    inFlight.release(HELD.getAndSet(this, 0));
  }

  @Override
  public void streamClosed(Status status) {
    inFlight.release(HELD.getAndSet(this, 0));
  }
}
