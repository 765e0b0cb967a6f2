package dev.sluice.exporter.prometheusremotewrite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.prometheusremotewrite.testkit.NaiveRemoteWrite;
import dev.sluice.prometheus.TranslationStrategy;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import prometheus.Remote.WriteRequest;
import prometheus.Types.Label;
import prometheus.Types.Sample;
import prometheus.Types.TimeSeries;

/**
 * The encoder, which reads the batch through views and writes series straight into protobuf,
 * against the plain path ({@link NaiveRemoteWrite}: protobuf-java objects and maps) on random
 * requests: the same series, each with the same samples in the same order; and remote write 2.0
 * against 1.0: the same series and samples.
 */
class EncoderMatchesNaivePropertyTest {
  // Small pools, so that keys collide after translation, values repeat, points share series.
  private static final String[] KEYS = {
    "http.method", "http_method", "host", "Host", "2xx", "a.b.c", "service.name", "le", "_x"
  };
  private static final String[] VALUES = {"GET", "get", "", "a;b", "ü", "1"};
  private static final String[] NAMES = {"requests", "http.server.duration", "queue", "a-b"};
  private static final String[] UNITS = {"", "ms", "By", "1", "{request}", "s"};

  @Property(tries = 300)
  void sameSeriesAndSamplesAsThePlainPath(@ForAll long seed) throws Exception {
    Random random = new Random(seed);
    ExportMetricsServiceRequest[] requests = new ExportMetricsServiceRequest[1 + random.nextInt(3)];
    for (int i = 0; i < requests.length; i++) {
      requests[i] = request(random);
    }
    boolean scopeInfo = random.nextBoolean();
    boolean targetInfo = random.nextBoolean();
    String namespace = random.nextBoolean() ? "" : "ns";
    TranslationStrategy strategy =
        random.nextBoolean()
            ? TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES
            : TranslationStrategy.UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES;
    Map<String, String> external =
        random.nextBoolean() ? Map.of("host", "ext", "dc", "1") : Map.of();

    TranslationSettings settings =
        new TranslationSettings(
            namespace, strategy, external, targetInfo, scopeInfo, ResourceAttributes.NONE);
    Otlp.Encoded encoded = new Otlp.Encoded(settings, 3_000_000, Otlp.batch(requests));
    NaiveRemoteWrite naive =
        new NaiveRemoteWrite(namespace, strategy, external, targetInfo, scopeInfo);
    Map<List<Label>, List<Sample>> expected = new HashMap<>();
    for (ExportMetricsServiceRequest request : requests) {
      WriteRequest plain = naive.translate(request.toByteArray());
      for (TimeSeries series : plain.getTimeseriesList()) {
        expected
            .computeIfAbsent(series.getLabelsList(), k -> new ArrayList<>())
            .addAll(series.getSamplesList());
      }
    }
    // Across requests the plain path made one series per request; merge and order them.
    expected.replaceAll(
        (labels, samples) -> {
          List<Sample> sorted = new ArrayList<>(samples);
          sorted.sort(java.util.Comparator.comparingLong(Sample::getTimestamp));
          return sorted;
        });
    Map<List<Label>, List<Sample>> actual = new HashMap<>();
    for (TimeSeries series : encoded.series()) {
      assertThat(actual.put(series.getLabelsList(), series.getSamplesList()))
          .as("one series per label set")
          .isNull();
    }
    if (targetInfo) {
      // The plain path samples target_info once per request, the encoder once per batch.
      expected.replaceAll(
          (labels, samples) ->
              isTargetInfo(labels) ? List.of(samples.get(samples.size() - 1)) : samples);
    }
    assertThat(actual).isEqualTo(expected);

    // Remote write 2.0 carries the same series and samples, its labels through symbol tables.
    Otlp.EncodedV2 v2 = new Otlp.EncodedV2(settings, 3_000_000, Otlp.batch(requests));
    Map<List<Label>, List<Sample>> fromV2 = new HashMap<>();
    for (TimeSeries series : v2.asV1()) {
      fromV2.put(series.getLabelsList(), series.getSamplesList());
    }
    assertThat(fromV2).isEqualTo(actual);
  }

  private static boolean isTargetInfo(List<Label> labels) {
    for (Label label : labels) {
      if (label.getName().equals("__name__")) {
        return label.getValue().endsWith("target_info");
      }
    }
    return false;
  }

  private static ExportMetricsServiceRequest request(Random random) {
    ExportMetricsServiceRequest.Builder request = ExportMetricsServiceRequest.newBuilder();
    for (int r = 0, n = 1 + random.nextInt(2); r < n; r++) {
      Resource.Builder resource = Resource.newBuilder();
      if (random.nextBoolean()) {
        resource.addAttributes(kv("service.name", random.nextBoolean() ? "api" : "web"));
      }
      if (random.nextInt(3) == 0) {
        resource.addAttributes(kv("service.namespace", "shop"));
      }
      if (random.nextInt(3) == 0) {
        resource.addAttributes(kv("service.instance.id", "i-" + random.nextInt(2)));
      }
      attributes(random, resource::addAttributes);
      ResourceMetrics.Builder rm = ResourceMetrics.newBuilder().setResource(resource);
      for (int s = 0, m = 1 + random.nextInt(2); s < m; s++) {
        InstrumentationScope.Builder scope = InstrumentationScope.newBuilder();
        if (random.nextBoolean()) {
          scope.setName("lib").setVersion(random.nextBoolean() ? "1" : "");
        }
        if (random.nextInt(4) == 0) {
          scope.addAttributes(kv("team", "core"));
        }
        ScopeMetrics.Builder sm = ScopeMetrics.newBuilder().setScope(scope);
        for (int k = 0, metrics = 1 + random.nextInt(4); k < metrics; k++) {
          sm.addMetrics(metric(random));
        }
        rm.addScopeMetrics(sm);
      }
      request.addResourceMetrics(rm);
    }
    return request.build();
  }

  private static Metric metric(Random random) {
    Metric.Builder metric =
        Metric.newBuilder()
            .setName(NAMES[random.nextInt(NAMES.length)])
            .setUnit(UNITS[random.nextInt(UNITS.length)]);
    int points = 1 + random.nextInt(4);
    AggregationTemporality temporality =
        random.nextInt(5) == 0
            ? AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA
            : AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE;
    switch (random.nextInt(4)) {
      case 0 -> {
        Gauge.Builder gauge = Gauge.newBuilder();
        for (int i = 0; i < points; i++) {
          gauge.addDataPoints(number(random));
        }
        metric.setGauge(gauge);
      }
      case 1 -> {
        Sum.Builder sum =
            Sum.newBuilder()
                .setIsMonotonic(random.nextBoolean())
                .setAggregationTemporality(temporality);
        for (int i = 0; i < points; i++) {
          sum.addDataPoints(number(random));
        }
        metric.setSum(sum);
      }
      case 2 -> {
        Histogram.Builder histogram = Histogram.newBuilder().setAggregationTemporality(temporality);
        for (int i = 0; i < points; i++) {
          HistogramDataPoint.Builder p =
              HistogramDataPoint.newBuilder()
                  .setTimeUnixNano(time(random))
                  .setCount(random.nextInt(100))
                  .setFlags(random.nextInt(8) == 0 ? 1 : 0);
          if (random.nextBoolean()) {
            p.setSum(random.nextInt(1000) / 4.0);
          }
          int bounds = random.nextInt(4);
          for (int b = 0; b < bounds; b++) {
            p.addExplicitBounds(b * 2.5 + 0.001 * random.nextInt(3));
            p.addBucketCounts(random.nextInt(10));
          }
          p.addBucketCounts(random.nextInt(10));
          attributes(random, p::addAttributes);
          histogram.addDataPoints(p);
        }
        metric.setHistogram(histogram);
      }
      default -> {
        Summary.Builder summary = Summary.newBuilder();
        for (int i = 0; i < points; i++) {
          SummaryDataPoint.Builder p =
              SummaryDataPoint.newBuilder()
                  .setTimeUnixNano(time(random))
                  .setCount(random.nextInt(50))
                  .setSum(random.nextInt(100) / 8.0);
          p.addQuantileValues(
              SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(0.5).setValue(1.25));
          if (random.nextBoolean()) {
            p.addQuantileValues(
                SummaryDataPoint.ValueAtQuantile.newBuilder().setQuantile(0.99).setValue(3));
          }
          attributes(random, p::addAttributes);
          summary.addDataPoints(p);
        }
        metric.setSummary(summary);
      }
    }
    return metric.build();
  }

  private static NumberDataPoint number(Random random) {
    NumberDataPoint.Builder p =
        NumberDataPoint.newBuilder()
            .setTimeUnixNano(time(random))
            .setFlags(random.nextInt(8) == 0 ? 1 : 0);
    if (random.nextBoolean()) {
      p.setAsInt(random.nextInt(1000) - 500);
    } else if (random.nextInt(5) > 0) {
      p.setAsDouble(random.nextInt(1000) / 3.0);
    }
    attributes(random, p::addAttributes);
    return p.build();
  }

  private static long time(Random random) {
    // Milliseconds apart, sometimes equal: samples of a series arrive in any order.
    return Otlp.T0 + random.nextInt(5) * 1_000_000L + random.nextInt(1000);
  }

  private static void attributes(Random random, java.util.function.Consumer<KeyValue> add) {
    for (int i = 0, n = random.nextInt(4); i < n; i++) {
      String key = KEYS[random.nextInt(KEYS.length)];
      AnyValue value =
          switch (random.nextInt(5)) {
            case 0 -> AnyValue.newBuilder().setIntValue(random.nextInt(3)).build();
            case 1 -> AnyValue.newBuilder().setBoolValue(random.nextBoolean()).build();
            default ->
                AnyValue.newBuilder().setStringValue(VALUES[random.nextInt(VALUES.length)]).build();
          };
      add.accept(KeyValue.newBuilder().setKey(key).setValue(value).build());
    }
  }

  private static KeyValue kv(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }
}
