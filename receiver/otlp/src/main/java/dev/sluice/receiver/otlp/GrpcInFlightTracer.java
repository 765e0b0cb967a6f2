package dev.sluice.receiver.otlp;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import java.util.Comparator;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * Counts a call's message bytes in {@link InFlightBytes} while grpc-java's deframer gathers them,
 * through the documented stream-tracer API: the deframer reports each part of a message body it
 * takes from the transport ({@code inboundWireSize}, compressed size) and then the whole message
 * ({@code inboundMessageRead}), right before the request marshaller copies it out. The count is
 * given back there, or when the call ends without a whole message.
 *
 * <p>Two things make the bound hold when many calls start at once, as when a thousand requests in
 * flight arrive over a few connections: their headers all come before their bodies, so at each
 * call's headers nothing is counted yet. First, a call admitted at its headers ({@link #admitted})
 * counts as the expected message size (a reservation) until more than that has arrived, so the
 * check at the next call's headers sees what the calls admitted before it will bring. The expected
 * size starts at a 128th of the bound (at most {@code max_recv_msg_size_mib}) and follows the
 * messages received (a moving average over about four; a call cut off counts with what it had
 * brought, so that the average grows when calls are larger than it). Second, a call that brings
 * more than it reserved while the total is past the bound by more than {@link
 * InFlightBytes#overshootBytes()} is refused on the spot, with UNAVAILABLE and RetryInfo ({@link
 * GrpcAdmission.GuardedCall#refuseInFlight()}); calls within their reservation add nothing and go
 * on. The oldest call still receiving its message is never refused for overshooting: when many
 * calls' bodies arrive interleaved, every one of them can pass its reservation before any
 * completes, and if each could be refused, all of them could be and the receiver would serve
 * nothing under load. The oldest one adds at most one message (bounded by {@code
 * max_recv_msg_size_mib} and its connection's flow-control window) to the bound, and {@code
 * max_call_duration} bounds how long it can hold the place.
 *
 * <p>It also gives each call a deadline of {@code max_call_duration}, through the context grpc-java
 * derives the call's own from: at that deadline grpc-java cancels the call (RST_STREAM) as it does
 * at a client's deadline, so that a call whose message never completes cannot hold its bytes, or
 * its reservation, for ever. The deadline is cancelled when the call ends.
 *
 * <p>Every method runs on the call's transport thread (the server runs calls on it too), except
 * that the count is given back with an atomic swap, whichever thread closes the call.
 */
final class GrpcInFlightTracer extends ServerStreamTracer {
  /** Where {@link GrpcAdmission} finds the tracer of the call it admits. */
  static final Context.Key<GrpcInFlightTracer> KEY = Context.key("sluice-in-flight-tracer");

  private static final AtomicLongFieldUpdater<GrpcInFlightTracer> COUNTED =
      AtomicLongFieldUpdater.newUpdater(GrpcInFlightTracer.class, "counted");

  private final Factory factory;
  private long receivedBytes;
  private long reservedBytes;
  private GrpcAdmission.GuardedCall<?, ?> call;
  private Context.CancellableContext deadline;

  /** Order of admission, from 1; 0 until admitted. */
  private long admission;

  /** What this call adds to the in-flight bytes now: the larger of received and reserved. */
  private volatile long counted;

  private GrpcInFlightTracer(Factory factory) {
    this.factory = factory;
  }

  /** One tracer per call; shares the in-flight bytes and the expected message size. */
  static final class Factory extends ServerStreamTracer.Factory {
    /** The expected size moves a quarter of the way to each message's size. */
    private static final int AVERAGE_DIVISOR = 4;

    /**
     * Before any message is seen, a call reserves this fraction of the bound: 128 calls admitted at
     * once fill it. A collector that has just started handles its first messages slowly (its code
     * is not compiled yet), so the first moving average comes late; with a sixteenth, the sixteen
     * calls of a client's first burst filled the bound and the rest of the burst was refused. A
     * burst of messages larger than the reservation is still held to the bound, by the refusal of
     * calls that overshoot it.
     */
    static final int INITIAL_RESERVATION_DIVISOR = 128;

    private final InFlightBytes inFlight;
    private final long maxCallNanos;
    private final ScheduledExecutorService deadlines;
    private volatile long expectedMessageBytes;

    /** Admitted calls still receiving their message, oldest first. */
    private final ConcurrentSkipListSet<GrpcInFlightTracer> receiving =
        new ConcurrentSkipListSet<>(Comparator.comparingLong(tracer -> tracer.admission));

    private final AtomicLong admissions = new AtomicLong();

    /**
     * @param maxMessageBytes the largest message, a cap on the size expected before any is seen
     * @param deadlines where the calls' deadlines are timed; the server's owner shuts it down
     */
    Factory(
        InFlightBytes inFlight,
        long maxMessageBytes,
        long maxCallNanos,
        ScheduledExecutorService deadlines) {
      this.inFlight = inFlight;
      this.expectedMessageBytes =
          Math.min(maxMessageBytes, inFlight.maxBytes() / INITIAL_RESERVATION_DIVISOR);
      this.maxCallNanos = maxCallNanos;
      this.deadlines = deadlines;
    }

    /** Racy read-modify-write: a lost update only delays the average a little. */
    void messageSeen(long wireBytes) {
      long expected = expectedMessageBytes;
      expectedMessageBytes = expected + (wireBytes - expected) / AVERAGE_DIVISOR;
    }

    void receiving(GrpcInFlightTracer tracer) {
      tracer.admission = admissions.incrementAndGet();
      receiving.add(tracer);
    }

    /** Whether {@code tracer} is the oldest call still receiving its message. */
    boolean oldest(GrpcInFlightTracer tracer) {
      GrpcInFlightTracer first = receiving.isEmpty() ? null : receiving.first();
      return first == tracer;
    }

    void received(GrpcInFlightTracer tracer) {
      if (tracer.admission != 0) {
        receiving.remove(tracer);
      }
    }

    @Override
    public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
      return new GrpcInFlightTracer(this);
    }
  }

  @Override
  public Context filterContext(Context context) {
    deadline =
        context
            .withValue(KEY, this)
            .withDeadlineAfter(factory.maxCallNanos, TimeUnit.NANOSECONDS, factory.deadlines);
    return deadline;
  }

  /** The call was let through at its headers: reserve for it, and refuse it if it overshoots. */
  void admitted(GrpcAdmission.GuardedCall<?, ?> call) {
    this.call = call;
    factory.receiving(this);
    reservedBytes = factory.expectedMessageBytes;
    recount();
  }

  @Override
  public void inboundWireSize(long bytes) {
    receivedBytes += bytes;
    recount();
    if (call != null
        && receivedBytes > reservedBytes
        && factory.inFlight.overshot()
        && !factory.oldest(this)) {
      call.refuseInFlight();
    }
  }

  @Override
  public void inboundMessageRead(int seqNo, long wireSize, long uncompressedSize) {
    if (wireSize > 0) {
      factory.messageSeen(wireSize);
    }
    receivedBytes = 0;
    reservedBytes = 0;
    release();
    factory.received(this);
  }

  @Override
  public void streamClosed(Status status) {
    if (receivedBytes > reservedBytes) {
      // Cut off or cancelled larger than expected: what it brought is a floor of its size.
      factory.messageSeen(receivedBytes);
    }
    release();
    factory.received(this);
    if (deadline != null) {
      deadline.cancel(null);
    }
  }

  private void recount() {
    long target = Math.max(receivedBytes, reservedBytes);
    factory.inFlight.add(target - COUNTED.getAndSet(this, target));
  }

  private void release() {
    factory.inFlight.release(COUNTED.getAndSet(this, 0));
  }
}
