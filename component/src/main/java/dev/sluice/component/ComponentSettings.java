package dev.sluice.component;

import dev.sluice.component.telemetry.MetricRegistry;
import java.util.logging.Logger;

/**
 * What every component is created with: its id, the collector's metrics and a logger named for the
 * component.
 */
public record ComponentSettings(ComponentId id, ComponentKind kind, MetricRegistry metrics) {
  /** The component's logger: {@code sluice.exporter.otlp/backup}. */
  public Logger logger() {
    return Logger.getLogger("sluice." + kind.label() + "." + id);
  }
}
