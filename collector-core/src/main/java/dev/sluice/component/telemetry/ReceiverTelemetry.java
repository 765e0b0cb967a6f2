package dev.sluice.component.telemetry;

import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.pdata.Signal;
import java.util.EnumMap;
import java.util.Map;

/**
 * The OpenTelemetry Collector's receiver metrics ({@code otelcol_receiver_accepted_spans}, ...) for
 * one receiver and transport.
 */
public final class ReceiverTelemetry {
  private final Map<Signal, MetricRegistry.Counter> accepted = new EnumMap<>(Signal.class);
  private final Map<Signal, MetricRegistry.Counter> refused = new EnumMap<>(Signal.class);

  public ReceiverTelemetry(MetricRegistry metrics, ComponentId receiver, String transport) {
    for (Signal signal : Signal.values()) {
      String units = SignalNames.units(signal);
      accepted.put(
          signal,
          metrics.counter(
              "otelcol_receiver_accepted_" + units,
              "Number of " + units + " successfully pushed into the pipeline.",
              "receiver",
              receiver.toString(),
              "transport",
              transport));
      refused.put(
          signal,
          metrics.counter(
              "otelcol_receiver_refused_" + units,
              "Number of " + units + " that could not be pushed into the pipeline.",
              "receiver",
              receiver.toString(),
              "transport",
              transport));
    }
  }

  /** Counts a request's units by what the pipelines answered. */
  public void record(Signal signal, Admission admission, long units) {
    (admission == Admission.ACCEPTED ? accepted : refused).get(signal).add(units);
  }
}
