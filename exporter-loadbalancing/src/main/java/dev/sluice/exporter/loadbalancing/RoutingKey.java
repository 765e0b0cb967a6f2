package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.ConfigProblems;
import dev.sluice.pdata.Signal;

/** What places an item on the ring ({@code routing_key}). */
enum RoutingKey {
  /** The span's (or log record's) 16 trace ID bytes. */
  TRACE_ID("traceID"),
  /** The resource's {@code service.name}, empty without one. */
  SERVICE("service"),
  /** Every attribute of the resource, in any order. */
  RESOURCE("resource"),
  /** The metric's name. */
  METRIC("metric");

  final String key;

  RoutingKey(String key) {
    this.key = key;
  }

  /**
   * The key configured as {@code text} for a batch of {@code signal}: the signal's default when
   * empty or when the key does not apply to the signal (a metric name for spans).
   */
  static RoutingKey forSignal(String text, Signal signal) {
    for (RoutingKey k : values()) {
      if (k.key.equals(text) && k.appliesTo(signal)) {
        return k;
      }
    }
    return defaultFor(signal);
  }

  /** {@code traceID} for traces, {@code service} for metrics and logs, as in the Go collector. */
  static RoutingKey defaultFor(Signal signal) {
    return signal == Signal.TRACES ? TRACE_ID : SERVICE;
  }

  /** Whether {@code text} names a key that applies to {@code signal}, or is empty. */
  static boolean fits(String text, Signal signal) {
    for (RoutingKey k : values()) {
      if (k.key.equals(text)) {
        return k.appliesTo(signal);
      }
    }
    return true;
  }

  /**
   * Whether the key can place items of {@code signal}: trace IDs are in spans and log records, and
   * metric names only in metrics; the others apply to every signal.
   */
  boolean appliesTo(Signal signal) {
    return switch (this) {
      case TRACE_ID -> signal != Signal.METRICS;
      case METRIC -> signal == Signal.METRICS;
      default -> true;
    };
  }

  static void validate(String text, ConfigProblems problems) {
    if (text.isEmpty()) {
      return;
    }
    for (RoutingKey k : values()) {
      if (k.key.equals(text)) {
        return;
      }
    }
    if ("streamID".equals(text) || "attributes".equals(text)) {
      problems.add(
          "routing_key",
          "\"" + text + "\" is not in this build; use traceID, service, resource or metric");
      return;
    }
    problems.add(
        "routing_key", "must be traceID, service, resource or metric, was \"" + text + "\"");
  }
}
