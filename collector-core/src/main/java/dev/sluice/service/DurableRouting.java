package dev.sluice.service;

import dev.sluice.component.ComponentId;
import dev.sluice.pdata.Signal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Which requests go through the write-ahead log, worked out once from the pipelines, the receivers
 * they list and their exporters' {@code sending_queue.storage}:
 *
 * <ul>
 *   <li>a pipeline is <em>durable</em> when one of its exporters has storage; the durable pipelines
 *       take the log's routing bits in the order of their names ({@link DurableLayout});
 *   <li>a receiver's requests of a signal are logged before they are answered when a durable
 *       pipeline of that signal lists the receiver; their routing names the durable pipelines among
 *       those that list it;
 *   <li>a pipeline is <em>logged into</em> when the requests of one of its receivers are logged:
 *       its end then keeps each durable exporter's progress ({@link DurableFanout}), even if the
 *       pipeline itself is not durable. Other pipelines' ends pay nothing for the log.
 * </ul>
 *
 * <p>When connectors come, a connector is a receiver of the pipelines it feeds here too: what
 * reaches those pipelines through it comes from the pipelines that export to it, so whether it is
 * logged, and with which routing, is to be decided from both sides, in this class.
 */
final class DurableRouting {
  private final List<PipelineSpec> pipelines;
  private final ComponentId storage;
  private final DurableLayout layout;
  private final List<String> durablePipelines;

  private DurableRouting(List<PipelineSpec> pipelines, ComponentId storage, DurableLayout layout) {
    this.pipelines = List.copyOf(pipelines);
    this.storage = storage;
    this.layout = layout;
    this.durablePipelines = layout.pipelines();
  }

  /**
   * The routing of {@code pipelines}.
   *
   * @param storageOf an exporter's {@code sending_queue.storage}, or null when it has none
   * @throws IllegalStateException when durable exporters name two storages (Sluice keeps one log),
   *     or more pipelines are durable than the log has routing bits
   */
  static DurableRouting of(List<PipelineSpec> pipelines, Function<ComponentId, String> storageOf) {
    ComponentId storage = null;
    // By pipeline name, which is the order of the routing bits.
    Map<String, List<String>> durableExporters = new TreeMap<>();
    for (PipelineSpec pipeline : pipelines) {
      for (ComponentId exporter : pipeline.exporters()) {
        String named = storageOf.apply(exporter);
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
        durableExporters
            .computeIfAbsent(pipeline.name(), name -> new ArrayList<>())
            .add(exporter.toString());
      }
    }
    if (durableExporters.size() > Integer.SIZE - 1) {
      throw new IllegalStateException(
          "at most 31 durable pipelines, not " + durableExporters.size());
    }
    return new DurableRouting(pipelines, storage, new DurableLayout(durableExporters));
  }

  /** The storage extension the log lives in, or null when no pipeline is durable. */
  ComponentId storage() {
    return storage;
  }

  /** The durable pipelines and their durable exporters. */
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

  /** Whether logged requests reach {@code pipeline}: those of one of its receivers are logged. */
  boolean loggedInto(PipelineSpec pipeline) {
    for (ComponentId receiver : pipeline.receivers()) {
      if (routing(receiver, pipeline.signal()) != 0) {
        return true;
      }
    }
    return false;
  }

  /** Each exporter of {@code pipeline}'s consumer index in the log, -1 for one without storage. */
  int[] consumersOf(PipelineSpec pipeline) {
    int[] consumerOf = new int[pipeline.exporters().size()];
    for (int e = 0; e < consumerOf.length; e++) {
      consumerOf[e] = layout.consumerOf(pipeline.exporters().get(e).toString());
    }
    return consumerOf;
  }
}
