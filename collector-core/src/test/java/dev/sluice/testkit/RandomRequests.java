package dev.sluice.testkit;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.EntityRef;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Seeded random OTLP export requests for tests, built with the opentelemetry-proto builders: the
 * same {@link Random} state (or seed) and {@link Sizes} always give the same request.
 *
 * <p>Every field of every message reachable from the three requests is set in some requests:
 * resources with entity refs, scopes, schema URLs, every {@code AnyValue} variant (strings with
 * multi-byte and 4-byte UTF-8 and the empty string, negative and extreme integers, NaN and
 * infinities, bytes, nested arrays and key-value lists, string-table indexes), spans with events,
 * links and status, log records with bodies, and each kind of metric with every data point field.
 * Requests also hold the awkward shapes: several resource and scope blocks, resource blocks without
 * scope blocks, scope blocks without items, metrics without data points (no data field, or an empty
 * data message), unknown fields (of every wire type, groups included) on headers, items and data
 * points, unrecognised enum values, and request-level unknown fields.
 *
 * <p>With {@link Sizes#repeatHeaderChance()} above zero, resource and scope blocks reuse the header
 * (resource or scope, schema URL and unknown fields) of the block before them or one of a shared
 * {@link Headers} pool, so that consecutive blocks, and blocks of different requests, have
 * byte-equal headers.
 *
 * <p>IDs are 16 or 8 bytes or empty, and a metric has at most one data field, so every request is
 * valid for Sluice's indexer.
 */
public final class RandomRequests {
  private RandomRequests() {}

  /**
   * Size and shape knobs.
   *
   * @param maxResources resource blocks per request (0 to this many)
   * @param maxScopes scope blocks per resource block
   * @param maxItems spans, log records or metrics per scope block
   * @param maxDataPoints data points per metric
   * @param maxAttributes attributes per attribute list
   * @param maxValueDepth how deep array and key-value list values nest
   * @param emptyResourceChance chance that a resource block has no scope blocks
   * @param emptyScopeChance chance that a scope block has no items
   * @param unknownFieldChance chance that a message that may carry unknown fields gets some
   * @param repeatHeaderChance chance that a block reuses an earlier or shared header
   */
  public record Sizes(
      int maxResources,
      int maxScopes,
      int maxItems,
      int maxDataPoints,
      int maxAttributes,
      int maxValueDepth,
      double emptyResourceChance,
      double emptyScopeChance,
      double unknownFieldChance,
      double repeatHeaderChance) {

    /** Small requests with every shape: a few kilobytes each. */
    public static final Sizes DEFAULT = new Sizes(4, 3, 5, 5, 3, 3, 0.08, 0.08, 0.1, 0);

    /** Many small blocks whose headers repeat, to exercise coalescing. */
    public static final Sizes REPEATING = new Sizes(6, 3, 3, 4, 2, 2, 0.08, 0.08, 0.1, 0.6);

    public Sizes {
      if (maxResources < 0
          || maxScopes < 0
          || maxItems < 0
          || maxDataPoints < 0
          || maxAttributes < 0
          || maxValueDepth < 0) {
        throw new IllegalArgumentException("sizes must not be negative");
      }
    }

    public Sizes withEmptyBlockChances(double resource, double scope) {
      return new Sizes(
          maxResources,
          maxScopes,
          maxItems,
          maxDataPoints,
          maxAttributes,
          maxValueDepth,
          resource,
          scope,
          unknownFieldChance,
          repeatHeaderChance);
    }

    public Sizes withUnknownFieldChance(double chance) {
      return new Sizes(
          maxResources,
          maxScopes,
          maxItems,
          maxDataPoints,
          maxAttributes,
          maxValueDepth,
          emptyResourceChance,
          emptyScopeChance,
          chance,
          repeatHeaderChance);
    }

    public Sizes withRepeatHeaderChance(double chance) {
      return new Sizes(
          maxResources,
          maxScopes,
          maxItems,
          maxDataPoints,
          maxAttributes,
          maxValueDepth,
          emptyResourceChance,
          emptyScopeChance,
          unknownFieldChance,
          chance);
    }
  }

  /**
   * The header of a resource or scope block, whatever the signal: the {@code Resource} or {@code
   * InstrumentationScope} (null when unset), the schema URL and the block's own unknown fields.
   */
  public record Header<T extends Message>(T message, String schemaUrl, UnknownFieldSet unknown) {}

  /**
   * A pool of block headers that requests generated with it draw from, so that different requests
   * hold byte-equal resource and scope headers.
   */
  public static final class Headers {
    private final List<Header<Resource>> resources;
    private final List<Header<InstrumentationScope>> scopes;

    Headers(List<Header<Resource>> resources, List<Header<InstrumentationScope>> scopes) {
      this.resources = List.copyOf(resources);
      this.scopes = List.copyOf(scopes);
    }

    public List<Header<Resource>> resources() {
      return resources;
    }

    public List<Header<InstrumentationScope>> scopes() {
      return scopes;
    }
  }

  /** A pool of {@code count} resource headers and {@code count} scope headers. */
  public static Headers headers(Random random, Sizes sizes, int count) {
    Gen gen = new Gen(random, sizes, null);
    List<Header<Resource>> resources = new ArrayList<>();
    List<Header<InstrumentationScope>> scopes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      resources.add(gen.freshResourceHeader());
      scopes.add(gen.freshScopeHeader());
    }
    return new Headers(resources, scopes);
  }

  // Requests.

  public static ExportTraceServiceRequest traces(long seed) {
    return traces(new Random(seed), Sizes.DEFAULT);
  }

  public static ExportTraceServiceRequest traces(Random random, Sizes sizes) {
    return traces(random, sizes, null);
  }

  /** A request whose repeated headers come from {@code shared} too (may be null). */
  public static ExportTraceServiceRequest traces(Random random, Sizes sizes, Headers shared) {
    return new Gen(random, sizes, shared).traces();
  }

  public static ExportLogsServiceRequest logs(long seed) {
    return logs(new Random(seed), Sizes.DEFAULT);
  }

  public static ExportLogsServiceRequest logs(Random random, Sizes sizes) {
    return logs(random, sizes, null);
  }

  public static ExportLogsServiceRequest logs(Random random, Sizes sizes, Headers shared) {
    return new Gen(random, sizes, shared).logs();
  }

  public static ExportMetricsServiceRequest metrics(long seed) {
    return metrics(new Random(seed), Sizes.DEFAULT);
  }

  public static ExportMetricsServiceRequest metrics(Random random, Sizes sizes) {
    return metrics(random, sizes, null);
  }

  public static ExportMetricsServiceRequest metrics(Random random, Sizes sizes, Headers shared) {
    return new Gen(random, sizes, shared).metrics();
  }

  /** A request of the given signal. */
  public static Message request(Signal signal, Random random, Sizes sizes, Headers shared) {
    switch (signal) {
      case TRACES:
        return traces(random, sizes, shared);
      case LOGS:
        return logs(random, sizes, shared);
      case METRICS:
        return metrics(random, sizes, shared);
      default:
        throw new IllegalArgumentException("unknown signal " + signal);
    }
  }

  // Building blocks, for tests that need single messages.

  public static AnyValue anyValue(Random random, Sizes sizes) {
    return new Gen(random, sizes, null).anyValue(0);
  }

  public static KeyValue keyValue(Random random, Sizes sizes) {
    return new Gen(random, sizes, null).keyValue(0);
  }

  public static Resource resource(Random random, Sizes sizes) {
    return new Gen(random, sizes, null).resource();
  }

  public static InstrumentationScope scope(Random random, Sizes sizes) {
    return new Gen(random, sizes, null).scope();
  }

  public static Span span(Random random, Sizes sizes) {
    return new Gen(random, sizes, null).span();
  }

  public static LogRecord logRecord(Random random, Sizes sizes) {
    return new Gen(random, sizes, null).logRecord();
  }

  public static Metric metric(Random random, Sizes sizes) {
    return new Gen(random, sizes, null).metric();
  }

  /** A string mixing ASCII, 2-, 3- and 4-byte UTF-8 and edge code points; sometimes empty. */
  public static String string(Random random) {
    return new Gen(random, Sizes.DEFAULT, null).string();
  }

  /**
   * Unknown fields of every wire type (groups included) with field numbers that {@code known} does
   * not hold.
   */
  public static UnknownFieldSet unknownFields(Random random, int... known) {
    return new Gen(random, Sizes.DEFAULT, null).unknownFields(known);
  }

  // Field numbers each message declares, so that unknown fields use others.
  private static final int[] REQUEST_FIELDS = {1};
  private static final int[] BLOCK_FIELDS = {1, 2, 3};
  private static final int[] RESOURCE_FIELDS = {1, 2, 3};
  private static final int[] SCOPE_FIELDS = {1, 2, 3, 4};
  private static final int[] SPAN_FIELDS = range(1, 16);
  private static final int[] EVENT_FIELDS = {1, 2, 3, 4};
  private static final int[] LINK_FIELDS = range(1, 6);
  private static final int[] STATUS_FIELDS = {2, 3};
  private static final int[] LOG_FIELDS = {1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12};
  private static final int[] METRIC_FIELDS = {1, 2, 3, 5, 7, 9, 10, 11, 12};
  private static final int[] GAUGE_FIELDS = {1};
  private static final int[] SUM_FIELDS = {1, 2, 3};
  private static final int[] HISTOGRAM_FIELDS = {1, 2};
  private static final int[] NUMBER_POINT_FIELDS = range(2, 8);
  private static final int[] HISTOGRAM_POINT_FIELDS = range(2, 12);
  private static final int[] EXP_HISTOGRAM_POINT_FIELDS = range(1, 14);
  private static final int[] SUMMARY_POINT_FIELDS = range(2, 8);
  private static final int[] EXEMPLAR_FIELDS = range(2, 7);

  private static int[] range(int from, int to) {
    int[] numbers = new int[to - from + 1];
    for (int i = 0; i < numbers.length; i++) {
      numbers[i] = from + i;
    }
    return numbers;
  }

  private static final String[] EDGE_STRINGS = {
    "",
    "a",
    "é",
    "\u00ff",
    "\u07ff",
    "\u0800",
    "中文",
    "\ud7ff",
    "\ue000",
    "\uffff",
    "\ud800\udc00", // U+10000
    "\udbff\udfff", // U+10FFFF
    "😀",
    "𝄞 clef",
    "\u0000",
    "\u007f\u0080",
    "mixed: ascii é 中 😀 \u0000 end",
  };

  private static final double[] EDGE_DOUBLES = {
    0.0,
    -0.0,
    Double.NaN,
    Double.longBitsToDouble(0x7ff8_0000_0000_0001L),
    Double.POSITIVE_INFINITY,
    Double.NEGATIVE_INFINITY,
    Double.MIN_VALUE,
    Double.MIN_NORMAL,
    Double.MAX_VALUE,
    -Double.MAX_VALUE,
    1.5,
    -2.25,
  };

  private static final long[] EDGE_LONGS = {
    0,
    1,
    -1,
    127,
    128,
    Long.MIN_VALUE,
    Long.MAX_VALUE,
    Integer.MIN_VALUE,
    Integer.MAX_VALUE,
    1L << 35,
    -(1L << 40),
  };

  private static final int[] EDGE_INTS = {
    0, 1, -1, 127, 128, 16383, 16384, Integer.MAX_VALUE, Integer.MIN_VALUE,
  };

  /** One generation: a random source, the sizes and the optional shared header pool. */
  private static final class Gen {
    private final Random r;
    private final Sizes sizes;
    private final Headers shared;

    Gen(Random random, Sizes sizes, Headers shared) {
      this.r = random;
      this.sizes = sizes;
      this.shared = shared;
    }

    // Requests.

    ExportTraceServiceRequest traces() {
      ExportTraceServiceRequest.Builder request = ExportTraceServiceRequest.newBuilder();
      Header<Resource> previous = null;
      for (int i = 0, n = count(sizes.maxResources()); i < n; i++) {
        Header<Resource> header = resourceHeader(previous);
        previous = header;
        ResourceSpans.Builder block = ResourceSpans.newBuilder();
        if (header.message() != null) {
          block.setResource(header.message());
        }
        block.setSchemaUrl(header.schemaUrl()).setUnknownFields(header.unknown());
        if (!chance(sizes.emptyResourceChance())) {
          Header<InstrumentationScope> previousScope = null;
          for (int s = 0, scopes = 1 + r.nextInt(Math.max(1, sizes.maxScopes())); s < scopes; s++) {
            Header<InstrumentationScope> scopeHeader = scopeHeader(previousScope);
            previousScope = scopeHeader;
            ScopeSpans.Builder scope = ScopeSpans.newBuilder();
            if (scopeHeader.message() != null) {
              scope.setScope(scopeHeader.message());
            }
            scope.setSchemaUrl(scopeHeader.schemaUrl()).setUnknownFields(scopeHeader.unknown());
            for (int k = 0, items = itemCount(); k < items; k++) {
              scope.addSpans(span());
            }
            block.addScopeSpans(scope);
          }
        }
        request.addResourceSpans(block);
      }
      requestUnknownFields(request);
      return request.build();
    }

    ExportLogsServiceRequest logs() {
      ExportLogsServiceRequest.Builder request = ExportLogsServiceRequest.newBuilder();
      Header<Resource> previous = null;
      for (int i = 0, n = count(sizes.maxResources()); i < n; i++) {
        Header<Resource> header = resourceHeader(previous);
        previous = header;
        ResourceLogs.Builder block = ResourceLogs.newBuilder();
        if (header.message() != null) {
          block.setResource(header.message());
        }
        block.setSchemaUrl(header.schemaUrl()).setUnknownFields(header.unknown());
        if (!chance(sizes.emptyResourceChance())) {
          Header<InstrumentationScope> previousScope = null;
          for (int s = 0, scopes = 1 + r.nextInt(Math.max(1, sizes.maxScopes())); s < scopes; s++) {
            Header<InstrumentationScope> scopeHeader = scopeHeader(previousScope);
            previousScope = scopeHeader;
            ScopeLogs.Builder scope = ScopeLogs.newBuilder();
            if (scopeHeader.message() != null) {
              scope.setScope(scopeHeader.message());
            }
            scope.setSchemaUrl(scopeHeader.schemaUrl()).setUnknownFields(scopeHeader.unknown());
            for (int k = 0, items = itemCount(); k < items; k++) {
              scope.addLogRecords(logRecord());
            }
            block.addScopeLogs(scope);
          }
        }
        request.addResourceLogs(block);
      }
      requestUnknownFields(request);
      return request.build();
    }

    ExportMetricsServiceRequest metrics() {
      ExportMetricsServiceRequest.Builder request = ExportMetricsServiceRequest.newBuilder();
      Header<Resource> previous = null;
      for (int i = 0, n = count(sizes.maxResources()); i < n; i++) {
        Header<Resource> header = resourceHeader(previous);
        previous = header;
        ResourceMetrics.Builder block = ResourceMetrics.newBuilder();
        if (header.message() != null) {
          block.setResource(header.message());
        }
        block.setSchemaUrl(header.schemaUrl()).setUnknownFields(header.unknown());
        if (!chance(sizes.emptyResourceChance())) {
          Header<InstrumentationScope> previousScope = null;
          for (int s = 0, scopes = 1 + r.nextInt(Math.max(1, sizes.maxScopes())); s < scopes; s++) {
            Header<InstrumentationScope> scopeHeader = scopeHeader(previousScope);
            previousScope = scopeHeader;
            ScopeMetrics.Builder scope = ScopeMetrics.newBuilder();
            if (scopeHeader.message() != null) {
              scope.setScope(scopeHeader.message());
            }
            scope.setSchemaUrl(scopeHeader.schemaUrl()).setUnknownFields(scopeHeader.unknown());
            for (int k = 0, items = itemCount(); k < items; k++) {
              scope.addMetrics(metric());
            }
            block.addScopeMetrics(scope);
          }
        }
        request.addResourceMetrics(block);
      }
      requestUnknownFields(request);
      return request.build();
    }

    private void requestUnknownFields(Message.Builder request) {
      if (chance(sizes.unknownFieldChance() / 2)) {
        request.setUnknownFields(unknownFields(REQUEST_FIELDS));
      }
    }

    /** Mostly 1 to max, sometimes 0. */
    private int count(int max) {
      if (max == 0 || r.nextInt(20) == 0) {
        return 0;
      }
      return 1 + r.nextInt(max);
    }

    private int itemCount() {
      if (chance(sizes.emptyScopeChance())) {
        return 0;
      }
      return 1 + r.nextInt(Math.max(1, sizes.maxItems()));
    }

    // Headers.

    private Header<Resource> resourceHeader(Header<Resource> previous) {
      if (chance(sizes.repeatHeaderChance())) {
        boolean pool = shared != null && !shared.resources().isEmpty();
        if (previous != null && (!pool || r.nextBoolean())) {
          return previous;
        }
        if (pool) {
          return shared.resources().get(r.nextInt(shared.resources().size()));
        }
      }
      return freshResourceHeader();
    }

    private Header<InstrumentationScope> scopeHeader(Header<InstrumentationScope> previous) {
      if (chance(sizes.repeatHeaderChance())) {
        boolean pool = shared != null && !shared.scopes().isEmpty();
        if (previous != null && (!pool || r.nextBoolean())) {
          return previous;
        }
        if (pool) {
          return shared.scopes().get(r.nextInt(shared.scopes().size()));
        }
      }
      return freshScopeHeader();
    }

    Header<Resource> freshResourceHeader() {
      Resource resource = r.nextInt(10) == 0 ? null : resource();
      return new Header<>(resource, schemaUrl(), maybeUnknown(BLOCK_FIELDS));
    }

    Header<InstrumentationScope> freshScopeHeader() {
      InstrumentationScope scope = r.nextInt(10) == 0 ? null : scope();
      return new Header<>(scope, schemaUrl(), maybeUnknown(BLOCK_FIELDS));
    }

    private String schemaUrl() {
      switch (r.nextInt(4)) {
        case 0:
          return "";
        case 1:
          return "https://opentelemetry.io/schemas/1." + r.nextInt(40) + ".0";
        default:
          return string();
      }
    }

    Resource resource() {
      Resource.Builder resource = Resource.newBuilder().addAllAttributes(attributes());
      if (r.nextBoolean()) {
        resource.setDroppedAttributesCount(uint32());
      }
      for (int i = 0, n = r.nextInt(3); i < n; i++) {
        resource.addEntityRefs(entityRef());
      }
      return resource.setUnknownFields(maybeUnknown(RESOURCE_FIELDS)).build();
    }

    private EntityRef entityRef() {
      EntityRef.Builder ref = EntityRef.newBuilder().setSchemaUrl(schemaUrl()).setType(string());
      for (int i = 0, n = r.nextInt(4); i < n; i++) {
        ref.addIdKeys(string());
      }
      for (int i = 0, n = r.nextInt(3); i < n; i++) {
        ref.addDescriptionKeys(string());
      }
      return ref.build();
    }

    InstrumentationScope scope() {
      InstrumentationScope.Builder scope =
          InstrumentationScope.newBuilder()
              .setName(string())
              .setVersion(string())
              .addAllAttributes(attributes());
      if (r.nextBoolean()) {
        scope.setDroppedAttributesCount(uint32());
      }
      return scope.setUnknownFields(maybeUnknown(SCOPE_FIELDS)).build();
    }

    // Common values.

    List<KeyValue> attributes() {
      List<KeyValue> attributes = new ArrayList<>();
      for (int i = 0, n = r.nextInt(sizes.maxAttributes() + 1); i < n; i++) {
        attributes.add(keyValue(0));
      }
      return attributes;
    }

    KeyValue keyValue(int depth) {
      KeyValue.Builder kv = KeyValue.newBuilder().setKey(string());
      if (r.nextInt(10) != 0) {
        kv.setValue(anyValue(depth));
      }
      if (r.nextInt(8) == 0) {
        kv.setKeyStrindex(int32());
      }
      return kv.build();
    }

    AnyValue anyValue(int depth) {
      AnyValue.Builder value = AnyValue.newBuilder();
      int kinds = depth < sizes.maxValueDepth() ? 11 : 9;
      switch (r.nextInt(kinds)) {
        case 0:
          return value.setStringValue(string()).build();
        case 1:
          return value.setStringValue(EDGE_STRINGS[r.nextInt(EDGE_STRINGS.length)]).build();
        case 2:
          return value.setBoolValue(r.nextBoolean()).build();
        case 3:
          return value.setIntValue(int64()).build();
        case 4:
          return value.setDoubleValue(float64()).build();
        case 5:
          return value.setBytesValue(bytes(r.nextInt(24))).build();
        case 6:
          return value.setStringValueStrindex(int32()).build();
        case 7:
          // No value at all: the oneof left unset.
          return value.build();
        case 8:
          return value.setStringValue("").build();
        case 9:
          {
            ArrayValue.Builder array = ArrayValue.newBuilder();
            for (int i = 0, n = r.nextInt(4); i < n; i++) {
              array.addValues(anyValue(depth + 1));
            }
            return value.setArrayValue(array).build();
          }
        default:
          {
            KeyValueList.Builder list = KeyValueList.newBuilder();
            for (int i = 0, n = r.nextInt(4); i < n; i++) {
              list.addValues(keyValue(depth + 1));
            }
            return value.setKvlistValue(list).build();
          }
      }
    }

    String string() {
      int kind = r.nextInt(8);
      if (kind == 0) {
        return "";
      }
      if (kind == 1) {
        return EDGE_STRINGS[r.nextInt(EDGE_STRINGS.length)];
      }
      StringBuilder s = new StringBuilder();
      for (int i = 0, n = 1 + r.nextInt(12); i < n; i++) {
        int cp;
        switch (r.nextInt(10)) {
          case 0:
            cp = 0x80 + r.nextInt(0x800 - 0x80);
            break;
          case 1:
            cp = 0x800 + r.nextInt(0xD800 - 0x800);
            break;
          case 2:
            cp = 0xE000 + r.nextInt(0x10000 - 0xE000);
            break;
          case 3:
            cp = 0x10000 + r.nextInt(0x110000 - 0x10000);
            break;
          default:
            cp = 0x20 + r.nextInt(0x7F - 0x20);
        }
        s.appendCodePoint(cp);
      }
      return s.toString();
    }

    private ByteString bytes(int length) {
      byte[] b = new byte[length];
      r.nextBytes(b);
      return ByteString.copyFrom(b);
    }

    /** A 16-byte trace ID, sometimes all zeros, sometimes empty. */
    private ByteString traceId() {
      int kind = r.nextInt(10);
      if (kind == 0) {
        return ByteString.EMPTY;
      }
      return kind == 1 ? ByteString.copyFrom(new byte[16]) : bytes(16);
    }

    /** An 8-byte span ID, sometimes empty. */
    private ByteString spanId() {
      return r.nextInt(8) == 0 ? ByteString.EMPTY : bytes(8);
    }

    private long int64() {
      return r.nextInt(3) == 0 ? EDGE_LONGS[r.nextInt(EDGE_LONGS.length)] : r.nextLong();
    }

    private int int32() {
      return r.nextInt(3) == 0 ? EDGE_INTS[r.nextInt(EDGE_INTS.length)] : r.nextInt(1000);
    }

    /** A uint32, large values (written as 5-byte varints) included. */
    private int uint32() {
      return r.nextInt(3) == 0 ? EDGE_INTS[r.nextInt(EDGE_INTS.length)] : r.nextInt(200);
    }

    private double float64() {
      return r.nextInt(3) == 0
          ? EDGE_DOUBLES[r.nextInt(EDGE_DOUBLES.length)]
          : r.nextGaussian() * 1e6;
    }

    private long timestamp() {
      switch (r.nextInt(5)) {
        case 0:
          return 0;
        case 1:
          return r.nextLong();
        default:
          return 1_700_000_000_000_000_000L + (r.nextLong() & 0xFF_FFFF_FFFFL);
      }
    }

    /** An enum number: mostly a declared one, sometimes one the enum does not declare. */
    private int enumValue(int declared) {
      int kind = r.nextInt(12);
      if (kind == 0) {
        return declared + r.nextInt(100);
      }
      if (kind == 1) {
        return -1 - r.nextInt(3);
      }
      return r.nextInt(declared);
    }

    private UnknownFieldSet maybeUnknown(int[] known) {
      return chance(sizes.unknownFieldChance())
          ? unknownFields(known)
          : UnknownFieldSet.getDefaultInstance();
    }

    UnknownFieldSet unknownFields(int[] known) {
      UnknownFieldSet.Builder set = UnknownFieldSet.newBuilder();
      for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
        set.mergeField(unusedFieldNumber(known), unknownField(0));
      }
      return set.build();
    }

    private UnknownFieldSet.Field unknownField(int depth) {
      UnknownFieldSet.Field.Builder field = UnknownFieldSet.Field.newBuilder();
      switch (r.nextInt(depth < 2 ? 5 : 4)) {
        case 0:
          return field.addVarint(int64()).build();
        case 1:
          return field.addFixed32(r.nextInt()).build();
        case 2:
          return field.addFixed64(r.nextLong()).build();
        case 3:
          return field.addLengthDelimited(bytes(r.nextInt(12))).build();
        default:
          {
            UnknownFieldSet.Builder group = UnknownFieldSet.newBuilder();
            for (int i = 0, n = r.nextInt(3); i < n; i++) {
              group.mergeField(1 + r.nextInt(20), unknownField(depth + 1));
            }
            return field.addGroup(group.build()).build();
          }
      }
    }

    /**
     * A field number the message does not declare: a gap between declared numbers, one just above
     * them, a large one, or the largest protobuf allows.
     */
    private int unusedFieldNumber(int[] known) {
      int max = Arrays.stream(known).max().orElse(0);
      List<Integer> gaps = new ArrayList<>();
      for (int n = 1; n < max; n++) {
        final int candidate = n;
        if (Arrays.stream(known).noneMatch(k -> k == candidate)) {
          gaps.add(n);
        }
      }
      int kind = r.nextInt(10);
      if (kind < 2 && !gaps.isEmpty()) {
        return gaps.get(r.nextInt(gaps.size()));
      }
      if (kind < 7) {
        return max + 1 + r.nextInt(4);
      }
      if (kind < 9) {
        return 100 + r.nextInt(5000);
      }
      return (1 << 29) - 1;
    }

    private boolean chance(double p) {
      return p > 0 && r.nextDouble() < p;
    }

    // Traces.

    Span span() {
      Span.Builder span =
          Span.newBuilder()
              .setTraceId(traceId())
              .setSpanId(spanId())
              .setTraceState(r.nextBoolean() ? "" : "k=" + string())
              .setParentSpanId(spanId())
              .setFlags(r.nextInt(3) == 0 ? r.nextInt() : r.nextInt(0x300))
              .setName(string())
              .setKindValue(enumValue(6))
              .setStartTimeUnixNano(timestamp())
              .setEndTimeUnixNano(timestamp())
              .addAllAttributes(attributes());
      if (r.nextBoolean()) {
        span.setDroppedAttributesCount(uint32());
      }
      for (int i = 0, n = r.nextInt(3); i < n; i++) {
        span.addEvents(
            Span.Event.newBuilder()
                .setTimeUnixNano(timestamp())
                .setName(string())
                .addAllAttributes(attributes())
                .setDroppedAttributesCount(r.nextBoolean() ? 0 : uint32())
                .setUnknownFields(maybeUnknown(EVENT_FIELDS)));
      }
      if (r.nextBoolean()) {
        span.setDroppedEventsCount(uint32());
      }
      for (int i = 0, n = r.nextInt(3); i < n; i++) {
        span.addLinks(
            Span.Link.newBuilder()
                .setTraceId(traceId())
                .setSpanId(spanId())
                .setTraceState(r.nextBoolean() ? "" : string())
                .addAllAttributes(attributes())
                .setDroppedAttributesCount(r.nextBoolean() ? 0 : uint32())
                .setFlags(r.nextInt(3) == 0 ? r.nextInt() : r.nextInt(0x300))
                .setUnknownFields(maybeUnknown(LINK_FIELDS)));
      }
      if (r.nextBoolean()) {
        span.setDroppedLinksCount(uint32());
      }
      if (r.nextInt(4) != 0) {
        span.setStatus(
            Status.newBuilder()
                .setMessage(r.nextBoolean() ? "" : string())
                .setCodeValue(enumValue(3))
                .setUnknownFields(maybeUnknown(STATUS_FIELDS)));
      }
      return span.setUnknownFields(maybeUnknown(SPAN_FIELDS)).build();
    }

    // Logs.

    LogRecord logRecord() {
      LogRecord.Builder log =
          LogRecord.newBuilder()
              .setTimeUnixNano(timestamp())
              .setObservedTimeUnixNano(timestamp())
              .setSeverityNumberValue(enumValue(25))
              .setSeverityText(r.nextBoolean() ? "" : string())
              .addAllAttributes(attributes())
              .setFlags(r.nextInt(3) == 0 ? r.nextInt() : r.nextInt(2))
              .setTraceId(traceId())
              .setSpanId(spanId())
              .setEventName(r.nextBoolean() ? "" : string());
      if (r.nextInt(5) != 0) {
        log.setBody(anyValue(0));
      }
      if (r.nextBoolean()) {
        log.setDroppedAttributesCount(uint32());
      }
      return log.setUnknownFields(maybeUnknown(LOG_FIELDS)).build();
    }

    // Metrics.

    Metric metric() {
      Metric.Builder metric =
          Metric.newBuilder()
              .setName(string())
              .setDescription(r.nextBoolean() ? "" : string())
              .setUnit(r.nextBoolean() ? "" : string());
      for (int i = 0, n = r.nextInt(3); i < n; i++) {
        metric.addMetadata(keyValue(0));
      }
      int points = r.nextInt(6) == 0 ? 0 : 1 + r.nextInt(Math.max(1, sizes.maxDataPoints()));
      switch (r.nextInt(11)) {
        case 0:
          // No data field at all.
          break;
        case 1:
        case 2:
          {
            Gauge.Builder gauge = Gauge.newBuilder();
            for (int i = 0; i < points; i++) {
              gauge.addDataPoints(numberPoint());
            }
            metric.setGauge(gauge.setUnknownFields(maybeUnknown(GAUGE_FIELDS)));
            break;
          }
        case 3:
        case 4:
          {
            Sum.Builder sum =
                Sum.newBuilder()
                    .setAggregationTemporalityValue(enumValue(3))
                    .setIsMonotonic(r.nextBoolean());
            for (int i = 0; i < points; i++) {
              sum.addDataPoints(numberPoint());
            }
            metric.setSum(sum.setUnknownFields(maybeUnknown(SUM_FIELDS)));
            break;
          }
        case 5:
        case 6:
          {
            Histogram.Builder histogram =
                Histogram.newBuilder().setAggregationTemporalityValue(enumValue(3));
            for (int i = 0; i < points; i++) {
              histogram.addDataPoints(histogramPoint());
            }
            metric.setHistogram(histogram.setUnknownFields(maybeUnknown(HISTOGRAM_FIELDS)));
            break;
          }
        case 7:
        case 8:
          {
            ExponentialHistogram.Builder histogram =
                ExponentialHistogram.newBuilder().setAggregationTemporalityValue(enumValue(3));
            for (int i = 0; i < points; i++) {
              histogram.addDataPoints(exponentialHistogramPoint());
            }
            metric.setExponentialHistogram(
                histogram.setUnknownFields(maybeUnknown(HISTOGRAM_FIELDS)));
            break;
          }
        default:
          {
            Summary.Builder summary = Summary.newBuilder();
            for (int i = 0; i < points; i++) {
              summary.addDataPoints(summaryPoint());
            }
            metric.setSummary(summary.setUnknownFields(maybeUnknown(GAUGE_FIELDS)));
          }
      }
      return metric.setUnknownFields(maybeUnknown(METRIC_FIELDS)).build();
    }

    private int pointFlags() {
      return r.nextInt(3) == 0 ? uint32() : r.nextInt(2);
    }

    NumberDataPoint numberPoint() {
      NumberDataPoint.Builder point =
          NumberDataPoint.newBuilder()
              .addAllAttributes(attributes())
              .setStartTimeUnixNano(timestamp())
              .setTimeUnixNano(timestamp())
              .setFlags(pointFlags());
      switch (r.nextInt(5)) {
        case 0:
          break;
        case 1:
        case 2:
          point.setAsInt(int64());
          break;
        default:
          point.setAsDouble(float64());
      }
      for (int i = 0, n = r.nextInt(3); i < n; i++) {
        point.addExemplars(exemplar());
      }
      return point.setUnknownFields(maybeUnknown(NUMBER_POINT_FIELDS)).build();
    }

    private Exemplar exemplar() {
      Exemplar.Builder exemplar =
          Exemplar.newBuilder()
              .addAllFilteredAttributes(attributes())
              .setTimeUnixNano(timestamp())
              .setSpanId(spanId())
              .setTraceId(traceId());
      switch (r.nextInt(5)) {
        case 0:
          break;
        case 1:
        case 2:
          exemplar.setAsInt(int64());
          break;
        default:
          exemplar.setAsDouble(float64());
      }
      return exemplar.setUnknownFields(maybeUnknown(EXEMPLAR_FIELDS)).build();
    }

    HistogramDataPoint histogramPoint() {
      HistogramDataPoint.Builder point =
          HistogramDataPoint.newBuilder()
              .addAllAttributes(attributes())
              .setStartTimeUnixNano(timestamp())
              .setTimeUnixNano(timestamp())
              .setCount(r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(1000))
              .setFlags(pointFlags());
      if (r.nextBoolean()) {
        point.setSum(float64());
      }
      int bounds = r.nextInt(5);
      if (r.nextInt(5) != 0) {
        for (int i = 0; i <= bounds; i++) {
          point.addBucketCounts(r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(100));
        }
      }
      for (int i = 0; i < bounds; i++) {
        point.addExplicitBounds(i == 0 ? float64() : i * 10.5);
      }
      for (int i = 0, n = r.nextInt(3); i < n; i++) {
        point.addExemplars(exemplar());
      }
      if (r.nextBoolean()) {
        point.setMin(float64());
      }
      if (r.nextBoolean()) {
        point.setMax(float64());
      }
      return point.setUnknownFields(maybeUnknown(HISTOGRAM_POINT_FIELDS)).build();
    }

    ExponentialHistogramDataPoint exponentialHistogramPoint() {
      ExponentialHistogramDataPoint.Builder point =
          ExponentialHistogramDataPoint.newBuilder()
              .addAllAttributes(attributes())
              .setStartTimeUnixNano(timestamp())
              .setTimeUnixNano(timestamp())
              .setCount(r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(1000))
              .setScale(
                  r.nextInt(4) == 0 ? EDGE_INTS[r.nextInt(EDGE_INTS.length)] : r.nextInt(31) - 10)
              .setZeroCount(r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(10))
              .setFlags(pointFlags());
      if (r.nextBoolean()) {
        point.setSum(float64());
      }
      if (r.nextInt(4) != 0) {
        point.setPositive(buckets());
      }
      if (r.nextInt(4) != 0) {
        point.setNegative(buckets());
      }
      for (int i = 0, n = r.nextInt(3); i < n; i++) {
        point.addExemplars(exemplar());
      }
      if (r.nextBoolean()) {
        point.setMin(float64());
      }
      if (r.nextBoolean()) {
        point.setMax(float64());
      }
      if (r.nextBoolean()) {
        point.setZeroThreshold(float64());
      }
      return point.setUnknownFields(maybeUnknown(EXP_HISTOGRAM_POINT_FIELDS)).build();
    }

    private ExponentialHistogramDataPoint.Buckets buckets() {
      ExponentialHistogramDataPoint.Buckets.Builder buckets =
          ExponentialHistogramDataPoint.Buckets.newBuilder()
              .setOffset(
                  r.nextInt(4) == 0 ? EDGE_INTS[r.nextInt(EDGE_INTS.length)] : r.nextInt(41) - 20);
      for (int i = 0, n = r.nextInt(5); i < n; i++) {
        buckets.addBucketCounts(r.nextInt(4) == 0 ? int64() : r.nextInt(100));
      }
      return buckets.build();
    }

    SummaryDataPoint summaryPoint() {
      SummaryDataPoint.Builder point =
          SummaryDataPoint.newBuilder()
              .addAllAttributes(attributes())
              .setStartTimeUnixNano(timestamp())
              .setTimeUnixNano(timestamp())
              .setCount(r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(1000))
              .setSum(float64())
              .setFlags(pointFlags());
      for (int i = 0, n = r.nextInt(4); i < n; i++) {
        point.addQuantileValues(
            SummaryDataPoint.ValueAtQuantile.newBuilder()
                .setQuantile(i == 0 ? float64() : i * 0.25)
                .setValue(float64()));
      }
      return point.setUnknownFields(maybeUnknown(SUMMARY_POINT_FIELDS)).build();
    }
  }
}
