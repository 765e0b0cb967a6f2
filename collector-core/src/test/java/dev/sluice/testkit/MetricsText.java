package dev.sluice.testkit;

import dev.sluice.component.telemetry.MetricRegistry;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** The metrics page as a test reads it: a registry in Prometheus' text format. */
public final class MetricsText {
  private MetricsText() {}

  /** {@code metrics} as the metrics endpoint would serve them now. */
  public static String of(MetricRegistry metrics) {
    StringWriter out = new StringWriter();
    try {
      metrics.writePrometheus(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }
}
