package dev.sluice.connector.routing;

import com.google.protobuf.ByteString;
import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;

/** OTLP built with protobuf-java, and a routing connector over a {@link RecordingOutput}. */
final class Otlp {
  private Otlp() {}

  static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  static String service(Resource resource) {
    return resource.getAttributesList().stream()
        .filter(kv -> kv.getKey().equals("service.name"))
        .map(kv -> kv.getValue().getStringValue())
        .findFirst()
        .orElse("");
  }

  static Resource resource(String service) {
    return Resource.newBuilder().addAttributes(attribute("service.name", service)).build();
  }

  static InstrumentationScope scope(String name) {
    return InstrumentationScope.newBuilder().setName(name).setVersion("1.0").build();
  }

  static Span span(String name, String tenant) {
    return Span.newBuilder()
        .setTraceId(
            ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}))
        .setSpanId(ByteString.copyFromUtf8((name + "--------").substring(0, 8)))
        .setName(name)
        .setStartTimeUnixNano(1_000)
        .setEndTimeUnixNano(2_000)
        .addAttributes(attribute("tenant", tenant))
        .build();
  }

  static ScopeSpans scopeSpans(String scope, Span... spans) {
    return ScopeSpans.newBuilder().setScope(scope(scope)).addAllSpans(List.of(spans)).build();
  }

  static ResourceSpans resourceSpans(String service, ScopeSpans... scopes) {
    return ResourceSpans.newBuilder()
        .setResource(resource(service))
        .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0")
        .addAllScopeSpans(List.of(scopes))
        .build();
  }

  static byte[] traces(ResourceSpans... blocks) {
    return ExportTraceServiceRequest.newBuilder()
        .addAllResourceSpans(List.of(blocks))
        .build()
        .toByteArray();
  }

  static LogRecord log(String body, int severity) {
    return LogRecord.newBuilder()
        .setTimeUnixNano(1_000)
        .setSeverityNumberValue(severity)
        .setBody(AnyValue.newBuilder().setStringValue(body))
        .build();
  }

  static byte[] logs(String service, String scope, LogRecord... records) {
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .setResource(resource(service))
                .addScopeLogs(
                    ScopeLogs.newBuilder()
                        .setScope(scope(scope))
                        .addAllLogRecords(List.of(records))))
        .build()
        .toByteArray();
  }

  static NumberDataPoint point(String host, double value) {
    return NumberDataPoint.newBuilder()
        .setTimeUnixNano(1_000)
        .setAsDouble(value)
        .addAttributes(attribute("host", host))
        .build();
  }

  static Metric sum(String name, NumberDataPoint... points) {
    Metric.Builder metric = Metric.newBuilder().setName(name).setUnit("By");
    metric
        .getSumBuilder()
        .setIsMonotonic(true)
        .setAggregationTemporality(
            io.opentelemetry.proto.metrics.v1.AggregationTemporality
                .AGGREGATION_TEMPORALITY_CUMULATIVE)
        .addAllDataPoints(List.of(points));
    return metric.build();
  }

  static byte[] metrics(String service, String scope, Metric... metrics) {
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(resource(service))
                .addScopeMetrics(
                    ScopeMetrics.newBuilder()
                        .setScope(scope(scope))
                        .addAllMetrics(List.of(metrics))))
        .build()
        .toByteArray();
  }

  static RoutingConfig config(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "routing.yaml", RoutingConfig.class, RoutingConfig.DEFAULT);
  }

  static Batch batch(Signal signal, byte[] request) throws Exception {
    return Batch.of(new OtlpIndexer().index(signal, request));
  }

  /** A routing connector of {@code signal} configured by {@code yaml}, feeding {@code output}. */
  static final class Routing {
    final MetricRegistry metrics = new MetricRegistry();
    final RecordingOutput output;
    final Connector connector;
    final Signal signal;

    Routing(Signal signal, String yaml, String... pipelines) throws ConfigException {
      this.signal = signal;
      this.output = new RecordingOutput(signal, pipelines);
      this.connector =
          new RoutingConnectorFactory()
              .create(
                  new ComponentSettings(
                      ComponentId.parse("routing"), ComponentKind.CONNECTOR, metrics),
                  config(yaml),
                  signal,
                  signal,
                  output);
    }

    /** Routes {@code batch}; a batch the connector refuses is cleared, as its caller would. */
    Admission route(Batch batch) {
      Admission admission = connector.consume(batch);
      if (admission != Admission.ACCEPTED) {
        batch.clear();
      }
      return admission;
    }

    /** Routes one request of the connector's signal. */
    Admission route(byte[] request) throws Exception {
      return route(batch(signal, request));
    }

    /** What pipeline {@code name} took, parsed. */
    List<ExportTraceServiceRequest> traces(String name) throws Exception {
      List<ExportTraceServiceRequest> parsed = new ArrayList<>();
      for (byte[] request : output.pipeline(name).taken()) {
        parsed.add(ExportTraceServiceRequest.parseFrom(request));
      }
      return parsed;
    }

    List<ExportLogsServiceRequest> logs(String name) throws Exception {
      List<ExportLogsServiceRequest> parsed = new ArrayList<>();
      for (byte[] request : output.pipeline(name).taken()) {
        parsed.add(ExportLogsServiceRequest.parseFrom(request));
      }
      return parsed;
    }

    List<ExportMetricsServiceRequest> metrics(String name) throws Exception {
      List<ExportMetricsServiceRequest> parsed = new ArrayList<>();
      for (byte[] request : output.pipeline(name).taken()) {
        parsed.add(ExportMetricsServiceRequest.parseFrom(request));
      }
      return parsed;
    }

    /** Each span taken by pipeline {@code name} as {@code service/scope/span}, in order. */
    List<String> spans(String name) throws Exception {
      List<String> spans = new ArrayList<>();
      for (ExportTraceServiceRequest request : traces(name)) {
        for (ResourceSpans r : request.getResourceSpansList()) {
          for (ScopeSpans s : r.getScopeSpansList()) {
            for (Span span : s.getSpansList()) {
              spans.add(
                  service(r.getResource()) + "/" + s.getScope().getName() + "/" + span.getName());
            }
          }
        }
      }
      return spans;
    }

    long counter(String name) {
      return metrics.counter(name, "", "connector", "routing").get();
    }
  }
}
