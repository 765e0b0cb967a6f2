package dev.sluice.exporter.prometheusremotewrite;

import static dev.sluice.exporter.prometheusremotewrite.Otlp.T0;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.batch;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.kv;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.request;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.service;
import static dev.sluice.exporter.prometheusremotewrite.Otlp.settings;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.prometheus.write.v2.Types;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Remote write 2.0: symbol tables, metadata, start timestamps, requests that stand alone. */
class RemoteWriteV2Test {
  private static final String SCOPE = "otel_scope_name=\"lib\",otel_scope_version=\"1.2\"";
  private static final long MS = T0 / 1_000_000;

  private static Metric counter() {
    return Metric.newBuilder()
        .setName("http.server.requests")
        .setUnit("{request}")
        .setDescription("Requests served")
        .setSum(
            Sum.newBuilder()
                .setIsMonotonic(true)
                .setAggregationTemporality(
                    AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                .addDataPoints(
                    NumberDataPoint.newBuilder()
                        .setStartTimeUnixNano(T0 - 60_000_000_000L)
                        .setTimeUnixNano(T0)
                        .setAsInt(7)))
        .build();
  }

  private static Metric gauge(String name) {
    return Metric.newBuilder()
        .setName(name)
        .setUnit("By")
        .setDescription("Bytes in use")
        .setGauge(
            Gauge.newBuilder()
                .addDataPoints(
                    NumberDataPoint.newBuilder()
                        .setStartTimeUnixNano(T0 - 1_000_000_000L)
                        .setTimeUnixNano(T0)
                        .setAsDouble(2.5)
                        .addExemplars(
                            Exemplar.newBuilder()
                                .setTimeUnixNano(T0)
                                .setAsDouble(2.5)
                                .setSpanId(Otlp.id(1, 2, 3, 4, 5, 6, 7, 8)))))
        .build();
  }

  @Test
  void seriesCarryTheirMetadataAndCountersTheirStart() throws Exception {
    Otlp.EncodedV2 out =
        new Otlp.EncodedV2(
            settings(), 3_000_000, batch(request(service("api"), counter(), gauge("heap"))));

    assertThat(out.requests).hasSize(1);
    Types.Request request = out.requests.get(0);
    assertThat(request.getSymbols(0)).isEmpty();
    Types.TimeSeries counter = out.only("http_server_requests_total{job=\"api\"," + SCOPE + "}");
    assertThat(counter.getMetadata().getType())
        .isEqualTo(Types.Metadata.MetricType.METRIC_TYPE_COUNTER);
    assertThat(request.getSymbols(counter.getMetadata().getHelpRef())).isEqualTo("Requests served");
    assertThat(request.getSymbols(counter.getMetadata().getUnitRef())).isEmpty();
    assertThat(counter.getSamplesList())
        .extracting(s -> s.getValue() + "@" + s.getTimestamp() + " from " + s.getStartTimestamp())
        .containsExactly("7.0@" + MS + " from " + (MS - 60_000));

    Types.TimeSeries gauge = out.only("heap_bytes{job=\"api\"," + SCOPE + "}");
    assertThat(gauge.getMetadata().getType())
        .isEqualTo(Types.Metadata.MetricType.METRIC_TYPE_GAUGE);
    assertThat(request.getSymbols(gauge.getMetadata().getUnitRef())).isEqualTo("bytes");
    assertThat(gauge.getSamples(0).getStartTimestamp()).isZero();
    // 2.0 carries a gauge's exemplars, as the Collector sends them there.
    assertThat(gauge.getExemplarsList()).hasSize(1);
    assertThat(gauge.getExemplars(0).getLabelsRefsList())
        .extracting(request::getSymbols)
        .containsExactly("span_id", "0102030405060708");
  }

  @Test
  void everyRequestOfASplitBatchHasTheSymbolsItsSeriesNeed() throws Exception {
    Metric[] metrics = new Metric[60];
    for (int i = 0; i < metrics.length; i++) {
      metrics[i] = gauge("metric." + i);
    }
    Batch whole = batch(request(service("api", kv("host.name", "h1")), metrics));
    Otlp.EncodedV2 split =
        new Otlp.EncodedV2(
            settings(), 1500, batch(request(service("api", kv("host.name", "h1")), metrics)));
    Otlp.Encoded v1 = new Otlp.Encoded(settings(), 3_000_000, whole);

    assertThat(split.requests.size()).isGreaterThan(3);
    for (Types.Request request : split.requests) {
      assertThat(request.getSerializedSize()).isLessThanOrEqualTo(1500);
      assertThat(request.getSymbols(0)).isEmpty();
      Set<String> distinct = new HashSet<>(request.getSymbolsList());
      assertThat(distinct).as("each symbol once").hasSize(request.getSymbolsCount());
      for (Types.TimeSeries series : request.getTimeseriesList()) {
        assertThat(series.getLabelsRefsList())
            .allSatisfy(ref -> assertThat(ref).isLessThan(request.getSymbolsCount()));
      }
    }
    assertThat(split.asV1()).containsExactlyInAnyOrderElementsOf(v1.series());
  }

  @Test
  void targetInfoIsAGaugeWithTheCollectorsHelp() throws Exception {
    Otlp.EncodedV2 out =
        new Otlp.EncodedV2(
            settings(),
            3_000_000,
            batch(request(service("api", kv("host.name", "h1")), gauge("heap"))));

    Types.TimeSeries target = out.only("target_info{host_name=\"h1\",job=\"api\"}");
    assertThat(target.getMetadata().getType())
        .isEqualTo(Types.Metadata.MetricType.METRIC_TYPE_GAUGE);
    assertThat(out.symbol(target, target.getMetadata().getHelpRef())).isEqualTo("Target metadata");
  }

  @Test
  void nativeHistogramsCarryTheirStart() throws Exception {
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
                            .setStartTimeUnixNano(T0 - 5_000_000_000L)
                            .setTimeUnixNano(T0)
                            .setScale(2)
                            .setCount(3)
                            .setPositive(
                                ExponentialHistogramDataPoint.Buckets.newBuilder()
                                    .setOffset(1)
                                    .addAllBucketCounts(List.of(1L, 2L)))))
            .build();
    Otlp.EncodedV2 out =
        new Otlp.EncodedV2(settings(), 3_000_000, batch(request(service("a"), metric)));

    Types.TimeSeries series = out.only("db_time_seconds{job=\"a\"," + SCOPE + "}");
    assertThat(series.getHistograms(0).getStartTimestamp()).isEqualTo(MS - 5_000);
    assertThat(series.getHistograms(0).getCountInt()).isEqualTo(3);
    assertThat(series.getHistograms(0).getPositiveDeltasList()).containsExactly(1L, 1L);
    assertThat(series.getMetadata().getType())
        .isEqualTo(Types.Metadata.MetricType.METRIC_TYPE_HISTOGRAM);
    assertThat(out.symbol(series, series.getMetadata().getUnitRef())).isEqualTo("seconds");
  }
}
