package dev.sluice.processor.tailsampling;

/**
 * A policy's answer for one trace, as the OpenTelemetry Collector's policies give it. The final
 * decision over all policies follows the Collector's precedence ({@code
 * TailSamplingProcessor.evaluate}): {@link #DROPPED} first, then {@link #INVERT_NOT_SAMPLED}, then
 * {@link #SAMPLED}, then {@link #INVERT_SAMPLED} when no policy answered {@link #NOT_SAMPLED};
 * otherwise not sampled.
 */
enum Decision {
  /** The policy does not sample the trace. */
  NOT_SAMPLED,
  /** The policy samples the trace. */
  SAMPLED,
  /** An inverted match ({@code invert_match}) found nothing to exclude: samples, weakly. */
  INVERT_SAMPLED,
  /** An inverted match found a value to exclude: not sampled, whatever later policies say. */
  INVERT_NOT_SAMPLED,
  /** A {@code drop} policy matched: not sampled, whatever any other policy says. */
  DROPPED,
  /** The policy could not evaluate the trace (an OTTL condition failed): counted, and ignored. */
  ERROR
}
