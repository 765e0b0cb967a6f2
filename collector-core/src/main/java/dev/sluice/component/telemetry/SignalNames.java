package dev.sluice.component.telemetry;

import dev.sluice.pdata.Signal;

/** The units of each signal as the OpenTelemetry Collector's metric names spell them. */
public final class SignalNames {
  private SignalNames() {}

  /** {@code spans}, {@code metric_points}, {@code log_records}. */
  public static String units(Signal signal) {
    switch (signal) {
      case TRACES:
        return "spans";
      case METRICS:
        return "metric_points";
      default:
        return "log_records";
    }
  }
}
