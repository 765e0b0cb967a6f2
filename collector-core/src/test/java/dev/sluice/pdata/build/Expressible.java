package dev.sluice.pdata.build;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;

/**
 * Turns a random protobuf-java request ({@code RandomRequests}) into the nearest one the builders
 * can write, every other field kept: no unknown fields, no profiles string-table indexes, enum
 * numbers the enums declare, a value in every {@code KeyValue}, a {@code Resource} and an {@code
 * InstrumentationScope} in every block, and histogram buckets with one count more than bounds.
 */
final class Expressible {
  private Expressible() {}

  @SuppressWarnings("unchecked")
  static <M extends Message> M of(M message) {
    Descriptor type = message.getDescriptorForType();
    Message.Builder builder = message.toBuilder();
    builder.setUnknownFields(UnknownFieldSet.getDefaultInstance());
    for (FieldDescriptor field : type.getFields()) {
      if (field.getName().endsWith("_strindex")) {
        builder.clearField(field);
      } else if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        if (field.isRepeated()) {
          for (int i = 0; i < message.getRepeatedFieldCount(field); i++) {
            builder.setRepeatedField(field, i, of((Message) message.getRepeatedField(field, i)));
          }
        } else if (message.hasField(field)) {
          builder.setField(field, of((Message) message.getField(field)));
        }
      } else if (field.getJavaType() == FieldDescriptor.JavaType.ENUM && !field.isRepeated()) {
        EnumValueDescriptor value = (EnumValueDescriptor) message.getField(field);
        if (field.getEnumType().findValueByNumber(value.getNumber()) == null) {
          builder.setField(field, field.getEnumType().findValueByNumber(0));
        }
      }
    }
    switch (type.getName()) {
      case "KeyValue" -> present(builder, type.findFieldByName("value"));
      case "ResourceSpans", "ResourceLogs", "ResourceMetrics" ->
          present(builder, type.findFieldByName("resource"));
      case "ScopeSpans", "ScopeLogs", "ScopeMetrics" ->
          present(builder, type.findFieldByName("scope"));
      case "HistogramDataPoint" -> {
        if (builder.getRepeatedFieldCount(type.findFieldByName("bucket_counts")) == 0) {
          builder.clearField(type.findFieldByName("explicit_bounds"));
        }
      }
      default -> {}
    }
    return (M) builder.build();
  }

  private static void present(Message.Builder builder, FieldDescriptor field) {
    if (!builder.hasField(field)) {
      builder.setField(field, builder.newBuilderForField(field).build());
    }
  }
}
