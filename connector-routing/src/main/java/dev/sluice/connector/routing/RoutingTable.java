package dev.sluice.connector.routing;

import dev.sluice.component.ConnectorOutput;
import dev.sluice.pdata.Signal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The routes of one connector instance, compiled, and the outputs they hand data to. Routes that
 * name the same pipelines (in any order) share a target, so their data reaches those pipelines as
 * one batch; the default pipelines are a target too. Immutable and shared by every thread.
 */
final class RoutingTable {
  /** No target: the data matches no route and there are no default pipelines. */
  static final int NO_TARGET = -1;

  /**
   * A route ready to evaluate.
   *
   * @param copy whether matching data also goes on to later routes ({@code action: copy})
   * @param copyIndex the route's number among the copy routes, or -1
   * @param target where matching data goes, in {@link #targets}
   */
  record Route(
      RouteContext context, RouteCondition condition, boolean copy, int copyIndex, int target) {}

  final Signal signal;
  final Route[] routes;
  final ConnectorOutput[] targets;
  final int defaultTarget;
  final int copyRoutes;

  /**
   * Every route is of the resource or the request context: a resource block is decided once, as a
   * whole.
   */
  final boolean perResourceBlock;

  private RoutingTable(
      Signal signal,
      Route[] routes,
      ConnectorOutput[] targets,
      int defaultTarget,
      int copyRoutes,
      boolean perResourceBlock) {
    this.signal = signal;
    this.routes = routes;
    this.targets = targets;
    this.defaultTarget = defaultTarget;
    this.copyRoutes = copyRoutes;
    this.perResourceBlock = perResourceBlock;
  }

  /**
   * Compiles {@code config}'s table for data of {@code signal}. A route whose context and statement
   * repeat an earlier route's is left out with a warning, as the Collector does; its pipelines are
   * still checked.
   *
   * @throws IllegalArgumentException when a route names a pipeline {@code output} does not feed, or
   *     has a context {@code signal} has no items of (the configuration check reports both first)
   */
  static RoutingTable compile(
      RoutingConfig config, Signal signal, ConnectorOutput output, Logger logger) {
    Map<Set<String>, Integer> targetIndex = new HashMap<>();
    List<ConnectorOutput> targets = new ArrayList<>();
    List<Route> routes = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    int copyRoutes = 0;
    boolean perResourceBlock = true;
    for (RoutingConfig.Route route : config.table()) {
      RouteContext context = RouteContext.parse(route.context());
      if (context == null || !context.appliesTo(signal)) {
        throw new IllegalArgumentException(
            "routing: a route of context \"" + route.context() + "\" cannot route " + signal);
      }
      int target = target(route.pipelines(), output, targetIndex, targets);
      String statement = RouteCondition.statementOf(route);
      if (!seen.add(context.configName() + "\n" + statement)) {
        logger.warning(
            "Statement \""
                + statement
                + "\" already exists in the routing table for the "
                + context.configName()
                + " context: the route to "
                + String.join(", ", route.pipelines())
                + " is ignored");
        continue;
      }
      boolean copy = route.action() == RoutingConfig.Action.COPY;
      routes.add(
          new Route(
              context, RouteCondition.of(route, context), copy, copy ? copyRoutes++ : -1, target));
      perResourceBlock &= context == RouteContext.RESOURCE || context == RouteContext.REQUEST;
    }
    int defaultTarget =
        config.defaultPipelines().isEmpty()
            ? NO_TARGET
            : target(config.defaultPipelines(), output, targetIndex, targets);
    return new RoutingTable(
        signal,
        routes.toArray(new Route[0]),
        targets.toArray(new ConnectorOutput[0]),
        defaultTarget,
        copyRoutes,
        perResourceBlock);
  }

  /** The target of {@code pipelines}, made (its output built once) when it is the first. */
  private static int target(
      List<String> pipelines,
      ConnectorOutput output,
      Map<Set<String>, Integer> targetIndex,
      List<ConnectorOutput> targets) {
    Set<String> names = new LinkedHashSet<>(pipelines);
    Integer known = targetIndex.get(names);
    if (known != null) {
      return known;
    }
    targets.add(output.to(names));
    targetIndex.put(names, targets.size() - 1);
    return targets.size() - 1;
  }
}
