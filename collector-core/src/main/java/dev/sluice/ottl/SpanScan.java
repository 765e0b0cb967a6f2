package dev.sluice.ottl;

import dev.sluice.pdata.view.SpanFieldScan;

/**
 * The span conditions compiled for one thread read their values through one {@link SpanFieldScan}
 * (the data model's one span walk): it finds the value of each attribute key they look up and the
 * span's name. The walk is done once per span, when the first condition asks ({@link #prepare}). A
 * span the walk cannot read (one holding a group) is undecided, and the conditions then take the
 * general evaluator. Not thread-safe.
 */
final class SpanScan {
  static final int NIL = SpanFieldScan.NIL;
  static final int STRING = SpanFieldScan.STRING;
  static final int SCALAR = SpanFieldScan.SCALAR;
  static final int COMPOSITE = SpanFieldScan.COMPOSITE;
  static final int NAME = SpanFieldScan.NAME;

  private final SpanFieldScan scan = new SpanFieldScan();
  private EvalContext scannedContext;
  private long scannedStamp;
  private boolean undecided;

  /** At compile time: the slot of attribute key {@code utf8}, shared by every lookup of it. */
  int key(byte[] utf8) {
    scannedContext = null;
    return scan.key(utf8);
  }

  /** At compile time: a condition reads the span's name. */
  int name() {
    scannedContext = null;
    return scan.name();
  }

  /**
   * Walks the span {@code context} points at, unless this scan has walked it already; false when
   * the span is one the walk cannot read, which the general evaluator must then decide.
   */
  boolean prepare(EvalContext context) {
    if (context != scannedContext || context.spanStamp != scannedStamp) {
      if (scannedContext != context) {
        scannedContext = context;
      }
      scannedStamp = context.spanStamp;
      undecided = context.span == null || !scan.scan(context.span);
    }
    return !undecided;
  }

  /**
   * The kind of the value in {@code slot} (a key's, or {@link #NAME}) of the span prepared last;
   * for a {@link #STRING}, its bytes are then {@link #textFrom()}..{@link #textTo()}.
   */
  int kind(int slot) {
    return scan.kind(slot);
  }

  /** The bytes of the span prepared last (those {@link #textFrom()} points into). */
  byte[] bytes() {
    return scan.bytes();
  }

  int textFrom() {
    return scan.textFrom();
  }

  int textTo() {
    return scan.textTo();
  }
}
