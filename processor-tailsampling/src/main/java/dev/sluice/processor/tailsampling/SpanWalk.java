package dev.sluice.processor.tailsampling;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;

/**
 * A policy that decides from a walk over the trace's spans: {@link #begin} before the first span,
 * {@link #visit} at each, {@link #end} for the decision.
 */
abstract class SpanWalk implements PolicyEvaluator, ItemVisitor {
  /** Before the trace's first span: forget the last trace. */
  abstract void begin();

  /** The decision, once every span has been visited. */
  abstract Decision end(TraceData trace);

  @Override
  public final Decision evaluate(TraceData trace) {
    begin();
    trace.spans().visit(this);
    return end(trace);
  }

  @Override
  public abstract void visit(BatchItem item);
}
