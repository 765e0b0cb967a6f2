package dev.sluice.service;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.pdata.Signal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * How the pipelines of a configuration join through connectors, worked out once, for the
 * configuration's checks and for the {@link PipelineGraph}:
 *
 * <ul>
 *   <li>a connector is one node per pair of signals it is used with and supports: it takes the data
 *       of the pipelines of the first signal that list it among their exporters and feeds the
 *       pipelines of the second that list it among their receivers ({@link Instance});
 *   <li>each signal a connector is used with on one side must pair with a signal it is used with on
 *       the other, which it supports; a connector listed on one side only is refused;
 *   <li>data must not come back to a pipeline it left: a cycle through connectors is refused;
 *   <li>the pipelines in an order where each comes after every pipeline it feeds ({@link
 *       #downstreamFirst()}), the order to build and start them in, and the other way ({@link
 *       #upstreamFirst()}), the order to stop them in;
 *   <li>which pipelines the requests entering one reach as the same requests, through connectors
 *       that pass them on ({@link #reachedThrough}), and, from that, where connectors that make new
 *       data would take part in the write-ahead log, which is refused ({@link #checkDurable}).
 * </ul>
 *
 * <p>Problems are reported as {@link Problem}s, which name the list and the id where they show, so
 * that the configuration can point at the line.
 */
public final class PipelineTopology {
  /**
   * A connector made for one pair of signals.
   *
   * @param id the connector's id
   * @param from the signal of the pipelines it ends
   * @param to the signal of the pipelines it feeds
   * @param feeding the pipelines of {@code from} listing it among their exporters, in file order
   * @param fed the pipelines of {@code to} listing it among their receivers, in file order
   */
  public record Instance(
      ComponentId id, Signal from, Signal to, List<String> feeding, List<String> fed) {
    public Instance {
      feeding = List.copyOf(feeding);
      fed = List.copyOf(fed);
    }
  }

  /**
   * Why the pipelines cannot be joined as listed.
   *
   * @param pipeline the pipeline whose list shows the problem
   * @param list the list: {@link ComponentKind#RECEIVER} or {@link ComponentKind#EXPORTER}
   * @param id the id in that list
   * @param message what is wrong, naming the connector and the pipelines
   */
  public record Problem(String pipeline, ComponentKind list, ComponentId id, String message) {}

  /** Refused pipelines, with the first {@link Problem}. */
  public static final class TopologyException extends IllegalArgumentException {
    private final transient Problem problem;

    TopologyException(Problem problem) {
      super(problem.message());
      this.problem = problem;
    }

    public Problem problem() {
      return problem;
    }
  }

  private final List<PipelineSpec> pipelines;
  private final List<Instance> instances;
  private final List<String> downstreamFirst;
  private final List<String> upstreamFirst;
  private final Set<ComponentId> connectors;

  private PipelineTopology(
      List<PipelineSpec> pipelines,
      List<Instance> instances,
      List<String> downstreamFirst,
      List<String> upstreamFirst,
      Set<ComponentId> connectors) {
    this.pipelines = List.copyOf(pipelines);
    this.instances = List.copyOf(instances);
    this.downstreamFirst = List.copyOf(downstreamFirst);
    this.upstreamFirst = List.copyOf(upstreamFirst);
    this.connectors = Set.copyOf(connectors);
  }

  /**
   * Joins {@code pipelines} through the connectors {@code supports} knows.
   *
   * @param supports for each connector id, whether it takes data of the first signal and hands on
   *     data of the second; ids that are not connectors are absent
   * @throws TopologyException when a connector is used on one side only, with no pair of signals it
   *     supports, or in a cycle
   */
  public static PipelineTopology of(
      List<PipelineSpec> pipelines, Map<ComponentId, BiPredicate<Signal, Signal>> supports) {
    Map<ComponentId, List<PipelineSpec>> asExporter = new LinkedHashMap<>();
    Map<ComponentId, List<PipelineSpec>> asReceiver = new LinkedHashMap<>();
    for (PipelineSpec pipeline : pipelines) {
      for (ComponentId id : pipeline.exporters()) {
        if (supports.containsKey(id)) {
          asExporter.computeIfAbsent(id, k -> new ArrayList<>()).add(pipeline);
        }
      }
      for (ComponentId id : pipeline.receivers()) {
        if (supports.containsKey(id)) {
          asReceiver.computeIfAbsent(id, k -> new ArrayList<>()).add(pipeline);
        }
      }
    }
    Set<ComponentId> used = new LinkedHashSet<>(asExporter.keySet());
    used.addAll(asReceiver.keySet());
    List<Instance> instances = new ArrayList<>();
    for (ComponentId id : used) {
      BiPredicate<Signal, Signal> pair = supports.get(id);
      List<PipelineSpec> ends = asExporter.getOrDefault(id, List.of());
      List<PipelineSpec> starts = asReceiver.getOrDefault(id, List.of());
      checkSides(id, pair, ends, starts);
      for (Signal from : Signal.values()) {
        for (Signal to : Signal.values()) {
          List<String> feeding = names(ends, from);
          List<String> fed = names(starts, to);
          if (!feeding.isEmpty() && !fed.isEmpty() && pair.test(from, to)) {
            instances.add(new Instance(id, from, to, feeding, fed));
          }
        }
      }
    }
    Map<String, Map<String, ComponentId>> feeds = edges(pipelines, instances, false);
    List<String> downstreamFirst = order(pipelines, feeds);
    List<String> upstreamFirst = order(pipelines, edges(pipelines, instances, true));
    return new PipelineTopology(
        pipelines, instances, downstreamFirst, upstreamFirst, supports.keySet());
  }

  /**
   * Each signal used on one side pairs with one used on the other, and the connector supports it.
   */
  private static void checkSides(
      ComponentId id,
      BiPredicate<Signal, Signal> pair,
      List<PipelineSpec> ends,
      List<PipelineSpec> starts) {
    for (PipelineSpec end : ends) {
      boolean paired = false;
      for (PipelineSpec start : starts) {
        paired |= pair.test(end.signal(), start.signal());
      }
      if (!paired) {
        throw new TopologyException(
            new Problem(
                end.name(),
                ComponentKind.EXPORTER,
                id,
                "connector \""
                    + id
                    + "\" is an exporter of "
                    + end.name()
                    + " but no pipeline it can feed lists it among its receivers ("
                    + pairs(pair)
                    + ")"));
      }
    }
    for (PipelineSpec start : starts) {
      boolean paired = false;
      for (PipelineSpec end : ends) {
        paired |= pair.test(end.signal(), start.signal());
      }
      if (!paired) {
        throw new TopologyException(
            new Problem(
                start.name(),
                ComponentKind.RECEIVER,
                id,
                "connector \""
                    + id
                    + "\" is a receiver of "
                    + start.name()
                    + " but no pipeline it can take data from lists it among its exporters ("
                    + pairs(pair)
                    + ")"));
      }
    }
  }

  /** The pairs a connector supports, in words: {@code it connects traces to metrics}. */
  private static String pairs(BiPredicate<Signal, Signal> pair) {
    List<String> words = new ArrayList<>();
    for (Signal from : Signal.values()) {
      for (Signal to : Signal.values()) {
        if (pair.test(from, to)) {
          words.add(word(from) + " to " + word(to));
        }
      }
    }
    return words.isEmpty() ? "it connects nothing" : "it connects " + String.join(", ", words);
  }

  private static String word(Signal signal) {
    return signal.name().toLowerCase(Locale.ROOT);
  }

  private static List<String> names(List<PipelineSpec> pipelines, Signal signal) {
    List<String> names = new ArrayList<>();
    for (PipelineSpec pipeline : pipelines) {
      if (pipeline.signal() == signal) {
        names.add(pipeline.name());
      }
    }
    return names;
  }

  /**
   * Edges from each pipeline to those it feeds through connectors (or, {@code reversed}, to those
   * that feed it), each with the connector it goes through.
   */
  private static Map<String, Map<String, ComponentId>> edges(
      List<PipelineSpec> pipelines, List<Instance> instances, boolean reversed) {
    Map<String, Map<String, ComponentId>> edges = new LinkedHashMap<>();
    for (PipelineSpec pipeline : pipelines) {
      edges.put(pipeline.name(), new LinkedHashMap<>());
    }
    for (Instance instance : instances) {
      for (String from : instance.feeding()) {
        for (String to : instance.fed()) {
          if (reversed) {
            edges.get(to).putIfAbsent(from, instance.id());
          } else {
            edges.get(from).putIfAbsent(to, instance.id());
          }
        }
      }
    }
    return edges;
  }

  /**
   * The pipelines, each after every pipeline its edges lead to, otherwise in file order.
   *
   * @throws TopologyException at the first cycle, named pipeline by pipeline
   */
  private static List<String> order(
      List<PipelineSpec> pipelines, Map<String, Map<String, ComponentId>> edges) {
    List<String> order = new ArrayList<>();
    Map<String, Integer> state = new LinkedHashMap<>(); // 1 on the path, 2 placed
    for (PipelineSpec pipeline : pipelines) {
      visit(pipeline.name(), edges, state, new ArrayList<>(), order);
    }
    return order;
  }

  /** Depth first: a pipeline is placed once every pipeline it feeds is. */
  private static void visit(
      String pipeline,
      Map<String, Map<String, ComponentId>> feeds,
      Map<String, Integer> state,
      List<String> path,
      List<String> order) {
    Integer seen = state.get(pipeline);
    if (seen != null && seen == 2) {
      return;
    }
    if (seen != null) {
      throw new TopologyException(cycle(path, pipeline, feeds));
    }
    state.put(pipeline, 1);
    path.add(pipeline);
    for (String next : feeds.get(pipeline).keySet()) {
      visit(next, feeds, state, path, order);
    }
    path.remove(path.size() - 1);
    state.put(pipeline, 2);
    order.add(pipeline);
  }

  /** The cycle that closes at {@code pipeline}, as the problem of its last connector. */
  private static Problem cycle(
      List<String> path, String pipeline, Map<String, Map<String, ComponentId>> feeds) {
    List<String> cycle = new ArrayList<>(path.subList(path.indexOf(pipeline), path.size()));
    cycle.add(pipeline);
    StringBuilder words = new StringBuilder();
    for (int i = 0; i < cycle.size(); i++) {
      if (i > 0) {
        words
            .append(" -> connector \"")
            .append(feeds.get(cycle.get(i - 1)).get(cycle.get(i)))
            .append("\" -> ");
      }
      words.append(cycle.get(i));
    }
    String last = cycle.get(cycle.size() - 2);
    ComponentId closing = feeds.get(last).get(pipeline);
    return new Problem(
        last,
        ComponentKind.EXPORTER,
        closing,
        "connectors make a cycle, data would come back to a pipeline it left: " + words);
  }

  /** The connectors made, one per pair of signals used. */
  public List<Instance> instances() {
    return instances;
  }

  /** The pipelines' names, each after every pipeline it feeds through connectors. */
  public List<String> downstreamFirst() {
    return downstreamFirst;
  }

  /**
   * The pipelines' names, each after every pipeline that feeds it through connectors: the order to
   * stop them in, so that what a pipeline flushes at its stop reaches pipelines still running.
   */
  public List<String> upstreamFirst() {
    return upstreamFirst;
  }

  /**
   * The pipelines that requests entering {@code pipeline} reach as the same requests: the pipeline,
   * and those fed from it through connectors of one signal for which {@code passesThrough} holds,
   * and so on. In the order found, {@code pipeline} first.
   */
  public Set<String> reachedThrough(String pipeline, Predicate<ComponentId> passesThrough) {
    return reachedThrough(pipeline, passesThrough, id -> false);
  }

  /**
   * The pipelines that requests entering {@code pipeline} reach, as the same requests or as data
   * made from them: as {@link #reachedThrough(String, Predicate)}, and through connectors of a type
   * for which {@code saysWhatItMadeFrom} holds too, which make data and say from which requests.
   */
  public Set<String> reachedThrough(
      String pipeline,
      Predicate<ComponentId> passesThrough,
      Predicate<ComponentId> saysWhatItMadeFrom) {
    Set<String> reached = new LinkedHashSet<>();
    ArrayDeque<String> next = new ArrayDeque<>();
    next.add(pipeline);
    while (!next.isEmpty()) {
      String at = next.poll();
      if (!reached.add(at)) {
        continue;
      }
      for (Instance instance : instances) {
        if (instance.feeding().contains(at)
            && (passesThrough(instance, passesThrough) || saysWhatItMadeFrom.test(instance.id()))) {
          next.addAll(instance.fed());
        }
      }
    }
    return reached;
  }

  /**
   * Whether {@code instance} hands on the requests it is given: one signal, a pass-through type.
   */
  static boolean passesThrough(Instance instance, Predicate<ComponentId> passesThrough) {
    return instance.from() == instance.to() && passesThrough.test(instance.id());
  }

  /**
   * Refuses connectors that make new data where the write-ahead log is: a request is logged once,
   * where it is received, and a connector that passes requests on ({@code passesThrough}: forward,
   * routing) carries it to the durable pipelines behind it; data a connector makes is not logged.
   * So a connector that makes data may not end a pipeline that logged requests reach, nor feed a
   * durable pipeline (one whose exporters, or those of the pipelines it passes requests on to, have
   * {@code sending_queue.storage}).
   *
   * @param storageOf an exporter's {@code sending_queue.storage}, or null when it has none
   * @param passesThrough whether a connector id's type passes requests on
   * @param notForLoggedRequests why a connector that passes requests on still may not take logged
   *     ones ({@link dev.sluice.component.ConnectorFactory#notForLoggedRequests}), or null
   * @throws TopologyException naming the connector, the pipeline, and why that pipeline is logged
   */
  public void checkDurable(
      Function<ComponentId, String> storageOf,
      Predicate<ComponentId> passesThrough,
      Function<ComponentId, String> notForLoggedRequests) {
    checkDurable(storageOf, passesThrough, id -> false, notForLoggedRequests);
  }

  /**
   * {@link #checkDurable(Function, Predicate, Function)}, where connectors of a type for which
   * {@code saysWhatItMadeFrom} holds make data from each batch and say from which requests: they
   * may end logged pipelines and feed durable ones, and what they make keeps the requests it was
   * made from owed in the log. A pipeline is durable when its requests, or data made from them by
   * such connectors, reach an exporter with {@code sending_queue.storage}.
   */
  public void checkDurable(
      Function<ComponentId, String> storageOf,
      Predicate<ComponentId> passesThrough,
      Predicate<ComponentId> saysWhatItMadeFrom,
      Function<ComponentId, String> notForLoggedRequests) {
    Map<String, String> durableBecause = new LinkedHashMap<>();
    Map<String, PipelineSpec> byName = new LinkedHashMap<>();
    pipelines.forEach(pipeline -> byName.put(pipeline.name(), pipeline));
    for (PipelineSpec pipeline : pipelines) {
      for (String reached : reachedThrough(pipeline.name(), passesThrough, saysWhatItMadeFrom)) {
        for (ComponentId exporter : byName.get(reached).exporters()) {
          if (!isConnector(exporter) && storageOf.apply(exporter) != null) {
            durableBecause.putIfAbsent(
                pipeline.name(),
                reached.equals(pipeline.name())
                    ? "its exporter \"" + exporter + "\" has sending_queue.storage"
                    : "what it takes goes on to exporter \""
                        + exporter
                        + "\" of "
                        + reached
                        + ", which has sending_queue.storage");
          }
        }
      }
    }
    Map<String, String> loggedBecause = new LinkedHashMap<>();
    for (PipelineSpec pipeline : pipelines) {
      for (ComponentId receiver : pipeline.receivers()) {
        if (isConnector(receiver)) {
          continue;
        }
        for (PipelineSpec other : pipelines) {
          String why = durableBecause.get(other.name());
          if (why != null
              && other.signal() == pipeline.signal()
              && other.receivers().contains(receiver)) {
            for (String reached : reachedThrough(pipeline.name(), passesThrough)) {
              loggedBecause.putIfAbsent(
                  reached,
                  "receiver \"" + receiver + "\" feeds " + other.name() + ", where " + why);
            }
          }
        }
      }
    }
    for (Instance instance : instances) {
      if (passesThrough(instance, passesThrough)) {
        String reason = notForLoggedRequests.apply(instance.id());
        for (String feeding : instance.feeding()) {
          String why = loggedBecause.get(feeding);
          if (why != null && reason != null) {
            throw new TopologyException(
                new Problem(
                    feeding,
                    ComponentKind.EXPORTER,
                    instance.id(),
                    "pipeline "
                        + feeding
                        + " lists connector \""
                        + instance.id()
                        + "\", and the requests that reach "
                        + feeding
                        + " are logged in the write-ahead log ("
                        + why
                        + "): "
                        + reason));
          }
        }
        continue;
      }
      if (saysWhatItMadeFrom.test(instance.id())) {
        continue;
      }
      for (String feeding : instance.feeding()) {
        String why = loggedBecause.get(feeding);
        if (why != null) {
          throw new TopologyException(
              new Problem(
                  feeding,
                  ComponentKind.EXPORTER,
                  instance.id(),
                  "pipeline "
                      + feeding
                      + " lists connector \""
                      + instance.id()
                      + "\", which makes new data, and the requests that reach "
                      + feeding
                      + " are logged in the write-ahead log ("
                      + why
                      + "): what it makes is not logged, so a logged pipeline can end only in"
                      + " connectors that pass requests on as they are (forward, routing) or that"
                      + " say which requests what they make was made from (count, spanmetrics,"
                      + " servicegraph)"));
        }
      }
      for (String fed : instance.fed()) {
        String why = durableBecause.get(fed);
        if (why != null) {
          throw new TopologyException(
              new Problem(
                  fed,
                  ComponentKind.RECEIVER,
                  instance.id(),
                  "pipeline "
                      + fed
                      + " takes data from connector \""
                      + instance.id()
                      + "\", which makes new data, and what it makes is not logged in the"
                      + " write-ahead log nor says which logged requests it was made from, so "
                      + fed
                      + " cannot take part in sending_queue.storage: "
                      + why));
        }
      }
    }
  }

  /** Whether {@code id} names a connector. */
  public boolean isConnector(ComponentId id) {
    return connectors.contains(id);
  }
}
