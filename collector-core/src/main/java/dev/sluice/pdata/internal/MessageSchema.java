package dev.sluice.pdata.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields of one OTLP message type. Looked up by number on the protobuf path (an array, the
 * numbers are small) and by name on the JSON path (both the proto and the JSON name).
 */
public final class MessageSchema {
  private final String name;
  private FieldSchema[] byNumber = new FieldSchema[0];
  private final List<FieldSchema> fields = new ArrayList<>();
  private final Map<String, FieldSchema> byName = new HashMap<>();

  MessageSchema(String name) {
    this.name = name;
  }

  /** Adds fields; only while the schema is being built, before it is published. */
  void define(FieldSchema... definitions) {
    for (FieldSchema field : definitions) {
      if (field.number() >= byNumber.length) {
        FieldSchema[] grown = new FieldSchema[field.number() + 1];
        System.arraycopy(byNumber, 0, grown, 0, byNumber.length);
        byNumber = grown;
      }
      byNumber[field.number()] = field;
      fields.add(field);
      byName.put(field.name(), field);
      byName.put(field.jsonName(), field);
    }
  }

  /** The short message name, {@code Span}. */
  public String name() {
    return name;
  }

  /** The field with this number, or null when the schema does not know it. */
  public FieldSchema field(int number) {
    return number < byNumber.length ? byNumber[number] : null;
  }

  /** The field with this proto or JSON name, or null. */
  public FieldSchema field(String name) {
    return byName.get(name);
  }

  /** Fields in the order the proto file declares them. */
  public List<FieldSchema> fields() {
    return Collections.unmodifiableList(fields);
  }

  /** The largest field number this message declares. */
  public int maxFieldNumber() {
    return byNumber.length - 1;
  }

  @Override
  public String toString() {
    return name;
  }
}
