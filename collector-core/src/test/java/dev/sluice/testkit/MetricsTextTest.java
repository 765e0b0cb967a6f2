package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.telemetry.MetricRegistry;
import org.junit.jupiter.api.Test;

class MetricsTextTest {

  @Test
  void isTheRegistryInPrometheusTextFormatAsItStandsNow() {
    MetricRegistry metrics = new MetricRegistry();
    MetricRegistry.Counter sent = metrics.counter("sluice_test_sent", "Sent.", "exporter", "x");
    metrics.gauge("sluice_test_queued", "Queued.", () -> 4);

    sent.add(3);
    assertThat(MetricsText.of(metrics))
        .contains("# TYPE sluice_test_sent_total counter\n")
        .contains("sluice_test_sent_total{exporter=\"x\"} 3\n")
        .contains("sluice_test_queued 4\n");
    sent.add(2);
    assertThat(MetricsText.of(metrics)).contains("sluice_test_sent_total{exporter=\"x\"} 5\n");
  }
}
