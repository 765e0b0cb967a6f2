package dev.sluice.processor.tailsampling;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import java.util.List;

/**
 * A policy that decides from a walk over the trace's spans: {@link #begin} before the first span,
 * {@link #visit} at each, {@link #end} for the decision. The processor walks a trace once for every
 * such policy together ({@link #walkTogether}: each span's view is read once, however many policies
 * look at it), and a policy then decides from that walk; asked alone, it walks the spans itself.
 * Both ways give the same decision ({@code SharedWalkPropertyTest}).
 */
abstract class SpanWalk implements PolicyEvaluator, ItemVisitor {
  // The trace a shared walk has already shown this policy whole.
  private TraceData walked;

  /** Before the trace's first span: forget the last trace. */
  abstract void begin();

  /** The decision, once every span has been visited. */
  abstract Decision end(TraceData trace);

  @Override
  public final Decision evaluate(TraceData trace) {
    if (walked != trace) {
      begin();
      trace.spans().visit(this);
    }
    return end(trace);
  }

  /** A shared walk of {@code trace} begins: {@link #visit} follows. */
  private void beginShared(TraceData trace) {
    begin();
    walked = trace;
  }

  /** The shared walk's trace is decided: the next evaluation walks again. */
  private void endShared() {
    walked = null;
  }

  /**
   * Walks {@code trace} once for all of {@code walks}, then runs {@code decide}, in which each of
   * them decides from that walk when asked.
   */
  static void walkTogether(SpanWalk[] walks, TraceData trace, Runnable decide) {
    for (SpanWalk walk : walks) {
      walk.beginShared(trace);
    }
    try {
      trace
          .spans()
          .visit(
              item -> {
                for (SpanWalk walk : walks) {
                  walk.visit(item);
                }
              });
      decide.run();
    } finally {
      for (SpanWalk walk : walks) {
        walk.endShared();
      }
    }
  }

  @Override
  public final void collectWalks(List<SpanWalk> into) {
    into.add(this);
  }

  @Override
  public abstract void visit(BatchItem item);
}
