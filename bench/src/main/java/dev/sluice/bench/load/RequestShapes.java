package dev.sluice.bench.load;

import com.google.protobuf.ByteString;
import dev.sluice.bench.SpanShapes;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The load generator's requests, built once with protobuf-java and deterministic from a seed: spans
 * of several shapes, log records and metrics, each under the resource of {@link SpanShapes}.
 *
 * <p>Span shapes:
 *
 * <ul>
 *   <li>{@code realistic}: {@link SpanShapes}' HTTP server spans, ten attributes, about 430 bytes.
 *   <li>{@code minimal}: trace and span IDs, a name, kind and start and end times, about 50 bytes.
 *   <li>{@code attrs-20x5000} and {@code attrs-100x50}: the OpenTelemetry Collector testbed's heavy
 *       spans ({@code TestTrace1kSPSWithAttrs}): 20 or 100 string attributes whose values are
 *       exactly 5000 or 50 bytes (the testbed draws 1 to 2B-1, B on average) and whose keys are 1
 *       to 199 bytes (100 on average), as the testbed's keys are. The key set is the same for every
 *       span, as in the testbed; values are drawn per span. Characters are printable ASCII.
 * </ul>
 *
 * <p>Logs: application log records as a Java logging appender writes them: times, a severity, a
 * message body of 60 to 150 characters with numbers in it, {@code thread.name} and {@code
 * thread.id} and {@code code.*} attributes, and trace context on four records of five. About 300
 * bytes a record.
 *
 * <p>Metrics: {@code metrics} metrics of {@code points} data points each, rotating through a double
 * gauge, a monotonic cumulative int sum and a ten-bucket explicit histogram; every data point has
 * two attributes. Counted in data points, as the collector counts metrics.
 */
public final class RequestShapes {
  /** The span shapes, by their command-line names. */
  public enum SpanShape {
    REALISTIC("realistic", 0, 0),
    MINIMAL("minimal", 0, 0),
    ATTRS_20X5000("attrs-20x5000", 20, 5000),
    ATTRS_100X50("attrs-100x50", 100, 50);

    private final String label;
    private final int attributes;
    private final int valueBytes;

    SpanShape(String label, int attributes, int valueBytes) {
      this.label = label;
      this.attributes = attributes;
      this.valueBytes = valueBytes;
    }

    public String label() {
      return label;
    }

    /** Attributes of a heavy span; 0 for the others. */
    public int attributes() {
      return attributes;
    }

    /** The size of each attribute value of a heavy span. */
    public int valueBytes() {
      return valueBytes;
    }

    public static SpanShape parse(String label) {
      for (SpanShape shape : values()) {
        if (shape.label.equals(label.toLowerCase(Locale.ROOT))) {
          return shape;
        }
      }
      throw new IllegalArgumentException(
          "unknown span shape \""
              + label
              + "\"; expected realistic, minimal, attrs-20x5000 or"
              + " attrs-100x50");
    }

    @Override
    public String toString() {
      return label;
    }
  }

  private static final String PRINTABLE =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._-:/=+,;!?()[]{}<>@#%&*";

  private RequestShapes() {}

  // Traces.

  /** A trace request of {@code spans} spans of {@code shape}. */
  public static ExportTraceServiceRequest traces(SpanShape shape, int spans, long seed) {
    return switch (shape) {
      case REALISTIC -> SpanShapes.toRequest(SpanShapes.spans(seed, spans));
      case MINIMAL -> minimalSpans(spans, seed);
      case ATTRS_20X5000, ATTRS_100X50 -> heavySpans(shape, spans, seed);
    };
  }

  private static ExportTraceServiceRequest minimalSpans(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(SpanShapes.scope());
    long time = SpanShapes.EPOCH_START_NANOS + random.nextLong(3_600_000_000_000L);
    for (int i = 0; i < count; i++) {
      time += random.nextLong(50_000, 2_000_000);
      scope.addSpans(
          Span.newBuilder()
              .setTraceId(ByteString.copyFrom(SpanShapes.randomId(random, 16)))
              .setSpanId(ByteString.copyFrom(SpanShapes.randomId(random, 8)))
              .setName("span")
              .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
              .setStartTimeUnixNano(time)
              .setEndTimeUnixNano(time + random.nextLong(10_000, 5_000_000)));
    }
    return traceRequest(scope);
  }

  private static ExportTraceServiceRequest heavySpans(SpanShape shape, int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<String> keys = heavyKeys(new SplittableRandom(seed ^ 0x6b657973L), shape.attributes());
    ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(SpanShapes.scope());
    long time = SpanShapes.EPOCH_START_NANOS + random.nextLong(3_600_000_000_000L);
    for (int i = 0; i < count; i++) {
      time += random.nextLong(50_000, 2_000_000);
      Span.Builder span =
          Span.newBuilder()
              .setTraceId(ByteString.copyFrom(SpanShapes.randomId(random, 16)))
              .setSpanId(ByteString.copyFrom(SpanShapes.randomId(random, 8)))
              .setName("load-generator-span")
              .setKind(Span.SpanKind.SPAN_KIND_CLIENT)
              .setStartTimeUnixNano(time)
              .setEndTimeUnixNano(time + random.nextLong(10_000, 5_000_000));
      for (String key : keys) {
        span.addAttributes(stringAttribute(key, printable(random, shape.valueBytes())));
      }
      scope.addSpans(span);
    }
    return traceRequest(scope);
  }

  /** Distinct keys of 1 to 199 printable characters, 100 on average. */
  static List<String> heavyKeys(SplittableRandom random, int count) {
    Set<String> seen = new HashSet<>();
    List<String> keys = new ArrayList<>(count);
    while (keys.size() < count) {
      String key = printable(random, random.nextInt(1, 200));
      if (seen.add(key)) {
        keys.add(key);
      }
    }
    return keys;
  }

  private static ExportTraceServiceRequest traceRequest(ScopeSpans.Builder scope) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(SpanShapes.resource())
                .addScopeSpans(scope)
                .setSchemaUrl(SpanShapes.RESOURCE_SCHEMA_URL))
        .build();
  }

  // Logs.

  private static final String[] LOGGERS = {
    "com.example.checkout.OrderService",
    "com.example.checkout.PaymentClient",
    "com.example.checkout.CartController",
    "org.springframework.web.servlet.DispatcherServlet",
  };

  /** A log request of {@code records} application log records. */
  public static ExportLogsServiceRequest logs(int records, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    ScopeLogs.Builder scope =
        ScopeLogs.newBuilder()
            .setScope(
                InstrumentationScope.newBuilder().setName("io.opentelemetry.log4j-appender-2.17"));
    long time = SpanShapes.EPOCH_START_NANOS + random.nextLong(3_600_000_000_000L);
    for (int i = 0; i < records; i++) {
      time += random.nextLong(10_000, 2_000_000);
      int r = random.nextInt(100);
      SeverityNumber severity =
          r < 5
              ? SeverityNumber.SEVERITY_NUMBER_ERROR
              : r < 15
                  ? SeverityNumber.SEVERITY_NUMBER_WARN
                  : r < 90
                      ? SeverityNumber.SEVERITY_NUMBER_INFO
                      : SeverityNumber.SEVERITY_NUMBER_DEBUG;
      String logger = LOGGERS[random.nextInt(LOGGERS.length)];
      LogRecord.Builder record =
          LogRecord.newBuilder()
              .setTimeUnixNano(time)
              .setObservedTimeUnixNano(time + random.nextLong(1_000, 200_000))
              .setSeverityNumber(severity)
              .setSeverityText(severityText(severity))
              .setBody(AnyValue.newBuilder().setStringValue(message(random, severity)))
              .addAttributes(stringAttribute("code.function", "handle"))
              .addAttributes(stringAttribute("code.namespace", logger))
              .addAttributes(intAttribute("thread.id", 40 + random.nextInt(200)))
              .addAttributes(
                  stringAttribute(
                      "thread.name", "http-nio-8080-exec-" + (1 + random.nextInt(200))));
      if (random.nextInt(5) != 0) {
        record
            .setTraceId(ByteString.copyFrom(SpanShapes.randomId(random, 16)))
            .setSpanId(ByteString.copyFrom(SpanShapes.randomId(random, 8)))
            .setFlags(1);
      }
      scope.addLogRecords(record);
    }
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .setResource(SpanShapes.resource())
                .addScopeLogs(scope)
                .setSchemaUrl(SpanShapes.RESOURCE_SCHEMA_URL))
        .build();
  }

  private static String severityText(SeverityNumber severity) {
    return switch (severity) {
      case SEVERITY_NUMBER_ERROR -> "ERROR";
      case SEVERITY_NUMBER_WARN -> "WARN";
      case SEVERITY_NUMBER_DEBUG -> "DEBUG";
      default -> "INFO";
    };
  }

  private static String message(SplittableRandom random, SeverityNumber severity) {
    int order = random.nextInt(1_000_000, 10_000_000);
    int user = random.nextInt(1, 5_000_000);
    return switch (severity) {
      case SEVERITY_NUMBER_ERROR ->
          "Payment authorization failed for order "
              + order
              + ": gateway returned 502 Bad Gateway after "
              + random.nextInt(100, 5000)
              + " ms (attempt "
              + random.nextInt(1, 4)
              + " of 3)";
      case SEVERITY_NUMBER_WARN ->
          "Inventory reservation for order "
              + order
              + " took "
              + random.nextInt(500, 3000)
              + " ms, above the 500 ms budget";
      case SEVERITY_NUMBER_DEBUG ->
          "Cache miss for cart "
              + user
              + ", loading "
              + random.nextInt(1, 20)
              + " items from the database";
      default ->
          "Order "
              + order
              + " placed by user "
              + user
              + " with "
              + random.nextInt(1, 12)
              + " items, total "
              + random.nextInt(5, 900)
              + "."
              + random.nextInt(10, 100)
              + " EUR";
    };
  }

  // Metrics.

  private static final String[] ROUTES = {
    "/api/v1/users/{id}",
    "/api/v1/orders/{id}",
    "/api/v1/products",
    "/api/v1/cart/{id}/items",
    "/api/v1/search",
    "/health",
    "/api/v1/checkout",
  };
  private static final String[] METHODS = {"GET", "POST", "PUT", "DELETE"};

  /** A metrics request of {@code metrics} metrics with {@code points} data points each. */
  public static ExportMetricsServiceRequest metrics(int metrics, int points, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long start = SpanShapes.EPOCH_START_NANOS;
    long time = start + random.nextLong(3_600_000_000_000L);
    ScopeMetrics.Builder scope =
        ScopeMetrics.newBuilder()
            .setScope(
                InstrumentationScope.newBuilder()
                    .setName("io.opentelemetry.runtime-telemetry-java17")
                    .setVersion("2.20.0-alpha"));
    for (int m = 0; m < metrics; m++) {
      Metric.Builder metric = Metric.newBuilder();
      switch (m % 3) {
        case 0 -> {
          Gauge.Builder gauge = Gauge.newBuilder();
          for (int p = 0; p < points; p++) {
            gauge.addDataPoints(
                NumberDataPoint.newBuilder()
                    .addAllAttributes(pointAttributes(p))
                    .setTimeUnixNano(time)
                    .setAsDouble(random.nextDouble() * 1000));
          }
          metric
              .setName("app.pool.utilization." + m)
              .setDescription("Utilization of the worker pool")
              .setUnit("1")
              .setGauge(gauge);
        }
        case 1 -> {
          Sum.Builder sum =
              Sum.newBuilder()
                  .setIsMonotonic(true)
                  .setAggregationTemporality(
                      AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
          for (int p = 0; p < points; p++) {
            sum.addDataPoints(
                NumberDataPoint.newBuilder()
                    .addAllAttributes(pointAttributes(p))
                    .setStartTimeUnixNano(start)
                    .setTimeUnixNano(time)
                    .setAsInt(random.nextLong(1_000_000_000L)));
          }
          metric
              .setName("http.server.request.count." + m)
              .setDescription("Requests served")
              .setUnit("{request}")
              .setSum(sum);
        }
        default -> {
          Histogram.Builder histogram =
              Histogram.newBuilder()
                  .setAggregationTemporality(
                      AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
          double[] bounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
          for (int p = 0; p < points; p++) {
            HistogramDataPoint.Builder point =
                HistogramDataPoint.newBuilder()
                    .addAllAttributes(pointAttributes(p))
                    .setStartTimeUnixNano(start)
                    .setTimeUnixNano(time);
            long count = 0;
            for (int b = 0; b <= bounds.length; b++) {
              long c = random.nextLong(10_000);
              point.addBucketCounts(c);
              count += c;
            }
            for (double bound : bounds) {
              point.addExplicitBounds(bound);
            }
            histogram.addDataPoints(
                point
                    .setCount(count)
                    .setSum(count * random.nextDouble() * 0.2)
                    .setMin(0.001)
                    .setMax(4.2));
          }
          metric
              .setName("http.server.request.duration." + m)
              .setDescription("Duration of HTTP server requests")
              .setUnit("s")
              .setHistogram(histogram);
        }
      }
      scope.addMetrics(metric);
    }
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(SpanShapes.resource())
                .addScopeMetrics(scope)
                .setSchemaUrl(SpanShapes.RESOURCE_SCHEMA_URL))
        .build();
  }

  private static List<KeyValue> pointAttributes(int point) {
    return List.of(
        stringAttribute("http.request.method", METHODS[point % METHODS.length]),
        stringAttribute("http.route", ROUTES[point % ROUTES.length]));
  }

  // Helpers.

  private static KeyValue stringAttribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static KeyValue intAttribute(String key, long value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setIntValue(value))
        .build();
  }

  static String printable(SplittableRandom random, int length) {
    char[] chars = new char[length];
    for (int i = 0; i < length; i++) {
      chars[i] = PRINTABLE.charAt(random.nextInt(PRINTABLE.length()));
    }
    return new String(chars);
  }
}
