package dev.sluice.connector.spanmetrics;

import dev.sluice.pdata.build.ValueWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a series key holds, in order, and how it reads back as data point attributes. A key is the
 * {@link ValueCodec} encoding of: the service name, the span name, a kind byte and a status byte
 * (each unless excluded), the instrumentation scope (a byte: 1 and its name and version when its
 * name is one of {@code include_instrumentation_scope}, else 0), the sampling method byte (with
 * {@code enable_metrics_sampling_method}), then one value per dimension of the metric ({@link
 * ValueCodec.Tag#ABSENT} when the span, its resource and the default give none). Equal attributes
 * make equal keys, so series are told apart by their bytes.
 */
final class KeyLayout {
  static final String SERVICE_NAME = "service.name";
  static final String SPAN_NAME = "span.name";
  static final String SPAN_KIND = "span.kind";
  static final String STATUS_CODE = "status.code";
  static final String COLLECTOR_INSTANCE_ID = "collector.instance.id";
  static final String SCOPE_NAME = "span.instrumentation.scope.name";
  static final String SCOPE_VERSION = "span.instrumentation.scope.version";
  static final String SAMPLING_METHOD = "sampling.method";
  static final String OVERFLOW = "otel.metric.overflow";

  /** Span kinds by number, as the Collector writes them; unknown kinds are the empty string. */
  static final String[] KINDS = {
    "SPAN_KIND_UNSPECIFIED",
    "SPAN_KIND_INTERNAL",
    "SPAN_KIND_SERVER",
    "SPAN_KIND_CLIENT",
    "SPAN_KIND_PRODUCER",
    "SPAN_KIND_CONSUMER",
    ""
  };

  /** Status codes by number; unknown codes are the empty string. */
  static final String[] STATUSES = {"STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR", ""};

  static final byte COUNTED = 0;
  static final byte EXTRAPOLATED = 1;

  /** A dimension of a metric: the index of its name, and its default as an encoded string. */
  record Use(int name, byte[] defaultValue) {}

  final boolean serviceName;
  final boolean spanName;
  final boolean spanKind;
  final boolean statusCode;
  final boolean collectorInstanceId;
  final boolean samplingMethod;

  /** Every dimension name, once: a dimension is looked up by its index here. */
  final String[] names;

  final byte[][] utf8Names;
  final Use[] common;
  final Use[] calls;
  final Use[] duration;
  final Use[] events;

  KeyLayout(SpanMetricsConfig config) {
    List<String> excluded = config.excludeDimensions();
    serviceName = !excluded.contains(SERVICE_NAME);
    spanName = !excluded.contains(SPAN_NAME);
    spanKind = !excluded.contains(SPAN_KIND);
    statusCode = !excluded.contains(STATUS_CODE);
    collectorInstanceId = !excluded.contains(COLLECTOR_INSTANCE_ID);
    samplingMethod = config.enableMetricsSamplingMethod();
    Map<String, Integer> index = new LinkedHashMap<>();
    common = uses(config.dimensions(), index);
    calls = uses(config.callsDimensions(), index);
    duration = uses(config.histogram().dimensions(), index);
    events = config.events().enabled() ? uses(config.events().dimensions(), index) : new Use[0];
    names = index.keySet().toArray(String[]::new);
    utf8Names = new byte[names.length][];
    for (int i = 0; i < names.length; i++) {
      utf8Names[i] = names[i].getBytes(StandardCharsets.UTF_8);
    }
  }

  private static Use[] uses(
      List<SpanMetricsConfig.Dimension> dimensions, Map<String, Integer> index) {
    List<Use> uses = new ArrayList<>();
    for (SpanMetricsConfig.Dimension d : dimensions) {
      int name = index.computeIfAbsent(d.name(), n -> index.size());
      byte[] defaultValue = null;
      if (d.default_() != null) {
        KeyBuffer encoded = new KeyBuffer();
        ValueCodec.writeString(d.default_().getBytes(StandardCharsets.UTF_8), encoded);
        defaultValue = encoded.copy(0);
      }
      uses.add(new Use(name, defaultValue));
    }
    return uses.toArray(Use[]::new);
  }

  /**
   * Writes the attributes a series key holds into {@code out}: the default dimensions, then {@code
   * first}'s and {@code second}'s dimensions that have a value.
   */
  void putAttributes(
      byte[] key, Use[] first, Use[] second, String collectorInstance, ValueWriter out) {
    int p = 0;
    if (serviceName) {
      out.put(SERVICE_NAME, ValueCodec.string(key, p + 1));
      p = ValueCodec.skip(key, p);
    }
    if (spanName) {
      out.put(SPAN_NAME, ValueCodec.string(key, p + 1));
      p = ValueCodec.skip(key, p);
    }
    if (spanKind) {
      out.put(SPAN_KIND, KINDS[key[p++]]);
    }
    if (statusCode) {
      out.put(STATUS_CODE, STATUSES[key[p++]]);
    }
    if (collectorInstanceId) {
      out.put(COLLECTOR_INSTANCE_ID, collectorInstance);
    }
    if (key[p++] != 0) {
      out.put(SCOPE_NAME, ValueCodec.string(key, p + 1));
      p = ValueCodec.skip(key, p);
      String version = ValueCodec.string(key, p + 1);
      p = ValueCodec.skip(key, p);
      if (!version.isEmpty()) {
        out.put(SCOPE_VERSION, version);
      }
    }
    if (samplingMethod) {
      out.put(SAMPLING_METHOD, key[p++] == EXTRAPOLATED ? "extrapolated" : "counted");
    }
    p = putDimensions(key, p, first, out);
    putDimensions(key, p, second, out);
  }

  private int putDimensions(byte[] key, int from, Use[] uses, ValueWriter out) {
    int p = from;
    for (Use use : uses) {
      if (key[p] == ValueCodec.Tag.ABSENT) {
        p++;
      } else {
        p = ValueCodec.put(key, p, names[use.name()], out);
      }
    }
    return p;
  }
}
