package dev.sluice.service;

import dev.sluice.component.BatchConsumer;
import dev.sluice.component.CollectorStatus;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorFactory;
import dev.sluice.component.DurableStorage;
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
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;
import dev.sluice.service.sender.SendingChain;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The pipelines of a configuration as running parts, and their start and stop. Built from the
 * pipelines' declared nodes, from the end of the data path back to its start, so that each part is
 * made with the parts it hands data to:
 *
 * <ol>
 *   <li>the service's extensions ({@code service.extensions}), beside the pipelines;
 *   <li>each exporter a pipeline lists, once, behind its {@link SendingChain} (queue, retry,
 *       timeout), shared by every pipeline that lists it;
 *   <li>each pipeline from its end back: a {@link Fanout} to its exporters (a {@link DurableFanout}
 *       where logged requests reach it), then its processors, last to first, one instance per
 *       pipeline;
 *   <li>each receiver a pipeline lists, once, handing each signal's requests to an entry that feeds
 *       the first stages of the pipelines listing it: a {@link DurableEntry}, which logs a request
 *       before it is answered, when one of them is durable, else a {@link PipelineEntry}.
 * </ol>
 *
 * <p>Which pipelines are durable, which routing bits a receiver's requests carry and which ends
 * keep the durable exporters' progress is worked out in one place, {@link DurableRouting}.
 *
 * <p>Connectors join pipelines ({@link PipelineTopology}): a connector is an exporter at the end of
 * some pipelines and a receiver at the start of others, one instance per pair of signals it is used
 * with. The third step builds the pipelines each after the pipelines it feeds, and makes each
 * connector once the first stages of the pipelines it feeds exist, handing it their {@link
 * ConnectorPipelines}; it stands at the end of the pipelines that list it, beside their sending
 * chains ({@link Fanout}, or {@link DurableFanout} where logged requests reach). Requests are
 * logged once, where they are received: connectors that pass them on (forward, routing) carry them
 * to durable pipelines behind them; what a connector that says so (count, spanmetrics,
 * servicegraph) makes from a logged request keeps that request owed until it is delivered ({@link
 * MadeFromLogged}); other connectors that make new data are refused where the log is ({@link
 * PipelineTopology#checkDurable}).
 *
 * <p>Starts as the OpenTelemetry Collector does, so that nothing is sent to a part that is not
 * running: {@link #startExtensions}, then {@link #startPipelines}: exporters, processors,
 * connectors, the write-ahead log (opened in the storage extension's directory), receivers, and
 * last the log's replay into the running pipelines. {@link #shutdown} goes the other way:
 * receivers, the replay, pipeline by pipeline in the order data passes them, each pipeline's
 * processors (a batcher flushes into stages still running) and then each connector whose feeding
 * pipelines have all stopped (its last data reaches pipelines still running), exporters (draining
 * their queues), the log, extensions.
 */
public final class PipelineGraph {
  private static final Logger LOGGER = Logger.getLogger("sluice.service");

  /**
   * What the graph runs with, beside its components.
   *
   * @param metrics where the components and the graph register their metrics
   * @param scheduler where every component's timers run
   * @param budget the memory budget every entry admits requests to
   * @param status the collector's state, for extensions that report it (the health check)
   * @param retryDelayMillis the delay refused senders are asked to wait
   * @param maxSendingThreads the cap on each exporter's {@code sending_queue.num_consumers}
   * @param fatal told when the write-ahead log stops because data it held may be gone
   */
  public record Settings(
      MetricRegistry metrics,
      Scheduler scheduler,
      MemoryBudget budget,
      CollectorStatus status,
      long retryDelayMillis,
      int maxSendingThreads,
      Consumer<String> fatal) {
    public Settings {
      if (maxSendingThreads < 1) {
        throw new IllegalArgumentException(
            "maxSendingThreads must be positive: " + maxSendingThreads);
      }
    }
  }

  private final Settings settings;
  private final List<PipelineSpec> pipelines;
  private final Map<ComponentKind, Map<ComponentId, ComponentSpec>> declared =
      new EnumMap<>(ComponentKind.class);
  private final PipelineFailures failures = new PipelineFailures();
  private final DurableRouting routing;
  private final Map<ComponentId, Extension> extensions = new LinkedHashMap<>();
  private final Map<ComponentId, SendingChain> exporters = new LinkedHashMap<>();
  private final PipelineTopology topology;
  // Each pipeline's processors, in the order data passes them, by pipeline name.
  private final Map<String, List<Processor>> processors = new LinkedHashMap<>();
  private final Map<PipelineTopology.Instance, Connector> connectors = new LinkedHashMap<>();
  // Each pipeline's first stage (its first processor, or its end), by name.
  private final Map<String, BatchConsumer> firstStages = new LinkedHashMap<>();
  private final Map<ComponentId, Receiver> receivers = new LinkedHashMap<>();
  private final List<PipelineEntry> entries = new ArrayList<>();
  private final List<DurableEntry> durableEntries = new ArrayList<>();
  private final List<Extension> startedExtensions = new ArrayList<>();
  private final List<SendingChain> startedExporters = new ArrayList<>();
  private final List<Processor> startedProcessors = new ArrayList<>();
  private final List<Connector> startedConnectors = new ArrayList<>();
  private final List<Receiver> startedReceivers = new ArrayList<>();
  // Set once the log is open, before the receivers start; read by connectors' outputs.
  private volatile DurableLog durableLog;

  /**
   * Makes every component the pipelines and {@code serviceExtensions} name, and wires them.
   *
   * @param components the components declared, of every kind; those nothing names are not made
   * @param pipelines the pipelines, in the order of the configuration
   * @param serviceExtensions the extensions to run, in the order to start them
   * @throws IllegalArgumentException when a pipeline names a component that is not declared
   * @throws IllegalStateException when the durable exporters' storage cannot be one log
   */
  public PipelineGraph(
      List<ComponentSpec> components,
      List<PipelineSpec> pipelines,
      List<ComponentId> serviceExtensions,
      Settings settings) {
    this.settings = settings;
    this.pipelines = List.copyOf(pipelines);
    for (ComponentSpec component : components) {
      Map<ComponentId, ComponentSpec> ofKind =
          declared.computeIfAbsent(component.kind(), kind -> new LinkedHashMap<>());
      if (ofKind.putIfAbsent(component.id(), component) != null) {
        throw new IllegalArgumentException(
            "two " + component.kind().section() + " have the id \"" + component.id() + "\"");
      }
    }
    checkReferences();
    Map<ComponentId, BiPredicate<Signal, Signal>> supports = new LinkedHashMap<>();
    declared
        .getOrDefault(ComponentKind.CONNECTOR, Map.of())
        .forEach((id, spec) -> supports.put(id, ((ConnectorFactory<?>) spec.factory())::supports));
    topology = PipelineTopology.of(this.pipelines, supports);
    failures.register(settings.metrics());
    routing =
        DurableRouting.of(
            this.pipelines,
            this::storageOf,
            topology,
            this::passesThrough,
            this::saysWhatItMadeFrom);
    topology.checkDurable(
        this::storageOf, this::passesThrough, this::saysWhatItMadeFrom, this::notForLoggedRequests);
    for (ComponentId id : serviceExtensions) {
      extensions.put(id, extension(declared(ComponentKind.EXTENSION, id)));
    }
    checkStorage();
    for (PipelineSpec pipeline : this.pipelines) {
      for (ComponentId id : pipeline.exporters()) {
        if (!topology.isConnector(id) && !exporters.containsKey(id)) {
          exporters.put(id, sendingChain(declared(ComponentKind.EXPORTER, id)));
        }
      }
    }
    Map<String, PipelineSpec> byName = new LinkedHashMap<>();
    this.pipelines.forEach(pipeline -> byName.put(pipeline.name(), pipeline));
    for (String name : topology.downstreamFirst()) {
      firstStages.put(name, buildPipeline(byName.get(name)));
    }
    for (PipelineSpec pipeline : this.pipelines) {
      for (ComponentId id : pipeline.receivers()) {
        if (!topology.isConnector(id) && !receivers.containsKey(id)) {
          receivers.put(id, receiver(declared(ComponentKind.RECEIVER, id)));
        }
      }
    }
  }

  /** A running receiver, for tests and tools that need its bound port. */
  public Receiver receiver(ComponentId id) {
    return receivers.get(id);
  }

  /** A running extension. */
  public Extension extension(ComponentId id) {
    return extensions.get(id);
  }

  /** The receivers made, one per id however many pipelines list it. */
  public int receiverCount() {
    return receivers.size();
  }

  /** The exporters made, one per id however many pipelines list it. */
  public int exporterCount() {
    return exporters.size();
  }

  /** An exporter's {@code sending_queue.storage}; null for one without, and for a connector. */
  private String storageOf(ComponentId id) {
    return topology.isConnector(id)
        ? null
        : ((ExporterConfig) declared(ComponentKind.EXPORTER, id).config()).sendingQueue().storage();
  }

  /** Whether connector {@code id}'s type hands on the requests it is given as they are. */
  private boolean passesThrough(ComponentId id) {
    return ((ConnectorFactory<?>) declared(ComponentKind.CONNECTOR, id).factory()).passesThrough();
  }

  /** Whether connector {@code id}'s type makes data from each batch and says from which. */
  private boolean saysWhatItMadeFrom(ComponentId id) {
    return ((ConnectorFactory<?>) declared(ComponentKind.CONNECTOR, id).factory())
        .saysWhatItMadeFrom();
  }

  /** Why connector {@code id}, as configured, may not take logged requests; null when it may. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private String notForLoggedRequests(ComponentId id) {
    ComponentSpec connector = declared(ComponentKind.CONNECTOR, id);
    return ((ConnectorFactory) connector.factory()).notForLoggedRequests(connector.config());
  }

  /** Every id a pipeline names is declared with its kind, and pipeline names are unique. */
  private void checkReferences() {
    Set<String> names = new HashSet<>();
    for (PipelineSpec pipeline : pipelines) {
      if (!names.add(pipeline.name())) {
        throw new IllegalArgumentException("two pipelines are named \"" + pipeline.name() + "\"");
      }
      check(pipeline, ComponentKind.RECEIVER, pipeline.receivers());
      check(pipeline, ComponentKind.PROCESSOR, pipeline.processors());
      check(pipeline, ComponentKind.EXPORTER, pipeline.exporters());
      if (pipeline.exporters().isEmpty()) {
        throw new IllegalArgumentException(
            "pipeline \"" + pipeline.name() + "\" lists no exporter");
      }
    }
  }

  private void check(PipelineSpec pipeline, ComponentKind kind, List<ComponentId> ids) {
    Map<ComponentId, ComponentSpec> connectorsDeclared =
        declared.getOrDefault(ComponentKind.CONNECTOR, Map.of());
    for (ComponentId id : ids) {
      boolean ofKind = declared.getOrDefault(kind, Map.of()).containsKey(id);
      if (kind != ComponentKind.PROCESSOR && connectorsDeclared.containsKey(id)) {
        if (ofKind) {
          throw new IllegalArgumentException(
              "pipeline \""
                  + pipeline.name()
                  + "\" lists \""
                  + id
                  + "\", which is both a "
                  + kind.label()
                  + " and a connector: give one of them another name");
        }
        continue;
      }
      if (!ofKind) {
        throw new IllegalArgumentException(
            "pipeline \""
                + pipeline.name()
                + "\" lists "
                + kind.label()
                + " \""
                + id
                + "\", which is not declared");
      }
    }
  }

  private ComponentSpec declared(ComponentKind kind, ComponentId id) {
    ComponentSpec spec = declared.getOrDefault(kind, Map.of()).get(id);
    if (spec == null) {
      throw new IllegalArgumentException(kind.label() + " \"" + id + "\" is not declared");
    }
    return spec;
  }

  /** The log's storage must be a running storage extension; refused before anything starts. */
  private void checkStorage() {
    ComponentId storage = routing.storage();
    if (storage != null && !(extensions.get(storage) instanceof DurableStorage)) {
      throw new IllegalStateException(
          "sending_queue.storage names "
              + storage
              + ", which is not a file_storage extension listed in service.extensions");
    }
  }

  private ComponentSettings settings(ComponentSpec component) {
    return new ComponentSettings(
        component.id(),
        component.kind(),
        settings.metrics(),
        settings.scheduler(),
        settings.budget().maxBytes());
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private Extension extension(ComponentSpec component) {
    ExtensionFactory factory = (ExtensionFactory) component.factory();
    return factory.create(settings(component), component.config(), settings.status());
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private SendingChain sendingChain(ComponentSpec component) {
    ExporterFactory factory = (ExporterFactory) component.factory();
    ExporterConfig config = (ExporterConfig) component.config();
    Exporter exporter = factory.create(settings(component), config);
    ExporterConfig chainConfig = SendingThreadCap.apply(config, settings.maxSendingThreads());
    if (chainConfig != config) {
      LOGGER.info(
          "exporter "
              + component.id()
              + " sends on "
              + chainConfig.sendingQueue().numConsumers()
              + " threads, the cap of the profile or --max-sending-threads"
              + " (sending_queue.num_consumers: "
              + config.sendingQueue().numConsumers()
              + ")");
    }
    return new SendingChain(settings(component), exporter, chainConfig);
  }

  /** Builds a pipeline from its end back and returns its first stage. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private BatchConsumer buildPipeline(PipelineSpec pipeline) {
    List<SendingChain> ends = new ArrayList<>();
    List<Connector> connectorEnds = new ArrayList<>();
    List<Integer> consumersBehind = new ArrayList<>();
    for (ComponentId id : pipeline.exporters()) {
      if (!topology.isConnector(id)) {
        ends.add(exporters.get(id));
        continue;
      }
      for (PipelineTopology.Instance instance : topology.instances()) {
        if (instance.id().equals(id) && instance.feeding().contains(pipeline.name())) {
          connectorEnds.add(connectors.computeIfAbsent(instance, this::connector));
          consumersBehind.add(routing.consumersBehind(instance));
        }
      }
    }
    BatchConsumer next =
        routing.loggedInto(pipeline)
            ? new DurableFanout(
                ends,
                routing.consumersOf(pipeline),
                connectorEnds,
                consumersBehind.stream().mapToInt(Integer::intValue).toArray())
            : new Fanout(ends, connectorEnds);
    List<Processor> chain = new ArrayList<>();
    for (int i = pipeline.processors().size() - 1; i >= 0; i--) {
      ComponentSpec component = declared(ComponentKind.PROCESSOR, pipeline.processors().get(i));
      ProcessorFactory factory = (ProcessorFactory) component.factory();
      Processor processor =
          factory.create(settings(component), component.config(), pipeline.signal(), next);
      chain.add(0, processor);
      next = processor;
    }
    processors.put(pipeline.name(), chain);
    return next;
  }

  /** Makes a connector feeding the first stages of its pipelines, which are built already. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private Connector connector(PipelineTopology.Instance instance) {
    ComponentSpec component = declared(ComponentKind.CONNECTOR, instance.id());
    Map<String, BatchConsumer> stages = new LinkedHashMap<>();
    for (String fed : instance.fed()) {
      stages.put(fed, firstStages.get(fed));
    }
    ConnectorPipelines output =
        new ConnectorPipelines(
            instance.to(),
            stages,
            settings.budget(),
            failures,
            this::parkLogged,
            routing.consumersBehind(instance));
    ConnectorFactory factory = (ConnectorFactory) component.factory();
    return factory.create(
        settings(component), component.config(), instance.from(), instance.to(), output);
  }

  /**
   * Parks a batch of logged requests that a pipeline behind a connector refused as full, to offer
   * it again ({@link DurableLog#park}); false when there is no log to keep it owed in.
   */
  private boolean parkLogged(BatchConsumer stage, dev.sluice.pdata.Batch batch) {
    DurableLog log = durableLog;
    if (log == null) {
      return false;
    }
    log.park(stage, batch);
    return true;
  }

  /**
   * Makes a receiver whose requests of each signal enter the pipelines of that signal listing it,
   * through one entry per signal.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private Receiver receiver(ComponentSpec component) {
    Map<Signal, RequestConsumer> consumers = new EnumMap<>(Signal.class);
    for (Signal signal : Signal.values()) {
      List<BatchConsumer> stages = new ArrayList<>();
      for (PipelineSpec pipeline : pipelines) {
        if (pipeline.signal() == signal && pipeline.receivers().contains(component.id())) {
          stages.add(firstStages.get(pipeline.name()));
        }
      }
      if (!stages.isEmpty()) {
        consumers.put(signal, entry(stages, routing.routing(component.id(), signal), signal));
      }
    }
    ReceiverFactory factory = (ReceiverFactory) component.factory();
    return factory.create(settings(component), component.config(), consumers);
  }

  private RequestConsumer entry(List<BatchConsumer> stages, int routing, Signal signal) {
    if (routing != 0) {
      DurableEntry entry =
          new DurableEntry(
              settings.budget(), stages, routing, signal.ordinal(), settings.retryDelayMillis());
      durableEntries.add(entry);
      return entry;
    }
    PipelineEntry entry =
        new PipelineEntry(settings.budget(), stages, settings.retryDelayMillis(), failures);
    entries.add(entry);
    return entry;
  }

  /** Starts the extensions, in the order given; before {@link #startPipelines}. */
  public void startExtensions() throws Exception {
    for (Extension extension : extensions.values()) {
      extension.start();
      startedExtensions.add(extension);
    }
  }

  /**
   * Starts the exporters, the processors, the write-ahead log when a pipeline is durable, the
   * receivers, and the log's replay. On a failure, {@link #shutdown} stops what was started.
   */
  public void startPipelines() throws Exception {
    Host host = Host.of(extensions);
    for (SendingChain exporter : exporters.values()) {
      exporter.start(host);
      startedExporters.add(exporter);
    }
    for (String pipeline : topology.downstreamFirst()) {
      for (Processor processor : processors.get(pipeline)) {
        processor.start();
        startedProcessors.add(processor);
      }
    }
    for (Connector connector : connectors.values()) {
      connector.start(host);
      startedConnectors.add(connector);
    }
    openDurableLog();
    for (Receiver receiver : receivers.values()) {
      receiver.start(host);
      startedReceivers.add(receiver);
    }
    if (durableLog != null) {
      durableLog.startReplay();
    }
  }

  /**
   * Opens the write-ahead log before the receivers start; its replay into the pipelines starts once
   * they have ({@link DurableLog#startReplay}).
   */
  private void openDurableLog() throws Exception {
    if (routing.storage() == null) {
      return;
    }
    Map<String, BatchConsumer> durableStages = new LinkedHashMap<>();
    for (PipelineSpec pipeline : pipelines) {
      if (routing.isDurable(pipeline)) {
        durableStages.put(pipeline.name(), firstStages.get(pipeline.name()));
      }
    }
    durableLog =
        DurableLog.open(
            (DurableStorage) extensions.get(routing.storage()),
            routing.layout(),
            durableStages,
            settings.budget(),
            settings.metrics(),
            failures,
            settings.fatal());
    durableEntries.forEach(entry -> entry.attach(durableLog));
  }

  /**
   * Refuses new requests, then stops what was started, finishing what each part holds until {@code
   * deadlineNanos} ({@link System#nanoTime()}): receivers; the log's replay, and the hand-over of
   * what the receivers logged; processors in the order data passes them, so that a batcher flushes
   * into stages still running; exporters, draining their queues; the log; extensions. What is still
   * held at the deadline is dropped and counted; what the log held stays in it for the next start.
   */
  public void shutdown(long deadlineNanos) throws InterruptedException {
    entries.forEach(PipelineEntry::close);
    durableEntries.forEach(DurableEntry::close);
    if (durableLog != null) {
      durableLog.freezeAt(deadlineNanos);
    }
    for (Receiver receiver : startedReceivers) {
      stop(receiver, deadlineNanos);
    }
    if (durableLog != null) {
      // What the replay has not handed on stays in the log; what the receivers logged goes on.
      durableLog.stopReplay();
      durableLog.awaitHandedOff(deadlineNanos);
    }
    stopPipelines(deadlineNanos);
    for (SendingChain exporter : startedExporters) {
      try {
        exporter.shutdown(deadlineNanos);
      } catch (RuntimeException e) {
        LOGGER.log(Level.WARNING, "An exporter failed to stop cleanly", e);
      }
    }
    if (durableLog != null) {
      durableLog.close();
      durableLog = null;
    }
    for (Extension extension : startedExtensions) {
      stop(extension, deadlineNanos);
    }
    startedReceivers.clear();
    startedProcessors.clear();
    startedConnectors.clear();
    startedExporters.clear();
    startedExtensions.clear();
  }

  /**
   * Stops the started processors and connectors pipeline by pipeline, upstream first: a pipeline's
   * processors in the order data passes them, then each connector once every pipeline feeding it
   * has stopped, so that what each flushes reaches parts still running.
   */
  private void stopPipelines(long deadlineNanos) throws InterruptedException {
    Map<PipelineTopology.Instance, Integer> feedingLeft = new LinkedHashMap<>();
    connectors.keySet().forEach(instance -> feedingLeft.put(instance, instance.feeding().size()));
    for (String pipeline : topology.upstreamFirst()) {
      for (Processor processor : processors.get(pipeline)) {
        if (startedProcessors.contains(processor)) {
          stop(processor, deadlineNanos);
        }
      }
      for (Map.Entry<PipelineTopology.Instance, Connector> e : connectors.entrySet()) {
        PipelineTopology.Instance instance = e.getKey();
        if (instance.feeding().contains(pipeline)) {
          int left = feedingLeft.merge(instance, -1, Integer::sum);
          if (left == 0 && startedConnectors.contains(e.getValue())) {
            stop(e.getValue(), deadlineNanos);
          }
        }
      }
    }
  }

  private static void stop(Lifecycle component, long deadlineNanos) throws InterruptedException {
    try {
      component.shutdown(deadlineNanos);
    } catch (RuntimeException e) {
      LOGGER.log(Level.WARNING, "A component failed to stop cleanly", e);
    }
  }
}
