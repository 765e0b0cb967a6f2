package dev.sluice.processor.resourcedetection;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;

/**
 * Requests of any signal built with protobuf-java from resource blocks: each block has its resource
 * (or none), a header unknown field and schema URL if given, and two scopes of two items, so that
 * every block's resource is shared by two scopes.
 */
final class Requests {
  /** One resource block: {@code resource} null leaves the block's Resource out. */
  record Block(Resource resource, String schemaUrl, UnknownFieldSet headerUnknownFields) {
    Block(Resource resource) {
      this(resource, "", UnknownFieldSet.getDefaultInstance());
    }

    Block withResource(Resource replaced) {
      return new Block(replaced, schemaUrl, headerUnknownFields);
    }
  }

  private static final int SCOPES = 2;
  private static final int ITEMS = 2;

  private Requests() {}

  static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  static Resource resource(KeyValue... attributes) {
    return Resource.newBuilder().addAllAttributes(List.of(attributes)).build();
  }

  static Message request(Signal signal, List<Block> blocks) {
    return switch (signal) {
      case TRACES -> traces(blocks);
      case LOGS -> logs(blocks);
      case METRICS -> metrics(blocks);
    };
  }

  static Message parse(Signal signal, byte[] bytes) throws InvalidProtocolBufferException {
    return switch (signal) {
      case TRACES -> ExportTraceServiceRequest.parseFrom(bytes);
      case LOGS -> ExportLogsServiceRequest.parseFrom(bytes);
      case METRICS -> ExportMetricsServiceRequest.parseFrom(bytes);
    };
  }

  private static InstrumentationScope scope(int s) {
    return InstrumentationScope.newBuilder().setName("scope-" + s).setVersion("1.0").build();
  }

  private static ExportTraceServiceRequest traces(List<Block> blocks) {
    ExportTraceServiceRequest.Builder request = ExportTraceServiceRequest.newBuilder();
    for (int r = 0; r < blocks.size(); r++) {
      Block block = blocks.get(r);
      ResourceSpans.Builder rs =
          ResourceSpans.newBuilder()
              .setSchemaUrl(block.schemaUrl())
              .setUnknownFields(block.headerUnknownFields());
      if (block.resource() != null) {
        rs.setResource(block.resource());
      }
      for (int s = 0; s < SCOPES; s++) {
        ScopeSpans.Builder ss = ScopeSpans.newBuilder().setScope(scope(s));
        for (int i = 0; i < ITEMS; i++) {
          ss.addSpans(
              Span.newBuilder()
                  .setTraceId(
                      ByteString.copyFrom(
                          new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, (byte) r}))
                  .setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, (byte) s, (byte) i}))
                  .setName("span-" + r + "-" + s + "-" + i)
                  .setStartTimeUnixNano(1_000L + i)
                  .setEndTimeUnixNano(2_000L + i)
                  .addAttributes(attribute("item", "span-" + i)));
        }
        rs.addScopeSpans(ss);
      }
      request.addResourceSpans(rs);
    }
    return request.build();
  }

  private static ExportLogsServiceRequest logs(List<Block> blocks) {
    ExportLogsServiceRequest.Builder request = ExportLogsServiceRequest.newBuilder();
    for (int r = 0; r < blocks.size(); r++) {
      Block block = blocks.get(r);
      ResourceLogs.Builder rl =
          ResourceLogs.newBuilder()
              .setSchemaUrl(block.schemaUrl())
              .setUnknownFields(block.headerUnknownFields());
      if (block.resource() != null) {
        rl.setResource(block.resource());
      }
      for (int s = 0; s < SCOPES; s++) {
        ScopeLogs.Builder sl = ScopeLogs.newBuilder().setScope(scope(s));
        for (int i = 0; i < ITEMS; i++) {
          sl.addLogRecords(
              LogRecord.newBuilder()
                  .setTimeUnixNano(1_000L + i)
                  .setBody(AnyValue.newBuilder().setStringValue("log-" + r + "-" + s + "-" + i))
                  .addAttributes(attribute("item", "log-" + i)));
        }
        rl.addScopeLogs(sl);
      }
      request.addResourceLogs(rl);
    }
    return request.build();
  }

  private static ExportMetricsServiceRequest metrics(List<Block> blocks) {
    ExportMetricsServiceRequest.Builder request = ExportMetricsServiceRequest.newBuilder();
    for (int r = 0; r < blocks.size(); r++) {
      Block block = blocks.get(r);
      ResourceMetrics.Builder rm =
          ResourceMetrics.newBuilder()
              .setSchemaUrl(block.schemaUrl())
              .setUnknownFields(block.headerUnknownFields());
      if (block.resource() != null) {
        rm.setResource(block.resource());
      }
      for (int s = 0; s < SCOPES; s++) {
        ScopeMetrics.Builder sm = ScopeMetrics.newBuilder().setScope(scope(s));
        for (int i = 0; i < ITEMS; i++) {
          sm.addMetrics(
              Metric.newBuilder()
                  .setName("metric-" + r + "-" + s + "-" + i)
                  .setGauge(
                      Gauge.newBuilder()
                          .addDataPoints(
                              NumberDataPoint.newBuilder()
                                  .setTimeUnixNano(1_000L + i)
                                  .setAsInt(i)
                                  .addAttributes(attribute("item", "point-" + i)))
                          .addDataPoints(
                              NumberDataPoint.newBuilder()
                                  .setTimeUnixNano(2_000L + i)
                                  .setAsInt(-i))));
        }
        rm.addScopeMetrics(sm);
      }
      request.addResourceMetrics(rm);
    }
    return request.build();
  }
}
