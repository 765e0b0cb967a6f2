package dev.sluice.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.BatchView.DataPointVisitor;
import dev.sluice.pdata.BatchView.MetricVisitor;
import dev.sluice.pdata.build.MetricsBuilder;
import dev.sluice.pdata.build.ValueWriter;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.MetricType;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.AllocationBound.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The caches of {@link MetricNames} and {@link LabelNames}: a name asked for again is the same
 * {@code String}, from a view or from plain values; the cache stays within its bound, and names
 * stay right after it is cleared; a cached name costs no allocation, measured in bytes allocated on
 * the calling thread ({@link AllocationBound}), not in time.
 */
class NameCachingTest {
  private static final TranslationStrategy DEFAULT =
      TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES;
  private static final int WARM_UP = 2_000;
  private static final int MEASURED = 200;
  private static final int ROUNDS = 3;

  @Test
  void theSameMetricTwiceIsTheSameString() {
    MetricNames names = new MetricNames("shop", DEFAULT);

    String first = names.name("http.server.request.duration", "s", MetricType.HISTOGRAM, false);
    String again = names.name("http.server.request.duration", "s", MetricType.HISTOGRAM, false);
    String viaView =
        ThroughViews.metricName(names, "http.server.request.duration", "s", Shape.HISTOGRAM);

    assertThat(first).isEqualTo("shop_http_server_request_duration_seconds");
    assertThat(again).isSameAs(first);
    assertThat(viaView).isSameAs(first);
    assertThat(names.cachedNames()).isEqualTo(1);
  }

  @Test
  void whatTheNameDependsOnIsPartOfTheKey() {
    MetricNames names = new MetricNames("", DEFAULT);

    assertThat(names.name("jobs", "1", MetricType.SUM, true)).isEqualTo("jobs_total");
    assertThat(names.name("jobs", "1", MetricType.SUM, false)).isEqualTo("jobs");
    assertThat(names.name("jobs", "1", MetricType.GAUGE, false)).isEqualTo("jobs_ratio");
    assertThat(names.name("jobs", "s", MetricType.GAUGE, false)).isEqualTo("jobs_seconds");
    // The name and unit fields are kept apart: "jobs"+"1" is not "jobs1"+"".
    assertThat(names.name("jobs1", "", MetricType.GAUGE, false)).isEqualTo("jobs1");
    // Other types whose names cannot differ share one entry.
    assertThat(names.name("jobs", "1", MetricType.HISTOGRAM, false))
        .isSameAs(names.name("jobs", "1", MetricType.SUM, false));
    assertThat(names.cachedNames()).isEqualTo(5);
  }

  @Test
  void theBoundIsKeptAndNamesStayRightAfterTheCacheIsCleared() {
    MetricNames names = new MetricNames("", DEFAULT, 8);

    for (int i = 0; i < 8; i++) {
      assertThat(names.name("op." + i, "ms", MetricType.SUM, true))
          .isEqualTo("op_" + i + "_milliseconds_total");
    }
    assertThat(names.cachedNames()).isEqualTo(8);
    String held = names.name("op.7", "ms", MetricType.SUM, true);

    // The ninth name clears the map, then is stored.
    assertThat(names.name("op.8", "ms", MetricType.SUM, true)).isEqualTo("op_8_milliseconds_total");
    assertThat(names.cachedNames()).isEqualTo(1);

    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 20; i++) {
        assertThat(names.name("op." + i, "ms", MetricType.SUM, true))
            .isEqualTo("op_" + i + "_milliseconds_total");
        assertThat(ThroughViews.metricName(names, "op." + i, "ms", Shape.COUNTER))
            .isEqualTo("op_" + i + "_milliseconds_total");
        assertThat(names.cachedNames()).isBetween(1, 8);
      }
    }
    // Translated anew after a clear: equal, no longer the same instance.
    assertThat(names.name("op.7", "ms", MetricType.SUM, true)).isEqualTo(held).isNotSameAs(held);
  }

  @Test
  void labelsKeepTheirBoundToo() {
    LabelNames labels = new LabelNames(DEFAULT, 4);

    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 10; i++) {
        assertThat(labels.label("k8s.pod." + i)).isEqualTo("k8s_pod_" + i);
        assertThat(labels.cachedNames()).isBetween(1, 4);
      }
    }
    String held = labels.label("a.b");
    assertThat(labels.label("a.b")).isSameAs(held);
    assertThat(ThroughViews.labels(labels, List.of("a.b"))).singleElement().isSameAs(held);
  }

  @Test
  void namesTooLongToKeepAreTranslatedEachTime() {
    MetricNames names = new MetricNames("", DEFAULT);
    String longName = "x".repeat(NameCache.MAX_KEY_BYTES) + ".count";

    String first = names.name(longName, "", MetricType.SUM, true);

    assertThat(first).isEqualTo("x".repeat(NameCache.MAX_KEY_BYTES) + "_count_total");
    assertThat(names.name(longName, "", MetricType.SUM, true)).isEqualTo(first);
    assertThat(names.cachedNames()).isZero();
  }

  @Test
  void cachedMetricNamesCostNoAllocation() {
    MetricsBuilder metrics = new MetricsBuilder();
    metrics.resource();
    metrics.scope();
    Shape[] shapes = Shape.values();
    for (int i = 0; i < 50; i++) {
      shapes[i % shapes.length].write(metrics, "service.op." + i, i % 2 == 0 ? "ms" : "By/s");
    }
    Batch batch = Batch.of(metrics.build());
    BatchView views = new BatchView();
    MetricNames names = new MetricNames("shop", DEFAULT);
    int[] length = new int[1];
    MetricVisitor visitor = (resource, scope, metric) -> length[0] += names.name(metric).length();

    long allocated = leastAllocated(() -> views.forEachMetric(batch, visitor));
    batch.clear();

    assertThat(names.cachedNames()).isEqualTo(50);
    assertThat(length[0]).isPositive();
    assertThat(allocated).as(MEASURED + " visits of 50 metrics").isZero();
  }

  @Test
  void cachedLabelsCostNoAllocation() {
    MetricsBuilder metrics = new MetricsBuilder();
    metrics.resource();
    metrics.scope();
    ValueWriter attributes =
        metrics.metric().name("m").gauge().numberPoint().timeUnixNano(1).intValue(1).attributes();
    for (int i = 0; i < 30; i++) {
      attributes.put("http.request.header." + i, "v");
    }
    Batch batch = Batch.of(metrics.build());
    BatchView views = new BatchView();
    AttributeCursor cursor = new AttributeCursor();
    LabelNames labels = new LabelNames(DEFAULT);
    int[] length = new int[1];
    DataPointVisitor visitor =
        (resource, scope, metric, point) -> {
          point.attributes(cursor);
          while (cursor.next()) {
            length[0] += labels.label(cursor.key()).length();
          }
        };

    long allocated = leastAllocated(() -> views.forEachDataPoint(batch, visitor));
    batch.clear();

    assertThat(labels.cachedNames()).isEqualTo(30);
    assertThat(length[0]).isPositive();
    assertThat(allocated).as(MEASURED + " visits of 30 attributes").isZero();
  }

  /** The least a few rounds of {@link #MEASURED} calls allocated, after a warm-up. */
  private static long leastAllocated(Runnable visit) {
    for (int i = 0; i < WARM_UP; i++) {
      visit.run();
    }
    long least = Long.MAX_VALUE;
    for (int round = 0; round < ROUNDS; round++) {
      Outcome outcome =
          AllocationBound.measure(
              () -> {
                for (int i = 0; i < MEASURED; i++) {
                  visit.run();
                }
              });
      assertThat(outcome.thrown()).isNull();
      least = Math.min(least, outcome.allocatedBytes());
    }
    return least;
  }
}
