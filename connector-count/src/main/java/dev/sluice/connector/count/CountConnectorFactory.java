package dev.sluice.connector.count;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorFactory;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.connector.count.CountConfig.Section;
import dev.sluice.pdata.Signal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code count} connector type: counts spans and span events (traces pipelines), metrics and
 * data points (metrics pipelines), or log records (logs pipelines), and hands the counts to metrics
 * pipelines as delta, monotonic sums.
 */
public final class CountConnectorFactory implements ConnectorFactory<CountConfig> {
  @Override
  public String type() {
    return "count";
  }

  @Override
  public Class<CountConfig> configType() {
    return CountConfig.class;
  }

  @Override
  public CountConfig defaultConfig() {
    return CountConfig.DEFAULT;
  }

  @Override
  public boolean supports(Signal from, Signal to) {
    return to == Signal.METRICS;
  }

  /**
   * Counts go out with the batch they were counted from, which nothing is kept of: logged requests
   * may be counted, and stay owed until their counts are delivered.
   */
  @Override
  public boolean saysWhatItMadeFrom() {
    return true;
  }

  @Override
  public Connector create(
      ComponentSettings settings,
      CountConfig config,
      Signal from,
      Signal to,
      ConnectorOutput output) {
    if (!supports(from, to)) {
      throw new IllegalArgumentException("count hands counts to metrics pipelines, not " + to);
    }
    List<MetricDef> defs = new ArrayList<>();
    for (Section section : sectionsOf(from)) {
      defs.addAll(MetricDef.compileAll(config, section));
    }
    String id = settings.id().toString();
    ConditionFailures failures =
        new ConditionFailures(
            settings
                .metrics()
                .counter(
                    "sluice_connector_count_condition_errors",
                    "Number of times a count condition failed to evaluate for an item",
                    "connector",
                    id),
            settings.logger());
    EmissionClock clock = new EmissionClock(settings.scheduler(), Instant.now());
    return new CountConnector(from, List.copyOf(defs), output, clock, failures);
  }

  /** What is counted in pipelines of {@code signal}. */
  static List<Section> sectionsOf(Signal signal) {
    return switch (signal) {
      case TRACES -> List.of(Section.SPANS, Section.SPAN_EVENTS);
      case METRICS -> List.of(Section.METRICS, Section.DATA_POINTS);
      case LOGS -> List.of(Section.LOGS);
    };
  }
}
