package dev.sluice.connector.spanmetrics;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorFactory;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.pdata.Signal;
import java.util.List;
import java.util.UUID;

/**
 * Makes {@code spanmetrics} connectors: the end of traces pipelines, the start of metrics
 * pipelines. Also accepted as {@code span_metrics}, the type's newer name in the Collector.
 */
public final class SpanMetricsConnectorFactory implements ConnectorFactory<SpanMetricsConfig> {
  /**
   * This collector's instance ID, the value of the {@code collector.instance.id} dimension: made
   * once per process, as the Collector makes its {@code service.instance.id}.
   */
  static final String COLLECTOR_INSTANCE_ID = UUID.randomUUID().toString();

  @Override
  public String type() {
    return "spanmetrics";
  }

  @Override
  public List<String> aliases() {
    return List.of("span_metrics");
  }

  @Override
  public Class<SpanMetricsConfig> configType() {
    return SpanMetricsConfig.class;
  }

  @Override
  public SpanMetricsConfig defaultConfig() {
    return SpanMetricsConfig.DEFAULT;
  }

  @Override
  public boolean supports(Signal from, Signal to) {
    return from == Signal.TRACES && to == Signal.METRICS;
  }

  /**
   * Each flush goes out with the sources of the spans it counted: logged spans may be counted, and
   * stay owed until a flush that counted them is delivered.
   */
  @Override
  public boolean saysWhatItMadeFrom() {
    return true;
  }

  @Override
  public Connector create(
      ComponentSettings settings,
      SpanMetricsConfig config,
      Signal from,
      Signal to,
      ConnectorOutput output) {
    if (!supports(from, to)) {
      throw new IllegalArgumentException(
          "spanmetrics takes traces and makes metrics, not " + from + " to " + to);
    }
    return new SpanMetricsConnector(
        settings,
        config,
        output,
        COLLECTOR_INSTANCE_ID,
        SpanMetricsConnector.unixOffsetNanos(settings.scheduler()),
        System.nanoTime());
  }
}
