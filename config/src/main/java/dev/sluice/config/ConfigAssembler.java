package dev.sluice.config;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ComponentFactory;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.ConnectorFactory;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.ExporterFactory;
import dev.sluice.component.ProcessorFactory;
import dev.sluice.component.ReceiverFactory;
import dev.sluice.config.ConfigNode.Entry;
import dev.sluice.config.ConfigNode.Mapping;
import dev.sluice.config.ConfigNode.Scalar;
import dev.sluice.config.ConfigNode.Sequence;
import dev.sluice.pdata.Signal;
import dev.sluice.service.PipelineSpec;
import dev.sluice.service.PipelineTopology;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

/** Turns a document's root node into a {@link CollectorConfig}, reporting every problem. */
final class ConfigAssembler {
  private static final List<String> TOP_KEYS =
      List.of("receivers", "processors", "exporters", "extensions", "connectors", "service");
  private static final List<String> SERVICE_KEYS = List.of("extensions", "pipelines", "telemetry");
  private static final List<String> PIPELINE_KEYS = List.of("receivers", "processors", "exporters");
  private static final Map<String, Signal> PIPELINE_TYPES = new LinkedHashMap<>();

  static {
    PIPELINE_TYPES.put("traces", Signal.TRACES);
    PIPELINE_TYPES.put("metrics", Signal.METRICS);
    PIPELINE_TYPES.put("logs", Signal.LOGS);
  }

  /** A component as declared, while the configuration is read. */
  private static final class Declared {
    final ComponentId id;
    final String path;
    final Location location;
    final ComponentFactory<?> factory;
    final ComponentConfig config;
    final ConfigNode node;
    boolean used;

    Declared(
        ComponentId id,
        String path,
        Location location,
        ComponentFactory<?> factory,
        ComponentConfig config,
        ConfigNode node) {
      this.id = id;
      this.path = path;
      this.location = location;
      this.factory = factory;
      this.config = config;
      this.node = node;
    }
  }

  /** An id in a list, with where it is written. */
  private record Reference(ComponentId id, Location location) {}

  private final ComponentRegistry registry;
  private final ConfigBinder binder = new ConfigBinder();
  private final Diagnostics d;
  private final Map<ComponentKind, Map<ComponentId, Declared>> declared =
      new EnumMap<>(ComponentKind.class);
  // Where each id of a pipeline's lists is written: "<pipeline>|<list kind>|<id>".
  private final Map<String, Location> referenceLocations = new HashMap<>();

  ConfigAssembler(ComponentRegistry registry, Diagnostics diagnostics) {
    this.registry = registry;
    this.d = diagnostics;
    for (ComponentKind kind : ComponentKind.values()) {
      declared.put(kind, new LinkedHashMap<>());
    }
  }

  CollectorConfig assemble(ConfigNode root) throws ConfigException {
    Mapping top;
    if (root instanceof Mapping m) {
      top = m;
    } else if (root instanceof Scalar s && s.isNull()) {
      top = Mapping.empty(s.location());
    } else {
      d.error(
          root.location(),
          "",
          "expected a mapping with receivers, exporters, service and so on, found "
              + root.describe());
      d.throwIfErrors();
      return null;
    }
    for (Entry e : top.entries()) {
      if (!TOP_KEYS.contains(e.key())) {
        d.error(e.keyLocation(), e.key(), Names.unknownKey("key", e.key(), TOP_KEYS));
      }
    }
    for (ComponentKind kind : ComponentKind.values()) {
      top.entry(kind.section()).ifPresent(e -> readComponents(kind, e));
    }

    List<Reference> serviceExtensions = List.of();
    List<PipelineConfig> pipelines = new ArrayList<>();
    TelemetrySettings telemetry = TelemetrySettings.DEFAULT;
    Entry service = top.entry("service").orElse(null);
    Mapping serviceMapping = service == null ? null : mapping(service, "service");
    Location serviceAt = service == null ? top.location() : service.keyLocation();
    if (serviceMapping != null) {
      for (Entry e : serviceMapping.entries()) {
        if (!SERVICE_KEYS.contains(e.key())) {
          d.error(
              e.keyLocation(),
              "service." + e.key(),
              Names.unknownKey("key", e.key(), SERVICE_KEYS));
        }
      }
      Entry extensions = serviceMapping.entry("extensions").orElse(null);
      if (extensions != null) {
        serviceExtensions =
            references(
                extensions, "service.extensions", "service.extensions", ComponentKind.EXTENSION);
      }
      Entry telemetryEntry = serviceMapping.entry("telemetry").orElse(null);
      if (telemetryEntry != null) {
        int errorsBefore = d.errorCount();
        TelemetryConfig bound =
            binder.bindSection(
                telemetryEntry.value(),
                telemetryEntry.keyLocation(),
                "service.telemetry",
                TelemetryConfig.class,
                TelemetryConfig.DEFAULT,
                d);
        if (bound != null && d.errorCount() == errorsBefore) {
          telemetry = bound.settings();
        }
      }
      Entry pipelinesEntry = serviceMapping.entry("pipelines").orElse(null);
      if (pipelinesEntry != null) {
        serviceAt = pipelinesEntry.keyLocation();
        Mapping pipelinesMapping = mapping(pipelinesEntry, "service.pipelines");
        if (pipelinesMapping != null) {
          for (Entry e : pipelinesMapping.entries()) {
            PipelineConfig pipeline = readPipeline(e);
            if (pipeline != null) {
              pipelines.add(pipeline);
            }
          }
          if (pipelinesMapping.isEmpty()) {
            d.error(serviceAt, "service.pipelines", "must have at least one pipeline");
          }
        }
      } else {
        d.error(serviceAt, "service.pipelines", "must have at least one pipeline");
      }
    } else if (service == null) {
      d.error(serviceAt, "service.pipelines", "must have at least one pipeline");
    }

    if (d.errorCount() == 0) {
      checkConnectors(pipelines);
    }

    List<ComponentId> extensionIds = new ArrayList<>();
    for (Reference r : serviceExtensions) {
      Declared dcl =
          declared.get(ComponentKind.EXTENSION).get(canonical(ComponentKind.EXTENSION, r.id()));
      if (dcl != null) {
        dcl.used = true;
        extensionIds.add(dcl.id);
      }
    }
    checkAuthReferences(extensionIds);
    d.throwIfErrors();

    Map<ComponentKind, List<ConfiguredComponent>> components = new EnumMap<>(ComponentKind.class);
    for (ComponentKind kind : ComponentKind.values()) {
      List<ConfiguredComponent> list = new ArrayList<>();
      for (Declared dcl : declared.get(kind).values()) {
        list.add(new ConfiguredComponent(dcl.id, dcl.factory, dcl.config, dcl.location, dcl.used));
        if (!dcl.used) {
          d.warn(
              dcl.location,
              dcl.path,
              kind == ComponentKind.EXTENSION
                  ? "is configured but not listed in service.extensions, so it is not started"
                  : "is configured but no pipeline uses it, so it is not started");
        }
      }
      components.put(kind, list);
    }
    return new CollectorConfig(
        top.location().source(),
        components.get(ComponentKind.RECEIVER),
        components.get(ComponentKind.PROCESSOR),
        components.get(ComponentKind.EXPORTER),
        components.get(ComponentKind.CONNECTOR),
        components.get(ComponentKind.EXTENSION),
        pipelines,
        extensionIds,
        telemetry,
        d.warnings());
  }

  /**
   * Checks the {@code auth.authenticator} of every receiver and exporter that a pipeline uses (the
   * others are not started, as in the OpenTelemetry Collector).
   */
  private void checkAuthReferences(List<ComponentId> listed) {
    Map<ComponentId, ComponentConfig> extensions = new LinkedHashMap<>();
    declared.get(ComponentKind.EXTENSION).forEach((id, dcl) -> extensions.put(id, dcl.config));
    AuthReferenceCheck check =
        new AuthReferenceCheck(
            extensions, Set.copyOf(listed), id -> canonical(ComponentKind.EXTENSION, id), d);
    for (ComponentKind kind : List.of(ComponentKind.RECEIVER, ComponentKind.EXPORTER)) {
      for (Declared dcl : declared.get(kind).values()) {
        if (dcl.used) {
          check.check(dcl.config, dcl.node, dcl.location, dcl.path);
        }
      }
    }
    StorageReferenceCheck storage =
        new StorageReferenceCheck(
            extensions, Set.copyOf(listed), id -> canonical(ComponentKind.EXTENSION, id), d);
    Map<ComponentId, Location> locations = new LinkedHashMap<>();
    declared.get(ComponentKind.EXTENSION).forEach((id, dcl) -> locations.put(id, dcl.location));
    storage.checkDirectories(locations);
    for (Declared dcl : declared.get(ComponentKind.EXPORTER).values()) {
      if (dcl.used) {
        storage.check(dcl.config, dcl.node, dcl.location, dcl.path);
      }
    }
  }

  /** The entry's value as a mapping: empty for null, null (after an error) for anything else. */
  private Mapping mapping(Entry entry, String path) {
    ConfigNode value = entry.value();
    if (value instanceof Mapping m) {
      return m;
    }
    if (value instanceof Scalar s && s.isNull()) {
      return Mapping.empty(s.location());
    }
    d.error(entry.keyLocation(), path, "expected a mapping, found " + value.describe());
    return null;
  }

  private void readComponents(ComponentKind kind, Entry section) {
    Mapping mapping = mapping(section, kind.section());
    if (mapping == null) {
      return;
    }
    for (Entry e : mapping.entries()) {
      String path = kind.section() + "." + e.key();
      ComponentId id;
      try {
        id = ComponentId.parse(e.key());
      } catch (IllegalArgumentException ex) {
        d.error(e.keyLocation(), path, ex.getMessage());
        continue;
      }
      ComponentFactory<?> factory = registry.find(kind, id.type()).orElse(null);
      ComponentId canonical = factory == null ? id : new ComponentId(factory.type(), id.name());
      Declared other = declared.get(kind).get(canonical);
      if (other != null) {
        d.error(
            e.keyLocation(),
            path,
            "duplicate "
                + kind.label()
                + " id: the same component as \""
                + other.path.substring(kind.section().length() + 1)
                + "\" at line "
                + other.location.line());
        continue;
      }
      ComponentConfig config = null;
      if (factory == null) {
        d.error(
            e.keyLocation(),
            path,
            kind.label() + " type \"" + id.type() + "\" is not available in this build");
      } else {
        config = bind(factory, e, path);
      }
      declared
          .get(kind)
          .put(
              canonical,
              new Declared(canonical, path, e.keyLocation(), factory, config, e.value()));
    }
  }

  private <C extends ComponentConfig> C bind(ComponentFactory<C> factory, Entry e, String path) {
    return binder.bindSection(
        e.value(), e.keyLocation(), path, factory.configType(), factory.defaultConfig(), d);
  }

  private PipelineConfig readPipeline(Entry e) {
    String path = "service.pipelines." + e.key();
    ComponentId id;
    try {
      id = ComponentId.parse(e.key());
    } catch (IllegalArgumentException ex) {
      d.error(e.keyLocation(), path, ex.getMessage().replace("component", "pipeline"));
      return null;
    }
    Signal signal = PIPELINE_TYPES.get(id.type());
    if (signal == null) {
      d.error(
          e.keyLocation(),
          path,
          Names.unknownKey("pipeline type", id.type(), PIPELINE_TYPES.keySet()));
      return null;
    }
    Mapping body = mapping(e, path);
    if (body == null) {
      return null;
    }
    int before = d.errorCount();
    for (Entry k : body.entries()) {
      if (!PIPELINE_KEYS.contains(k.key())) {
        d.error(
            k.keyLocation(), path + "." + k.key(), Names.unknownKey("key", k.key(), PIPELINE_KEYS));
      }
    }
    List<ComponentId> receivers = pipelineList(body, path, ComponentKind.RECEIVER, signal);
    List<ComponentId> processors = pipelineList(body, path, ComponentKind.PROCESSOR, signal);
    List<ComponentId> exporters = pipelineList(body, path, ComponentKind.EXPORTER, signal);
    if (body.entry("receivers").map(r -> isEmpty(r.value())).orElse(true)) {
      d.error(e.keyLocation(), path, "must have at least one receiver");
    }
    if (body.entry("exporters").map(r -> isEmpty(r.value())).orElse(true)) {
      d.error(e.keyLocation(), path, "must have at least one exporter");
    }
    if (d.errorCount() > before) {
      return null;
    }
    return new PipelineConfig(
        id.toString(), signal, receivers, processors, exporters, e.keyLocation());
  }

  private static boolean isEmpty(ConfigNode node) {
    if (node instanceof Sequence sequence) {
      return sequence.items().isEmpty();
    }
    return node instanceof Scalar scalar && scalar.isNull();
  }

  /** One of a pipeline's lists, resolved to declared ids and checked against the signal. */
  private List<ComponentId> pipelineList(
      Mapping body, String pipelinePath, ComponentKind kind, Signal signal) {
    Entry entry = body.entry(kind.section()).orElse(null);
    if (entry == null) {
      return List.of();
    }
    List<ComponentId> ids = new ArrayList<>();
    for (Reference r : references(entry, pipelinePath + "." + kind.section(), pipelinePath, kind)) {
      Declared dcl = declared.get(kind).get(canonical(kind, r.id()));
      if (dcl == null) {
        dcl = declared.get(ComponentKind.CONNECTOR).get(canonical(ComponentKind.CONNECTOR, r.id()));
        if (dcl != null) {
          // A connector: the pairs of signals it joins are checked once every pipeline is read.
          dcl.used = true;
          ids.add(dcl.id);
          referenceLocations.put(referenceKey(pipelinePath, kind, dcl.id), r.location());
        }
        continue;
      }
      dcl.used = true;
      ids.add(dcl.id);
      referenceLocations.put(referenceKey(pipelinePath, kind, dcl.id), r.location());
      Set<Signal> supported = null;
      if (dcl.factory instanceof ReceiverFactory<?> f) {
        supported = f.signals();
      } else if (dcl.factory instanceof ExporterFactory<?> f) {
        supported = f.signals();
      } else if (dcl.factory instanceof ProcessorFactory<?> f) {
        supported = f.signals();
      }
      if (supported != null && !supported.contains(signal)) {
        d.error(
            r.location(),
            pipelinePath,
            kind.label()
                + " \""
                + r.id()
                + "\" does not support "
                + signal.name().toLowerCase(Locale.ROOT));
      }
    }
    return ids;
  }

  /**
   * Reads a list of component ids and checks that each is declared, once; returns the well-formed
   * ids. Problems with the list itself are reported at {@code listPath}, problems with its ids at
   * {@code referrerPath}.
   */
  private List<Reference> references(
      Entry entry, String listPath, String referrerPath, ComponentKind kind) {
    ConfigNode node = entry.value();
    if (node instanceof Scalar s && s.isNull()) {
      return List.of();
    }
    if (!(node instanceof Sequence sequence)) {
      d.error(
          entry.keyLocation(),
          listPath,
          "expected a list of " + kind.label() + " ids, found " + node.describe());
      return List.of();
    }
    List<Reference> references = new ArrayList<>();
    Set<ComponentId> seen = new HashSet<>();
    for (ConfigNode item : sequence.items()) {
      if (!(item instanceof Scalar scalar) || scalar.isNull()) {
        d.error(
            item.location(),
            listPath,
            "expected " + kind.label() + " ids, found " + item.describe());
        continue;
      }
      ComponentId id;
      try {
        id = ComponentId.parse(scalar.text());
      } catch (IllegalArgumentException ex) {
        d.error(item.location(), referrerPath, ex.getMessage());
        continue;
      }
      ComponentId canonical = canonical(kind, id);
      boolean connector =
          (kind == ComponentKind.RECEIVER || kind == ComponentKind.EXPORTER)
              && declared
                  .get(ComponentKind.CONNECTOR)
                  .containsKey(canonical(ComponentKind.CONNECTOR, id));
      if (connector && declared.get(kind).containsKey(canonical)) {
        d.error(
            item.location(),
            referrerPath,
            "references \""
                + id
                + "\", which is both a "
                + kind.label()
                + " and a connector: give one of them another name");
        continue;
      }
      if (connector) {
        canonical = canonical(ComponentKind.CONNECTOR, id);
      } else if (!declared.get(kind).containsKey(canonical)) {
        d.error(
            item.location(),
            referrerPath,
            "references " + kind.label() + " \"" + id + "\" which is not configured");
        continue;
      }
      if (!seen.add(canonical)) {
        d.error(
            item.location(),
            referrerPath,
            "references " + kind.label() + " \"" + id + "\" more than once");
        continue;
      }
      references.add(new Reference(id, item.location()));
    }
    return references;
  }

  private static String referenceKey(String pipelinePath, ComponentKind list, ComponentId id) {
    return pipelinePath + "|" + list.section() + "|" + id;
  }

  /**
   * Joins the pipelines through their connectors as the collector will ({@link PipelineTopology}):
   * a connector used on one side only, with no pair of signals it supports, in a cycle, or one that
   * makes new data where the write-ahead log is (unless it says what it made from which requests,
   * as count does), is an error at the id in the pipeline's list that shows it.
   */
  private void checkConnectors(List<PipelineConfig> pipelines) {
    Map<ComponentId, BiPredicate<Signal, Signal>> supports = new LinkedHashMap<>();
    declared
        .get(ComponentKind.CONNECTOR)
        .forEach(
            (id, dcl) -> {
              if (dcl.factory instanceof ConnectorFactory<?> factory) {
                supports.put(id, factory::supports);
              }
            });
    if (supports.isEmpty()) {
      return;
    }
    List<PipelineSpec> specs = new ArrayList<>();
    Map<String, Location> pipelineLocations = new HashMap<>();
    for (PipelineConfig p : pipelines) {
      specs.add(
          new PipelineSpec(p.name(), p.signal(), p.receivers(), p.processors(), p.exporters()));
      pipelineLocations.put(p.name(), p.location());
    }
    try {
      PipelineTopology topology = PipelineTopology.of(specs, supports);
      topology.checkDurable(
          this::storageOf,
          this::passesThrough,
          this::saysWhatItMadeFrom,
          this::notForLoggedRequests);
      checkConnectorKeys(topology);
    } catch (PipelineTopology.TopologyException e) {
      PipelineTopology.Problem problem = e.problem();
      String pipelinePath = "service.pipelines." + problem.pipeline();
      Location at =
          referenceLocations.getOrDefault(
              referenceKey(pipelinePath, problem.list(), problem.id()),
              pipelineLocations.get(problem.pipeline()));
      d.error(at, pipelinePath + "." + problem.list().section(), problem.message());
    }
  }

  /**
   * Asks each connector about its keys given the pipelines it joins ({@link
   * ConnectorFactory#validatePipelines}), once per pair of signals; a problem shown by several
   * pairs is reported once, at its key.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private void checkConnectorKeys(PipelineTopology topology) {
    Set<ConfigProblems.Problem> reported = new HashSet<>();
    for (PipelineTopology.Instance instance : topology.instances()) {
      Declared dcl = declared.get(ComponentKind.CONNECTOR).get(instance.id());
      if (dcl == null || dcl.config == null) {
        continue;
      }
      ConfigProblems problems = new ConfigProblems();
      ((ConnectorFactory) dcl.factory)
          .validatePipelines(dcl.config, instance.from(), instance.to(), instance.fed(), problems);
      for (ConfigProblems.Problem problem : problems.all()) {
        if (reported.add(problem)) {
          d.error(
              ConfigBinder.locate(dcl.node, dcl.location, problem.path()),
              Diagnostics.join(dcl.path, problem.path()),
              problem.message());
        }
      }
    }
  }

  /** Why connector {@code id}, as configured, may not take logged requests; null when it may. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private String notForLoggedRequests(ComponentId id) {
    Declared dcl = declared.get(ComponentKind.CONNECTOR).get(id);
    return dcl != null && dcl.factory instanceof ConnectorFactory factory
        ? factory.notForLoggedRequests(dcl.config)
        : null;
  }

  /** Whether connector {@code id}'s type passes requests on as they are. */
  private boolean passesThrough(ComponentId id) {
    Declared dcl = declared.get(ComponentKind.CONNECTOR).get(id);
    return dcl != null
        && dcl.factory instanceof ConnectorFactory<?> factory
        && factory.passesThrough();
  }

  /** Whether connector {@code id}'s type makes data from each batch and says from which. */
  private boolean saysWhatItMadeFrom(ComponentId id) {
    Declared dcl = declared.get(ComponentKind.CONNECTOR).get(id);
    return dcl != null
        && dcl.factory instanceof ConnectorFactory<?> factory
        && factory.saysWhatItMadeFrom();
  }

  /** An exporter's {@code sending_queue.storage}, or null. */
  private String storageOf(ComponentId id) {
    Declared dcl = declared.get(ComponentKind.EXPORTER).get(id);
    return dcl != null && dcl.config instanceof ExporterConfig config
        ? config.sendingQueue().storage()
        : null;
  }

  /** The id with its factory's own type, when the type is an alias. */
  private ComponentId canonical(ComponentKind kind, ComponentId id) {
    return registry.find(kind, id.type()).map(f -> new ComponentId(f.type(), id.name())).orElse(id);
  }
}
