package dev.sluice.receiver.otlp;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of request bodies one transport of a receiver is receiving and has not handed to the
 * pipelines yet: for HTTP what the body aggregator holds, for gRPC what the deframer holds. These
 * sit in Netty's direct buffers, outside the pipelines' memory budget, so they have their own bound
 * ({@code max_in_flight_bytes_mib}): at or over it, new requests are refused at their headers.
 * Requests already being read may finish, so the total can pass the bound by what they still bring;
 * the transports bound that in turn (HTTP refuses a body that would pass the bound by more than
 * {@link #overshootBytes()}, gRPC bounds each connection with HTTP/2 flow control and the message
 * size limit). Thread-safe.
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
