package dev.sluice.processor.tailsampling;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;

/**
 * One trace held for a decision: its spans as slices of the requests they came in ({@link
 * #spans()}), how many there are and how many bytes they take on the wire, and when it arrived.
 * Policies read it; only the processor changes it.
 */
final class TraceData {
  static final int WAITING = 0;
  static final int SAMPLED = 1;
  static final int NOT_SAMPLED = 2;

  final long traceIdHigh;
  final long traceIdLow;
  final Batch spans = new Batch(Signal.TRACES);
  long spanCount;
  long bytes;
  boolean rootSeen;
  // The scheduler's clock: when the first span came, and when the trace is due for its decision.
  final long arrivedNanos;
  long dueNanos;
  // The time of the decision being made (the scheduler's clock), for policies that keep rates.
  long nowNanos;
  // WAITING, then the decision (the trace is then kept only to route its late spans).
  int state = WAITING;
  long decidedNanos;
  // Links of the processor's lists (TraceList): arrival order, and the list of those waiting.
  TraceData arrivedBefore;
  TraceData arrivedAfter;
  TraceData dueBefore;
  TraceData dueAfter;
  TraceList dueList;
  boolean inTable;

  TraceData(long traceIdHigh, long traceIdLow, long arrivedNanos, long dueNanos) {
    this.traceIdHigh = traceIdHigh;
    this.traceIdLow = traceIdLow;
    this.arrivedNanos = arrivedNanos;
    this.dueNanos = dueNanos;
  }

  /** The trace ID's first eight bytes, big-endian. */
  long traceIdHigh() {
    return traceIdHigh;
  }

  /** The trace ID's last eight bytes, big-endian. */
  long traceIdLow() {
    return traceIdLow;
  }

  /** The spans held, to read with {@code spans().visit(item -> ...)}; never to change. */
  Batch spans() {
    return spans;
  }

  /** How many spans the trace has had so far. */
  long spanCount() {
    return spanCount;
  }

  /** The spans' encoded bytes. */
  long bytes() {
    return bytes;
  }

  /** When the decision is made, on the scheduler's clock (for policies that keep a rate). */
  long nowNanos() {
    return nowNanos;
  }
}
