package dev.sluice.component;

/**
 * The answer of a pipeline to data offered to it. Backpressure is a return value: a refusal is not
 * an error, and the data stays the caller's.
 */
public enum Admission {
  /** Taken: the pipeline now owns the data and will deliver it or count it as dropped. */
  ACCEPTED,
  /** Refused because the pipeline is full; the sender should retry later. */
  FULL,
  /** Refused because the pipeline is shutting down. */
  CLOSED,
  /**
   * Refused because the pipeline failed on the data (a processor threw): sending it again would
   * fail again. Counted where it happened; nothing of it is delivered by the pipeline that failed.
   */
  FAILED
}
