package dev.sluice.component;

import dev.sluice.component.telemetry.MetricRegistry;
import java.util.logging.Logger;

/**
 * What every component is created with: its id, the collector's metrics, the service's clock and
 * timers, a logger named for the component, and the bound of what the pipelines may hold.
 *
 * @param scheduler where the component's timers run (flush timers, retry delays, deadlines); the
 *     collector's own, a manual one in tests
 * @param pipelineMemoryBytes the collector's pipeline memory bound ({@code --max-pipeline-mib}),
 *     for a component that holds data long (a tail sampler) to size its own share of it
 */
public record ComponentSettings(
    ComponentId id,
    ComponentKind kind,
    MetricRegistry metrics,
    Scheduler scheduler,
    long pipelineMemoryBytes) {
  /** The pipeline bound a collector takes by default: a third of the heap. */
  public static long defaultPipelineMemoryBytes() {
    return Runtime.getRuntime().maxMemory() / 3;
  }

  /** Settings with the default pipeline bound ({@link #defaultPipelineMemoryBytes()}). */
  public ComponentSettings(
      ComponentId id, ComponentKind kind, MetricRegistry metrics, Scheduler scheduler) {
    this(id, kind, metrics, scheduler, defaultPipelineMemoryBytes());
  }

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
