package dev.sluice.prometheus;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.build.MetricsBuilder;
import dev.sluice.pdata.view.AttributeCursor;
import java.util.ArrayList;
import java.util.List;

/**
 * Names asked for the way an exporter asks: metrics written with {@link MetricsBuilder}, indexed,
 * and read back through {@link BatchView}'s views.
 */
final class ThroughViews {
  private ThroughViews() {}

  /** The name {@code names} gives a metric of {@code shape} with this name and unit. */
  static String metricName(MetricNames names, String name, String unit, Shape shape) {
    MetricsBuilder metrics = new MetricsBuilder();
    metrics.resource();
    metrics.scope();
    shape.write(metrics, name, unit);
    Batch batch = Batch.of(metrics.build());
    List<String> seen = new ArrayList<>();
    new BatchView().forEachMetric(batch, (resource, scope, metric) -> seen.add(names.name(metric)));
    batch.clear();
    if (seen.size() != 1) {
      throw new AssertionError("one metric written, " + seen.size() + " read");
    }
    return seen.get(0);
  }

  /** The labels {@code names} gives the keys of a data point's attributes, in order. */
  static List<String> labels(LabelNames names, List<String> keys) {
    MetricsBuilder metrics = new MetricsBuilder();
    metrics.resource();
    metrics.scope();
    var attributes =
        metrics.metric().name("m").gauge().numberPoint().timeUnixNano(1).intValue(1).attributes();
    for (String key : keys) {
      attributes.put(key, "v");
    }
    Batch batch = Batch.of(metrics.build());
    List<String> seen = new ArrayList<>();
    AttributeCursor cursor = new AttributeCursor();
    new BatchView()
        .forEachDataPoint(
            batch,
            (resource, scope, metric, point) -> {
              point.attributes(cursor);
              while (cursor.next()) {
                seen.add(names.label(cursor.key()));
              }
            });
    batch.clear();
    return seen;
  }
}
