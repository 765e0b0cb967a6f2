package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Both evaluators of the condition benchmark match the same spans, and some of them. */
class OttlConditionBenchmarkTest {
  @Test
  void scannedAndGeneralEvaluatorsMatchTheSameSpans() throws Exception {
    for (String condition :
        new String[] {
          "attributes[\"http.route\"] == \"/health\"",
          "attributes[\"url.scheme\"] != \"https\" or name == \"GET /health\"",
          "IsMatch(attributes[\"http.route\"], \"^/api/v1/(users|orders)\")"
        }) {
      OttlConditionBenchmark benchmark = new OttlConditionBenchmark();
      benchmark.condition = condition;
      benchmark.spans = 600;
      benchmark.setup();
      try {
        int scanned = benchmark.scanned();
        int general = benchmark.general();
        assertThat(scanned).as(condition).isEqualTo(general).isBetween(60, 300);
        assertThat(benchmark.visitOnly()).isZero();
      } finally {
        benchmark.tearDown();
      }
    }
  }
}
