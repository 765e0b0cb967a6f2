package dev.sluice.processor.tailsampling;

/**
 * A compiled sampling policy. Called under the processor's lock, one trace at a time, so an
 * evaluator may keep state (a rate limiter's budget, a regular expression's cache) without
 * synchronizing.
 */
@FunctionalInterface
interface PolicyEvaluator {
  /**
   * Decides on {@code trace}: reads its spans ({@link TraceData#spans()}), never changes them, and
   * keeps no view past the call.
   */
  Decision evaluate(TraceData trace);
}
