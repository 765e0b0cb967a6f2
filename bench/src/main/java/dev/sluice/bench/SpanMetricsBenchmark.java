package dev.sluice.bench;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.connector.spanmetrics.SpanMetricsConfig;
import dev.sluice.connector.spanmetrics.SpanMetricsConnectorFactory;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the {@code spanmetrics} connector costs per request of {@link SpanShapes} HTTP server spans:
 * count each span into its {@code calls} series and its {@code duration} histogram (default
 * buckets, milliseconds) by the default dimensions and three span attributes ({@code
 * http.request.method}, {@code http.response.status_code}, {@code http.route}). Run with {@code
 * -prof gc}.
 *
 * <ul>
 *   <li>{@code sluice}: the connector itself over a {@link Batch} of the indexed request: spans
 *       read through the views, series found by hashing their key bytes.
 *   <li>{@code protobufJava}: decode the request into protobuf-java objects, then aggregate as the
 *       Collector's connector does: a {@code String} key per span from the dimension values, series
 *       in {@code HashMap}s keyed by it, the attributes of a new series kept in a map.
 * </ul>
 *
 * Neither flushes: the series exist after the first operation, as in a running collector.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SpanMetricsBenchmark {
  static final List<String> DIMENSIONS =
      List.of("http.request.method", "http.response.status_code", "http.route");

  static final double[] BOUNDS_MS = {
    2, 4, 6, 8, 10, 50, 100, 200, 400, 800, 1000, 1400, 2000, 5000, 10_000, 15_000
  };

  @Param({"1000"})
  public int spans;

  /**
   * {@code http}: the default dimensions and the three above; {@code default}: the default
   * dimensions only, as the scenario {@code traces-spanmetrics} has them.
   */
  @Param({"http", "default"})
  public String dimensions;

  byte[] request;
  OtlpIndex index;
  Connector connector;
  NaiveSpanMetrics naive;

  @Setup
  public void setup() throws MalformedOtlpException {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    index = new OtlpIndexer().index(Signal.TRACES, request);
    connector = connector(ACCEPTING, dimensionNames());
    naive = new NaiveSpanMetrics(dimensionNames());
  }

  /** The dimensions {@link #dimensions} names, beside the default ones. */
  List<String> dimensionNames() {
    return "http".equals(dimensions) ? DIMENSIONS : List.of();
  }

  static SpanMetricsConfig config(List<String> names) {
    SpanMetricsConfig d = SpanMetricsConfig.DEFAULT;
    List<SpanMetricsConfig.Dimension> dimensions = new ArrayList<>();
    for (String name : names) {
      dimensions.add(new SpanMetricsConfig.Dimension(name, null));
    }
    return new SpanMetricsConfig(
        dimensions,
        d.callsDimensions(),
        d.excludeDimensions(),
        d.dimensionsCacheSize(),
        d.resourceMetricsCacheSize(),
        d.resourceMetricsKeyAttributes(),
        d.aggregationTemporality(),
        d.histogram(),
        d.metricsFlushInterval(),
        d.metricsExpiration(),
        d.seriesExpiration(),
        d.metricTimestampCacheSize(),
        d.namespace(),
        d.exemplars(),
        d.events(),
        d.includeInstrumentationScope(),
        d.aggregationCardinalityLimit(),
        d.addResourceAttributes(),
        d.enableMetricsSamplingMethod());
  }

  static Connector connector() {
    return connector(ACCEPTING);
  }

  /** The connector with the {@link #DIMENSIONS}, handing what it flushes to {@code output}. */
  static Connector connector(ConnectorOutput output) {
    return connector(output, DIMENSIONS);
  }

  /** The connector with the dimensions {@code names}, handing what it flushes to {@code output}. */
  static Connector connector(ConnectorOutput output, List<String> names) {
    return new SpanMetricsConnectorFactory()
        .create(
            new ComponentSettings(
                ComponentId.parse("spanmetrics"),
                ComponentKind.CONNECTOR,
                new MetricRegistry(),
                NEVER),
            config(names),
            Signal.TRACES,
            Signal.METRICS,
            output);
  }

  @Benchmark
  public Admission sluice() {
    Batch batch = Batch.of(index);
    return connector.consume(batch); // clears the batch it takes
  }

  @Benchmark
  public int protobufJava() throws InvalidProtocolBufferException {
    return naive.consume(ExportTraceServiceRequest.parseFrom(request));
  }

  /**
   * The Collector's way over protobuf-java objects: per resource (keyed by its attributes), a map
   * of series keyed by the concatenated dimension values of each span.
   */
  static final class NaiveSpanMetrics {
    static final class Series {
      final Map<String, Object> attributes;
      long calls;
      long count;
      double sum;
      final long[] buckets = new long[BOUNDS_MS.length + 1];

      Series(Map<String, Object> attributes) {
        this.attributes = attributes;
      }
    }

    final Map<String, Map<String, Series>> resources = new HashMap<>();
    final List<String> dimensions;

    NaiveSpanMetrics() {
      this(DIMENSIONS);
    }

    NaiveSpanMetrics(List<String> dimensions) {
      this.dimensions = dimensions;
    }

    int consume(ExportTraceServiceRequest request) {
      int counted = 0;
      for (ResourceSpans resourceSpans : request.getResourceSpansList()) {
        Map<String, AnyValue> resource = new LinkedHashMap<>();
        for (KeyValue kv : resourceSpans.getResource().getAttributesList()) {
          resource.putIfAbsent(kv.getKey(), kv.getValue());
        }
        AnyValue service = resource.get("service.name");
        if (service == null) {
          continue;
        }
        String serviceName = service.getStringValue();
        Map<String, Series> series =
            resources.computeIfAbsent(resourceKey(resource), k -> new HashMap<>());
        for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            Map<String, AnyValue> attributes = new HashMap<>();
            for (KeyValue kv : span.getAttributesList()) {
              attributes.putIfAbsent(kv.getKey(), kv.getValue());
            }
            StringBuilder key =
                new StringBuilder(serviceName)
                    .append('\0')
                    .append(span.getName())
                    .append('\0')
                    .append(span.getKind().name())
                    .append('\0')
                    .append(span.getStatus().getCode().name());
            for (String name : dimensions) {
              AnyValue value = attributes.getOrDefault(name, resource.get(name));
              if (value != null) {
                key.append('\0').append(name).append(':').append(text(value));
              }
            }
            Series s =
                series.computeIfAbsent(
                    key.toString(), k -> new Series(attributes(serviceName, span, attributes)));
            long start = span.getStartTimeUnixNano();
            long end = span.getEndTimeUnixNano();
            double millis = end > start ? (end - start) / 1e6 : 0;
            s.calls++;
            s.count++;
            s.sum += millis;
            int bucket = Arrays.binarySearch(BOUNDS_MS, millis);
            s.buckets[bucket >= 0 ? bucket : -bucket - 1]++;
            counted++;
          }
        }
      }
      return counted;
    }

    private Map<String, Object> attributes(
        String serviceName, Span span, Map<String, AnyValue> attributes) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("service.name", serviceName);
      out.put("span.name", span.getName());
      out.put("span.kind", span.getKind().name());
      out.put("status.code", span.getStatus().getCode().name());
      for (String name : dimensions) {
        AnyValue value = attributes.get(name);
        if (value != null) {
          out.put(name, text(value));
        }
      }
      return out;
    }

    private static String resourceKey(Map<String, AnyValue> resource) {
      List<String> keys = new ArrayList<>(resource.keySet());
      keys.sort(null);
      StringBuilder sb = new StringBuilder();
      for (String k : keys) {
        sb.append(k).append('=').append(text(resource.get(k))).append('\0');
      }
      return sb.toString();
    }

    private static String text(AnyValue value) {
      return switch (value.getValueCase()) {
        case STRING_VALUE -> value.getStringValue();
        case INT_VALUE -> Long.toString(value.getIntValue());
        case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
        case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
        default -> value.toString();
      };
    }
  }

  /** A scheduler whose timers never fire: the benchmark does not flush. */
  static final Scheduler NEVER =
      new Scheduler() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public Timer schedule(Runnable task, long delayNanos) {
          return () -> {};
        }
      };

  /** Takes whatever it is handed. */
  static final ConnectorOutput ACCEPTING =
      new ConnectorOutput() {
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
          batch.clear();
          return Admission.ACCEPTED;
        }

        @Override
        public Admission consume(OtlpIndex request) {
          return Admission.ACCEPTED;
        }

        @Override
        public ConnectorOutput to(Collection<String> pipelines) {
          return this;
        }
      };
}
