package dev.sluice.pdata.internal;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A message schema compiled for the validator: what to do with a field, looked up by its whole tag
 * for field numbers up to 31 (every OTLP field), so that the hot loop does one array read and one
 * switch per field.
 */
public final class MessageTable {
  // What to do with a field. The length-delimited ones come first, up to LAST_LENGTH_DELIMITED.
  static final byte UNKNOWN = 0;
  static final byte STRING = 1;
  static final byte MESSAGE = 2;
  static final byte BYTES = 3;
  static final byte ID = 4;
  static final byte PACKED_VARINT = 5;
  static final byte PACKED_FIXED64 = 6;
  static final byte PACKED_FIXED32 = 7;
  static final byte LAST_LENGTH_DELIMITED = 7;
  static final byte VARINT = 8;
  static final byte FIXED64 = 9;
  static final byte FIXED32 = 10;
  static final byte WRONG_WIRE_TYPE = 11;
  static final byte BAD_TAG = 12;

  // Messages that get a loop of their own: they make up most of a span's fields.
  static final int GENERIC = 0;
  static final int KEY_VALUE = 1;
  static final int ANY_VALUE = 2;
  static final int SPAN = 3;

  private static final Map<MessageSchema, MessageTable> TABLES = new IdentityHashMap<>();
  private static final MessageTable[] BY_ID;

  /** A small number naming this table, so that it can be recorded without a reference store. */
  final int id;

  final MessageSchema schema;
  final int special;

  /** Tags below this (field numbers up to 31, in one or two bytes) are looked up in arrays. */
  static final int TABLE_TAGS = 256;

  /** The action of each tag below {@link #TABLE_TAGS}. */
  final byte[] actions = new byte[TABLE_TAGS];

  /** The child table of each message tag below {@link #TABLE_TAGS}. */
  final MessageTable[] children = new MessageTable[TABLE_TAGS];

  static {
    java.util.List<MessageSchema> all = OtlpSchema.all();
    BY_ID = new MessageTable[all.size()];
    for (int i = 0; i < all.size(); i++) {
      BY_ID[i] = new MessageTable(i, all.get(i));
      TABLES.put(all.get(i), BY_ID[i]);
    }
    for (MessageTable table : BY_ID) {
      table.compile();
    }
  }

  public MessageTable(int id, MessageSchema schema) {
    this.id = id;
    this.schema = schema;
    this.special =
        schema == OtlpSchema.KEY_VALUE
            ? KEY_VALUE
            : schema == OtlpSchema.ANY_VALUE
                ? ANY_VALUE
                : schema == OtlpSchema.SPAN ? SPAN : GENERIC;
  }

  static MessageTable byId(int id) {
    return BY_ID[id];
  }

  public static MessageTable of(MessageSchema schema) {
    MessageTable table = TABLES.get(schema);
    if (table == null) {
      throw new IllegalArgumentException("no table for " + schema);
    }
    return table;
  }

  private void compile() {
    for (int tag = 0; tag < TABLE_TAGS; tag++) {
      actions[tag] = action(tag);
      FieldSchema field = schema.field(tag >>> 3);
      if (actions[tag] == MESSAGE) {
        children[tag] = TABLES.get(field.message());
      }
    }
  }

  /** The action for a tag of any size (computed; {@link #actions} holds the small ones). */
  byte action(int tag) {
    int number = tag >>> 3;
    int wireType = tag & 7;
    if (number == 0 || wireType > WireType.I32) {
      return BAD_TAG;
    }
    FieldSchema field = schema.field(number);
    if (field == null) {
      return UNKNOWN;
    }
    FieldKind kind = field.kind();
    if (wireType != kind.wireType()) {
      if (wireType == WireType.LEN && field.isPacked()) {
        switch (kind.wireType()) {
          case WireType.I64:
            return PACKED_FIXED64;
          case WireType.I32:
            return PACKED_FIXED32;
          default:
            return PACKED_VARINT;
        }
      }
      return WRONG_WIRE_TYPE;
    }
    switch (kind) {
      case STRING:
        return STRING;
      case BYTES:
        return field.idBytes() > 0 ? ID : BYTES;
      case MESSAGE:
        return MESSAGE;
      case FIXED32:
        return FIXED32;
      case FIXED64:
      case SFIXED64:
      case DOUBLE:
        return FIXED64;
      default:
        return VARINT;
    }
  }

  /** The child table of a message field with a tag of any size. */
  MessageTable child(int tag) {
    return Integer.compareUnsigned(tag, TABLE_TAGS) < 0
        ? children[tag]
        : TABLES.get(schema.field(tag >>> 3).message());
  }
}
