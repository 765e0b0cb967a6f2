package dev.sluice.bench;

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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Deterministic, realistic trace requests: HTTP server spans (semantic conventions 1.3x) of one
 * service, under one resource and one instrumentation scope. The same seed gives the same spans,
 * byte for byte, on every JVM ({@link SplittableRandom} is specified), so benchmarks, tests and the
 * load generator can share inputs.
 *
 * <p>Each span has a random 16-byte trace ID, 8-byte span and remote parent IDs, kind SERVER, start
 * and end times, a status (ERROR for 5xx responses, unset otherwise) and ten attributes: {@code
 * client.address}, {@code http.request.method}, {@code http.response.status_code}, {@code
 * http.route}, {@code network.protocol.version}, {@code server.address}, {@code server.port},
 * {@code url.path}, {@code url.scheme} and {@code user_agent.original}. Serialized, a span is about
 * 427 bytes (430 with its tag and length in the request; {@link #main} prints the sizes).
 *
 * <p>The spans are first made as {@link HttpServerSpan} models, which {@link #toRequest} turns into
 * protobuf-java messages and {@link OtelSpanData} into opentelemetry-java {@code SpanData}: both
 * encode to the same protobuf message.
 */
public final class SpanShapes {
  /** The seed benchmarks use unless they say otherwise. */
  public static final long DEFAULT_SEED = 0x5111CEL;

  /** 2026-01-01T00:00:00Z in nanoseconds since the epoch: where span start times begin. */
  public static final long EPOCH_START_NANOS = 1_767_225_600_000_000_000L;

  public static final String RESOURCE_SCHEMA_URL = "https://opentelemetry.io/schemas/1.37.0";
  public static final String SCOPE_NAME = "io.opentelemetry.tomcat-10.0";
  public static final String SCOPE_VERSION = "2.20.0-alpha";
  public static final String SCOPE_SCHEMA_URL = "https://opentelemetry.io/schemas/1.37.0";

  /** The resource attributes, sorted by key (the order opentelemetry-java writes them in). */
  public static final List<Attribute> RESOURCE_ATTRIBUTES =
      sorted(
          List.of(
              Attribute.of("service.name", "checkout"),
              Attribute.of("service.namespace", "shop"),
              Attribute.of("service.version", "1.42.0"),
              Attribute.of("service.instance.id", "6a1c2f4e-93b5-4d0f-8a27-5c9e1b7d3f60"),
              Attribute.of("deployment.environment.name", "production"),
              Attribute.of("host.name", "checkout-7f9c6d5b8-x2k4p"),
              Attribute.of("telemetry.sdk.language", "java"),
              Attribute.of("telemetry.sdk.name", "opentelemetry"),
              Attribute.of("telemetry.sdk.version", "1.68.0")));

  private static final String[] ROUTES = {
    "/api/v1/users/{id}",
    "/api/v1/orders/{id}",
    "/api/v1/products",
    "/api/v1/cart/{id}/items",
    "/api/v1/search",
    "/health",
  };
  private static final String[] USER_AGENTS = {
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "okhttp/4.12.0",
    "Go-http-client/2.0",
    "python-requests/2.32.3",
    "curl/8.5.0",
    "Apache-HttpClient/5.3.1 (Java/17.0.12)",
  };

  private SpanShapes() {}

  /** A string or integer attribute. */
  public record Attribute(String key, Object value) {
    public Attribute {
      if (!(value instanceof String) && !(value instanceof Long)) {
        throw new IllegalArgumentException("string or long values only: " + value);
      }
    }

    public static Attribute of(String key, String value) {
      return new Attribute(key, value);
    }

    public static Attribute of(String key, long value) {
      return new Attribute(key, value);
    }
  }

  /**
   * One HTTP server span. IDs are raw bytes; {@code error} marks a 5xx response (status ERROR,
   * otherwise unset). Attributes are sorted by key.
   */
  public record HttpServerSpan(
      byte[] traceId,
      byte[] spanId,
      byte[] parentSpanId,
      String name,
      long startEpochNanos,
      long endEpochNanos,
      List<Attribute> attributes,
      boolean error) {}

  /** {@code count} spans made from {@code seed}; the same arguments give the same spans. */
  public static List<HttpServerSpan> spans(long seed, int count) {
    SplittableRandom random = new SplittableRandom(seed);
    List<HttpServerSpan> spans = new ArrayList<>(count);
    long time = EPOCH_START_NANOS + random.nextLong(3_600_000_000_000L);
    for (int i = 0; i < count; i++) {
      time += random.nextLong(50_000, 2_000_000); // ~1 ms between request starts
      spans.add(span(random, time));
    }
    return spans;
  }

  private static HttpServerSpan span(SplittableRandom random, long start) {
    byte[] traceId = randomId(random, 16);
    byte[] spanId = randomId(random, 8);
    byte[] parentSpanId = randomId(random, 8);
    String route = ROUTES[random.nextInt(ROUTES.length)];
    String method = method(random, route);
    String path = route.replace("{id}", Integer.toString(random.nextInt(1, 10_000_000)));
    if (route.equals("/api/v1/search")) {
      path = path + "?q=item" + random.nextInt(1000);
    }
    int status = status(random, method);
    // Durations from 0.2 ms, most under 50 ms, a long tail to a few hundred.
    long duration = 200_000L + (long) (Math.pow(random.nextDouble(), 4) * 400_000_000L);
    List<Attribute> attributes =
        sorted(
            List.of(
                Attribute.of("http.request.method", method),
                Attribute.of("url.path", path),
                Attribute.of("url.scheme", "https"),
                Attribute.of("server.address", "shop.example.com"),
                Attribute.of("server.port", 443L),
                Attribute.of("http.response.status_code", (long) status),
                Attribute.of(
                    "user_agent.original", USER_AGENTS[random.nextInt(USER_AGENTS.length)]),
                Attribute.of(
                    "client.address",
                    "10."
                        + random.nextInt(256)
                        + "."
                        + random.nextInt(256)
                        + "."
                        + random.nextInt(256)),
                Attribute.of("network.protocol.version", random.nextInt(4) == 0 ? "2" : "1.1"),
                Attribute.of("http.route", route)));
    return new HttpServerSpan(
        traceId,
        spanId,
        parentSpanId,
        method + " " + route,
        start,
        start + duration,
        attributes,
        status >= 500);
  }

  private static String method(SplittableRandom random, String route) {
    if (route.equals("/health") || route.equals("/api/v1/search")) {
      return "GET";
    }
    int r = random.nextInt(100);
    return r < 70 ? "GET" : r < 85 ? "POST" : r < 95 ? "PUT" : "DELETE";
  }

  private static int status(SplittableRandom random, String method) {
    int r = random.nextInt(1000);
    if (r < 10) {
      return 500;
    } else if (r < 15) {
      return 503;
    } else if (r < 60) {
      return 404;
    } else if (r < 80) {
      return 400;
    }
    return switch (method) {
      case "POST" -> 201;
      case "DELETE" -> 204;
      default -> 200;
    };
  }

  /** Random bytes, never all zero (an all-zero ID is invalid in OTLP). */
  public static byte[] randomId(SplittableRandom random, int length) {
    byte[] id = new byte[length];
    for (int i = 0; i < length; i += 8) {
      long bits = random.nextLong();
      for (int b = 0; b < 8 && i + b < length; b++) {
        id[i + b] = (byte) (bits >>> (8 * b));
      }
    }
    id[length - 1] |= 1;
    return id;
  }

  private static List<Attribute> sorted(List<Attribute> attributes) {
    List<Attribute> copy = new ArrayList<>(attributes);
    copy.sort(Comparator.comparing(Attribute::key));
    return List.copyOf(copy);
  }

  // protobuf-java.

  /** The spans as one request: one resource block, one scope block. */
  public static ExportTraceServiceRequest toRequest(List<HttpServerSpan> spans) {
    ScopeSpans.Builder scope =
        ScopeSpans.newBuilder().setScope(scope()).setSchemaUrl(SCOPE_SCHEMA_URL);
    for (HttpServerSpan span : spans) {
      scope.addSpans(toSpan(span));
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(resource())
                .addScopeSpans(scope)
                .setSchemaUrl(RESOURCE_SCHEMA_URL))
        .build();
  }

  /**
   * {@code request} with the spans of each scope block in traces of {@code spansPerTrace}, spread
   * over the block: of its {@code count} spans, the first {@code traces = max(1, count /
   * spansPerTrace)} keep their trace IDs and times, and span {@code i} joins the trace of span
   * {@code i % traces}, starting a millisecond after the trace's span before it, with its own
   * duration. So a trace's spans lie {@code traces} spans apart and within a few milliseconds of
   * each other, as a tail sampler sees a busy service's traces arrive.
   */
  public static ExportTraceServiceRequest inTraces(
      ExportTraceServiceRequest request, int spansPerTrace) {
    if (spansPerTrace <= 0) {
      throw new IllegalArgumentException("spans per trace must be positive: " + spansPerTrace);
    }
    ExportTraceServiceRequest.Builder builder = request.toBuilder();
    for (ResourceSpans.Builder resource : builder.getResourceSpansBuilderList()) {
      for (ScopeSpans.Builder scope : resource.getScopeSpansBuilderList()) {
        int traces = Math.max(1, scope.getSpansCount() / spansPerTrace);
        for (int i = traces; i < scope.getSpansCount(); i++) {
          Span first = scope.getSpans(i % traces);
          Span.Builder span = scope.getSpansBuilder(i);
          long start = first.getStartTimeUnixNano() + (i / traces) * 1_000_000L;
          span.setTraceId(first.getTraceId())
              .setEndTimeUnixNano(start + span.getEndTimeUnixNano() - span.getStartTimeUnixNano())
              .setStartTimeUnixNano(start);
        }
      }
    }
    return builder.build();
  }

  /** {@code toRequest(spans(seed, count)).toByteArray()}. */
  public static byte[] requestBytes(long seed, int count) {
    return toRequest(spans(seed, count)).toByteArray();
  }

  public static Resource resource() {
    Resource.Builder resource = Resource.newBuilder();
    for (Attribute attribute : RESOURCE_ATTRIBUTES) {
      resource.addAttributes(toKeyValue(attribute));
    }
    return resource.build();
  }

  public static InstrumentationScope scope() {
    return InstrumentationScope.newBuilder().setName(SCOPE_NAME).setVersion(SCOPE_VERSION).build();
  }

  /**
   * One span. {@code flags} carries the sampled trace flag and, as opentelemetry-java writes it,
   * the "parent is remote" bits (known, and remote).
   */
  public static Span toSpan(HttpServerSpan span) {
    Span.Builder builder =
        Span.newBuilder()
            .setTraceId(ByteString.copyFrom(span.traceId()))
            .setSpanId(ByteString.copyFrom(span.spanId()))
            .setParentSpanId(ByteString.copyFrom(span.parentSpanId()))
            .setFlags(0x301)
            .setName(span.name())
            .setKind(Span.SpanKind.SPAN_KIND_SERVER)
            .setStartTimeUnixNano(span.startEpochNanos())
            .setEndTimeUnixNano(span.endEpochNanos())
            .setStatus(
                span.error()
                    ? Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR).build()
                    : Status.getDefaultInstance());
    for (Attribute attribute : span.attributes()) {
      builder.addAttributes(toKeyValue(attribute));
    }
    return builder.build();
  }

  private static KeyValue toKeyValue(Attribute attribute) {
    AnyValue.Builder value = AnyValue.newBuilder();
    if (attribute.value() instanceof String s) {
      value.setStringValue(s);
    } else {
      value.setIntValue((Long) attribute.value());
    }
    return KeyValue.newBuilder().setKey(attribute.key()).setValue(value).build();
  }

  /**
   * Prints the sizes of a few requests: {@code java -cp benchmarks.jar
   * dev.sluice.bench.SpanShapes}.
   */
  public static void main(String[] args) {
    for (int count : new int[] {1, 16, 1000, 10_000}) {
      ExportTraceServiceRequest request = toRequest(spans(DEFAULT_SEED, count));
      int spanBytes = 0;
      for (Span span : request.getResourceSpans(0).getScopeSpans(0).getSpansList()) {
        spanBytes += span.getSerializedSize();
      }
      System.out.printf(
          "%6d spans: request %8d bytes, %.1f bytes per span (span messages alone %.1f)%n",
          count,
          request.getSerializedSize(),
          request.getSerializedSize() / (double) count,
          spanBytes / (double) count);
    }
  }
}
