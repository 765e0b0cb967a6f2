package dev.sluice.pdata.internal;

import java.util.List;

/**
 * One field of an OTLP message: number, names, kind, and the rules Sluice checks beyond the
 * protobuf type (an ID's fixed length, an enum's names for JSON).
 */
public final class FieldSchema {
  private final int number;
  private final String name;
  private final String jsonName;
  private final FieldKind kind;
  private final boolean repeated;
  private final boolean explicitPresence;
  private final int idBytes;
  private final List<String> enumNames;
  private final MessageSchema message;

  FieldSchema(
      int number,
      String name,
      FieldKind kind,
      boolean repeated,
      boolean explicitPresence,
      int idBytes,
      List<String> enumNames,
      MessageSchema message) {
    this.number = number;
    this.name = name;
    this.jsonName = lowerCamel(name);
    this.kind = kind;
    this.repeated = repeated;
    this.explicitPresence = explicitPresence;
    this.idBytes = idBytes;
    this.enumNames = enumNames;
    this.message = message;
  }

  private static String lowerCamel(String snake) {
    StringBuilder out = new StringBuilder(snake.length());
    boolean upper = false;
    for (int i = 0; i < snake.length(); i++) {
      char c = snake.charAt(i);
      if (c == '_') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }

  public int number() {
    return number;
  }

  /** The proto field name, {@code trace_id}. */
  public String name() {
    return name;
  }

  /** The proto3 JSON name, {@code traceId}. */
  public String jsonName() {
    return jsonName;
  }

  public FieldKind kind() {
    return kind;
  }

  public boolean isRepeated() {
    return repeated;
  }

  /** Repeated numeric fields are packed (proto3); parsers accept both encodings. */
  public boolean isPacked() {
    return repeated && kind.isPackable();
  }

  /**
   * Whether a default value is still sent: message fields, oneof members and proto3 {@code
   * optional} fields. Other scalars equal to their default are left out, as protobuf does.
   */
  public boolean hasExplicitPresence() {
    return explicitPresence;
  }

  /**
   * For trace and span IDs: the only non-zero length allowed (16 or 8), sent as hex in OTLP/JSON. 0
   * for every other field.
   */
  public int idBytes() {
    return idBytes;
  }

  /** Enum value names by number, for JSON input that names values; empty for non-enums. */
  public List<String> enumNames() {
    return enumNames;
  }

  /** The message type of a {@link FieldKind#MESSAGE} field, else null. */
  public MessageSchema message() {
    return message;
  }

  @Override
  public String toString() {
    return name + " = " + number;
  }
}
