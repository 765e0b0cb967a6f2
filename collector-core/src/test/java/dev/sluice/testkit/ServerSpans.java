package dev.sluice.testkit;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.SplittableRandom;

/**
 * Requests of realistic HTTP server spans, for throughput measurements: ten attributes each, about
 * 500 bytes on the wire, every span with its own random trace ID.
 */
public final class ServerSpans {
  private ServerSpans() {}

  /** {@code count} spans in one resource and scope, the same for the same seed. */
  public static ExportTraceServiceRequest request(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    ScopeSpans.Builder scope =
        ScopeSpans.newBuilder()
            .setScope(
                InstrumentationScope.newBuilder()
                    .setName("io.opentelemetry.tomcat-10.0")
                    .setVersion("2.20.0-alpha"));
    for (int i = 0; i < count; i++) {
      byte[] traceId = new byte[16];
      byte[] spanId = new byte[8];
      byte[] parentId = new byte[8];
      random.nextBytes(traceId);
      random.nextBytes(spanId);
      random.nextBytes(parentId);
      int status = random.nextInt(20) == 0 ? 503 : 200;
      long startNanos = 1_767_225_600_000_000_000L + i * 1_000_000L;
      scope.addSpans(
          Span.newBuilder()
              .setTraceId(ByteString.copyFrom(traceId))
              .setSpanId(ByteString.copyFrom(spanId))
              .setParentSpanId(ByteString.copyFrom(parentId))
              .setName("GET /api/v1/orders/{id}")
              .setKind(Span.SpanKind.SPAN_KIND_SERVER)
              .setStartTimeUnixNano(startNanos)
              .setEndTimeUnixNano(startNanos + 1_000_000L + random.nextInt(50_000_000))
              .addAttributes(
                  string(
                      "client.address", "10.1." + random.nextInt(256) + "." + random.nextInt(256)))
              .addAttributes(string("http.request.method", "GET"))
              .addAttributes(integer("http.response.status_code", status))
              .addAttributes(string("http.route", "/api/v1/orders/{id}"))
              .addAttributes(string("network.protocol.version", "1.1"))
              .addAttributes(string("server.address", "orders.internal.example.com"))
              .addAttributes(integer("server.port", 8080))
              .addAttributes(string("url.path", "/api/v1/orders/" + random.nextInt(1_000_000)))
              .addAttributes(string("url.scheme", "http"))
              .addAttributes(
                  string(
                      "user_agent.original",
                      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)"
                          + " Chrome/126.0 Safari/537.36"))
              .setStatus(
                  status >= 500
                      ? Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR)
                      : Status.newBuilder()));
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(string("service.name", "orders"))
                        .addAttributes(string("service.version", "1.4.2"))
                        .addAttributes(string("host.name", "orders-7d9f")))
                .addScopeSpans(scope))
        .build();
  }

  private static KeyValue string(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static KeyValue integer(String key, long value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setIntValue(value))
        .build();
  }
}
