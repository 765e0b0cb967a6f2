package dev.sluice.collector;

import dev.sluice.component.CollectorStatus;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.Endpoint;
import dev.sluice.component.Extension;
import dev.sluice.component.Receiver;
import dev.sluice.component.ThreadScheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.CollectorConfig;
import dev.sluice.config.ConfiguredComponent;
import dev.sluice.config.PipelineConfig;
import dev.sluice.config.TelemetrySettings;
import dev.sluice.service.ComponentSpec;
import dev.sluice.service.MemoryBudget;
import dev.sluice.service.PipelineGraph;
import dev.sluice.service.PipelineSpec;
import dev.sluice.service.telemetry.MetricsEndpoint;
import dev.sluice.service.telemetry.ProcessMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * The collector built from a configuration: the service's {@link PipelineGraph} (exporters behind
 * their sending chains, one processor chain per pipeline ending in a fan-out to the pipeline's
 * exporters, receivers feeding the pipelines that list them, extensions beside) with what is the
 * process's: its metrics and their endpoint, the one scheduler thread every component's timers run
 * on, the memory budget, the state the health check reports, and the exit when the write-ahead log
 * fails.
 *
 * <p>Starts the extensions, then the metrics endpoint, then the pipelines (exporters, processors,
 * receivers), so that nothing is sent to a component that is not running; stops in the reverse
 * order, flushing batchers and draining queues until the shutdown deadline.
 */
public final class Collector implements CollectorStatus {
  private static final Logger LOGGER = Logger.getLogger("sluice.service");

  /**
   * Settings that do not come from the configuration file.
   *
   * @param maxSendingThreads the cap on each exporter's {@code sending_queue.num_consumers}, which
   *     the sidecar profile sets (each sending thread keeps its own buffers and stack)
   */
  public record Options(
      long maxPipelineBytes, long maxPipelineItems, long retryDelayMillis, int maxSendingThreads) {
    public Options {
      if (maxSendingThreads < 1) {
        throw new IllegalArgumentException(
            "maxSendingThreads must be positive: " + maxSendingThreads);
      }
    }

    /** Options with as many sending threads as each exporter's configuration asks for. */
    public Options(long maxPipelineBytes, long maxPipelineItems, long retryDelayMillis) {
      this(maxPipelineBytes, maxPipelineItems, retryDelayMillis, Integer.MAX_VALUE);
    }

    public static Options defaults() {
      return new Options(MemoryBudget.defaultMaxBytes(), Long.MAX_VALUE / 4, 1000);
    }
  }

  private final CollectorConfig config;
  private final MetricRegistry metrics = new MetricRegistry();
  private final ThreadScheduler scheduler = new ThreadScheduler("sluice-timer");
  private final MemoryBudget budget;
  private final PipelineGraph graph;
  private MetricsEndpoint metricsEndpoint;
  private volatile State state = State.STARTING;

  public Collector(CollectorConfig config, Options options) {
    this.config = config;
    this.budget = new MemoryBudget(options.maxPipelineBytes(), options.maxPipelineItems());
    budget.register(metrics);
    ProcessMetrics.register(metrics);
    this.graph =
        new PipelineGraph(
            components(config),
            pipelines(config),
            config.serviceExtensions(),
            new PipelineGraph.Settings(
                metrics,
                scheduler,
                budget,
                this,
                options.retryDelayMillis(),
                options.maxSendingThreads(),
                Collector::fatal));
  }

  /** Every component the configuration declares; the graph makes those that are used. */
  private static List<ComponentSpec> components(CollectorConfig config) {
    List<ComponentSpec> components = new ArrayList<>();
    for (ComponentKind kind : ComponentKind.values()) {
      for (ConfiguredComponent component : config.components(kind)) {
        components.add(new ComponentSpec(component.id(), component.factory(), component.config()));
      }
    }
    return components;
  }

  private static List<PipelineSpec> pipelines(CollectorConfig config) {
    List<PipelineSpec> pipelines = new ArrayList<>();
    for (PipelineConfig pipeline : config.pipelines()) {
      pipelines.add(
          new PipelineSpec(
              pipeline.name(),
              pipeline.signal(),
              pipeline.receivers(),
              pipeline.processors(),
              pipeline.exporters()));
    }
    return pipelines;
  }

  @Override
  public State state() {
    return state;
  }

  public MetricRegistry metrics() {
    return metrics;
  }

  public MemoryBudget budget() {
    return budget;
  }

  /** A running receiver, for tests and tools that need its bound port. */
  public Receiver receiver(ComponentId id) {
    return graph.receiver(id);
  }

  /** A running extension. */
  public Extension extension(ComponentId id) {
    return graph.extension(id);
  }

  /** The port of the metrics endpoint, or -1 when metrics are off. */
  public int metricsPort() {
    return metricsEndpoint == null ? -1 : metricsEndpoint.port();
  }

  /**
   * The log stopped because data it held may be gone (a force to disk failed): going on would
   * answer requests on lost data, so the process exits, as PostgreSQL does after a failed fsync.
   */
  private static void fatal(String message) {
    LOGGER.severe(message + "; stopping the collector");
    Thread exit = new Thread(() -> System.exit(EXIT_LOG_FAILED), "sluice-fatal");
    exit.start();
  }

  /** The exit status after the write-ahead log failed. */
  static final int EXIT_LOG_FAILED = 70;

  /**
   * Starts everything: extensions, the metrics endpoint, exporters, processors, receivers. On a
   * failure, stops what was started and throws.
   */
  public void start() throws Exception {
    try {
      graph.startExtensions();
      TelemetrySettings telemetry = config.telemetry();
      if (telemetry.metricsLevel() != TelemetrySettings.MetricsLevel.NONE) {
        metricsEndpoint =
            new MetricsEndpoint(
                new Endpoint(telemetry.metricsHost(), telemetry.metricsPort()), metrics);
      }
      graph.startPipelines();
    } catch (Exception | Error e) {
      state = State.STOPPING;
      stop(System.nanoTime() + 5_000_000_000L);
      state = State.STOPPED;
      throw e;
    }
    state = State.RUNNING;
    LOGGER.info(
        "Everything is ready: "
            + graph.receiverCount()
            + " receivers, "
            + config.pipelines().size()
            + " pipelines, "
            + graph.exporterCount()
            + " exporters");
  }

  /**
   * Stops receiving, flushes the batchers and drains the exporters' queues until {@code
   * timeoutNanos} from now; what is still held then is dropped and counted.
   */
  public void shutdown(long timeoutNanos) throws InterruptedException {
    if (state == State.STOPPED || state == State.STOPPING) {
      return;
    }
    state = State.STOPPING;
    stop(System.nanoTime() + timeoutNanos);
    state = State.STOPPED;
    LOGGER.info("Shutdown complete");
  }

  /** Stops the graph (receivers first, extensions last), then the metrics endpoint and timers. */
  private void stop(long deadline) throws InterruptedException {
    graph.shutdown(deadline);
    if (metricsEndpoint != null) {
      metricsEndpoint.close();
    }
    scheduler.close();
  }
}
