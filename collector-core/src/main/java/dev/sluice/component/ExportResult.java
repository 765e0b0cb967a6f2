package dev.sluice.component;

/**
 * What an {@link Exporter} learned from the destination.
 *
 * @param outcome whether the batch arrived, may be sent again, or never will
 * @param retryAfterNanos the destination's requested delay before the next attempt (gRPC RetryInfo,
 *     HTTP Retry-After), 0 when it named none
 * @param rejectedUnits units the destination accepted the request but rejected (partial success)
 * @param message the destination's explanation, empty on success
 * @param malformed the destination refused the data itself as malformed (gRPC {@code
 *     INVALID_ARGUMENT}, HTTP 400), so that any destination of its kind would refuse it too; a
 *     {@link Outcome#PERMANENT} result only
 */
public record ExportResult(
    Outcome outcome, long retryAfterNanos, long rejectedUnits, String message, boolean malformed) {
  public enum Outcome {
    SUCCESS,
    RETRYABLE,
    PERMANENT
  }

  public static final ExportResult SUCCESS = new ExportResult(Outcome.SUCCESS, 0, 0, "");

  public ExportResult(Outcome outcome, long retryAfterNanos, long rejectedUnits, String message) {
    this(outcome, retryAfterNanos, rejectedUnits, message, false);
  }

  public static ExportResult partialSuccess(long rejectedUnits, String message) {
    return new ExportResult(Outcome.SUCCESS, 0, rejectedUnits, message);
  }

  public static ExportResult retryable(String message, long retryAfterNanos) {
    return new ExportResult(Outcome.RETRYABLE, retryAfterNanos, 0, message);
  }

  public static ExportResult permanent(String message) {
    return new ExportResult(Outcome.PERMANENT, 0, 0, message);
  }

  /** The destination refused the data as malformed: permanent, and so would any other. */
  public static ExportResult malformed(String message) {
    return new ExportResult(Outcome.PERMANENT, 0, 0, message, true);
  }
}
