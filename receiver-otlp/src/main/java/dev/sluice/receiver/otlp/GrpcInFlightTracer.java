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
 * <p>A call counts what has arrived of its message, never what it may still bring: nothing is set
 * aside at its headers. A client that opens calls and sends their headers, or part of a message,
 * and then stalls holds what it sent, so any number of such calls leave the bound to the calls that
 * do send. That is enough to bound what the server holds for calls still arriving: per connection,
 * what the deframers have taken (counted here) and what has arrived but not been taken yet. The
 * latter is at most the connection's HTTP/2 flow-control window ({@link
 * GrpcServer#FLOW_CONTROL_WINDOW_BYTES}, fixed): grpc-java gives window back only for bytes a
 * deframer has taken, or when a stream closes, so a client cannot push more ahead of the deframers,
 * however many streams it opens.
 *
 * <p>Calls admitted together (their headers come before their bodies, and nothing is counted yet)
 * can bring more than the bound together. A call whose bytes arrive while the total is past the
 * bound by more than {@link InFlightBytes#overshootBytes()} is refused on the spot, with
 * UNAVAILABLE and RetryInfo ({@link GrpcAdmission.GuardedCall#refuseInFlight()}), so the total
 * passes that by at most what each connection brings before the refusal is written. The call whose
 * message began to arrive first, of those still receiving, is never refused for overshooting: when
 * many calls' bodies arrive interleaved, every one of them can arrive past the bound before any
 * completes, and if each could be refused, all of them could be and the receiver would serve
 * nothing under load. That one adds at most one message (bounded by {@code max_recv_msg_size_mib})
 * to the bound, and {@code max_call_duration} bounds how long it can hold the place. A call that
 * has sent nothing of its message never takes that place.
 *
 * <p>It also gives each call a deadline of {@code max_call_duration}, through the context grpc-java
 * derives the call's own from: at that deadline grpc-java cancels the call (RST_STREAM) as it does
 * at a client's deadline, so that a call whose message never completes cannot hold its bytes, or
 * its stream, for ever. The deadline is cancelled when the call ends.
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
  private GrpcAdmission.GuardedCall<?, ?> call;
  private Context.CancellableContext deadline;

  /** Order in which calls' messages began to arrive, from 1; 0 until this one's did. Set once. */
  private long arrival;

  /** What this call adds to the in-flight bytes now: what has arrived of its message. */
  private volatile long counted;

  private GrpcInFlightTracer(Factory factory) {
    this.factory = factory;
  }

  /** One tracer per call; shares the in-flight bytes and the order of arrival. */
  static final class Factory extends ServerStreamTracer.Factory {
    private final InFlightBytes inFlight;
    private final long maxCallNanos;
    private final ScheduledExecutorService deadlines;

    /** Admitted calls whose message is arriving, in the order their messages began to arrive. */
    private final ConcurrentSkipListSet<GrpcInFlightTracer> receiving =
        new ConcurrentSkipListSet<>(Comparator.comparingLong(tracer -> tracer.arrival));

    private final AtomicLong arrivals = new AtomicLong();

    /**
     * @param deadlines where the calls' deadlines are timed; the server's owner shuts it down
     */
    Factory(InFlightBytes inFlight, long maxCallNanos, ScheduledExecutorService deadlines) {
      this.inFlight = inFlight;
      this.maxCallNanos = maxCallNanos;
      this.deadlines = deadlines;
    }

    private void arriving(GrpcInFlightTracer tracer) {
      tracer.arrival = arrivals.incrementAndGet();
      receiving.add(tracer);
    }

    /** Whether {@code tracer} is the call whose message began to arrive first of those arriving. */
    private boolean first(GrpcInFlightTracer tracer) {
      GrpcInFlightTracer first = receiving.isEmpty() ? null : receiving.first();
      return first == tracer;
    }

    private void received(GrpcInFlightTracer tracer) {
      if (tracer.arrival != 0) {
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

  /** The call was let through at its headers: refuse it if its bytes take the total too far. */
  void admitted(GrpcAdmission.GuardedCall<?, ?> call) {
    this.call = call;
  }

  @Override
  public void inboundWireSize(long bytes) {
    if (bytes <= 0) {
      return;
    }
    if (arrival == 0 && call != null) {
      factory.arriving(this);
    }
    COUNTED.addAndGet(this, bytes);
    factory.inFlight.add(bytes);
    if (call != null && factory.inFlight.overshot() && !factory.first(this)) {
      call.refuseInFlight();
    }
  }

  @Override
  public void inboundMessageRead(int seqNo, long wireSize, long uncompressedSize) {
    release();
    factory.received(this);
  }

  @Override
  public void streamClosed(Status status) {
    release();
    factory.received(this);
    if (deadline != null) {
      deadline.cancel(null);
    }
  }

  private void release() {
    factory.inFlight.release(COUNTED.getAndSet(this, 0));
  }
}
