package dev.sluice.ottl;

/**
 * What a condition that fails while it is evaluated (a converter given a value it cannot take, an
 * index out of range) does, with the OpenTelemetry Collector's {@code error_mode} names.
 */
public enum ErrorMode {
  /** The failure stops the processing of the batch; it is counted and logged. */
  PROPAGATE,
  /** The failed condition counts as not matched; the failure is counted and logged. */
  IGNORE,
  /** The failed condition counts as not matched; the failure is counted, not logged. */
  SILENT
}
