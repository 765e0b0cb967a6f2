package dev.sluice.exporter.prometheusremotewrite;

import static dev.sluice.exporter.prometheusremotewrite.Otlp.T0;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.batch;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.kv;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.request;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.service;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.settings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.prometheus.TranslationStrategy;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import prometheus.Types;
import prometheus.Types.TimeSeries;

class TranslatorTest {
  private static final String SCOPE = "otel_scope_name=\"lib\",otel_scope_version=\"1.2\"";

  private static NumberDataPoint point(long nanos, double value, KeyValue... attributes) {
    return NumberDataPoint.newBuilder()
        .setTimeUnixNano(nanos)
        .setAsDouble(value)
        .addAllAttributes(List.of(attributes))
        .build();
  }

  private static Metric gauge(String name, String unit, NumberDataPoint... points) {
    return Metric.newBuilder()
        .setName(name)
        .setUnit(unit)
        .setGauge(Gauge.newBuilder().addAllDataPoints(List.of(points)))
        .build();
  }

  private static Metric sum(
      String name, String unit, boolean monotonic, boolean cumulative, NumberDataPoint... points) {
    return Metric.newBuilder()
        .setName(name)
        .setUnit(unit)
        .setSum(
            Sum.newBuilder()
                .setIsMonotonic(monotonic)
                .setAggregationTemporality(
                    cumulative
                        ? AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE
                        : AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                .addAllDataPoints(List.of(points)))
        .build();
  }

  @Test
  void gaugeSeriesCarryJobInstanceScopeAndAttributesSortedByName() throws Exception {
    Resource resource =
        service("checkout", kv("service.namespace", "shop"), kv("service.instance.id", "i-1"));
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings(),
            3_000_000,
            batch(
                request(
                    resource,
                    gauge(
                        "process.memory.usage",
                        "By",
                        point(T0 + 1_500_000, 42, kv("method", "GET"), kv("code", 200))))));

    assertThat(out.samples())
        .containsExactly(
            Map.entry(
                "process_memory_usage_bytes{code=\"200\",instance=\"i-1\",job=\"shop/checkout\","
                    + "method=\"GET\","
                    + SCOPE
                    + "}",
                List.of("42@" + (T0 / 1_000_000 + 1))));
    TimeSeries series = out.series().get(0);
    assertThat(series.getLabels(0).getName()).isEqualTo("__name__");
    assertThat(series.getLabelsList())
        .extracting(Types.Label::getName)
        .isSortedAccordingTo(String::compareTo);
    assertThat(out.dropped).isZero();
  }

  @Test
  void monotonicSumsAreCountersWithTheirExemplarsAndOthersAreGauges() throws Exception {
    NumberDataPoint withExemplar =
        point(T0, 7).toBuilder()
            .addExemplars(
                Exemplar.newBuilder()
                    .setTimeUnixNano(T0 - 2_000_000)
                    .setAsDouble(1)
                    .setTraceId(Otlp.id(0xab, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff))
                    .setSpanId(Otlp.id(0, 1, 2, 3, 4, 5, 6, 0xfe))
                    .addFilteredAttributes(kv("user", "u1")))
            .build();
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings(),
            3_000_000,
            batch(
                request(
                    service("api"),
                    sum("http.server.requests", "{request}", true, true, withExemplar),
                    sum("queue.size", "{item}", false, true, point(T0, 3)))));

    assertThat(out.samples().keySet())
        .containsExactlyInAnyOrder(
            "http_server_requests_total{job=\"api\"," + SCOPE + "}",
            "queue_size{job=\"api\"," + SCOPE + "}");
    TimeSeries counter = out.only("http_server_requests_total{job=\"api\"," + SCOPE + "}");
    assertThat(counter.getExemplarsList()).hasSize(1);
    Types.Exemplar exemplar = counter.getExemplars(0);
    assertThat(exemplar.getValue()).isEqualTo(1.0);
    assertThat(exemplar.getTimestamp()).isEqualTo(T0 / 1_000_000 - 2);
    assertThat(exemplar.getLabelsList())
        .extracting(l -> l.getName() + "=" + l.getValue())
        .containsExactly(
            "trace_id=ab0102030405060708090a0b0c0d0eff", "span_id=00010203040506fe", "user=u1");
  }

  @Test
  void deltaSumsAreLeftOutAndCountedWhileTheRestIsWritten() throws Exception {
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings(),
            3_000_000,
            batch(
                request(
                    service("api"),
                    sum("jobs.done", "", true, false, point(T0, 1), point(T0 + 1, 2)),
                    gauge("temperature", "Cel", point(T0, 21.5)))));

    assertThat(out.dropped).isEqualTo(2);
    assertThat(out.problem).contains("jobs.done").contains("delta");
    assertThat(out.samples().keySet())
        .containsExactly("temperature_celsius{job=\"api\"," + SCOPE + "}");
  }

  @Test
  void histogramsAreCumulativeBucketsWithSumCountAndExemplarsInTheirBucket() throws Exception {
    Metric histogram =
        Metric.newBuilder()
            .setName("http.server.duration")
            .setUnit("ms")
            .setHistogram(
                Histogram.newBuilder()
                    .setAggregationTemporality(
                        AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                    .addDataPoints(
                        HistogramDataPoint.newBuilder()
                            .setTimeUnixNano(T0)
                            .setCount(10)
                            .setSum(123.5)
                            .addAllExplicitBounds(List.of(5.0, 10.0, 0.25e-6))
                            .addAllBucketCounts(List.of(2L, 3L, 4L, 1L))
                            .addExemplars(Exemplar.newBuilder().setTimeUnixNano(T0).setAsDouble(7))
                            .addExemplars(
                                Exemplar.newBuilder().setTimeUnixNano(T0).setAsDouble(99))))
            .build();
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings(), 3_000_000, batch(request(Resource.getDefaultInstance(), histogram)));

    long ms = T0 / 1_000_000;
    String labels = SCOPE + "}";
    assertThat(out.samples())
        .containsOnly(
            Map.entry("http_server_duration_milliseconds_sum{" + labels, List.of("123.5@" + ms)),
            Map.entry("http_server_duration_milliseconds_count{" + labels, List.of("10@" + ms)),
            Map.entry(
                "http_server_duration_milliseconds_bucket{le=\"5\"," + labels, List.of("2@" + ms)),
            Map.entry(
                "http_server_duration_milliseconds_bucket{le=\"10\"," + labels, List.of("5@" + ms)),
            Map.entry(
                "http_server_duration_milliseconds_bucket{le=\"0.00000025\"," + labels,
                List.of("9@" + ms)),
            Map.entry(
                "http_server_duration_milliseconds_bucket{le=\"+Inf\"," + labels,
                List.of("10@" + ms)));
    assertThat(
            out.only("http_server_duration_milliseconds_bucket{le=\"10\"," + labels)
                .getExemplarsList())
        .extracting(Types.Exemplar::getValue)
        .containsExactly(7.0);
    assertThat(
            out.only("http_server_duration_milliseconds_bucket{le=\"+Inf\"," + labels)
                .getExemplarsList())
        .extracting(Types.Exemplar::getValue)
        .containsExactly(99.0);
  }

  @Test
  void summariesAreQuantileSeriesWithSumAndCount() throws Exception {
    Metric summary =
        Metric.newBuilder()
            .setName("rpc.latency")
            .setUnit("s")
            .setSummary(
                Summary.newBuilder()
                    .addDataPoints(
                        SummaryDataPoint.newBuilder()
                            .setTimeUnixNano(T0)
                            .setCount(4)
                            .setSum(2)
                            .addQuantileValues(
                                SummaryDataPoint.ValueAtQuantile.newBuilder()
                                    .setQuantile(0.5)
                                    .setValue(0.25))
                            .addQuantileValues(
                                SummaryDataPoint.ValueAtQuantile.newBuilder()
                                    .setQuantile(0.99)
                                    .setValue(1.5))))
            .build();
    Otlp.Encoded out =
        new Otlp.Encoded(settings(), 3_000_000, batch(request(service("a"), summary)));

    long ms = T0 / 1_000_000;
    String labels = "job=\"a\"," + SCOPE;
    // Labels go sorted by name: quantile after otel_scope_*.
    assertThat(out.samples())
        .containsOnly(
            Map.entry("rpc_latency_seconds_sum{" + labels + "}", List.of("2@" + ms)),
            Map.entry("rpc_latency_seconds_count{" + labels + "}", List.of("4@" + ms)),
            Map.entry(
                "rpc_latency_seconds{" + labels + ",quantile=\"0.5\"}", List.of("0.25@" + ms)),
            Map.entry(
                "rpc_latency_seconds{" + labels + ",quantile=\"0.99\"}", List.of("1.5@" + ms)));
  }

  @Test
  void pointsWithoutARecordedValueAreStaleMarkers() throws Exception {
    NumberDataPoint gone = point(T0, 5).toBuilder().setFlags(1).build();
    Otlp.Encoded out =
        new Otlp.Encoded(settings(), 3_000_000, batch(request(service("a"), gauge("g", "", gone))));

    assertThat(out.samples().values()).containsExactly(List.of("stale@" + T0 / 1_000_000));
  }

  @Test
  void onePointsSeriesFromSeveralRequestsIsOneSeriesInTimestampOrder() throws Exception {
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings(),
            3_000_000,
            batch(
                request(service("a"), gauge("g", "", point(T0 + 3_000_000, 3))),
                request(service("a"), gauge("g", "", point(T0 + 1_000_000, 1))),
                request(service("a"), gauge("g", "", point(T0 + 2_000_000, 2)))));

    long ms = T0 / 1_000_000;
    assertThat(out.series()).hasSize(1);
    assertThat(out.samples().values())
        .containsExactly(List.of("1@" + (ms + 1), "2@" + (ms + 2), "3@" + (ms + 3)));
  }

  @Test
  void attributesThatTranslateToOneLabelAreJoinedInKeyOrder() throws Exception {
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings(),
            3_000_000,
            batch(
                request(
                    Resource.getDefaultInstance(),
                    gauge(
                        "g",
                        "",
                        point(
                            T0, 1, kv("host_name", "b"), kv("host.name", "a"), kv("empty", ""))))));

    assertThat(out.samples().keySet()).containsExactly("g{host_name=\"a;b\"," + SCOPE + "}");
  }

  @Test
  void aPointWithAnAttributeKeyThatCannotBeALabelIsLeftOutAndCounted() throws Exception {
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings(),
            3_000_000,
            batch(
                request(
                    Resource.getDefaultInstance(),
                    gauge("g", "", point(T0, 1, kv("", "no key")), point(T0, 2, kv("ok", "x"))))));

    assertThat(out.dropped).isEqualTo(1);
    assertThat(out.problem).contains("cannot be a label name");
    assertThat(out.samples().keySet()).containsExactly("g{ok=\"x\"," + SCOPE + "}");
  }

  @Test
  void withSendMetadataEachMetricsTypeHelpAndUnitFollowItsSeries() throws Exception {
    TranslationSettings settings =
        new TranslationSettings(
            "",
            TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES,
            Map.of(),
            false,
            false,
            ResourceAttributes.NONE,
            true);
    Metric described =
        sum("http.server.requests", "{request}", true, true, point(T0, 3)).toBuilder()
            .setDescription("Requests served")
            .build();
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings,
            3_000_000,
            batch(
                request(
                    service("api"),
                    described,
                    gauge("heap.used", "By", point(T0, 1)),
                    gauge("heap.used", "By", point(T0 + 1_000_000, 2)))));

    assertThat(out.requests).hasSize(2);
    assertThat(out.requests.get(0).getMetadataList()).isEmpty();
    assertThat(out.requests.get(1).getTimeseriesList()).isEmpty();
    assertThat(out.requests.get(1).getMetadataList())
        .extracting(
            m ->
                m.getType() + " " + m.getMetricFamilyName() + " " + m.getHelp() + " " + m.getUnit())
        .containsExactly(
            "COUNTER http_server_requests_total Requests served ", "GAUGE heap_used_bytes  bytes");
  }

  @Test
  void externalLabelsFillInWhatThePointLacks() throws Exception {
    TranslationSettings settings =
        new TranslationSettings(
            "ns",
            TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES,
            Map.of("cluster", "east", "method", "ignored"),
            true,
            false,
            ResourceAttributes.NONE);
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings,
            3_000_000,
            batch(
                request(
                    Resource.getDefaultInstance(),
                    gauge("g", "", point(T0, 1, kv("method", "PUT"))))));

    assertThat(out.samples().keySet()).containsExactly("ns_g{cluster=\"east\",method=\"PUT\"}");
  }

  @Test
  void resourceAttributesBecomeLabelsWhenAskedAndWinOverThePoints() throws Exception {
    TranslationSettings settings =
        new TranslationSettings(
            "",
            TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES,
            Map.of(),
            false,
            false,
            new ResourceAttributes(ResourceAttributes.Mode.ALL_BUT_SERVICE, List.of(), List.of()));
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings,
            3_000_000,
            batch(
                request(
                    service("api", kv("region", "eu"), kv("host", "h1")),
                    gauge("g", "", point(T0, 1, kv("host", "from-point"), kv("pod", "p"))))));

    assertThat(out.samples().keySet())
        .containsExactly("g{host=\"h1\",job=\"api\",pod=\"p\",region=\"eu\"}");
  }

  @Test
  void eachResourceWithMoreThanServiceAttributesHasOneTargetInfoAtItsNewestPoint()
      throws Exception {
    Resource rich = service("api", kv("service.instance.id", "i-1"), kv("host.name", "h1"));
    Otlp.Encoded out =
        new Otlp.Encoded(
            settings(),
            3_000_000,
            batch(
                request(
                    rich, gauge("a", "", point(T0, 1)), gauge("b", "", point(T0 + 9_000_000, 1))),
                request(rich, gauge("a", "", point(T0 + 5_000_000, 2))),
                request(service("lean"), gauge("a", "", point(T0, 1)))));

    assertThat(out.samples())
        .containsEntry(
            "target_info{host_name=\"h1\",instance=\"i-1\",job=\"api\"}",
            List.of("1@" + (T0 / 1_000_000 + 9)));
    assertThat(out.samples().keySet().stream().filter(k -> k.startsWith("target_info"))).hasSize(1);
  }

  @Test
  void exponentialHistogramsAreNativeHistogramsScaledDownToEight() throws Exception {
    Metric metric =
        Metric.newBuilder()
            .setName("db.time")
            .setUnit("s")
            .setExponentialHistogram(
                ExponentialHistogram.newBuilder()
                    .setAggregationTemporality(
                        AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                    .addDataPoints(
                        ExponentialHistogramDataPoint.newBuilder()
                            .setTimeUnixNano(T0)
                            .setScale(9)
                            .setCount(12)
                            .setSum(3.5)
                            .setZeroCount(2)
                            .setPositive(
                                ExponentialHistogramDataPoint.Buckets.newBuilder()
                                    .setOffset(-1)
                                    .addAllBucketCounts(List.of(1L, 2L, 3L, 0L, 0L, 0L, 0L, 4L))))
                    .addDataPoints(
                        ExponentialHistogramDataPoint.newBuilder()
                            .setTimeUnixNano(T0)
                            .setScale(-5)
                            .setCount(1)))
            .build();
    Otlp.Encoded out =
        new Otlp.Encoded(settings(), 3_000_000, batch(request(service("a"), metric)));

    assertThat(out.dropped).isEqualTo(1);
    TimeSeries series = out.only("db_time_seconds{job=\"a\"," + SCOPE + "}");
    assertThat(series.getSamplesList()).isEmpty();
    Types.Histogram h = series.getHistograms(0);
    assertThat(h.getSchema()).isEqualTo(8);
    assertThat(h.getCountInt()).isEqualTo(12);
    assertThat(h.getSum()).isEqualTo(3.5);
    assertThat(h.getZeroCountInt()).isEqualTo(2);
    assertThat(h.getZeroThreshold()).isEqualTo(1e-128);
    assertThat(h.getTimestamp()).isEqualTo(T0 / 1_000_000);
    // Scale 9 to 8 merges bucket pairs: indexes -1..6 become (-1>>1)+1=0 .. (6>>1)+1=4:
    // [1] [2+3] [0+0] [0+0] [4] at 0..4 -> counts 1,5,0,0,4; a gap of two is filled with zeros.
    assertThat(h.getPositiveSpansList())
        .extracting(s -> s.getOffset() + ":" + s.getLength())
        .containsExactly("0:5");
    assertThat(h.getPositiveDeltasList()).containsExactly(1L, 4L, -5L, 0L, 4L);
  }

  @Test
  void largeBatchesAreSplitIntoRequestsOfAtMostTheLimit() throws Exception {
    Metric[] metrics = new Metric[50];
    for (int i = 0; i < metrics.length; i++) {
      metrics[i] = gauge("metric." + i, "", point(T0, i, kv("k", "v".repeat(20))));
    }
    Otlp.Encoded whole =
        new Otlp.Encoded(settings(), 3_000_000, batch(request(service("a"), metrics)));
    Otlp.Encoded split = new Otlp.Encoded(settings(), 1000, batch(request(service("a"), metrics)));

    assertThat(whole.requests).hasSize(1);
    assertThat(split.requests.size()).isGreaterThan(3);
    assertThat(split.requests)
        .allSatisfy(r -> assertThat(r.getSerializedSize()).isLessThanOrEqualTo(1000));
    assertThat(split.samples()).isEqualTo(whole.samples());
  }
}
