package dev.sluice.pdata.otlp;

/**
 * An {@code AnyValue} read in place: its type, then the member of that type. Reading a member of
 * another type gives its default (empty, false, 0). Arrays and key-value lists are walked with a
 * caller's cursor, so nesting allocates nothing.
 *
 * <p>Owned by the cursor or view that returned it; valid as long as that one (see {@link
 * BatchView}).
 */
public final class AnyValueView extends MessageView {
  private static final int STRING_VALUE = 1;
  private static final int BOOL_VALUE = 2;
  private static final int INT_VALUE = 3;
  private static final int DOUBLE_VALUE = 4;
  private static final int ARRAY_VALUE = 5;
  private static final int KVLIST_VALUE = 6;
  private static final int BYTES_VALUE = 7;
  private static final int STRING_VALUE_STRINDEX = 8;

  /** {@code ArrayValue.values} and {@code KeyValueList.values}. */
  private static final int VALUES = 1;

  // Indexed by field number: the type each oneof member stands for.
  private static final ValueType[] TYPES = {
    ValueType.EMPTY,
    ValueType.STRING,
    ValueType.BOOL,
    ValueType.INT,
    ValueType.DOUBLE,
    ValueType.ARRAY,
    ValueType.KVLIST,
    ValueType.BYTES,
    ValueType.STRING_INDEX
  };

  private final TextView string = new TextView();

  AnyValueView() {
    super(STRING_VALUE_STRINDEX);
  }

  /** The member set; when several were sent, the last one on the wire, as protobuf decides. */
  public ValueType type() {
    int last = -1;
    ValueType type = ValueType.EMPTY;
    for (int field = STRING_VALUE; field <= STRING_VALUE_STRINDEX; field++) {
      int p = at(field);
      if (p > last) {
        last = p;
        type = TYPES[field];
      }
    }
    return type;
  }

  public TextView stringValue() {
    return type() == ValueType.STRING ? text(STRING_VALUE, string) : empty();
  }

  public boolean boolValue() {
    return type() == ValueType.BOOL && varint(BOOL_VALUE) != 0;
  }

  public long intValue() {
    return type() == ValueType.INT ? varint(INT_VALUE) : 0;
  }

  public double doubleValue() {
    return type() == ValueType.DOUBLE ? double64(DOUBLE_VALUE) : 0;
  }

  /** {@code string_value_strindex}. */
  public int stringIndex() {
    return type() == ValueType.STRING_INDEX ? (int) varint(STRING_VALUE_STRINDEX) : 0;
  }

  /** Length of {@code bytes_value}. */
  public int bytesLength() {
    return bytesValue().length();
  }

  /** Copies {@code bytes_value} into {@code destination} at {@code offset}; returns its length. */
  public int copyBytes(byte[] destination, int offset) {
    return bytesValue().copyTo(destination, offset);
  }

  /** Points {@code cursor} at the elements of {@code array_value} (none for another type). */
  public ArrayCursor array(ArrayCursor cursor) {
    int p = type() == ValueType.ARRAY ? at(ARRAY_VALUE) : -1;
    if (p < 0) {
      cursor.wrap(NO_BYTES, 0, 0);
    } else {
      cursor.wrap(bytes, ViewWire.payloadStart(bytes, p), ViewWire.payloadEnd(bytes, p));
    }
    return cursor;
  }

  /** Points {@code cursor} at the entries of {@code kvlist_value} (none for another type). */
  public AttributeCursor kvlist(AttributeCursor cursor) {
    int p = type() == ValueType.KVLIST ? at(KVLIST_VALUE) : -1;
    if (p < 0) {
      cursor.wrap(NO_BYTES, 0, 0, VALUES);
    } else {
      cursor.wrap(bytes, ViewWire.payloadStart(bytes, p), ViewWire.payloadEnd(bytes, p), VALUES);
    }
    return cursor;
  }

  private TextView bytesValue() {
    return type() == ValueType.BYTES ? text(BYTES_VALUE, string) : empty();
  }

  private TextView empty() {
    string.clear();
    return string;
  }
}
