package dev.sluice.processor.tailsampling;

import java.util.List;

/**
 * A compiled sampling policy. Called under the processor's lock, one trace at a time, so an
 * evaluator may keep state (a rate limiter's budget, a regular expression's cache) without
 * synchronizing.
 */
interface PolicyEvaluator {
  /**
   * Decides on {@code trace}: reads its spans ({@link TraceData#spans()}), never changes them, and
   * keeps no view past the call.
   */
  Decision evaluate(TraceData trace);

  /** Adds the policies of this one (itself, or its sub-policies) that walk the spans. */
  default void collectWalks(List<SpanWalk> into) {}
}
