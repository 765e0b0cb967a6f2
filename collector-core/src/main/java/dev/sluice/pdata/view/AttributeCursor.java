package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.MessageView;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.ViewWire;
import dev.sluice.pdata.internal.WireType;

/**
 * Walks a list of {@code KeyValue}s in place: the attributes of a resource, scope, span, event,
 * link, log record or data point, a metric's metadata, or the entries of a {@code kvlist_value}.
 * Made once by the caller ({@code new AttributeCursor()}) and pointed at a list by a view; {@link
 * #next()} moves to the next entry, whose key and value are read without allocating.
 *
 * <pre>{@code
 * AttributeCursor attributes = new AttributeCursor(); // once
 * span.attributes(attributes);
 * while (attributes.next()) {
 *   if (attributes.key().contentEquals("http.route")) { ... attributes.value().stringValue() ... }
 * }
 * }</pre>
 *
 * <p>Valid as long as the view that pointed it (see {@link BatchView}).
 */
public final class AttributeCursor {
  private static final int KEY_TAG = WireType.tag(KeyValue.KEY, WireType.LEN);
  private static final int VALUE_TAG = WireType.tag(KeyValue.VALUE, WireType.LEN);
  private static final int KEY_STRINDEX_TAG = WireType.tag(KeyValue.KEY_STRINDEX, WireType.VARINT);
  private static final int VARINT_PAYLOAD_MASK = 0x7F;
  private static final int VARINT_PAYLOAD_BITS = 7;

  private byte[] bytes = MessageView.NO_BYTES;
  private int from;
  private int end;
  private int tag;
  private int position;
  private int keyIndex;
  private final TextView key = new TextView();
  private final AnyValueView value = new AnyValueView();

  public AttributeCursor() {}

  /** Points the cursor before the first {@code fieldNumber} field of {@code [from, end)}. */
  @Internal
  public void wrap(byte[] bytes, int from, int end, int fieldNumber) {
    if (this.bytes != bytes) {
      this.bytes = bytes;
    }
    this.from = from;
    this.end = end;
    this.tag = WireType.tag(fieldNumber, WireType.LEN);
    reset();
  }

  /** Back before the first entry. */
  public void reset() {
    position = from;
    key.clear();
    value.clear();
    keyIndex = 0;
  }

  /** Moves to the next entry; false (and an empty entry) after the last. */
  public boolean next() {
    int p = position < end ? ViewWire.next(bytes, position, end, tag) : -1;
    if (p < 0) {
      position = end;
      key.clear();
      value.clear();
      keyIndex = 0;
      return false;
    }
    long prefix = ViewWire.lengthPrefix(bytes, p);
    int entryStart = ViewWire.from(prefix);
    position = entryStart + ViewWire.length(prefix);
    read(entryStart, position);
    return true;
  }

  private void read(int entryStart, int entryEnd) {
    boolean hasKey = false;
    boolean hasValue = false;
    keyIndex = 0;
    int p = entryStart;
    while (p < entryEnd) {
      int fieldTag = bytes[p] >= 0 ? bytes[p++] : -1;
      if (fieldTag < 0) {
        fieldTag = (int) ViewWire.varint(bytes, p);
        p = ViewWire.skipVarint(bytes, p);
      }
      if (fieldTag == KEY_TAG || fieldTag == VALUE_TAG) {
        long prefix = ViewWire.lengthPrefix(bytes, p);
        int from = ViewWire.from(prefix);
        int length = ViewWire.length(prefix);
        if (fieldTag == KEY_TAG) {
          key.wrap(bytes, from, length);
          hasKey = true;
        } else {
          value.wrapRegion(bytes, from, from + length);
          hasValue = true;
        }
        p = from + length;
      } else if (fieldTag == KEY_STRINDEX_TAG) {
        keyIndex = (int) ViewWire.varint(bytes, p);
        p = ViewWire.skipVarint(bytes, p);
      } else {
        p = ViewWire.skipValue(bytes, p, fieldTag);
      }
    }
    if (!hasKey) {
      key.clear();
    }
    if (!hasValue) {
      value.clear();
    }
  }

  /** The current entry's key (empty before the first {@link #next()}). */
  public TextView key() {
    return key;
  }

  public boolean keyEquals(CharSequence text) {
    return key.contentEquals(text);
  }

  public boolean keyEquals(byte[] utf8) {
    return key.contentEquals(utf8);
  }

  /** {@code key_strindex}: an index into a string table (profiles); 0 when not set. */
  public int keyIndex() {
    return keyIndex;
  }

  /** The current entry's value. */
  public AnyValueView value() {
    return value;
  }

  /**
   * Moves to the first entry whose key is {@code text}, from the start of the list; false (and the
   * cursor after the last entry) when there is none.
   */
  public boolean find(CharSequence text) {
    reset();
    while (next()) {
      if (key.contentEquals(text)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@link #find(CharSequence)} with the key as UTF-8 bytes. An entry of the shape every SDK writes
   * (its key field first, its value field last) whose key differs is passed over from its key's
   * length and bytes alone, without reading its value.
   */
  public boolean find(byte[] utf8) {
    reset();
    int p = from;
    while (p < end) {
      p = ViewWire.next(bytes, p, end, tag);
      if (p < 0) {
        break;
      }
      long prefix = ViewWire.lengthPrefix(bytes, p);
      int entryStart = ViewWire.from(prefix);
      int entryEnd = entryStart + ViewWire.length(prefix);
      if (!otherCommonKey(entryStart, entryEnd, utf8)) {
        position = entryEnd;
        read(entryStart, entryEnd);
        if (key.contentEquals(utf8)) {
          return true;
        }
      }
      p = entryEnd;
    }
    position = end;
    key.clear();
    value.clear();
    keyIndex = 0;
    return false;
  }

  /**
   * True when the entry is a key field with a one-byte length followed by a value field with a one-
   * or two-byte length that ends the entry, and that key is not {@code utf8}; false when the key is
   * {@code utf8}, or the entry has another shape (then only reading it tells).
   */
  private boolean otherCommonKey(int entryStart, int entryEnd, byte[] utf8) {
    if (entryStart + 1 >= entryEnd || bytes[entryStart] != KEY_TAG) {
      return false;
    }
    int keyLength = bytes[entryStart + 1];
    int valueTag = entryStart + 2 + keyLength;
    if (keyLength < 0 || valueTag + 1 >= entryEnd || bytes[valueTag] != VALUE_TAG) {
      return false;
    }
    int valueLength = bytes[valueTag + 1];
    int valueStart = valueTag + 2;
    if (valueLength < 0) {
      if (valueStart >= entryEnd || bytes[valueStart] < 0) {
        return false;
      }
      valueLength =
          (valueLength & VARINT_PAYLOAD_MASK) | (bytes[valueStart] << VARINT_PAYLOAD_BITS);
      valueStart++;
    }
    if (valueStart + valueLength != entryEnd) {
      return false;
    }
    int keyStart = entryStart + 2;
    return keyLength != utf8.length
        || (keyLength > 0 && bytes[keyStart] != utf8[0])
        || !java.util.Arrays.equals(bytes, keyStart, keyStart + keyLength, utf8, 0, keyLength);
  }

  /** Entries in the list; walks it, leaves the cursor where it was. */
  public int count() {
    int count = 0;
    int p = ViewWire.next(bytes, from, end, tag);
    while (p >= 0) {
      count++;
      p = ViewWire.next(bytes, ViewWire.payloadEnd(bytes, p), end, tag);
    }
    return count;
  }
}
