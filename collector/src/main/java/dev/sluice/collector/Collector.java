package dev.sluice.collector;

import dev.sluice.component.BatchConsumer;
import dev.sluice.component.CollectorStatus;
import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.DurableStorage;
import dev.sluice.component.Endpoint;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.ExporterFactory;
import dev.sluice.component.Extension;
import dev.sluice.component.ExtensionFactory;
import dev.sluice.component.Host;
import dev.sluice.component.Lifecycle;
import dev.sluice.component.Processor;
import dev.sluice.component.ProcessorFactory;
import dev.sluice.component.Receiver;
import dev.sluice.component.ReceiverFactory;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.ThreadScheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.CollectorConfig;
import dev.sluice.config.ConfiguredComponent;
import dev.sluice.config.PipelineConfig;
import dev.sluice.config.TelemetrySettings;
import dev.sluice.pdata.otlp.Signal;
import dev.sluice.service.DurableEntry;
import dev.sluice.service.DurableFanout;
import dev.sluice.service.DurableLayout;
import dev.sluice.service.DurableLog;
import dev.sluice.service.Fanout;
import dev.sluice.service.MemoryBudget;
import dev.sluice.service.PipelineEntry;
import dev.sluice.service.PipelineFailures;
import dev.sluice.service.sender.SendingChain;
import dev.sluice.service.telemetry.MetricsEndpoint;
import dev.sluice.service.telemetry.ProcessMetrics;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The collector built from a configuration: exporters behind their sending chains (queue, retry,
 * timeout), one processor chain per pipeline ending in a fan-out to the pipeline's exporters,
 * receivers feeding the pipelines that list them, extensions beside. Every component's timers run
 * on the collector's one scheduler thread.
 *
 * <p>Starts exporters first, then processors, then receivers, so that nothing is sent to a
 * component that is not running; stops in the reverse order, flushing batchers and draining queues
 * until the shutdown deadline.
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
  private final PipelineFailures failures = new PipelineFailures();
  private final Map<ComponentId, SendingChain> exporters = new LinkedHashMap<>();
  private final List<Processor> processors = new ArrayList<>();
  private final Map<ComponentId, Receiver> receivers = new LinkedHashMap<>();
  private final Map<ComponentId, Extension> extensions = new LinkedHashMap<>();
  private final List<PipelineEntry> entries = new ArrayList<>();
  // Durable pipelines (those feeding an exporter with sending_queue.storage), by name in
  // routing-bit order, with their first stages and the entries that log their requests.
  private final List<String> durablePipelines = new ArrayList<>();
  private final Map<String, BatchConsumer> durableStages = new LinkedHashMap<>();
  private final List<DurableEntry> durableEntries = new ArrayList<>();
  private ComponentId storageId;
  private DurableLayout durableLayout;
  private DurableLog durableLog;
  private final List<Lifecycle> startedExtensions = new ArrayList<>();
  private final List<SendingChain> startedExporters = new ArrayList<>();
  private final List<Processor> startedProcessors = new ArrayList<>();
  private final List<Receiver> startedReceivers = new ArrayList<>();
  private MetricsEndpoint metricsEndpoint;
  private volatile State state = State.STARTING;

  public Collector(CollectorConfig config, Options options) {
    this.config = config;
    this.budget = new MemoryBudget(options.maxPipelineBytes(), options.maxPipelineItems());
    budget.register(metrics);
    failures.register(metrics);
    ProcessMetrics.register(metrics);
    build(options);
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
    return receivers.get(id);
  }

  /** A running extension. */
  public Extension extension(ComponentId id) {
    return extensions.get(id);
  }

  /** The port of the metrics endpoint, or -1 when metrics are off. */
  public int metricsPort() {
    return metricsEndpoint == null ? -1 : metricsEndpoint.port();
  }

  private ComponentSettings settings(ConfiguredComponent component) {
    return new ComponentSettings(component.id(), component.kind(), metrics, scheduler);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private void build(Options options) {
    for (ConfiguredComponent component : config.used(ComponentKind.EXPORTER)) {
      ExporterFactory factory = (ExporterFactory) component.factory();
      ExporterConfig exporterConfig = (ExporterConfig) component.config();
      Exporter exporter = factory.create(settings(component), exporterConfig);
      ExporterConfig chainConfig =
          SendingThreadCap.apply(exporterConfig, options.maxSendingThreads());
      if (chainConfig != exporterConfig) {
        LOGGER.info(
            "exporter "
                + component.id()
                + " sends on "
                + chainConfig.sendingQueue().numConsumers()
                + " threads, the cap of the profile or --max-sending-threads"
                + " (sending_queue.num_consumers: "
                + exporterConfig.sendingQueue().numConsumers()
                + ")");
      }
      exporters.put(component.id(), new SendingChain(settings(component), exporter, chainConfig));
    }
    Map<PipelineConfig, BatchConsumer> firstStages = new LinkedHashMap<>();
    findDurablePipelines();
    for (PipelineConfig pipeline : config.pipelines()) {
      List<SendingChain> pipelineExporters = new ArrayList<>();
      pipeline.exporters().forEach(id -> pipelineExporters.add(exporters.get(id)));
      BatchConsumer next;
      if (fedByDurableEntry(pipeline)) {
        int[] consumerOf = new int[pipeline.exporters().size()];
        for (int e = 0; e < consumerOf.length; e++) {
          consumerOf[e] = durableLayout.consumerOf(pipeline.exporters().get(e).toString());
        }
        next = new DurableFanout(pipelineExporters, consumerOf);
      } else {
        next = new Fanout(pipelineExporters);
      }
      List<Processor> chain = new ArrayList<>();
      for (int i = pipeline.processors().size() - 1; i >= 0; i--) {
        ConfiguredComponent component =
            config.component(ComponentKind.PROCESSOR, pipeline.processors().get(i)).orElseThrow();
        ProcessorFactory factory = (ProcessorFactory) component.factory();
        Processor processor =
            factory.create(settings(component), component.config(), pipeline.signal(), next);
        chain.add(0, processor);
        next = processor;
      }
      processors.addAll(chain);
      firstStages.put(pipeline, next);
      if (durablePipelines.contains(pipeline.name())) {
        durableStages.put(pipeline.name(), next);
      }
    }
    for (ConfiguredComponent component : config.used(ComponentKind.RECEIVER)) {
      Map<Signal, RequestConsumer> consumers = new EnumMap<>(Signal.class);
      for (Signal signal : Signal.values()) {
        List<BatchConsumer> stages = new ArrayList<>();
        int routing = 0;
        for (Map.Entry<PipelineConfig, BatchConsumer> first : firstStages.entrySet()) {
          PipelineConfig pipeline = first.getKey();
          if (pipeline.signal() == signal && pipeline.receivers().contains(component.id())) {
            stages.add(first.getValue());
            int bit = durablePipelines.indexOf(pipeline.name());
            if (bit >= 0) {
              routing |= 1 << bit;
            }
          }
        }
        if (stages.isEmpty()) {
          continue;
        }
        if (routing != 0) {
          DurableEntry entry =
              new DurableEntry(
                  budget, stages, routing, signal.ordinal(), options.retryDelayMillis());
          durableEntries.add(entry);
          consumers.put(signal, entry);
        } else {
          PipelineEntry entry =
              new PipelineEntry(budget, stages, options.retryDelayMillis(), failures);
          entries.add(entry);
          consumers.put(signal, entry);
        }
      }
      ReceiverFactory factory = (ReceiverFactory) component.factory();
      receivers.put(
          component.id(), factory.create(settings(component), component.config(), consumers));
    }
    for (ComponentId id : config.serviceExtensions()) {
      ConfiguredComponent component = config.component(ComponentKind.EXTENSION, id).orElseThrow();
      ExtensionFactory factory = (ExtensionFactory) component.factory();
      extensions.put(
          id, factory.create(settings(component), (ComponentConfig) component.config(), this));
    }
  }

  /**
   * The pipelines that feed an exporter with {@code sending_queue.storage}: they log each request
   * before it is answered. Every such exporter must name the same storage (validation says so).
   */
  private void findDurablePipelines() {
    List<PipelineConfig> durable = new ArrayList<>();
    Map<String, List<String>> durableExporters = new java.util.HashMap<>();
    for (PipelineConfig pipeline : config.pipelines()) {
      for (ComponentId exporter : pipeline.exporters()) {
        ConfiguredComponent component =
            config.component(ComponentKind.EXPORTER, exporter).orElseThrow();
        String storage = ((ExporterConfig) component.config()).sendingQueue().storage();
        if (storage != null) {
          ComponentId id = ComponentId.parse(storage);
          if (storageId != null && !storageId.equals(id)) {
            throw new IllegalStateException(
                "durable exporters name two storages, "
                    + storageId
                    + " and "
                    + id
                    + ": Sluice keeps one write-ahead log");
          }
          storageId = id;
          if (!durable.contains(pipeline)) {
            durable.add(pipeline);
          }
          durableExporters
              .computeIfAbsent(pipeline.name(), name -> new ArrayList<>())
              .add(exporter.toString());
        }
      }
    }
    durable.sort(java.util.Comparator.comparing(PipelineConfig::name));
    if (durable.size() > Integer.SIZE - 1) {
      throw new IllegalStateException("at most 31 durable pipelines, not " + durable.size());
    }
    Map<String, List<String>> layout = new LinkedHashMap<>();
    for (PipelineConfig pipeline : durable) {
      durablePipelines.add(pipeline.name());
      layout.put(pipeline.name(), durableExporters.get(pipeline.name()));
    }
    durableLayout = new DurableLayout(layout);
  }

  /**
   * Whether a pipeline gets logged requests: it is durable, or one of its receivers feeds a durable
   * pipeline of its signal too. Its end then keeps each durable exporter's progress; other
   * pipelines' ends pay nothing for it.
   */
  private boolean fedByDurableEntry(PipelineConfig pipeline) {
    for (PipelineConfig other : config.pipelines()) {
      if (other.signal() == pipeline.signal()
          && durablePipelines.contains(other.name())
          && other.receivers().stream().anyMatch(pipeline.receivers()::contains)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Opens the write-ahead log before the receivers start; its replay into the pipelines starts once
   * they have ({@link DurableLog#startReplay}).
   */
  private void openDurableLog() throws Exception {
    if (storageId == null) {
      return;
    }
    Extension extension = extensions.get(storageId);
    if (!(extension instanceof DurableStorage)) {
      throw new IllegalStateException(
          "sending_queue.storage names "
              + storageId
              + ", which is not a file_storage extension listed in service.extensions");
    }
    durableLog =
        DurableLog.open(
            (DurableStorage) extension,
            durableLayout,
            durableStages,
            budget,
            metrics,
            failures,
            Collector::fatal);
    durableEntries.forEach(entry -> entry.attach(durableLog));
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
    Host host = Host.of(extensions);
    try {
      for (Extension extension : extensions.values()) {
        extension.start();
        startedExtensions.add(extension);
      }
      TelemetrySettings telemetry = config.telemetry();
      if (telemetry.metricsLevel() != TelemetrySettings.MetricsLevel.NONE) {
        metricsEndpoint =
            new MetricsEndpoint(
                new Endpoint(telemetry.metricsHost(), telemetry.metricsPort()), metrics);
      }
      for (SendingChain exporter : exporters.values()) {
        exporter.start(host);
        startedExporters.add(exporter);
      }
      for (Processor processor : processors) {
        processor.start();
        startedProcessors.add(processor);
      }
      openDurableLog();
      for (Receiver receiver : receivers.values()) {
        receiver.start(host);
        startedReceivers.add(receiver);
      }
      if (durableLog != null) {
        durableLog.startReplay();
      }
    } catch (Exception | Error e) {
      state = State.STOPPING;
      stopStarted(System.nanoTime() + 5_000_000_000L);
      state = State.STOPPED;
      throw e;
    }
    state = State.RUNNING;
    LOGGER.info(
        "Everything is ready: "
            + receivers.size()
            + " receivers, "
            + config.pipelines().size()
            + " pipelines, "
            + exporters.size()
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
    long deadline = System.nanoTime() + timeoutNanos;
    entries.forEach(PipelineEntry::close);
    durableEntries.forEach(DurableEntry::close);
    if (durableLog != null) {
      durableLog.freezeAt(deadline);
    }
    stopStarted(deadline);
    state = State.STOPPED;
    LOGGER.info("Shutdown complete");
  }

  /**
   * Stops what was started: receivers, then processors in the order data passes them (so that a
   * batcher flushes into stages still running), then exporters (draining their queues), then
   * extensions.
   */
  private void stopStarted(long deadline) throws InterruptedException {
    for (Receiver receiver : startedReceivers) {
      stop(receiver, deadline);
    }
    if (durableLog != null) {
      // What the replay has not handed on stays in the log; what the receivers logged goes on.
      durableLog.stopReplay();
      durableLog.awaitHandedOff(deadline);
    }
    for (Processor processor : startedProcessors) {
      stop(processor, deadline);
    }
    for (SendingChain exporter : startedExporters) {
      try {
        exporter.shutdown(deadline);
      } catch (RuntimeException e) {
        LOGGER.log(Level.WARNING, "An exporter failed to stop cleanly", e);
      }
    }
    if (durableLog != null) {
      durableLog.close();
      durableLog = null;
    }
    for (Lifecycle extension : startedExtensions) {
      stop(extension, deadline);
    }
    startedReceivers.clear();
    startedProcessors.clear();
    startedExporters.clear();
    startedExtensions.clear();
    if (metricsEndpoint != null) {
      metricsEndpoint.close();
    }
    scheduler.close();
  }

  private static void stop(Lifecycle component, long deadline) throws InterruptedException {
    try {
      component.shutdown(deadline);
    } catch (RuntimeException e) {
      LOGGER.log(Level.WARNING, "A component failed to stop cleanly", e);
    }
  }
}
