package dev.sluice.processor.filter;

import com.google.protobuf.ByteString;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;

/** Builders of OTLP messages with protobuf-java, and running a filter over a request. */
final class Otlp {
  private Otlp() {}

  static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  static KeyValue attribute(String key, long value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setIntValue(value))
        .build();
  }

  static Resource resource(String service) {
    return Resource.newBuilder().addAttributes(attribute("service.name", service)).build();
  }

  static InstrumentationScope scope(String name) {
    return InstrumentationScope.newBuilder().setName(name).setVersion("1.0").build();
  }

  static Span span(String name, String route) {
    return Span.newBuilder()
        .setTraceId(
            ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}))
        .setSpanId(
            ByteString.copyFrom(name.getBytes(StandardCharsets.UTF_8), 0, 1)
                .concat(ByteString.copyFrom(new byte[7])))
        .setName(name)
        .setKind(Span.SpanKind.SPAN_KIND_SERVER)
        .setStartTimeUnixNano(1_000)
        .setEndTimeUnixNano(2_000)
        .addAttributes(attribute("http.route", route))
        .addAttributes(attribute("http.response.status_code", 200))
        .build();
  }

  static Span.Event event(String name) {
    return Span.Event.newBuilder()
        .setName(name)
        .setTimeUnixNano(1_500)
        .addAttributes(attribute("exception.type", name + ".Type"))
        .build();
  }

  static LogRecord log(int severity, String body) {
    return LogRecord.newBuilder()
        .setTimeUnixNano(1_000)
        .setSeverityNumberValue(severity)
        .setSeverityText("S" + severity)
        .setBody(AnyValue.newBuilder().setStringValue(body))
        .build();
  }

  static Metric gauge(String name, NumberDataPoint... points) {
    Metric.Builder metric = Metric.newBuilder().setName(name).setUnit("1");
    io.opentelemetry.proto.metrics.v1.Gauge.Builder gauge = metric.getGaugeBuilder();
    for (NumberDataPoint p : points) {
      gauge.addDataPoints(p);
    }
    return metric.build();
  }

  static NumberDataPoint point(String host, double value) {
    return NumberDataPoint.newBuilder()
        .setTimeUnixNano(1_000)
        .setAsDouble(value)
        .addAttributes(attribute("host", host))
        .build();
  }

  static FilterConfig config(String yaml) throws ConfigException {
    return new ConfigBinder().bind(yaml, "filter.yaml", FilterConfig.class, FilterConfig.DEFAULT);
  }

  static ComponentSettings settings(MetricRegistry metrics) {
    return new ComponentSettings(ComponentId.parse("filter"), ComponentKind.PROCESSOR, metrics);
  }

  /** Filters {@code request} with {@code yaml}'s configuration; the request written out after. */
  static byte[] filter(String yaml, Signal signal, byte[] request) throws Exception {
    return filter(yaml, signal, request, new MetricRegistry());
  }

  static byte[] filter(String yaml, Signal signal, byte[] request, MetricRegistry metrics)
      throws ConfigException, MalformedOtlpException {
    FilterConfig config = config(yaml);
    FilterFunction function =
        (FilterFunction)
            new FilterProcessorFactory().createFunction(settings(metrics), config, signal);
    Batch batch = Batch.of(new OtlpIndexer().index(signal, request));
    try {
      function.apply(batch, config);
      MarshalContext context = new MarshalContext();
      OtlpMarshaler.marshal(batch, context);
      return context.toByteArray();
    } finally {
      batch.clear();
    }
  }
}
