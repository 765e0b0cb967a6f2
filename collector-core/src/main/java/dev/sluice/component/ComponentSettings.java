package dev.sluice.component;

import dev.sluice.component.telemetry.MetricRegistry;
import java.util.logging.Logger;

/**
 * What every component is created with: its id, the collector's metrics, the service's clock and
 * timers, and a logger named for the component.
 *
 * @param scheduler where the component's timers run (flush timers, retry delays, deadlines); the
 *     collector's own, a manual one in tests
 */
public record ComponentSettings(
    ComponentId id, ComponentKind kind, MetricRegistry metrics, Scheduler scheduler) {
  /**
   * Settings on the {@linkplain Scheduler#shared() shared scheduler}, for use outside a collector.
   */
  public ComponentSettings(ComponentId id, ComponentKind kind, MetricRegistry metrics) {
    this(id, kind, metrics, Scheduler.shared());
  }

  /** The component's logger: {@code sluice.exporter.otlp/backup}. */
  public Logger logger() {
    return Logger.getLogger("sluice." + kind.label() + "." + id);
  }
}
