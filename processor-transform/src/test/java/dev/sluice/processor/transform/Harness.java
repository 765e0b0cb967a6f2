package dev.sluice.processor.transform;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

/** Runs the processor as the collector does: YAML bound and validated, then one batch through. */
final class Harness {
  private Harness() {}

  static ComponentSettings settings(MetricRegistry metrics) {
    return new ComponentSettings(ComponentId.parse("transform"), ComponentKind.PROCESSOR, metrics);
  }

  static TransformConfig bind(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "transform.yaml", TransformConfig.class, TransformConfig.DEFAULT);
  }

  static Signal signalOf(Message request) {
    if (request instanceof ExportTraceServiceRequest) {
      return Signal.TRACES;
    }
    return request instanceof ExportLogsServiceRequest ? Signal.LOGS : Signal.METRICS;
  }

  /** The request after the processor configured by {@code yaml}, parsed back with protobuf-java. */
  static Message run(String yaml, Message request) throws Exception {
    return run(yaml, request, new MetricRegistry());
  }

  static Message run(String yaml, Message request, MetricRegistry metrics) throws Exception {
    TransformConfig config = bind(yaml);
    Signal signal = signalOf(request);
    BatchFunction<TransformConfig> function =
        new TransformProcessorFactory().createFunction(settings(metrics), config, signal);
    Batch batch = Batch.of(new OtlpIndexer().index(signal, request.toByteArray()));
    try {
      function.apply(batch, config);
      byte[] output = OtlpMarshaler.toByteArray(batch);
      return switch (signal) {
        case TRACES -> ExportTraceServiceRequest.parseFrom(output);
        case LOGS -> ExportLogsServiceRequest.parseFrom(output);
        case METRICS -> ExportMetricsServiceRequest.parseFrom(output);
      };
    } finally {
      batch.clear();
    }
  }

  static KeyValue kv(String key, String value) {
    return kv(key, AnyValue.newBuilder().setStringValue(value).build());
  }

  static KeyValue kv(String key, long value) {
    return kv(key, AnyValue.newBuilder().setIntValue(value).build());
  }

  static KeyValue kv(String key, AnyValue value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  static Span span(String name, KeyValue... attributes) {
    Span.Builder span =
        Span.newBuilder()
            .setTraceId(ByteString.copyFrom(new byte[16]).concat(ByteString.EMPTY))
            .setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
            .setName(name)
            .setKind(Span.SpanKind.SPAN_KIND_SERVER)
            .setStartTimeUnixNano(1_000)
            .setEndTimeUnixNano(2_000);
    for (KeyValue a : attributes) {
      span.addAttributes(a);
    }
    return span.build();
  }

  static Resource resource(String service) {
    return Resource.newBuilder().addAttributes(kv("service.name", service)).build();
  }

  static ExportTraceServiceRequest traces(Resource resource, Span... spans) {
    ScopeSpans.Builder scope =
        ScopeSpans.newBuilder().setScope(InstrumentationScope.newBuilder().setName("lib"));
    for (Span s : spans) {
      scope.addSpans(s);
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(ResourceSpans.newBuilder().setResource(resource).addScopeSpans(scope))
        .build();
  }
}
