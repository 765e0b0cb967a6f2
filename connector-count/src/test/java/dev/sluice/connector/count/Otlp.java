package dev.sluice.connector.count;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.testkit.ManualScheduler;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Test data made with protobuf-java, a count connector made through its factory on a manual clock,
 * and the counts it handed on read back.
 */
final class Otlp {
  private Otlp() {}

  static KeyValue kv(String key, String value) {
    return KeyValue.newBuilder().setKey(key).setValue(string(value)).build();
  }

  static KeyValue kv(String key, long value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setIntValue(value))
        .build();
  }

  static KeyValue kv(String key, AnyValue value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  static AnyValue string(String value) {
    return AnyValue.newBuilder().setStringValue(value).build();
  }

  static Resource resource(KeyValue... attributes) {
    return Resource.newBuilder().addAllAttributes(List.of(attributes)).build();
  }

  static InstrumentationScope scope(String name, KeyValue... attributes) {
    return InstrumentationScope.newBuilder()
        .setName(name)
        .addAllAttributes(List.of(attributes))
        .build();
  }

  static Span span(String name, KeyValue... attributes) {
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(bytes16(name)))
        .setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
        .setName(name)
        .setStartTimeUnixNano(1_000)
        .setEndTimeUnixNano(2_000)
        .addAllAttributes(List.of(attributes))
        .build();
  }

  private static byte[] bytes16(String seed) {
    byte[] id = new byte[16];
    byte[] text = seed.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(text, 0, id, 0, Math.min(16, text.length));
    id[15] = 1;
    return id;
  }

  static Span.Event event(String name, KeyValue... attributes) {
    return Span.Event.newBuilder()
        .setName(name)
        .setTimeUnixNano(1_500)
        .addAllAttributes(List.of(attributes))
        .build();
  }

  static LogRecord log(int severity, KeyValue... attributes) {
    return LogRecord.newBuilder()
        .setTimeUnixNano(1_000)
        .setSeverityNumberValue(severity)
        .setBody(string("body"))
        .addAllAttributes(List.of(attributes))
        .build();
  }

  static Metric gauge(String name, NumberDataPoint... points) {
    Metric.Builder metric = Metric.newBuilder().setName(name);
    metric.getGaugeBuilder().addAllDataPoints(List.of(points));
    return metric.build();
  }

  static NumberDataPoint point(KeyValue... attributes) {
    return NumberDataPoint.newBuilder()
        .setTimeUnixNano(1_000)
        .setAsInt(1)
        .addAllAttributes(List.of(attributes))
        .build();
  }

  static CountConfig config(String yaml) throws ConfigException {
    return new ConfigBinder().bind(yaml, "count.yaml", CountConfig.class, CountConfig.DEFAULT);
  }

  static Batch batch(Signal signal, Message... requests) throws MalformedOtlpException {
    Batch batch = new Batch(signal);
    for (Message request : requests) {
      batch.add(new OtlpIndexer().index(signal, request.toByteArray()));
    }
    return batch;
  }

  /** A count connector of {@code yaml}'s configuration, made as the collector makes it. */
  static final class Fixture {
    final ManualScheduler scheduler = new ManualScheduler();
    final MetricRegistry metrics = new MetricRegistry();
    final RecordingOutput output = new RecordingOutput();

    Connector connector(String yaml, Signal from) throws ConfigException {
      return new CountConnectorFactory()
          .create(
              new ComponentSettings(
                  ComponentId.parse("count"), ComponentKind.CONNECTOR, metrics, scheduler),
              config(yaml),
              from,
              Signal.METRICS,
              output);
    }
  }

  /** The metric {@code name} of the resource whose attribute {@code key} is {@code value}. */
  static Metric metric(ExportMetricsServiceRequest request, String key, String value, String name) {
    for (ResourceMetrics resource : request.getResourceMetricsList()) {
      if (!resource.getResource().getAttributesList().contains(kv(key, value))) {
        continue;
      }
      for (ScopeMetrics scope : resource.getScopeMetricsList()) {
        for (Metric metric : scope.getMetricsList()) {
          if (metric.getName().equals(name)) {
            return metric;
          }
        }
      }
    }
    throw new AssertionError("no metric " + name + " for " + key + "=" + value + ": " + request);
  }

  /** The metric's counts by its points' attributes ({@code "k=v,k2=v2"}, {@code ""} for none). */
  static Map<String, Long> counts(Metric metric) {
    Map<String, Long> counts = new LinkedHashMap<>();
    for (NumberDataPoint point : metric.getSum().getDataPointsList()) {
      String attributes =
          point.getAttributesList().stream()
              .map(a -> a.getKey() + "=" + text(a.getValue()))
              .collect(Collectors.joining(","));
      counts.put(attributes, point.getAsInt());
    }
    return counts;
  }

  private static String text(AnyValue value) {
    return switch (value.getValueCase()) {
      case STRING_VALUE -> value.getStringValue();
      case INT_VALUE -> Long.toString(value.getIntValue());
      case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
      case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
      default -> value.toString().trim();
    };
  }

  /** The names of the metrics, per resource (by the value of its attribute {@code key}). */
  static Map<String, List<String>> metricNames(ExportMetricsServiceRequest request, String key) {
    Map<String, List<String>> names = new LinkedHashMap<>();
    for (ResourceMetrics resource : request.getResourceMetricsList()) {
      String owner =
          resource.getResource().getAttributesList().stream()
              .filter(a -> a.getKey().equals(key))
              .map(a -> a.getValue().getStringValue())
              .findFirst()
              .orElse("");
      names.put(
          owner,
          resource.getScopeMetricsList().stream()
              .flatMap(s -> s.getMetricsList().stream())
              .map(Metric::getName)
              .toList());
    }
    return names;
  }
}
