package dev.sluice.connector.routing;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Validatable;
import dev.sluice.ottl.ErrorMode;
import java.util.List;

/**
 * The {@code routing} connector's configuration, with the OpenTelemetry Collector's keys: a table
 * of routes, each an OTTL condition in a context and the pipelines that data matching it goes to;
 * the pipelines for data that matches no route; and what a condition that fails for an item does.
 *
 * <p>Every condition is parsed and compiled when the configuration is validated, so an error is
 * reported at its key with its line and column before anything starts. The pipelines a route names
 * are checked against those that list the connector when the pipelines are read ({@link
 * RoutingConnectorFactory#validatePipelines}).
 *
 * @param table the routes, in the order they are tried
 * @param defaultPipelines where data that matches no route goes; without them it is dropped
 * @param errorMode {@code propagate} (default): a condition that fails refuses the whole batch;
 *     {@code ignore}, {@code silent}: it counts as not matched
 */
public record RoutingConfig(List<Route> table, List<String> defaultPipelines, ErrorMode errorMode)
    implements ComponentConfig {
  public static final RoutingConfig DEFAULT =
      new RoutingConfig(List.of(), List.of(), ErrorMode.PROPAGATE);

  /** What a route does with the data that matches it. */
  public enum Action {
    /** The data goes to this route's pipelines and no later route sees it. */
    MOVE,
    /** The data goes to this route's pipelines and on to the later routes, as if unmatched. */
    COPY
  }

  /**
   * One route.
   *
   * @param context what the condition is evaluated for: {@code resource} (default), {@code span},
   *     {@code metric}, {@code datapoint}, {@code log}, or {@code request} (the metadata or headers
   *     the request came with)
   * @param condition an OTTL condition; this or {@code statement}
   * @param statement {@code route() where <condition>}; this or {@code condition}
   * @param action {@code move} (default) or {@code copy}
   * @param pipelines the pipelines matching data goes to
   */
  public record Route(
      String context, String condition, String statement, Action action, List<String> pipelines)
      implements Validatable {
    public static final Route DEFAULT = new Route("resource", "", "", Action.MOVE, List.of());

    @Override
    public void validate(ConfigProblems problems) {
      boolean hasCondition = condition != null && !condition.isEmpty();
      boolean hasStatement = statement != null && !statement.isEmpty();
      if (hasCondition && hasStatement) {
        problems.add("statement", "give condition or statement, not both");
      } else if (!hasCondition && !hasStatement) {
        problems.add("", "needs a condition or a statement");
      }
      if (pipelines == null || pipelines.isEmpty()) {
        problems.add("pipelines", "must name at least one pipeline");
      }
      if (action == null) {
        problems.add("action", "must be one of move, copy");
      }
      RouteContext parsed = RouteContext.parse(context);
      if (parsed == null) {
        problems.add(
            "context",
            "invalid context \""
                + context
                + "\": one of resource, span, metric, datapoint, log, request");
        return;
      }
      if (hasCondition && !hasStatement) {
        RouteCondition.compileCondition(condition, parsed, problems.under("condition"));
      } else if (hasStatement && !hasCondition) {
        RouteCondition.compileStatement(statement, parsed, problems.under("statement"));
      }
    }
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (table == null || table.isEmpty()) {
      problems.add("table", "must have at least one route");
    }
    if (errorMode == null) {
      problems.add("error_mode", "must be one of propagate, ignore, silent");
    }
  }
}
