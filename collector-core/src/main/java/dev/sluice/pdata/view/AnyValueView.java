package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.MessageView;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValueList;
import dev.sluice.pdata.internal.ValueFormats;
import dev.sluice.pdata.internal.ViewWire;
import dev.sluice.pdata.internal.WireType;

/**
 * An {@code AnyValue} read in place: its type, then the member of that type. Reading a member of
 * another type gives its default (empty, false, 0). Arrays and key-value lists are walked with a
 * caller's cursor, so nesting allocates nothing.
 *
 * <p>Owned by the cursor or view that returned it; valid as long as that one (see {@link
 * BatchView}).
 */
public final class AnyValueView {

  private static final int STRING_TAG = WireType.tag(AnyValue.STRING_VALUE, WireType.LEN);

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

  private byte[] bytes = MessageView.NO_BYTES;
  private ValueType type = ValueType.EMPTY;
  // Where the set member's value starts (its length prefix for strings, bytes and messages).
  private int valueAt;
  // The AnyValue message itself, for the JSON text of arrays and maps.
  private int regionStart;
  private int regionEnd;
  private final TextView string = new TextView();

  AnyValueView() {}

  /**
   * Reads the value in {@code [start, end)} at once: an AnyValue holds one field, so finding its
   * member is a single step (the last member on the wire wins, as protobuf decides).
   */
  void wrapRegion(byte[] bytes, int start, int end) {
    if (this.bytes != bytes) {
      this.bytes = bytes;
    }
    type = ValueType.EMPTY;
    regionStart = start;
    regionEnd = end;
    int p = start;
    if (p < end && bytes[p] == STRING_TAG) {
      // The common case, one string member: no walk.
      long prefix = ViewWire.lengthPrefix(bytes, p + 1);
      if (ViewWire.from(prefix) + ViewWire.length(prefix) == end) {
        type = ValueType.STRING;
        valueAt = p + 1;
        return;
      }
    }
    while (p < end) {
      int tag = (int) ViewWire.varint(bytes, p);
      p = ViewWire.skipVarint(bytes, p);
      int field = ViewWire.fieldNumber(tag);
      if (field >= AnyValue.STRING_VALUE && field <= AnyValue.STRING_VALUE_STRINDEX) {
        type = TYPES[field];
        valueAt = p;
      }
      p = ViewWire.skipValue(bytes, p, tag);
    }
  }

  /** Wraps a length-delimited value whose length prefix starts at {@code position}. */
  void wrapPayload(byte[] bytes, int position) {
    wrapRegion(bytes, ViewWire.payloadStart(bytes, position), ViewWire.payloadEnd(bytes, position));
  }

  void clear() {
    type = ValueType.EMPTY;
  }

  void release() {
    bytes = MessageView.NO_BYTES;
    type = ValueType.EMPTY;
    string.release();
  }

  /** The member set. */
  public ValueType type() {
    return type;
  }

  public TextView stringValue() {
    return type == ValueType.STRING ? payload() : empty();
  }

  public boolean boolValue() {
    return type == ValueType.BOOL && ViewWire.varint(bytes, valueAt) != 0;
  }

  public long intValue() {
    return type == ValueType.INT ? ViewWire.varint(bytes, valueAt) : 0;
  }

  public double doubleValue() {
    return type == ValueType.DOUBLE ? Double.longBitsToDouble(ViewWire.fixed64(bytes, valueAt)) : 0;
  }

  /** {@code string_value_strindex}. */
  public int stringIndex() {
    return type == ValueType.STRING_INDEX ? (int) ViewWire.varint(bytes, valueAt) : 0;
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
    if (type == ValueType.ARRAY) {
      cursor.wrap(
          bytes, ViewWire.payloadStart(bytes, valueAt), ViewWire.payloadEnd(bytes, valueAt));
    } else {
      cursor.wrap(MessageView.NO_BYTES, 0, 0);
    }
    return cursor;
  }

  /** Points {@code cursor} at the entries of {@code kvlist_value} (none for another type). */
  public AttributeCursor kvlist(AttributeCursor cursor) {
    if (type == ValueType.KVLIST) {
      cursor.wrap(
          bytes,
          ViewWire.payloadStart(bytes, valueAt),
          ViewWire.payloadEnd(bytes, valueAt),
          KeyValueList.VALUES);
    } else {
      cursor.wrap(MessageView.NO_BYTES, 0, 0, KeyValueList.VALUES);
    }
    return cursor;
  }

  /** Go's JSON text of an array or map value (see {@link ValueText#goString}). */
  String json() {
    return ValueFormats.json(bytes, regionStart, regionEnd - regionStart);
  }

  private TextView bytesValue() {
    return type == ValueType.BYTES ? payload() : empty();
  }

  private TextView payload() {
    long prefix = ViewWire.lengthPrefix(bytes, valueAt);
    string.wrap(bytes, ViewWire.from(prefix), ViewWire.length(prefix));
    return string;
  }

  private TextView empty() {
    string.clear();
    return string;
  }
}
