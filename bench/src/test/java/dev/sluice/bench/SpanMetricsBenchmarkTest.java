package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.component.Admission;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Both contenders of the spanmetrics benchmark make the same series of the same spans. */
class SpanMetricsBenchmarkTest {
  @ParameterizedTest
  @ValueSource(strings = {"http", "default"})
  void sluiceAndProtobufJavaCountTheSameSeries(String dimensions) throws Exception {
    SpanMetricsBenchmark benchmark = new SpanMetricsBenchmark();
    benchmark.spans = 500;
    benchmark.dimensions = dimensions;
    benchmark.setup();
    assertThat(benchmark.sluice()).isEqualTo(Admission.ACCEPTED);
    assertThat(benchmark.protobufJava()).isEqualTo(500);

    List<ExportMetricsServiceRequest> flushed = new ArrayList<>();
    Connector connector =
        SpanMetricsBenchmark.connector(recording(flushed), benchmark.dimensionNames());
    assertThat(connector.consume(Batch.of(benchmark.index))).isEqualTo(Admission.ACCEPTED);
    connector.shutdown(System.nanoTime()); // flushes

    Map<String, long[]> sluice = new TreeMap<>();
    Metric duration =
        flushed.get(0).getResourceMetrics(0).getScopeMetrics(0).getMetricsList().stream()
            .filter(m -> m.getName().equals("traces.span.metrics.duration"))
            .findFirst()
            .orElseThrow();
    for (HistogramDataPoint point : duration.getHistogram().getDataPointsList()) {
      long[] counts = point.getBucketCountsList().stream().mapToLong(Long::longValue).toArray();
      sluice.put(key(point.getAttributesList()), counts);
    }
    Map<String, long[]> naive = new TreeMap<>();
    for (Map<String, SpanMetricsBenchmark.NaiveSpanMetrics.Series> resource :
        benchmark.naive.resources.values()) {
      for (SpanMetricsBenchmark.NaiveSpanMetrics.Series series : resource.values()) {
        Map<String, String> attributes = new TreeMap<>();
        series.attributes.forEach((k, v) -> attributes.put(k, v.toString()));
        naive.put(attributes.toString(), series.buckets);
      }
    }

    assertThat(sluice.keySet()).isEqualTo(naive.keySet());
    assertThat(sluice.size()).isGreaterThan(10);
    for (String key : naive.keySet()) {
      assertThat(sluice.get(key)).as(key).isEqualTo(naive.get(key));
    }
    assertThat(sluice.values().stream().flatMapToLong(Arrays::stream).sum()).isEqualTo(500);
  }

  /** The attributes but collector.instance.id, sorted, values as text. */
  private static String key(List<KeyValue> attributes) {
    Map<String, String> map = new TreeMap<>();
    for (KeyValue kv : attributes) {
      if (kv.getKey().equals("collector.instance.id")) {
        continue;
      }
      AnyValue v = kv.getValue();
      map.put(kv.getKey(), v.hasIntValue() ? Long.toString(v.getIntValue()) : v.getStringValue());
    }
    return map.toString();
  }

  private static ConnectorOutput recording(List<ExportMetricsServiceRequest> into) {
    return new ConnectorOutput() {
      @Override
      public Signal signal() {
        return Signal.METRICS;
      }

      @Override
      public List<String> pipelines() {
        return List.of("metrics");
      }

      @Override
      public Admission consume(Batch batch) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Admission consume(OtlpIndex request) {
        request.readSource(
            (bytes, offset, length) -> {
              try {
                into.add(
                    ExportMetricsServiceRequest.parseFrom(
                        Arrays.copyOfRange(bytes, offset, offset + length)));
              } catch (InvalidProtocolBufferException e) {
                throw new AssertionError(e);
              }
              return length;
            });
        return Admission.ACCEPTED;
      }

      @Override
      public ConnectorOutput to(Collection<String> pipelines) {
        return this;
      }
    };
  }
}
