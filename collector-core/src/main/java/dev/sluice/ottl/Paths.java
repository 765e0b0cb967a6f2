package dev.sluice.ottl;

import dev.sluice.pdata.internal.RawMessages;
import dev.sluice.pdata.view.SpanView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The paths this build reads, per kind of object (resource, scope, span, span event, metric, data
 * point, log record), and how a path written in a statement is resolved in a context: with its
 * object's prefix ({@code span.name}, {@code resource.attributes["k"]}, {@code scope.version}) or,
 * for the context's own object, without ({@code name}).
 */
final class Paths {
  /** How to make the expression of a path from the keys written after it. */
  interface Factory {
    Expr make(List<Ast.Key> keys, String path);
  }

  /** A field: whether keys may follow it, and how to read it. */
  record Field(boolean takesKeys, Factory factory) {}

  private static final Map<OttlContext, Map<String, Field>> FIELDS =
      new EnumMap<>(OttlContext.class);

  static {
    FIELDS.put(OttlContext.RESOURCE, resourceFields());
    FIELDS.put(OttlContext.SCOPE, scopeFields());
    FIELDS.put(OttlContext.SPAN, spanFields());
    FIELDS.put(OttlContext.SPANEVENT, spanEventFields());
    FIELDS.put(OttlContext.METRIC, metricFields());
    FIELDS.put(OttlContext.DATAPOINT, dataPointFields());
    FIELDS.put(OttlContext.LOG, logFields());
  }

  private Paths() {}

  /** Compiles {@code path} in {@code context}. */
  static Expr resolve(OttlContext context, Ast.Path path, String text) throws OttlException {
    List<Ast.Segment> segments = path.segments();
    if (isCache(path)) {
      if (!path.keys().isEmpty() && path.keys().get(0).isIndex()) {
        throw OttlException.at(
            text, path.keys().get(0).at(), "the cache is indexed by string keys");
      }
      return PathExprs.Lookup.ofAttributes(
          (c, cursor) ->
              RawMessages.entries(
                  cursor, c.cache().array(), 0, c.cache().size(), Targets.CACHE_ENTRIES),
          path.keys(),
          path.describe());
    }
    OttlContext object = objectOf(context, segments.get(0).name());
    int first = object == null ? 0 : 1;
    if (object == null) {
      object = context;
    }
    if (first == segments.size()) {
      throw OttlException.at(
          text,
          path.at(),
          "'"
              + OttlException.shown(path.describe())
              + "' needs a field: "
              + object.pathName()
              + " has "
              + names(object));
    }
    StringBuilder name = new StringBuilder();
    for (int i = first; i < segments.size(); i++) {
      if (i > first) {
        name.append('.');
      }
      name.append(segments.get(i).name());
    }
    Field field = FIELDS.get(object).get(name.toString());
    if (field == null) {
      throw OttlException.at(
          text,
          segments.get(first).at(),
          "unknown path '"
              + OttlException.shown(path.describe())
              + "' in the "
              + context.pathName()
              + " context; this build reads "
              + object.pathName()
              + " paths "
              + names(object)
              + reachable(context));
    }
    if (!field.takesKeys() && !path.keys().isEmpty()) {
      throw OttlException.at(
          text,
          path.keys().get(0).at(),
          "'" + OttlException.shown(name.toString()) + "' takes no keys");
    }
    if (field.takesKeys()
        && !path.keys().isEmpty()
        && path.keys().get(0).isIndex()
        && name.toString().endsWith("attributes")) {
      throw OttlException.at(
          text, path.keys().get(0).at(), "attributes are indexed by string keys");
    }
    return field.factory().make(path.keys(), path.describe());
  }

  /** {@code cache} and {@code cache[...]}: the statements' per-item map. */
  static boolean isCache(Ast.Path path) {
    return path.segments().size() == 1 && path.segments().get(0).name().equals("cache");
  }

  /**
   * A capitalised name alone ({@code Murmur3Hash}): a converter named as an argument (the replace
   * editors' function), never a path, as in the Collector's grammar.
   */
  static boolean isConverterName(Ast.Path path) {
    return path.segments().size() == 1
        && path.keys().isEmpty()
        && Character.isUpperCase(path.segments().get(0).name().charAt(0));
  }

  /** The object a path's first name selects in {@code context}, or null for the context's own. */
  static OttlContext objectOf(OttlContext context, String first) {
    OttlContext named =
        switch (first) {
          case "resource" -> OttlContext.RESOURCE;
          case "scope", "instrumentation_scope" -> OttlContext.SCOPE;
          case "span" -> OttlContext.SPAN;
          case "spanevent" -> OttlContext.SPANEVENT;
          case "metric" -> OttlContext.METRIC;
          case "datapoint" -> OttlContext.DATAPOINT;
          case "log" -> OttlContext.LOG;
          default -> null;
        };
    return named != null && reachableFrom(context).contains(named) ? named : null;
  }

  /** The objects a context's paths reach: its own and those around it. */
  static List<OttlContext> reachableFrom(OttlContext context) {
    return switch (context) {
      case RESOURCE -> List.of(OttlContext.RESOURCE);
      case SCOPE -> List.of(OttlContext.SCOPE, OttlContext.RESOURCE);
      case SPAN, METRIC, LOG -> List.of(context, OttlContext.SCOPE, OttlContext.RESOURCE);
      case SPANEVENT ->
          List.of(OttlContext.SPANEVENT, OttlContext.SPAN, OttlContext.SCOPE, OttlContext.RESOURCE);
      case DATAPOINT ->
          List.of(
              OttlContext.DATAPOINT, OttlContext.METRIC, OttlContext.SCOPE, OttlContext.RESOURCE);
    };
  }

  private static String reachable(OttlContext context) {
    List<String> others = new ArrayList<>();
    for (OttlContext o : reachableFrom(context)) {
      if (o != context) {
        others.add(
            o == OttlContext.SCOPE ? "scope. (or instrumentation_scope.)" : o.pathName() + ".");
      }
    }
    return others.isEmpty() ? "" : "; with a prefix also those of " + String.join(", ", others);
  }

  static String names(OttlContext object) {
    return String.join(", ", FIELDS.get(object).keySet());
  }

  private static Field text(PathExprs.TextField field) {
    return new Field(false, (keys, path) -> new PathExprs.Text(field));
  }

  private static Field integer(PathExprs.LongField field) {
    return new Field(false, (keys, path) -> new PathExprs.Int(field));
  }

  private static Field decimal(PathExprs.DoubleField field) {
    return new Field(false, (keys, path) -> new PathExprs.Double(field));
  }

  private static Field attributes(PathExprs.AttributesField field) {
    return new Field(true, (keys, path) -> PathExprs.Lookup.ofAttributes(field, keys, path));
  }

  private static void id(
      Map<String, Field> fields, String name, PathExprs.IdField field, int idBytes) {
    fields.put(name, new Field(false, (keys, path) -> new PathExprs.Id(field, idBytes, false)));
    fields.put(
        name + ".string", new Field(false, (keys, path) -> new PathExprs.Id(field, idBytes, true)));
  }

  private static Map<String, Field> resourceFields() {
    Map<String, Field> f = new LinkedHashMap<>();
    f.put("attributes", attributes((c, cursor) -> c.resource().attributes(cursor)));
    f.put("dropped_attributes_count", integer(c -> c.resource().droppedAttributesCount()));
    f.put("schema_url", text(c -> c.resource().schemaUrl()));
    return Collections.unmodifiableMap(f);
  }

  private static Map<String, Field> scopeFields() {
    Map<String, Field> f = new LinkedHashMap<>();
    f.put("name", text(c -> c.scope().name()));
    f.put("version", text(c -> c.scope().version()));
    f.put("attributes", attributes((c, cursor) -> c.scope().attributes(cursor)));
    f.put("dropped_attributes_count", integer(c -> c.scope().droppedAttributesCount()));
    f.put("schema_url", text(c -> c.scope().schemaUrl()));
    return Collections.unmodifiableMap(f);
  }

  private static Map<String, Field> spanFields() {
    Map<String, Field> f = new LinkedHashMap<>();
    id(f, "trace_id", (c, d) -> c.span.copyTraceId(d), SpanView.TRACE_ID_BYTES);
    id(f, "span_id", (c, d) -> c.span.copySpanId(d), SpanView.SPAN_ID_BYTES);
    id(f, "parent_span_id", (c, d) -> c.span.copyParentSpanId(d), SpanView.SPAN_ID_BYTES);
    f.put("trace_state", text(c -> c.span.traceState()));
    f.put("name", text(c -> c.span.name()));
    f.put("kind", integer(c -> c.span.kind()));
    f.put("start_time_unix_nano", integer(c -> c.span.startTimeUnixNano()));
    f.put("end_time_unix_nano", integer(c -> c.span.endTimeUnixNano()));
    f.put("attributes", attributes((c, cursor) -> c.span.attributes(cursor)));
    f.put("dropped_attributes_count", integer(c -> c.span.droppedAttributesCount()));
    f.put("dropped_events_count", integer(c -> c.span.droppedEventsCount()));
    f.put("dropped_links_count", integer(c -> c.span.droppedLinksCount()));
    f.put("status.code", integer(c -> c.span.statusCode()));
    f.put("status.message", text(c -> c.span.statusMessage()));
    f.put("flags", integer(c -> Integer.toUnsignedLong(c.span.flags())));
    return Collections.unmodifiableMap(f);
  }

  private static Map<String, Field> spanEventFields() {
    Map<String, Field> f = new LinkedHashMap<>();
    f.put("name", text(c -> c.spanEvent.name()));
    f.put("time_unix_nano", integer(c -> c.spanEvent.timeUnixNano()));
    f.put("attributes", attributes((c, cursor) -> c.spanEvent.attributes(cursor)));
    f.put("dropped_attributes_count", integer(c -> c.spanEvent.droppedAttributesCount()));
    return Collections.unmodifiableMap(f);
  }

  private static Map<String, Field> metricFields() {
    Map<String, Field> f = new LinkedHashMap<>();
    f.put("name", text(c -> c.metric.name()));
    f.put("description", text(c -> c.metric.description()));
    f.put("unit", text(c -> c.metric.unit()));
    // METRIC_DATA_TYPE_* numbers follow the oneof's order, as MetricType's constants do.
    f.put("type", integer(c -> c.metric.type().ordinal()));
    f.put("aggregation_temporality", integer(c -> c.metric.aggregationTemporality()));
    f.put(
        "is_monotonic",
        new Field(false, (keys, path) -> new PathExprs.Bool(c -> c.metric.isMonotonic())));
    return Collections.unmodifiableMap(f);
  }

  private static Map<String, Field> dataPointFields() {
    Map<String, Field> f = new LinkedHashMap<>();
    f.put("attributes", attributes((c, cursor) -> c.dataPoint.attributes(cursor)));
    f.put("start_time_unix_nano", integer(c -> c.dataPoint.startTimeUnixNano()));
    f.put("time_unix_nano", integer(c -> c.dataPoint.timeUnixNano()));
    f.put("value_double", decimal(c -> c.dataPoint.doubleValue()));
    f.put("value_int", integer(c -> c.dataPoint.intValue()));
    f.put("count", integer(c -> c.dataPoint.count()));
    f.put("sum", decimal(c -> c.dataPoint.sum()));
    f.put("flags", integer(c -> c.dataPoint.flags()));
    return Collections.unmodifiableMap(f);
  }

  private static Map<String, Field> logFields() {
    Map<String, Field> f = new LinkedHashMap<>();
    f.put("time_unix_nano", integer(c -> c.logRecord.timeUnixNano()));
    f.put("observed_time_unix_nano", integer(c -> c.logRecord.observedTimeUnixNano()));
    f.put("severity_number", integer(c -> c.logRecord.severityNumber()));
    f.put("severity_text", text(c -> c.logRecord.severityText()));
    f.put(
        "body",
        new Field(
            true, (keys, path) -> PathExprs.Lookup.ofValue(c -> c.logRecord.body(), keys, path)));
    f.put("attributes", attributes((c, cursor) -> c.logRecord.attributes(cursor)));
    f.put("dropped_attributes_count", integer(c -> c.logRecord.droppedAttributesCount()));
    f.put("flags", integer(c -> Integer.toUnsignedLong(c.logRecord.flags())));
    id(f, "trace_id", (c, d) -> c.logRecord.copyTraceId(d), SpanView.TRACE_ID_BYTES);
    id(f, "span_id", (c, d) -> c.logRecord.copySpanId(d), SpanView.SPAN_ID_BYTES);
    f.put("event_name", text(c -> c.logRecord.eventName()));
    return Collections.unmodifiableMap(f);
  }
}
