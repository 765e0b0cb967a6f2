package dev.sluice.service;

import dev.sluice.component.ComponentId;
import dev.sluice.pdata.Signal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Which requests go through the write-ahead log, worked out once from the pipelines, the receivers
 * they list, the connectors that join them and their exporters' {@code sending_queue.storage}:
 *
 * <ul>
 *   <li>a pipeline is <em>durable</em> when an exporter with storage is among its exporters, or
 *       among those of the pipelines it passes requests on to through connectors that pass them on
 *       as they are ({@link dev.sluice.component.ConnectorFactory#passesThrough()}: forward,
 *       routing), however many such connectors deep. The durable pipelines take the log's routing
 *       bits in the order of their names ({@link DurableLayout}), each with the durable exporters
 *       it reaches: its own first, then those behind its connectors;
 *   <li>a receiver's requests of a signal are logged before they are answered when a durable
 *       pipeline of that signal lists the receiver; their routing names the durable pipelines among
 *       those that list it, where the requests enter: a replayed request enters there again, so the
 *       processors of the pipelines before a connector run on it as they did the first time;
 *   <li>a pipeline is <em>logged into</em> when logged requests reach it: one of its receivers is
 *       logged, or a pipeline logged into passes requests on to it through a connector. Its end
 *       then keeps each durable exporter's progress ({@link DurableFanout}), even if the pipeline
 *       itself is not durable, and hands a replayed request to a connector only when a durable
 *       exporter behind that connector still owes it. Other pipelines' ends pay nothing for the
 *       log.
 * </ul>
 *
 * <p>A connector that makes data and says which requests it made it from ({@link
 * dev.sluice.component.ConnectorFactory#saysWhatItMadeFrom()}: count, spanmetrics, servicegraph)
 * counts as a way through for the first two: what it makes from a logged request keeps that request
 * owed to the durable exporters behind it ({@link MadeFromLogged}), and a replayed request is made
 * into data again. The pipelines behind it are not logged into: what reaches them is new data.
 * Other connectors that make data are refused where logged requests reach them and where what they
 * make would reach a durable exporter ({@link PipelineTopology#checkDurable}).
 */
final class DurableRouting {
  private final List<PipelineSpec> pipelines;
  private final ComponentId storage;
  private final DurableLayout layout;
  private final List<String> durablePipelines;
  private final PipelineTopology topology;
  private final Predicate<ComponentId> passesThrough;
  private final Predicate<ComponentId> saysWhatItMadeFrom;
  private final Set<String> loggedInto = new HashSet<>();

  private DurableRouting(
      List<PipelineSpec> pipelines,
      ComponentId storage,
      DurableLayout layout,
      PipelineTopology topology,
      Predicate<ComponentId> passesThrough,
      Predicate<ComponentId> saysWhatItMadeFrom) {
    this.pipelines = List.copyOf(pipelines);
    this.storage = storage;
    this.layout = layout;
    this.durablePipelines = layout.pipelines();
    this.topology = topology;
    this.passesThrough = passesThrough;
    this.saysWhatItMadeFrom = saysWhatItMadeFrom;
    for (PipelineSpec pipeline : pipelines) {
      for (ComponentId receiver : pipeline.receivers()) {
        if (!topology.isConnector(receiver) && routing(receiver, pipeline.signal()) != 0) {
          loggedInto.addAll(topology.reachedThrough(pipeline.name(), passesThrough));
        }
      }
    }
  }

  /**
   * The routing of {@code pipelines}, which no connector joins.
   *
   * @param storageOf an exporter's {@code sending_queue.storage}, or null when it has none
   */
  static DurableRouting of(List<PipelineSpec> pipelines, Function<ComponentId, String> storageOf) {
    return of(pipelines, storageOf, PipelineTopology.of(pipelines, Map.of()), id -> false);
  }

  /**
   * The routing of {@code pipelines}, joined through connectors as {@code topology} says.
   *
   * @param storageOf an exporter's {@code sending_queue.storage}, or null when it has none (and for
   *     a connector)
   * @param passesThrough whether a connector id's type passes requests on as they are
   * @throws IllegalStateException when durable exporters name two storages (Sluice keeps one log),
   *     or more pipelines are durable than the log has routing bits
   */
  static DurableRouting of(
      List<PipelineSpec> pipelines,
      Function<ComponentId, String> storageOf,
      PipelineTopology topology,
      Predicate<ComponentId> passesThrough) {
    return of(pipelines, storageOf, topology, passesThrough, id -> false);
  }

  /**
   * The routing of {@code pipelines}, joined through connectors as {@code topology} says, where
   * connectors of a type for which {@code saysWhatItMadeFrom} holds make data from each batch and
   * say from which requests: a pipeline whose requests reach a durable exporter as data made from
   * them is durable too, and its layout lists that exporter.
   *
   * @throws IllegalStateException when durable exporters name two storages (Sluice keeps one log),
   *     or more pipelines are durable than the log has routing bits
   */
  static DurableRouting of(
      List<PipelineSpec> pipelines,
      Function<ComponentId, String> storageOf,
      PipelineTopology topology,
      Predicate<ComponentId> passesThrough,
      Predicate<ComponentId> saysWhatItMadeFrom) {
    ComponentId storage = null;
    Map<String, List<String>> ownDurable = new LinkedHashMap<>();
    for (PipelineSpec pipeline : pipelines) {
      List<String> own = new ArrayList<>();
      for (ComponentId exporter : pipeline.exporters()) {
        String named = topology.isConnector(exporter) ? null : storageOf.apply(exporter);
        if (named == null) {
          continue;
        }
        ComponentId id = ComponentId.parse(named);
        if (storage != null && !storage.equals(id)) {
          throw new IllegalStateException(
              "durable exporters name two storages, "
                  + storage
                  + " and "
                  + id
                  + ": Sluice keeps one write-ahead log");
        }
        storage = id;
        own.add(exporter.toString());
      }
      ownDurable.put(pipeline.name(), own);
    }
    // By pipeline name, which is the order of the routing bits.
    Map<String, List<String>> durableExporters = new TreeMap<>();
    for (PipelineSpec pipeline : pipelines) {
      Set<String> reached = new LinkedHashSet<>();
      for (String next :
          topology.reachedThrough(pipeline.name(), passesThrough, saysWhatItMadeFrom)) {
        reached.addAll(ownDurable.get(next));
      }
      if (!reached.isEmpty()) {
        durableExporters.put(pipeline.name(), new ArrayList<>(reached));
      }
    }
    if (durableExporters.size() > Integer.SIZE - 1) {
      throw new IllegalStateException(
          "at most 31 durable pipelines, not " + durableExporters.size());
    }
    return new DurableRouting(
        pipelines,
        storage,
        new DurableLayout(durableExporters),
        topology,
        passesThrough,
        saysWhatItMadeFrom);
  }

  /** The storage extension the log lives in, or null when no pipeline is durable. */
  ComponentId storage() {
    return storage;
  }

  /** The durable pipelines and the durable exporters each reaches. */
  DurableLayout layout() {
    return layout;
  }

  boolean isDurable(PipelineSpec pipeline) {
    return durablePipelines.contains(pipeline.name());
  }

  /**
   * The routing bits of {@code receiver}'s requests of {@code signal}: one for each durable
   * pipeline of the signal that lists the receiver. Zero when they are not logged.
   */
  int routing(ComponentId receiver, Signal signal) {
    int routing = 0;
    for (PipelineSpec pipeline : pipelines) {
      if (pipeline.signal() == signal && pipeline.receivers().contains(receiver)) {
        int bit = durablePipelines.indexOf(pipeline.name());
        if (bit >= 0) {
          routing |= 1 << bit;
        }
      }
    }
    return routing;
  }

  /**
   * Whether logged requests reach {@code pipeline}: those of one of its receivers are logged, or a
   * pipeline they reach passes them on to it through a connector.
   */
  boolean loggedInto(PipelineSpec pipeline) {
    return loggedInto.contains(pipeline.name());
  }

  /**
   * Each exporter of {@code pipeline}'s consumer index in the log, -1 for one without storage;
   * connectors are left out, in the order of the others.
   */
  int[] consumersOf(PipelineSpec pipeline) {
    return pipeline.exporters().stream()
        .filter(id -> !topology.isConnector(id))
        .mapToInt(id -> layout.consumerOf(id.toString()))
        .toArray();
  }

  /**
   * The log's consumers (a bit per index) behind connector {@code instance}: the durable exporters
   * of the pipelines it feeds and of those they pass requests, or data made from them, on to. None
   * for a connector that makes new data without saying from which requests.
   */
  int consumersBehind(PipelineTopology.Instance instance) {
    if (!PipelineTopology.passesThrough(instance, passesThrough)
        && !saysWhatItMadeFrom.test(instance.id())) {
      return 0;
    }
    int consumers = 0;
    for (String fed : instance.fed()) {
      List<String> reached = layout.exportersOfPipeline().get(fed);
      if (reached != null) {
        for (String id : reached) {
          consumers |= 1 << layout.consumerOf(id);
        }
      }
    }
    return consumers;
  }
}
