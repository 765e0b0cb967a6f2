package dev.sluice.receiver.otlp;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of request bodies one transport of a receiver is receiving and has not handed to the
 * pipelines yet: for HTTP what the body aggregator holds, for gRPC what the deframer holds. These
 * sit in Netty's direct buffers, outside the pipelines' memory budget, so they have their own bound
 * ({@code max_in_flight_bytes_mib}): at or over it, new requests are refused at their headers.
 * Requests already being read may go on past it by up to {@link #overshootBytes()}, so that they
 * can finish while new ones are refused: HTTP counts each part of a body as it arrives and refuses
 * the request whose part would pass that ({@link #tryAdd}); gRPC counts each part of a message as
 * its deframer takes it and refuses the call whose part arrives past that ({@link
 * GrpcInFlightTracer}). Neither counts what a request has only declared. Thread-safe.
 */
final class InFlightBytes {
  /** What a request already admitted may bring past the bound: a quarter of it. */
  private static final int OVERSHOOT_DIVISOR = 4;

  private final long maxBytes;
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong peakBytes = new AtomicLong();

  InFlightBytes(long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  static InFlightBytes ofMib(long mib) {
    return new InFlightBytes(mib << 20);
  }

  /** Counts bytes received; returns the new total. */
  long add(long count) {
    long total = bytes.addAndGet(count);
    if (total > peakBytes.get()) {
      peakBytes.accumulateAndGet(total, Math::max);
    }
    return total;
  }

  /**
   * Counts bytes received unless the total would then be past the bound by more than {@link
   * #overshootBytes()}; returns whether they were counted. The total never passes that.
   */
  boolean tryAdd(long count) {
    long limit = maxBytes + overshootBytes();
    while (true) {
      long total = bytes.get();
      if (total + count > limit) {
        return false;
      }
      if (bytes.compareAndSet(total, total + count)) {
        if (total + count > peakBytes.get()) {
          peakBytes.accumulateAndGet(total + count, Math::max);
        }
        return true;
      }
    }
  }

  /** Uncounts bytes handed on or dropped. */
  void release(long count) {
    if (count != 0) {
      bytes.addAndGet(-count);
    }
  }

  /** Whether new requests should be refused. */
  boolean full() {
    return bytes.get() >= maxBytes;
  }

  /** Whether the total is past the bound by more than requests in progress may take it. */
  boolean overshot() {
    return bytes.get() > maxBytes + overshootBytes();
  }

  long overshootBytes() {
    return maxBytes / OVERSHOOT_DIVISOR;
  }

  long bytes() {
    return bytes.get();
  }

  /** The highest total since the start. */
  long peakBytes() {
    return peakBytes.get();
  }

  long maxBytes() {
    return maxBytes;
  }
}
