package dev.sluice.core.component;

import dev.sluice.core.otlp.OtlpIndex;

/**
 * Where a receiver hands validated requests: the pipelines that include the receiver for the
 * request's signal. Thread-safe.
 */
public interface RequestConsumer {
  /**
   * Offers a request. On {@link Admission#ACCEPTED} the pipelines own the request's bytes, which
   * the receiver must not change again; otherwise nothing was kept.
   */
  Admission consume(OtlpIndex request);

  /** How long a refused sender should wait before retrying, in milliseconds. */
  long retryDelayMillis();
}
