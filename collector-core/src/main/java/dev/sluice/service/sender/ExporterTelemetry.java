package dev.sluice.service.sender;

import dev.sluice.component.ComponentId;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.SignalNames;
import dev.sluice.pdata.Signal;
import java.util.EnumMap;
import java.util.Map;

/** The OpenTelemetry Collector's exporter metrics for one exporter. */
final class ExporterTelemetry {
  private final Map<Signal, MetricRegistry.Counter> sent = new EnumMap<>(Signal.class);
  private final Map<Signal, MetricRegistry.Counter> failed = new EnumMap<>(Signal.class);
  private final Map<Signal, MetricRegistry.Counter> enqueueFailed = new EnumMap<>(Signal.class);

  ExporterTelemetry(MetricRegistry metrics, ComponentId id) {
    String exporter = id.toString();
    for (Signal signal : Signal.values()) {
      String units = SignalNames.units(signal);
      sent.put(
          signal,
          metrics.counter(
              "otelcol_exporter_sent_" + units,
              "Number of " + units + " successfully sent to destination.",
              "exporter",
              exporter));
      failed.put(
          signal,
          metrics.counter(
              "otelcol_exporter_send_failed_" + units,
              "Number of " + units + " in failed attempts to send to destination.",
              "exporter",
              exporter));
      enqueueFailed.put(
          signal,
          metrics.counter(
              "otelcol_exporter_enqueue_failed_" + units,
              "Number of " + units + " failed to be added to the sending queue.",
              "exporter",
              exporter));
    }
  }

  void sent(Signal signal, long units) {
    sent.get(signal).add(units);
  }

  void failed(Signal signal, long units) {
    failed.get(signal).add(units);
  }

  void enqueueFailed(Signal signal, long units) {
    enqueueFailed.get(signal).add(units);
  }
}
