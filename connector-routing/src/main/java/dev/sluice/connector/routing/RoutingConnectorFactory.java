package dev.sluice.connector.routing;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorFactory;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.SignalNames;
import dev.sluice.pdata.Signal;
import java.util.List;
import java.util.Locale;

/**
 * The {@code routing} connector type: traces to traces, metrics to metrics, logs to logs. Each
 * span, metric data point or log record goes to the pipelines of the first route it matches (and of
 * every {@code copy} route it matches before that), or to the default pipelines.
 */
public final class RoutingConnectorFactory implements ConnectorFactory<RoutingConfig> {
  @Override
  public String type() {
    return "routing";
  }

  @Override
  public Class<RoutingConfig> configType() {
    return RoutingConfig.class;
  }

  @Override
  public RoutingConfig defaultConfig() {
    return RoutingConfig.DEFAULT;
  }

  @Override
  public boolean supports(Signal from, Signal to) {
    return from == to;
  }

  /** Batches go on as slices of the requests they came in: durable pipelines may follow. */
  @Override
  public boolean passesThrough() {
    return true;
  }

  /**
   * A {@code request} route reads the metadata a request came with, which the write-ahead log does
   * not keep: a request replayed after a restart would match none of them.
   */
  @Override
  public String notForLoggedRequests(RoutingConfig config) {
    for (RoutingConfig.Route route : config.table()) {
      if (RouteContext.parse(route.context()) == RouteContext.REQUEST) {
        return "its request routes read the metadata a request came with, which the write-ahead"
            + " log does not keep, so a request replayed after a restart would be routed"
            + " differently; route on resource attributes instead, or give the routed pipelines"
            + " a receiver without file_storage";
      }
    }
    return null;
  }

  /**
   * Every pipeline a route or {@code default_pipelines} names must be one of {@code to} that lists
   * the connector among its receivers, and every route's context must have items in that signal.
   */
  @Override
  public void validatePipelines(
      RoutingConfig config, Signal from, Signal to, List<String> fed, ConfigProblems problems) {
    List<RoutingConfig.Route> table = config.table();
    for (int i = 0; i < table.size(); i++) {
      RoutingConfig.Route route = table.get(i);
      ConfigProblems at = problems.under("table").item(i);
      RouteContext context = RouteContext.parse(route.context());
      if (context != null && !context.appliesTo(to)) {
        at.add(
            "context",
            "the "
                + context.configName()
                + " context has nothing to match in "
                + to.name().toLowerCase(Locale.ROOT)
                + ", so the route would never match: use resource or "
                + itemContexts(to));
      }
      checkNamed(route.pipelines(), to, fed, at.under("pipelines"));
    }
    checkNamed(config.defaultPipelines(), to, fed, problems.under("default_pipelines"));
  }

  private static String itemContexts(Signal signal) {
    return switch (signal) {
      case TRACES -> "span";
      case METRICS -> "metric or datapoint";
      case LOGS -> "log";
    };
  }

  private static void checkNamed(
      List<String> named, Signal signal, List<String> fed, ConfigProblems problems) {
    for (int j = 0; j < named.size(); j++) {
      if (!fed.contains(named.get(j))) {
        problems
            .item(j)
            .add(
                "",
                "pipeline \""
                    + named.get(j)
                    + "\" is not a "
                    + signal.name().toLowerCase(Locale.ROOT)
                    + " pipeline that lists this connector among its receivers (those are: "
                    + String.join(", ", fed)
                    + ")");
      }
    }
  }

  @Override
  public Connector create(
      ComponentSettings settings,
      RoutingConfig config,
      Signal from,
      Signal to,
      ConnectorOutput output) {
    if (from != to) {
      throw new IllegalArgumentException(
          "routing joins pipelines of one signal, not " + from + " to " + to);
    }
    RoutingTable table = RoutingTable.compile(config, to, output, settings.logger());
    String id = settings.id().toString();
    MetricRegistry metrics = settings.metrics();
    RouteFailures failures =
        new RouteFailures(
            config.errorMode(),
            metrics.counter(
                "sluice_connector_routing_condition_errors",
                "Number of times a routing condition failed to evaluate for an item",
                "connector",
                id),
            settings.logger());
    MetricRegistry.Counter unrouted =
        metrics.counter(
            "sluice_connector_routing_unrouted_" + SignalNames.units(to),
            "Number of "
                + SignalNames.units(to).replace('_', ' ')
                + " that matched no route with no default pipelines, and were dropped",
            "connector",
            id);
    return new Router(table, failures, unrouted);
  }
}
