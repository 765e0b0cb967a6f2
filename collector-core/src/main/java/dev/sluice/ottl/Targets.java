package dev.sluice.ottl;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.internal.OtlpFields.ExponentialHistogramDataPoint;
import dev.sluice.pdata.internal.OtlpFields.HistogramDataPoint;
import dev.sluice.pdata.internal.OtlpFields.InstrumentationScope;
import dev.sluice.pdata.internal.OtlpFields.KeyValueList;
import dev.sluice.pdata.internal.OtlpFields.LogRecord;
import dev.sluice.pdata.internal.OtlpFields.Metric;
import dev.sluice.pdata.internal.OtlpFields.NumberDataPoint;
import dev.sluice.pdata.internal.OtlpFields.Resource;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.OtlpFields.SpanEvent;
import dev.sluice.pdata.internal.OtlpFields.Status;
import dev.sluice.pdata.internal.OtlpFields.SummaryDataPoint;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The paths a statement can write in each context, and what writing one does: which message it
 * re-encodes ({@link Host}) and which field of it. Resolved when the statement is compiled, so that
 * a path this build cannot write is refused then, with what can be written instead.
 */
final class Targets {
  /** How a field holds its value. */
  enum Kind {
    STRING,
    /** An enum or int32 varint. */
    INT,
    /** A {@code uint32} varint: an int is written as Go converts it, to its low 32 bits. */
    UINT32,
    /** A {@code fixed64} (a time in Unix nanoseconds). */
    FIXED64,
    /** An {@code AnyValue} message ({@code body}). */
    ANY,
    /** A repeated {@code KeyValue} field, as a whole. */
    MAP,
    /** One key of a repeated {@code KeyValue} field. */
    ENTRY,
    /** A value at depth below one key of a repeated {@code KeyValue} field. */
    NESTED_ENTRY,
    /** A value at depth inside an {@code AnyValue} field ({@code body["k"]}). */
    NESTED_ANY
  }

  /** A writable field: in which message, which field number, nested in which field (or 0). */
  record Field(Host host, Kind kind, int number, int parent) {}

  /** The cache's entries: it is held as a {@code KeyValueList}. */
  static final int CACHE_ENTRIES = KeyValueList.VALUES;

  private Targets() {}

  /** The fields of an object that a statement may write, when the object is the context's own. */
  private static Map<String, Field> own(OttlContext object) {
    Map<String, Field> f = new LinkedHashMap<>();
    switch (object) {
      case SPAN -> {
        f.put("attributes", new Field(Host.ITEM, Kind.MAP, 0, 0));
        f.put("name", new Field(Host.ITEM, Kind.STRING, Span.NAME, 0));
        f.put("kind", new Field(Host.ITEM, Kind.INT, Span.KIND, 0));
        f.put("trace_state", new Field(Host.ITEM, Kind.STRING, Span.TRACE_STATE, 0));
        f.put("status.code", new Field(Host.ITEM, Kind.INT, Status.CODE, Span.STATUS));
        f.put("status.message", new Field(Host.ITEM, Kind.STRING, Status.MESSAGE, Span.STATUS));
      }
      case SPANEVENT -> {
        f.put("attributes", new Field(Host.SPANEVENT, Kind.MAP, SpanEvent.ATTRIBUTES, 0));
        f.put("name", new Field(Host.SPANEVENT, Kind.STRING, SpanEvent.NAME, 0));
        f.put(
            "time_unix_nano", new Field(Host.SPANEVENT, Kind.FIXED64, SpanEvent.TIME_UNIX_NANO, 0));
        f.put(
            "dropped_attributes_count",
            new Field(Host.SPANEVENT, Kind.UINT32, SpanEvent.DROPPED_ATTRIBUTES_COUNT, 0));
      }
      case LOG -> {
        f.put("attributes", new Field(Host.ITEM, Kind.MAP, 0, 0));
        f.put("body", new Field(Host.ITEM, Kind.ANY, LogRecord.BODY, 0));
        f.put("severity_text", new Field(Host.ITEM, Kind.STRING, LogRecord.SEVERITY_TEXT, 0));
        f.put("severity_number", new Field(Host.ITEM, Kind.INT, LogRecord.SEVERITY_NUMBER, 0));
      }
      case METRIC -> {
        f.put("name", new Field(Host.METRIC, Kind.STRING, Metric.NAME, 0));
        f.put("description", new Field(Host.METRIC, Kind.STRING, Metric.DESCRIPTION, 0));
        f.put("unit", new Field(Host.METRIC, Kind.STRING, Metric.UNIT, 0));
      }
      case DATAPOINT -> f.put("attributes", new Field(Host.ITEM, Kind.MAP, 0, 0));
      default -> {}
    }
    return f;
  }

  /** The fields of the resource and scope, written from any context. */
  private static Map<String, Field> header(OttlContext object) {
    Map<String, Field> f = new LinkedHashMap<>();
    if (object == OttlContext.RESOURCE) {
      f.put("attributes", new Field(Host.RESOURCE, Kind.MAP, Resource.ATTRIBUTES, 0));
    } else if (object == OttlContext.SCOPE) {
      f.put("attributes", new Field(Host.SCOPE, Kind.MAP, InstrumentationScope.ATTRIBUTES, 0));
      f.put("name", new Field(Host.SCOPE, Kind.STRING, InstrumentationScope.NAME, 0));
      f.put("version", new Field(Host.SCOPE, Kind.STRING, InstrumentationScope.VERSION, 0));
    }
    return f;
  }

  private static Map<String, Field> fieldsOf(OttlContext context, OttlContext object) {
    if (object == OttlContext.RESOURCE || object == OttlContext.SCOPE) {
      return header(object);
    }
    // A data point's statements may write its metric too, and a span event's its span, as in the
    // Collector.
    return object == context
            || (object == OttlContext.METRIC && context == OttlContext.DATAPOINT)
            || (object == OttlContext.SPAN && context == OttlContext.SPANEVENT)
        ? own(object)
        : Map.of();
  }

  /** What a statement in {@code context} can write, for messages. */
  static String settable(OttlContext context) {
    List<String> names = new ArrayList<>();
    for (OttlContext object : Paths.reachableFrom(context)) {
      String prefix = object == context ? "" : object.pathName() + ".";
      for (Map.Entry<String, Field> e : fieldsOf(context, object).entrySet()) {
        names.add(prefix + e.getKey());
        if (e.getValue().kind() == Kind.MAP) {
          names.add(prefix + e.getKey() + "[\"key\"]");
        }
      }
    }
    names.add("cache");
    names.add("cache[\"key\"]");
    return String.join(", ", names);
  }

  /**
   * The target of an editor's first argument.
   *
   * @param mapOnly whether the editor edits a map ({@code attributes}, {@code cache}) as a whole
   */
  static Target resolve(
      OttlContext context, Ast.Node node, String text, String editor, boolean mapOnly)
      throws OttlException {
    if (!(node instanceof Ast.Path path)) {
      throw OttlException.at(
          text,
          node.at(),
          editor
              + " writes into a path such as "
              + (mapOnly ? "attributes" : "attributes[\"key\"]")
              + ", not a value");
    }
    Expr reader = Paths.resolve(context, path, text);
    List<Ast.Segment> segments = path.segments();
    List<Ast.Key> keys = path.keys();
    Field field;
    String name;
    if (Paths.isCache(path)) {
      field = new Field(Host.CACHE, Kind.MAP, CACHE_ENTRIES, 0);
      name = "cache";
    } else {
      OttlContext object = Paths.objectOf(context, segments.get(0).name());
      int first = object == null ? 0 : 1;
      if (object == null) {
        object = context;
      }
      StringBuilder joined = new StringBuilder();
      for (int i = first; i < segments.size(); i++) {
        joined.append(i > first ? "." : "").append(segments.get(i).name());
      }
      name = joined.toString();
      field = fieldsOf(context, object).get(name);
      if (field == null) {
        throw OttlException.at(
            text,
            path.at(),
            "'"
                + OttlException.shown(path.describe())
                + "' cannot be written in the "
                + context.pathName()
                + " context; this build can set "
                + settable(context));
      }
    }
    if (field.kind() == Kind.MAP) {
      if (!keys.isEmpty()) {
        // A map editor of a map inside a value edits that map and sets it back at its place.
        byte[] key = keys.get(0).name().getBytes(StandardCharsets.UTF_8);
        Kind kind = keys.size() == 1 ? Kind.ENTRY : Kind.NESTED_ENTRY;
        return new Target(
            path.describe(),
            mapOnly ? OttlType.MAP : OttlType.ANY,
            new Field(field.host(), kind, field.number(), 0),
            key,
            reader,
            keys.subList(1, keys.size()),
            mapOnly);
      }
      return new Target(path.describe(), OttlType.MAP, field, null, reader, List.of(), false);
    }
    if (mapOnly) {
      throw OttlException.at(
          text,
          path.at(),
          editor + " takes a map such as attributes, found '" + OttlException.shown(name) + "'");
    }
    if (!keys.isEmpty()) {
      if (field.kind() != Kind.ANY) {
        throw OttlException.at(
            text, keys.get(0).at(), "'" + name + "' is written as a whole, without keys");
      }
      return new Target(
          path.describe(),
          OttlType.ANY,
          new Field(field.host(), Kind.NESTED_ANY, field.number(), field.parent()),
          null,
          reader,
          keys,
          false);
    }
    OttlType type =
        switch (field.kind()) {
          case STRING -> OttlType.STRING;
          case INT, UINT32, FIXED64 -> OttlType.INT;
          default -> OttlType.ANY;
        };
    return new Target(path.describe(), type, field, null, reader, List.of(), false);
  }

  /** The field number of the attributes (or cache entries) of {@code host} for this item. */
  static int attributesField(Field field, EvalContext context) {
    if (field.host() != Host.ITEM) {
      return field.number();
    }
    BatchItem item = context.editable();
    return switch (item.signal()) {
      case TRACES -> Span.ATTRIBUTES;
      case LOGS -> LogRecord.ATTRIBUTES;
      case METRICS ->
          switch (item.metricDataField()) {
            case Metric.HISTOGRAM -> HistogramDataPoint.ATTRIBUTES;
            case Metric.EXPONENTIAL_HISTOGRAM -> ExponentialHistogramDataPoint.ATTRIBUTES;
            case Metric.SUMMARY -> SummaryDataPoint.ATTRIBUTES;
            default -> NumberDataPoint.ATTRIBUTES;
          };
    };
  }
}
