package dev.sluice.component.telemetry;

import dev.sluice.component.ComponentId;
import dev.sluice.pdata.Signal;
import java.util.Locale;

/**
 * The OpenTelemetry Collector's processor metrics for one processor in a pipeline of one signal:
 * {@code otelcol_processor_incoming_items} (units offered to the processor) and {@code
 * otelcol_processor_outgoing_items} (units the next stage took from it), labelled {@code processor}
 * and {@code otel_signal} ({@code traces}, {@code metrics}, {@code logs}).
 *
 * <p>Their difference is what the processor dropped, refused or still holds. A batch that is
 * refused and offered again is counted as incoming again.
 */
public final class ProcessorTelemetry {
  private final MetricRegistry.Counter incoming;
  private final MetricRegistry.Counter outgoing;

  public ProcessorTelemetry(MetricRegistry metrics, ComponentId processor, Signal signal) {
    String id = processor.toString();
    String signalName = signal.name().toLowerCase(Locale.ROOT);
    incoming =
        metrics.counter(
            "otelcol_processor_incoming_items",
            "Number of items passed to the processor.",
            "processor",
            id,
            "otel_signal",
            signalName);
    outgoing =
        metrics.counter(
            "otelcol_processor_outgoing_items",
            "Number of items emitted from the processor.",
            "processor",
            id,
            "otel_signal",
            signalName);
  }

  /** Counts units offered to the processor. */
  public void incoming(long units) {
    incoming.add(units);
  }

  /** Counts units the next stage took from the processor. */
  public void outgoing(long units) {
    outgoing.add(units);
  }
}
