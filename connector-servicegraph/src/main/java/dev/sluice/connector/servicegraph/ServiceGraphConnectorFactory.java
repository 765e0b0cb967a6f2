package dev.sluice.connector.servicegraph;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorFactory;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.pdata.Signal;

/**
 * Makes {@code servicegraph} connectors: the end of traces pipelines, the start of metrics
 * pipelines.
 */
public final class ServiceGraphConnectorFactory implements ConnectorFactory<ServiceGraphConfig> {
  @Override
  public String type() {
    return "servicegraph";
  }

  @Override
  public Class<ServiceGraphConfig> configType() {
    return ServiceGraphConfig.class;
  }

  @Override
  public ServiceGraphConfig defaultConfig() {
    return ServiceGraphConfig.DEFAULT;
  }

  @Override
  public boolean supports(Signal from, Signal to) {
    return from == Signal.TRACES && to == Signal.METRICS;
  }

  /**
   * Yes: each flush is handed on with the batches whose edges are all decided ({@link
   * ServiceGraphConnector}), so logged requests stay owed while an edge of theirs waits in the
   * store.
   */
  @Override
  public boolean saysWhatItMadeFrom() {
    return true;
  }

  @Override
  public Connector create(
      ComponentSettings settings,
      ServiceGraphConfig config,
      Signal from,
      Signal to,
      ConnectorOutput output) {
    if (!supports(from, to)) {
      throw new IllegalArgumentException(
          "servicegraph takes traces and makes metrics, not " + from + " to " + to);
    }
    return new ServiceGraphConnector(
        settings, config, output, ServiceGraphConnector.unixOffsetNanos(settings.scheduler()));
  }
}
