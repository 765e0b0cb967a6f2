package dev.sluice.exporter.loadbalancing;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.PartKey;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.SpanView;

/**
 * Which backend each item of a batch goes to: its key's position on the ring, owned by the first
 * point at or after it whose backend is not left out. Keys of a resource block (service, resource)
 * and of a metric are read once per block or metric, and a trace ID once per run of spans of one
 * trace. One instance per sending thread; {@link #prepare} before each split.
 */
final class Placement implements PartKey {
  private final KeyPositions positions = new KeyPositions();
  private RoutingKey key;
  private Signal signal;
  private HashRing ring;
  private boolean[] leftOut;
  private boolean anyLeftOut;

  /** Items of this split whose first choice was left out, so went to the next on the ring. */
  private long rerouted;

  // The last key read, and where it went: runs of items with one key are placed once.
  private OtlpIndex cachedRequest;
  private int cachedBlock;
  private long cachedTraceHigh;
  private long cachedTraceLow;
  private boolean traceCached;
  private int cachedPart;
  private boolean cachedRerouted;

  void prepare(RoutingKey key, Signal signal, HashRing ring, boolean[] leftOut) {
    this.key = key;
    this.signal = signal;
    this.ring = ring;
    this.leftOut = leftOut;
    boolean any = false;
    for (boolean out : leftOut) {
      any |= out;
    }
    this.anyLeftOut = any;
    this.rerouted = 0;
    this.cachedRequest = null;
    this.traceCached = false;
  }

  long rerouted() {
    return rerouted;
  }

  /** Lets go of the last request read. */
  void release() {
    cachedRequest = null;
  }

  @Override
  public int partOf(BatchItem item) {
    if (key == RoutingKey.TRACE_ID) {
      return signal == Signal.TRACES
          ? ofSpan(item.span())
          : place(positions.ofLogRecord(item.logRecord()));
    }
    OtlpIndex request = item.request();
    int block = key == RoutingKey.METRIC ? item.item() : item.resource();
    if (request == cachedRequest && block == cachedBlock) {
      return repeat();
    }
    int position =
        switch (key) {
          case METRIC -> positions.ofMetric(item.metric());
          case RESOURCE -> positions.ofResource(item.resourceView());
          default -> positions.ofService(item.resourceView());
        };
    cachedRequest = request;
    cachedBlock = block;
    return place(position);
  }

  private int ofSpan(SpanView span) {
    long high = span.traceIdHigh();
    long low = span.traceIdLow();
    if (traceCached && high == cachedTraceHigh && low == cachedTraceLow) {
      return repeat();
    }
    cachedTraceHigh = high;
    cachedTraceLow = low;
    traceCached = true;
    return place(positions.ofSpan(span));
  }

  private int repeat() {
    if (cachedRerouted) {
      rerouted++;
    }
    return cachedPart;
  }

  private int place(int position) {
    int owner = ring.ownerOf(position);
    cachedRerouted = anyLeftOut && leftOut[owner];
    if (cachedRerouted) {
      rerouted++;
      owner = ring.ownerOf(position, leftOut);
    }
    cachedPart = owner;
    return owner;
  }
}
