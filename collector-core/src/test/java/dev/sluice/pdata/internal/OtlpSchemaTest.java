package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Checks the OTLP schema the build generates ({@code src/build/java/SchemaGenerator.java}: the
 * table {@link OtlpSchema}, the field numbers {@link OtlpFields} and the enum values {@link
 * OtlpEnums}) against protobuf-java's descriptors, field by field, read here by code of its own.
 */
class OtlpSchemaTest {
  /** The classes of OtlpFields named otherwise than their message ("Span.Event" is SpanEvent). */
  private static final Map<String, String> RENAMED =
      Map.ofEntries(
          Map.entry("ExportTraceServiceRequest", "TracesRequest"),
          Map.entry("ExportMetricsServiceRequest", "MetricsRequest"),
          Map.entry("ExportLogsServiceRequest", "LogsRequest"),
          Map.entry("ExportTraceServiceResponse", "TracesResponse"),
          Map.entry("ExportMetricsServiceResponse", "MetricsResponse"),
          Map.entry("ExportLogsServiceResponse", "LogsResponse"),
          Map.entry("ExportTracePartialSuccess", "TracesPartialSuccess"),
          Map.entry("ExportMetricsPartialSuccess", "MetricsPartialSuccess"),
          Map.entry("ExportLogsPartialSuccess", "LogsPartialSuccess"),
          Map.entry("ExponentialHistogramDataPoint.Buckets", "Buckets"),
          Map.entry("SummaryDataPoint.ValueAtQuantile", "ValueAtQuantile"));

  /** Every message reachable from the three export requests, by short name ("Span.Event"). */
  private static Map<String, Descriptor> reachableDescriptors() {
    return reachableFrom(
        ExportTraceServiceRequest.getDescriptor(),
        ExportMetricsServiceRequest.getDescriptor(),
        ExportLogsServiceRequest.getDescriptor());
  }

  /** Every message reachable from {@code roots}, by short name. */
  private static Map<String, Descriptor> reachableFrom(Descriptor... roots) {
    Map<String, Descriptor> byName = new LinkedHashMap<>();
    Deque<Descriptor> queue = new ArrayDeque<>(List.of(roots));
    while (!queue.isEmpty()) {
      Descriptor d = queue.poll();
      if (byName.putIfAbsent(shortName(d), d) != null) {
        continue;
      }
      for (FieldDescriptor f : d.getFields()) {
        if (f.getType() == FieldDescriptor.Type.MESSAGE) {
          queue.add(f.getMessageType());
        }
      }
    }
    return byName;
  }

  /** The name without the package: "Span.Event" for opentelemetry.proto.trace.v1.Span.Event. */
  private static String shortName(Descriptor d) {
    String pkg = d.getFile().getPackage();
    return d.getFullName().substring(pkg.length() + 1);
  }

  private static FieldKind kindOf(FieldDescriptor f) {
    switch (f.getType()) {
      case INT32:
        return FieldKind.INT32;
      case INT64:
        return FieldKind.INT64;
      case UINT32:
        return FieldKind.UINT32;
      case UINT64:
        return FieldKind.UINT64;
      case SINT32:
        return FieldKind.SINT32;
      case BOOL:
        return FieldKind.BOOL;
      case ENUM:
        return FieldKind.ENUM;
      case FIXED32:
        return FieldKind.FIXED32;
      case FIXED64:
        return FieldKind.FIXED64;
      case SFIXED64:
        return FieldKind.SFIXED64;
      case DOUBLE:
        return FieldKind.DOUBLE;
      case STRING:
        return FieldKind.STRING;
      case BYTES:
        return FieldKind.BYTES;
      case MESSAGE:
        return FieldKind.MESSAGE;
      default:
        // FLOAT, SINT64, SFIXED32, GROUP: OTLP does not use them; FieldKind cannot say them.
        return fail("no FieldKind for %s (%s)", f.getFullName(), f.getType());
    }
  }

  @Test
  void schemaHasExactlyTheMessagesReachableFromTheRequests() {
    List<String> ours = new ArrayList<>();
    for (MessageSchema m : OtlpSchema.all()) {
      ours.add(m.name());
    }
    assertThat(ours).doesNotHaveDuplicates();
    assertThat(new TreeSet<>(ours))
        .containsExactlyElementsOf(new TreeSet<>(reachableDescriptors().keySet()));
  }

  @Test
  void everyMessageMatchesItsDescriptorFieldForField() {
    Map<String, Descriptor> descriptors = reachableDescriptors();
    List<String> problems = new ArrayList<>();
    for (MessageSchema schema : OtlpSchema.all()) {
      Descriptor d = descriptors.get(schema.name());
      if (d == null) {
        problems.add(schema.name() + ": no such message in opentelemetry-proto");
        continue;
      }
      compare(schema, d, problems);
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void everyFieldNumberConstantMatchesItsDescriptor() {
    Map<String, Descriptor> messages = new LinkedHashMap<>(reachableDescriptors());
    messages.putAll(
        reachableFrom(
            ExportTraceServiceResponse.getDescriptor(),
            ExportMetricsServiceResponse.getDescriptor(),
            ExportLogsServiceResponse.getDescriptor()));
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Descriptor> m : messages.entrySet()) {
      String name = RENAMED.getOrDefault(m.getKey(), m.getKey().replace(".", ""));
      Map<String, Integer> expected = new TreeMap<>();
      for (FieldDescriptor f : m.getValue().getFields()) {
        expected.put(f.getName().toUpperCase(Locale.ROOT), f.getNumber());
      }
      check(problems, m.getKey(), "field numbers", constants(OtlpFields.class, name), expected);
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void everyEnumValueConstantMatchesItsDescriptor() {
    List<String> problems = new ArrayList<>();
    Map<String, EnumDescriptor> enums = new LinkedHashMap<>();
    for (Descriptor d : reachableDescriptors().values()) {
      for (EnumDescriptor e : d.getFile().getEnumTypes()) {
        enums.putIfAbsent(e.getName(), e);
      }
      for (EnumDescriptor e : d.getEnumTypes()) {
        enums.putIfAbsent(e.getName(), e);
      }
    }
    for (EnumDescriptor e : enums.values()) {
      String prefix = e.getName().replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
      Map<String, Integer> expected = new TreeMap<>();
      for (EnumValueDescriptor v : e.getValues()) {
        expected.put(v.getName().substring(prefix.length() + 1), v.getNumber());
      }
      check(problems, e.getFullName(), "values", constants(OtlpEnums.class, e.getName()), expected);
    }
    assertThat(problems).isEmpty();
    List<String> classes = new ArrayList<>();
    for (Class<?> nested : OtlpEnums.class.getDeclaredClasses()) {
      classes.add(nested.getSimpleName());
    }
    assertThat(classes).containsExactlyInAnyOrderElementsOf(enums.keySet());
  }

  /** The int constants of the nested class {@code name} of {@code outer}, by name. */
  private static Map<String, Integer> constants(Class<?> outer, String name) {
    Map<String, Integer> found = new TreeMap<>();
    for (Class<?> nested : outer.getDeclaredClasses()) {
      if (!nested.getSimpleName().equals(name)) {
        continue;
      }
      for (Field field : nested.getDeclaredFields()) {
        if (field.getType() == int.class && Modifier.isStatic(field.getModifiers())) {
          try {
            found.put(field.getName(), field.getInt(null));
          } catch (IllegalAccessException e) {
            throw new AssertionError(e);
          }
        }
      }
    }
    return found;
  }

  private static void compare(MessageSchema schema, Descriptor d, List<String> problems) {
    Map<Integer, FieldSchema> ours = new TreeMap<>();
    for (FieldSchema f : schema.fields()) {
      if (ours.put(f.number(), f) != null) {
        problems.add(schema.name() + "." + f.name() + ": number " + f.number() + " used twice");
      }
    }
    Map<Integer, FieldDescriptor> theirs = new TreeMap<>();
    for (FieldDescriptor f : d.getFields()) {
      theirs.put(f.getNumber(), f);
    }
    for (Integer number : ours.keySet()) {
      if (!theirs.containsKey(number)) {
        problems.add(schema.name() + ": field " + ours.get(number) + " not in the descriptor");
      }
    }
    int maxNumber = 0;
    for (FieldDescriptor f : theirs.values()) {
      String where = schema.name() + "." + f.getName() + " (" + f.getNumber() + ")";
      maxNumber = Math.max(maxNumber, f.getNumber());
      FieldSchema field = ours.get(f.getNumber());
      if (field == null) {
        problems.add(where + ": missing from the schema");
        continue;
      }
      check(problems, where, "name", field.name(), f.getName());
      check(problems, where, "json name", field.jsonName(), f.getJsonName());
      check(problems, where, "kind", field.kind(), kindOf(f));
      check(problems, where, "repeated", field.isRepeated(), f.isRepeated());
      check(problems, where, "packed", field.isPacked(), f.isPacked());
      check(problems, where, "presence", field.hasExplicitPresence(), f.hasPresence());
      check(problems, where, "lookup by number", schema.field(f.getNumber()), field);
      check(problems, where, "lookup by name", schema.field(f.getName()), field);
      check(problems, where, "lookup by json name", schema.field(f.getJsonName()), field);
      if (f.getType() == FieldDescriptor.Type.MESSAGE) {
        check(
            problems,
            where,
            "message type",
            field.message() == null ? null : field.message().name(),
            shortName(f.getMessageType()));
      } else {
        check(problems, where, "message type", field.message(), null);
      }
      if (f.getType() == FieldDescriptor.Type.ENUM) {
        List<EnumValueDescriptor> values = f.getEnumType().getValues();
        Map<Integer, String> expected = new TreeMap<>();
        for (EnumValueDescriptor v : values) {
          expected.put(v.getNumber(), v.getName());
        }
        Map<Integer, String> actual = new TreeMap<>();
        for (int i = 0; i < field.enumNames().size(); i++) {
          actual.put(i, field.enumNames().get(i));
        }
        check(problems, where, "enum names by number", actual, expected);
      } else {
        check(problems, where, "enum names", field.enumNames(), List.of());
      }
      boolean isId = f.getType() == FieldDescriptor.Type.BYTES && f.getName().endsWith("span_id");
      boolean isTraceId =
          f.getType() == FieldDescriptor.Type.BYTES && f.getName().equals("trace_id");
      check(problems, where, "id bytes", field.idBytes(), isTraceId ? 16 : isId ? 8 : 0);
    }
    check(problems, schema.name(), "max field number", schema.maxFieldNumber(), maxNumber);
  }

  private static void check(
      List<String> problems, String where, String what, Object actual, Object expected) {
    if (actual == null ? expected != null : !actual.equals(expected)) {
      problems.add(where + ": " + what + " is " + actual + ", protobuf says " + expected);
    }
  }
}
