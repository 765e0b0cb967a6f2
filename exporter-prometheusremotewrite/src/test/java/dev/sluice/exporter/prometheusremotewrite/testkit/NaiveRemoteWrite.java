package dev.sluice.exporter.prometheusremotewrite.testkit;

import dev.sluice.pdata.view.MetricType;
import dev.sluice.prometheus.LabelNames;
import dev.sluice.prometheus.MetricNames;
import dev.sluice.prometheus.TranslationStrategy;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import prometheus.Remote.WriteRequest;
import prometheus.Types.Label;
import prometheus.Types.Sample;
import prometheus.Types.TimeSeries;

/**
 * Remote write the plain way, as the Collector does it: decode the request with protobuf-java,
 * build each series' labels in a map, group samples by label set, build the {@code WriteRequest}
 * with protobuf-java and serialize it. The benchmarks' naive path, and the reference the encoder's
 * property test compares with. Gauges, sums (exemplars left out), histograms and summaries;
 * exponential histograms are left out (the property test does not make them).
 */
public final class NaiveRemoteWrite {
  private static final long STALE_NAN = 0x7ff0000000000002L;

  private final String namespace;
  private final MetricNames metricNames;
  private final LabelNames labelNames;
  private final Map<String, String> externalLabels;
  private final boolean scopeInfo;
  private final boolean targetInfo;

  public NaiveRemoteWrite(
      String namespace,
      TranslationStrategy strategy,
      Map<String, String> externalLabels,
      boolean targetInfo,
      boolean scopeInfo) {
    this.namespace = namespace;
    this.metricNames = new MetricNames(namespace, strategy);
    this.labelNames = new LabelNames(strategy);
    this.externalLabels = new TreeMap<>();
    externalLabels.forEach((k, v) -> this.externalLabels.put(labelNames.label(k), v));
    this.targetInfo = targetInfo;
    this.scopeInfo = scopeInfo;
  }

  /** The request's series, each with its samples in timestamp order, in one WriteRequest. */
  public WriteRequest translate(byte[] otlpRequest) throws Exception {
    ExportMetricsServiceRequest request = ExportMetricsServiceRequest.parseFrom(otlpRequest);
    Map<List<Label>, TimeSeries.Builder> series = new LinkedHashMap<>();
    Map<List<Label>, Long> targets = new LinkedHashMap<>();
    for (ResourceMetrics rm : request.getResourceMetricsList()) {
      Resource resource = rm.getResource();
      long newest = 0;
      for (ScopeMetrics sm : rm.getScopeMetricsList()) {
        for (Metric metric : sm.getMetricsList()) {
          newest = Math.max(newest, newest(metric));
          add(series, resource, sm.getScope(), metric);
        }
      }
      if (targetInfo && newest != 0) {
        List<Label> labels = targetLabels(resource);
        if (labels != null) {
          targets.merge(labels, newest, Math::max);
        }
      }
    }
    targets.forEach((labels, newest) -> sample(series, labels, newest / 1_000_000, 1));
    WriteRequest.Builder out = WriteRequest.newBuilder();
    for (TimeSeries.Builder builder : series.values()) {
      List<Sample> samples = new ArrayList<>(builder.getSamplesList());
      samples.sort(Comparator.comparingLong(Sample::getTimestamp));
      out.addTimeseries(builder.clearSamples().addAllSamples(samples));
    }
    return out.build();
  }

  private void add(
      Map<List<Label>, TimeSeries.Builder> series,
      Resource resource,
      InstrumentationScope scope,
      Metric metric) {
    String name;
    switch (metric.getDataCase()) {
      case GAUGE -> {
        name = metricNames.name(metric.getName(), metric.getUnit(), MetricType.GAUGE, false);
        for (NumberDataPoint p : metric.getGauge().getDataPointsList()) {
          number(series, resource, scope, name, p);
        }
      }
      case SUM -> {
        if (metric.getSum().getAggregationTemporality()
            != AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE) {
          return;
        }
        boolean monotonic = metric.getSum().getIsMonotonic();
        name = metricNames.name(metric.getName(), metric.getUnit(), MetricType.SUM, monotonic);
        for (NumberDataPoint p : metric.getSum().getDataPointsList()) {
          number(series, resource, scope, name, p);
        }
      }
      case HISTOGRAM -> {
        if (metric.getHistogram().getAggregationTemporality()
            != AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE) {
          return;
        }
        name = metricNames.name(metric.getName(), metric.getUnit(), MetricType.HISTOGRAM, false);
        for (HistogramDataPoint p : metric.getHistogram().getDataPointsList()) {
          Map<String, String> base = labels(resource, scope, p.getAttributesList());
          long ms = p.getTimeUnixNano() / 1_000_000;
          boolean stale = (p.getFlags() & 1) != 0;
          if (p.hasSum()) {
            sample(series, with(base, name + "_sum", null, null), ms, value(stale, p.getSum()));
          }
          sample(series, with(base, name + "_count", null, null), ms, value(stale, p.getCount()));
          long cumulative = 0;
          int n = Math.min(p.getExplicitBoundsCount(), p.getBucketCountsCount());
          for (int i = 0; i < n; i++) {
            cumulative += p.getBucketCounts(i);
            sample(
                series,
                with(base, name + "_bucket", "le", text(p.getExplicitBounds(i))),
                ms,
                value(stale, cumulative));
          }
          sample(
              series, with(base, name + "_bucket", "le", "+Inf"), ms, value(stale, p.getCount()));
        }
      }
      case SUMMARY -> {
        name = metricNames.name(metric.getName(), metric.getUnit(), MetricType.SUMMARY, false);
        for (SummaryDataPoint p : metric.getSummary().getDataPointsList()) {
          Map<String, String> base = labels(resource, scope, p.getAttributesList());
          long ms = p.getTimeUnixNano() / 1_000_000;
          boolean stale = (p.getFlags() & 1) != 0;
          sample(series, with(base, name + "_sum", null, null), ms, value(stale, p.getSum()));
          sample(series, with(base, name + "_count", null, null), ms, value(stale, p.getCount()));
          for (SummaryDataPoint.ValueAtQuantile q : p.getQuantileValuesList()) {
            sample(
                series,
                with(base, name, "quantile", text(q.getQuantile())),
                ms,
                value(stale, q.getValue()));
          }
        }
      }
      default -> {}
    }
  }

  private void number(
      Map<List<Label>, TimeSeries.Builder> series,
      Resource resource,
      InstrumentationScope scope,
      String name,
      NumberDataPoint p) {
    double v =
        switch (p.getValueCase()) {
          case AS_INT -> p.getAsInt();
          case AS_DOUBLE -> p.getAsDouble();
          default -> 0;
        };
    boolean stale = (p.getFlags() & 1) != 0;
    sample(
        series,
        with(labels(resource, scope, p.getAttributesList()), name, null, null),
        p.getTimeUnixNano() / 1_000_000,
        value(stale, v));
  }

  private static double value(boolean stale, double value) {
    return stale ? Double.longBitsToDouble(STALE_NAN) : value;
  }

  private static void sample(
      Map<List<Label>, TimeSeries.Builder> series, List<Label> labels, long ms, double value) {
    series
        .computeIfAbsent(labels, k -> TimeSeries.newBuilder().addAllLabels(k))
        .addSamples(Sample.newBuilder().setValue(value).setTimestamp(ms));
  }

  /** The Collector's createAttributes: attributes, job/instance, external labels, scope. */
  private Map<String, String> labels(
      Resource resource, InstrumentationScope scope, List<KeyValue> attributes) {
    List<KeyValue> sorted = new ArrayList<>(attributes);
    sorted.sort(Comparator.comparing(KeyValue::getKey, NaiveRemoteWrite::compareUtf8));
    Map<String, String> l = new LinkedHashMap<>();
    for (KeyValue kv : sorted) {
      String value = asString(kv.getValue());
      if (value.isEmpty()) {
        continue;
      }
      String name = labelNames.label(kv.getKey());
      String existing = l.get(name);
      if (existing == null) {
        l.put(name, value);
      } else if (!existing.equals(value)) {
        l.put(name, existing + ";" + value);
      }
    }
    service(resource, l);
    externalLabels.forEach(l::putIfAbsent);
    if (scopeInfo) {
      if (!scope.getName().isEmpty()) {
        l.put(labelNames.label("otel_scope_name"), scope.getName());
      }
      if (!scope.getVersion().isEmpty()) {
        l.put(labelNames.label("otel_scope_version"), scope.getVersion());
      }
      for (KeyValue kv : scope.getAttributesList()) {
        if (kv.getKey().equals("name")
            || kv.getKey().equals("version")
            || kv.getKey().equals("schema_url")) {
          continue;
        }
        l.put(labelNames.label("otel_scope_" + kv.getKey()), asString(kv.getValue()));
      }
    }
    return l;
  }

  private static void service(Resource resource, Map<String, String> l) {
    String name = first(resource, "service.name");
    if (name != null && !name.isEmpty()) {
      String namespace = first(resource, "service.namespace");
      l.put("job", namespace != null ? namespace + "/" + name : name);
    }
    String instance = first(resource, "service.instance.id");
    if (instance != null && !instance.isEmpty()) {
      l.put("instance", instance);
    }
  }

  private List<Label> targetLabels(Resource resource) {
    Map<String, String> l = new LinkedHashMap<>();
    List<KeyValue> sorted = new ArrayList<>();
    boolean others = false;
    for (KeyValue kv : resource.getAttributesList()) {
      String key = kv.getKey();
      if (key.equals("service.name")
          || key.equals("service.namespace")
          || key.equals("service.instance.id")) {
        continue;
      }
      others = true;
      sorted.add(kv);
    }
    if (!others) {
      return null;
    }
    sorted.sort(Comparator.comparing(KeyValue::getKey, NaiveRemoteWrite::compareUtf8));
    for (KeyValue kv : sorted) {
      String value = asString(kv.getValue());
      if (value.isEmpty()) {
        continue;
      }
      String name = labelNames.label(kv.getKey());
      String existing = l.get(name);
      l.put(name, existing == null || existing.equals(value) ? value : existing + ";" + value);
    }
    service(resource, l);
    externalLabels.forEach(l::putIfAbsent);
    if (!l.containsKey("job") && !l.containsKey("instance")) {
      return null;
    }
    String name = namespace.isEmpty() ? "target_info" : namespace + "_target_info";
    return with(l, name, null, null);
  }

  private static String first(Resource resource, String key) {
    for (KeyValue kv : resource.getAttributesList()) {
      if (kv.getKey().equals(key)) {
        return asString(kv.getValue());
      }
    }
    return null;
  }

  /** The labels plus {@code __name__} and one more, sorted by name bytewise. */
  private static List<Label> with(
      Map<String, String> base, String name, String extraName, String extraValue) {
    Map<String, String> all = new TreeMap<>(NaiveRemoteWrite::compareUtf8);
    all.putAll(base);
    all.put("__name__", name);
    if (extraName != null) {
      all.put(extraName, extraValue);
    }
    List<Label> labels = new ArrayList<>();
    all.forEach((k, v) -> labels.add(Label.newBuilder().setName(k).setValue(v).build()));
    return labels;
  }

  private static long newest(Metric metric) {
    long newest = 0;
    switch (metric.getDataCase()) {
      case GAUGE -> {
        for (NumberDataPoint p : metric.getGauge().getDataPointsList()) {
          newest = Math.max(newest, p.getTimeUnixNano());
        }
      }
      case SUM -> {
        for (NumberDataPoint p : metric.getSum().getDataPointsList()) {
          newest = Math.max(newest, p.getTimeUnixNano());
        }
      }
      case HISTOGRAM -> {
        for (HistogramDataPoint p : metric.getHistogram().getDataPointsList()) {
          newest = Math.max(newest, p.getTimeUnixNano());
        }
      }
      case SUMMARY -> {
        for (SummaryDataPoint p : metric.getSummary().getDataPointsList()) {
          newest = Math.max(newest, p.getTimeUnixNano());
        }
      }
      default -> {}
    }
    return newest;
  }

  /** Go's AsString for the scalar types the property test makes. */
  private static String asString(AnyValue value) {
    return switch (value.getValueCase()) {
      case STRING_VALUE -> value.getStringValue();
      case INT_VALUE -> Long.toString(value.getIntValue());
      case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
      default -> throw new IllegalArgumentException("not made by the tests: " + value);
    };
  }

  private static String text(double value) {
    if (Double.isInfinite(value)) {
      return value > 0 ? "+Inf" : "-Inf";
    }
    if (Double.isNaN(value)) {
      return "NaN";
    }
    if (value == 0) {
      return 1 / value < 0 ? "-0" : "0";
    }
    return new BigDecimal(Double.toString(value)).stripTrailingZeros().toPlainString();
  }

  private static int compareUtf8(String a, String b) {
    return java.util.Arrays.compareUnsigned(
        a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
