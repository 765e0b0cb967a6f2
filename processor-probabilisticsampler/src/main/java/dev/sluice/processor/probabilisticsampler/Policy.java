package dev.sluice.processor.probabilisticsampler;

/**
 * Where an item's randomness came from, or what overrode it: the {@code policy} label of the
 * sampler's counters, with the OpenTelemetry Collector's values.
 */
enum Policy {
  TRACE_ID_HASH("trace_id_hash"),
  TRACE_ID_W3C("trace_id_w3c"),
  SAMPLING_RANDOMNESS("sampling_randomness"),
  SAMPLING_PRIORITY("sampling_priority"),
  MISSING_RANDOMNESS("missing_randomness"),
  /** The log record attribute named by {@code from_attribute}; the label is its name. */
  ATTRIBUTE("");

  final String label;

  Policy(String label) {
    this.label = label;
  }
}
