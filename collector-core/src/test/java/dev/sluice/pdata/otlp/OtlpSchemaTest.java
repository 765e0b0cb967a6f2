package dev.sluice.pdata.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Checks the hand-written OTLP schema against the descriptors protobuf-java generates. */
class OtlpSchemaTest {

  /** Every message reachable from the three export requests, by short name ("Span.Event"). */
  private static Map<String, Descriptor> reachableDescriptors() {
    Map<String, Descriptor> byName = new LinkedHashMap<>();
    Deque<Descriptor> queue =
        new ArrayDeque<>(
            List.of(
                ExportTraceServiceRequest.getDescriptor(),
                ExportMetricsServiceRequest.getDescriptor(),
                ExportLogsServiceRequest.getDescriptor()));
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
