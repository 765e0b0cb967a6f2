import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Writes Sluice's OTLP schema from the descriptors that protobuf-java compiled out of
 * opentelemetry-proto: {@code OtlpSchema} (the table the validator, the JSON codec and OTTL walk),
 * {@code OtlpFields} (every field number as a constant, and those of the export responses) and
 * {@code OtlpEnums} (every enum value). Run by the build before compiling; nothing in the output is
 * written by hand.
 *
 * <p>Usage: {@code java -cp <classpath> SchemaGenerator.java <output directory> <proto version>}
 */
public final class SchemaGenerator {
  private static final String PACKAGE = "dev.sluice.pdata.internal";

  /** Constant names that read better than the message's own name, kept from the first table. */
  private static final Map<String, String> CONSTANT_NAMES =
      Map.ofEntries(
          Map.entry("ExportTraceServiceRequest", "TRACES_REQUEST"),
          Map.entry("ExportMetricsServiceRequest", "METRICS_REQUEST"),
          Map.entry("ExportLogsServiceRequest", "LOGS_REQUEST"),
          Map.entry("ExportTraceServiceResponse", "TRACES_RESPONSE"),
          Map.entry("ExportMetricsServiceResponse", "METRICS_RESPONSE"),
          Map.entry("ExportLogsServiceResponse", "LOGS_RESPONSE"),
          Map.entry("ExportTracePartialSuccess", "TRACES_PARTIAL_SUCCESS"),
          Map.entry("ExportMetricsPartialSuccess", "METRICS_PARTIAL_SUCCESS"),
          Map.entry("ExportLogsPartialSuccess", "LOGS_PARTIAL_SUCCESS"),
          Map.entry("ExponentialHistogramDataPoint.Buckets", "BUCKETS"),
          Map.entry("SummaryDataPoint.ValueAtQuantile", "VALUE_AT_QUANTILE"));

  /**
   * The one rule the descriptors do not carry: OTLP's IDs have a fixed length (the specification
   * says so in prose). Bytes fields with these names must be empty or exactly this long.
   */
  private static final Map<String, Integer> ID_BYTES =
      Map.of("trace_id", 16, "span_id", 8, "parent_span_id", 8);

  private final Map<String, Descriptor> messages = new LinkedHashMap<>();
  // The export responses: their field numbers only, as the validator never reads a response.
  private final Map<String, Descriptor> responses = new LinkedHashMap<>();
  private final Map<String, EnumDescriptor> enums = new LinkedHashMap<>();
  private final String protoVersion;

  private SchemaGenerator(String protoVersion) {
    this.protoVersion = protoVersion;
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: SchemaGenerator <output dir> <proto version>");
    }
    SchemaGenerator generator = new SchemaGenerator(args[1]);
    generator.collect(
        ExportTraceServiceRequest.getDescriptor(),
        ExportMetricsServiceRequest.getDescriptor(),
        ExportLogsServiceRequest.getDescriptor());
    generator.collectResponses(
        ExportTraceServiceResponse.getDescriptor(),
        ExportMetricsServiceResponse.getDescriptor(),
        ExportLogsServiceResponse.getDescriptor());
    Path root = Path.of(args[0]);
    Path dir = root.resolve(PACKAGE.replace('.', '/'));
    Files.createDirectories(dir);
    write(dir.resolve("OtlpSchema.java"), generator.schema());
    write(dir.resolve("OtlpFields.java"), generator.fields());
    write(dir.resolve("OtlpEnums.java"), generator.enumValues());
    removeOthers(root, dir);
  }

  /**
   * Deletes any other file under the output directory: classes an earlier version of this generator
   * wrote into another package would otherwise still be compiled in a build over an existing tree.
   */
  private static void removeOthers(Path root, Path dir) throws IOException {
    List<Path> stale;
    try (java.util.stream.Stream<Path> files = Files.walk(root)) {
      stale = files.filter(Files::isRegularFile).filter(f -> !f.getParent().equals(dir)).toList();
    }
    for (Path file : stale) {
      Files.delete(file);
    }
  }

  private static void write(Path file, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (Files.exists(file) && java.util.Arrays.equals(Files.readAllBytes(file), bytes)) {
      return; // unchanged: keep the timestamp so the compiler has nothing new to do
    }
    Files.write(file, bytes);
  }

  /** Every message reachable from the roots, breadth first, and every enum of their files. */
  private void collect(Descriptor... roots) {
    Deque<Descriptor> queue = new ArrayDeque<>(List.of(roots));
    Set<FileDescriptor> files = new LinkedHashSet<>();
    while (!queue.isEmpty()) {
      Descriptor d = queue.poll();
      if (messages.putIfAbsent(shortName(d), d) != null) {
        continue;
      }
      files.add(d.getFile());
      for (FieldDescriptor f : d.getFields()) {
        if (f.getType() == FieldDescriptor.Type.MESSAGE) {
          queue.add(f.getMessageType());
        } else if (f.getType() == FieldDescriptor.Type.ENUM) {
          enums.putIfAbsent(f.getEnumType().getName(), f.getEnumType());
        }
      }
    }
    for (FileDescriptor file : files) {
      for (EnumDescriptor e : file.getEnumTypes()) {
        enums.putIfAbsent(e.getName(), e);
      }
    }
  }

  /** Every message reachable from the export responses. */
  private void collectResponses(Descriptor... roots) {
    Deque<Descriptor> queue = new ArrayDeque<>(List.of(roots));
    while (!queue.isEmpty()) {
      Descriptor d = queue.poll();
      if (responses.putIfAbsent(shortName(d), d) != null) {
        continue;
      }
      for (FieldDescriptor f : d.getFields()) {
        if (f.getType() == FieldDescriptor.Type.MESSAGE) {
          queue.add(f.getMessageType());
        } else if (f.getType() == FieldDescriptor.Type.ENUM) {
          throw new IllegalStateException("an enum in a response: " + f.getFullName());
        }
      }
    }
  }

  /** The name without the package: "Span.Event" for opentelemetry.proto.trace.v1.Span.Event. */
  private static String shortName(Descriptor d) {
    return d.getFullName().substring(d.getFile().getPackage().length() + 1);
  }

  private static String constantName(String shortName) {
    String fixed = CONSTANT_NAMES.get(shortName);
    return fixed != null ? fixed : upperSnake(shortName.replace(".", ""));
  }

  /** The Java class name for a message's numbers: "Span.Event" becomes SpanEvent. */
  private static String className(String shortName) {
    String fixed = CONSTANT_NAMES.get(shortName);
    if (fixed != null) {
      return upperCamel(fixed);
    }
    return shortName.replace(".", "");
  }

  private static String upperSnake(String camel) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < camel.length(); i++) {
      char c = camel.charAt(i);
      if (Character.isUpperCase(c) && i > 0) {
        out.append('_');
      }
      out.append(Character.toUpperCase(c));
    }
    return out.toString();
  }

  private static String upperCamel(String snake) {
    StringBuilder out = new StringBuilder();
    for (String part : snake.split("_")) {
      out.append(part.charAt(0)).append(part.substring(1).toLowerCase(Locale.ROOT));
    }
    return out.toString();
  }

  private String header() {
    return "// Generated by collector-core/src/build/java/SchemaGenerator.java from opentelemetry-proto "
        + protoVersion
        + ". Do not edit.\n"
        + "package "
        + PACKAGE
        + ";\n\n";
  }

  // ---- OtlpSchema: the table ----

  private String schema() {
    StringBuilder out = new StringBuilder(header());
    out.append("import java.util.List;\n\n");
    out.append("/**\n");
    out.append(
        " * Every message reachable from the three OTLP export requests, as of opentelemetry-proto\n");
    out.append(" * ")
        .append(protoVersion)
        .append(", built from the descriptors protobuf-java compiles out\n");
    out.append(
        " * of the same proto files. One table drives validation, error paths and JSON transcoding.\n");
    out.append(" */\n");
    out.append("public final class OtlpSchema {\n");
    out.append("  private OtlpSchema() {}\n\n");
    for (String name : messages.keySet()) {
      out.append("  public static final MessageSchema ")
          .append(constantName(name))
          .append(" = new MessageSchema(\"")
          .append(name)
          .append("\");\n");
    }
    out.append('\n');
    for (EnumDescriptor e : enums.values()) {
      if (isFieldEnum(e)) {
        out.append("  private static final List<String> ")
            .append(upperSnake(e.getName()))
            .append(" = List.of(")
            .append(enumNames(e))
            .append(");\n");
      }
    }
    out.append("\n  static {\n");
    for (Map.Entry<String, Descriptor> m : messages.entrySet()) {
      out.append("    ").append(constantName(m.getKey())).append(".define(");
      List<String> defs = new ArrayList<>();
      for (FieldDescriptor f : m.getValue().getFields()) {
        defs.add(fieldSchema(f));
      }
      out.append(String.join(",", defs)).append(");\n");
    }
    out.append("  }\n\n");
    out.append(
        "  /** Every message type above, for tests and tools that walk the whole schema. */\n");
    out.append("  public static List<MessageSchema> all() {\n");
    out.append("    return List.of(");
    List<String> names = new ArrayList<>();
    for (String name : messages.keySet()) {
      names.add(constantName(name));
    }
    out.append(String.join(", ", names)).append(");\n");
    out.append("  }\n}\n");
    return out.toString();
  }

  private boolean isFieldEnum(EnumDescriptor e) {
    for (Descriptor d : messages.values()) {
      for (FieldDescriptor f : d.getFields()) {
        if (f.getType() == FieldDescriptor.Type.ENUM && f.getEnumType() == e) {
          return true;
        }
      }
    }
    return false;
  }

  /** The value names indexed by number: OTLP's field enums number their values 0, 1, 2, ... */
  private static String enumNames(EnumDescriptor e) {
    List<String> names = new ArrayList<>();
    for (EnumValueDescriptor v : e.getValues()) {
      if (v.getNumber() != names.size()) {
        throw new IllegalStateException(
            e.getFullName() + " does not number its values 0, 1, 2, ...: " + v.getName());
      }
      names.add('"' + v.getName() + '"');
    }
    return String.join(", ", names);
  }

  private static String fieldSchema(FieldDescriptor f) {
    String kind;
    String enumNames = "List.of()";
    String message = "null";
    switch (f.getType()) {
      case MESSAGE:
        kind = "MESSAGE";
        message = constantName(shortName(f.getMessageType()));
        break;
      case ENUM:
        kind = "ENUM";
        enumNames = upperSnake(f.getEnumType().getName());
        break;
      case GROUP:
        throw new IllegalStateException("groups are not OTLP: " + f.getFullName());
      default:
        kind = f.getType().name();
    }
    int idBytes = 0;
    if (f.getType() == FieldDescriptor.Type.BYTES && !f.isRepeated()) {
      idBytes = ID_BYTES.getOrDefault(f.getName(), 0);
    }
    return String.format(
        "\n        new FieldSchema(%d, \"%s\", FieldKind.%s, %b, %b, %d, %s, %s)",
        f.getNumber(),
        f.getName(),
        kind,
        f.isRepeated(),
        f.hasPresence(),
        idBytes,
        enumNames,
        message);
  }

  // ---- OtlpFields: the numbers ----

  private String fields() {
    StringBuilder out = new StringBuilder(header());
    out.append("/**\n");
    out.append(
        " * Every field number of every message reachable from the three OTLP export requests and\n");
    out.append(
        " * their responses, one nested class per message ({@code Span.Event} is {@code SpanEvent}).\n");
    out.append(
        " * The classes at the end name what the three signals share and what the kinds of data point\n");
    out.append(" * share, checked equal across them when this file is made.\n");
    out.append(" */\n");
    out.append("public final class OtlpFields {\n");
    out.append("  private OtlpFields() {}\n");
    Map<String, Descriptor> all = new LinkedHashMap<>(messages);
    all.putAll(responses);
    for (Map.Entry<String, Descriptor> m : all.entrySet()) {
      out.append("\n  /** {@code ").append(m.getValue().getFullName()).append("}. */\n");
      String cls = className(m.getKey());
      out.append("  public static final class ").append(cls).append(" {\n");
      out.append("    private ").append(cls).append("() {}\n\n");
      for (FieldDescriptor f : m.getValue().getFields()) {
        out.append("    public static final int ")
            .append(f.getName().toUpperCase(Locale.ROOT))
            .append(" = ")
            .append(f.getNumber())
            .append(";\n");
      }
      for (OneofDescriptor o : m.getValue().getRealOneofs()) {
        out.append("\n    /** Whether the field is a member of the {@code ")
            .append(o.getName())
            .append("} oneof. */\n");
        out.append("    public static boolean is")
            .append(upperCamel(o.getName().toUpperCase(Locale.ROOT)))
            .append("(int fieldNumber) {\n");
        List<String> tests = new ArrayList<>();
        for (FieldDescriptor f : o.getFields()) {
          tests.add("fieldNumber == " + f.getNumber());
        }
        out.append("      return ").append(String.join(" || ", tests)).append(";\n");
        out.append("    }\n");
      }
      out.append("  }\n");
    }
    shared(out);
    out.append("}\n");
    return out.toString();
  }

  /** The outer levels the three signals share, and the fields every metric data message shares. */
  private void shared(StringBuilder out) {
    sharedClass(
        out,
        "Request",
        "{@code Export{Trace,Metrics,Logs}ServiceRequest}",
        List.of(
            List.of(
                "RESOURCE_BLOCKS",
                "ExportTraceServiceRequest.resource_spans",
                "ExportMetricsServiceRequest.resource_metrics",
                "ExportLogsServiceRequest.resource_logs")));
    sharedClass(
        out,
        "ResourceBlock",
        "{@code Resource{Spans,Metrics,Logs}}",
        List.of(
            List.of(
                "RESOURCE",
                "ResourceSpans.resource",
                "ResourceMetrics.resource",
                "ResourceLogs.resource"),
            List.of(
                "SCOPE_BLOCKS",
                "ResourceSpans.scope_spans",
                "ResourceMetrics.scope_metrics",
                "ResourceLogs.scope_logs"),
            List.of(
                "SCHEMA_URL",
                "ResourceSpans.schema_url",
                "ResourceMetrics.schema_url",
                "ResourceLogs.schema_url")));
    sharedClass(
        out,
        "ScopeBlock",
        "{@code Scope{Spans,Metrics,Logs}}",
        List.of(
            List.of("SCOPE", "ScopeSpans.scope", "ScopeMetrics.scope", "ScopeLogs.scope"),
            List.of("ITEMS", "ScopeSpans.spans", "ScopeMetrics.metrics", "ScopeLogs.log_records"),
            List.of(
                "SCHEMA_URL",
                "ScopeSpans.schema_url",
                "ScopeMetrics.schema_url",
                "ScopeLogs.schema_url")));
    sharedClass(
        out,
        "MetricData",
        "{@code Gauge}, {@code Sum}, {@code Histogram}, {@code ExponentialHistogram}, {@code Summary}",
        List.of(
            List.of(
                "DATA_POINTS",
                "Gauge.data_points",
                "Sum.data_points",
                "Histogram.data_points",
                "ExponentialHistogram.data_points",
                "Summary.data_points"),
            List.of(
                "AGGREGATION_TEMPORALITY",
                "Sum.aggregation_temporality",
                "Histogram.aggregation_temporality",
                "ExponentialHistogram.aggregation_temporality")));
    sharedClass(
        out,
        "DataPoint",
        "{@code NumberDataPoint}, {@code HistogramDataPoint}, {@code ExponentialHistogramDataPoint},"
            + " {@code SummaryDataPoint}",
        List.of(
            List.of(
                "START_TIME_UNIX_NANO",
                "NumberDataPoint.start_time_unix_nano",
                "HistogramDataPoint.start_time_unix_nano",
                "ExponentialHistogramDataPoint.start_time_unix_nano",
                "SummaryDataPoint.start_time_unix_nano"),
            List.of(
                "TIME_UNIX_NANO",
                "NumberDataPoint.time_unix_nano",
                "HistogramDataPoint.time_unix_nano",
                "ExponentialHistogramDataPoint.time_unix_nano",
                "SummaryDataPoint.time_unix_nano"),
            List.of(
                "COUNT",
                "HistogramDataPoint.count",
                "ExponentialHistogramDataPoint.count",
                "SummaryDataPoint.count"),
            List.of(
                "SUM",
                "HistogramDataPoint.sum",
                "ExponentialHistogramDataPoint.sum",
                "SummaryDataPoint.sum")));
    sharedClass(
        out,
        "Response",
        "{@code Export{Trace,Metrics,Logs}ServiceResponse}",
        List.of(
            List.of(
                "PARTIAL_SUCCESS",
                "ExportTraceServiceResponse.partial_success",
                "ExportMetricsServiceResponse.partial_success",
                "ExportLogsServiceResponse.partial_success")));
    sharedClass(
        out,
        "PartialSuccess",
        "{@code Export{Trace,Metrics,Logs}PartialSuccess}",
        List.of(
            List.of(
                "REJECTED",
                "ExportTracePartialSuccess.rejected_spans",
                "ExportMetricsPartialSuccess.rejected_data_points",
                "ExportLogsPartialSuccess.rejected_log_records"),
            List.of(
                "ERROR_MESSAGE",
                "ExportTracePartialSuccess.error_message",
                "ExportMetricsPartialSuccess.error_message",
                "ExportLogsPartialSuccess.error_message")));
  }

  private void sharedClass(
      StringBuilder out, String cls, String what, List<List<String>> constants) {
    out.append("\n  /** ").append(what).append(". */\n");
    out.append("  public static final class ").append(cls).append(" {\n");
    out.append("    private ").append(cls).append("() {}\n\n");
    for (List<String> constant : constants) {
      int number = -1;
      for (String path : constant.subList(1, constant.size())) {
        int dot = path.lastIndexOf('.');
        String message = path.substring(0, dot);
        Descriptor d =
            messages.containsKey(message) ? messages.get(message) : responses.get(message);
        FieldDescriptor f = d == null ? null : d.findFieldByName(path.substring(dot + 1));
        if (f == null) {
          throw new IllegalStateException("no field " + path);
        }
        if (number >= 0 && f.getNumber() != number) {
          throw new IllegalStateException(
              path + " is " + f.getNumber() + ", the other signals use " + number);
        }
        number = f.getNumber();
      }
      out.append("    /** ")
          .append(String.join(", ", constant.subList(1, constant.size())))
          .append(". */\n");
      out.append("    public static final int ")
          .append(constant.get(0))
          .append(" = ")
          .append(number)
          .append(";\n");
    }
    out.append("  }\n");
  }

  // ---- OtlpEnums: the values ----

  private String enumValues() {
    StringBuilder out = new StringBuilder(header());
    out.append("/**\n");
    out.append(
        " * Every value of every enum in the OTLP files Sluice reads, one nested class per enum, the\n");
    out.append(
        " * enum's prefix taken off ({@code STATUS_CODE_ERROR} is {@code StatusCode.ERROR}).\n");
    out.append(" */\n");
    out.append("public final class OtlpEnums {\n");
    out.append("  private OtlpEnums() {}\n");
    for (EnumDescriptor e : enums.values()) {
      out.append("\n  /** {@code ").append(e.getFullName()).append("}. */\n");
      out.append("  public static final class ").append(e.getName()).append(" {\n");
      out.append("    private ").append(e.getName()).append("() {}\n\n");
      String prefix = upperSnake(e.getName()) + "_";
      for (EnumValueDescriptor v : e.getValues()) {
        String name = v.getName();
        if (!name.startsWith(prefix)) {
          throw new IllegalStateException(name + " does not start with " + prefix);
        }
        out.append("    public static final int ")
            .append(name.substring(prefix.length()))
            .append(" = ")
            .append(
                v.getNumber() < 0 || v.getNumber() > 255
                    ? String.format("0x%x", v.getNumber())
                    : Integer.toString(v.getNumber()))
            .append(";\n");
      }
      out.append("  }\n");
    }
    out.append("}\n");
    return out.toString();
  }
}
