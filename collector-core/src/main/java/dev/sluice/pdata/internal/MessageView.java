package dev.sluice.pdata.internal;

import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.TextView;
import java.util.Arrays;

/**
 * The part every view shares: a message's byte range and, found on the first read after {@link
 * #wrapRegion}, where the last occurrence of each field up to a field number lies. One scan of the
 * message's top-level fields serves all its scalar reads; repeated fields are walked when asked.
 */
public abstract class MessageView {
  @Internal public static final byte[] NO_BYTES = new byte[0];

  @Internal public byte[] bytes = NO_BYTES;
  @Internal public int start;
  @Internal public int end;
  private final int[] valueAt;
  private boolean scanned;

  @Internal
  public MessageView(int maxFieldNumber) {
    valueAt = new int[maxFieldNumber + 1];
  }

  @Internal
  public final void wrapRegion(byte[] bytes, int start, int end) {
    // Storing a reference costs a GC write barrier; most wraps point at the same request again.
    if (this.bytes != bytes) {
      this.bytes = bytes;
    }
    this.start = start;
    this.end = end;
    scanned = false;
  }

  /** Wraps a length-delimited value whose length prefix starts at {@code position}. */
  @Internal
  public final void wrapPayload(byte[] bytes, int position) {
    wrapRegion(bytes, ViewWire.payloadStart(bytes, position), ViewWire.payloadEnd(bytes, position));
  }

  /**
   * Wraps the child message of a replaced block header (the header's fields stored back to back in
   * {@code stored[offset, offset + length)}): the field {@code childField}, with {@code schemaUrl}
   * pointed at the field {@code schemaUrlField}. A header without them reads as empty.
   */
  @Internal
  public final void wrapStoredHeader(
      byte[] stored,
      int offset,
      int length,
      int childField,
      int schemaUrlField,
      TextView schemaUrl) {
    clear();
    schemaUrl.clear();
    int p = offset;
    int end = offset + length;
    while (p < end) {
      int tag = (int) ViewWire.varint(stored, p);
      int valueAt = ViewWire.skipVarint(stored, p);
      int field = ViewWire.fieldNumber(tag);
      if (field == childField) {
        wrapPayload(stored, valueAt);
      } else if (field == schemaUrlField) {
        int from = ViewWire.payloadStart(stored, valueAt);
        schemaUrl.wrap(stored, from, ViewWire.payloadEnd(stored, valueAt) - from);
      }
      p = ViewWire.skipValue(stored, valueAt, tag);
    }
  }

  @Internal
  public final void clear() {
    wrapRegion(bytes, 0, 0);
  }

  /**
   * Lets go of the request's bytes (and those of the text and value views it owns), so that a
   * long-lived view does not keep a released request reachable.
   */
  @Internal
  public void release() {
    bytes = NO_BYTES;
    clear();
  }

  private void scan() {
    int[] at = valueAt;
    for (int i = 0; i < at.length; i++) {
      at[i] = -1; // a loop: Arrays.fill's call costs more than a few stores
    }
    byte[] b = bytes;
    int p = start;
    int limit = end;
    while (p < limit) {
      // Tags and lengths of one byte, the common case, are read without a call.
      int tag = b[p];
      if (tag >= 0) {
        p++;
      } else {
        tag = (int) ViewWire.varint(b, p);
        p = ViewWire.skipVarint(b, p);
      }
      int field = ViewWire.fieldNumber(tag);
      if (field < at.length) {
        at[field] = p;
      }
      if (ViewWire.wireType(tag) == WireType.LEN && b[p] >= 0) {
        p += 1 + b[p];
      } else {
        p = ViewWire.skipValue(b, p, tag);
      }
    }
    scanned = true;
  }

  /** Where the value of the field's last occurrence starts (a length prefix for LEN), or -1. */
  @Internal
  public final int at(int field) {
    if (!scanned) {
      scan();
    }
    return valueAt[field];
  }

  @Internal
  public final boolean has(int field) {
    return at(field) >= 0;
  }

  @Internal
  public final long fixed64(int field) {
    int p = at(field);
    return p < 0 ? 0 : ViewWire.fixed64(bytes, p);
  }

  @Internal
  public final int fixed32(int field) {
    int p = at(field);
    return p < 0 ? 0 : ViewWire.fixed32(bytes, p);
  }

  @Internal
  public final long varint(int field) {
    int p = at(field);
    return p < 0 ? 0 : ViewWire.varint(bytes, p);
  }

  @Internal
  public final double double64(int field) {
    return Double.longBitsToDouble(fixed64(field));
  }

  @Internal
  public final TextView text(int field, TextView into) {
    int p = at(field);
    if (p < 0) {
      into.clear();
    } else {
      int from = ViewWire.payloadStart(bytes, p);
      into.wrap(bytes, from, ViewWire.payloadEnd(bytes, p) - from);
    }
    return into;
  }

  /** Copies an ID of {@code idBytes} bytes; false (and zeros) when it is absent or empty. */
  @Internal
  public final boolean copyId(int field, byte[] destination, int idBytes) {
    int p = at(field);
    if (p >= 0 && ViewWire.varint(bytes, p) == idBytes) {
      System.arraycopy(bytes, ViewWire.payloadStart(bytes, p), destination, 0, idBytes);
      return true;
    }
    Arrays.fill(destination, 0, idBytes, (byte) 0);
    return false;
  }

  /** Eight bytes of an ID from {@code offset}, big-endian (as the hex form reads); 0 if absent. */
  @Internal
  public final long idLong(int field, int idBytes, int offset) {
    int p = at(field);
    if (p < 0 || ViewWire.varint(bytes, p) != idBytes) {
      return 0;
    }
    return ViewWire.bigEndian64(bytes, ViewWire.payloadStart(bytes, p) + offset);
  }

  @Internal
  public final boolean hasId(int field, int idBytes) {
    int p = at(field);
    return p >= 0 && ViewWire.varint(bytes, p) == idBytes;
  }

  @Internal
  public final AttributeCursor attributes(int field, AttributeCursor cursor) {
    cursor.wrap(bytes, start, end, field);
    return cursor;
  }

  /** Elements of a repeated fixed64 or double field, packed or not. */
  @Internal
  public final int fixed64Count(int field) {
    int count = 0;
    int p = start;
    while (p < end) {
      int tag = (int) ViewWire.varint(bytes, p);
      p = ViewWire.skipVarint(bytes, p);
      if (ViewWire.fieldNumber(tag) == field) {
        count += ViewWire.wireType(tag) == WireType.LEN ? (int) ViewWire.varint(bytes, p) / 8 : 1;
      }
      p = ViewWire.skipValue(bytes, p, tag);
    }
    return count;
  }

  /** Element {@code index} of a repeated fixed64 or double field, packed or not; 0 past the end. */
  @Internal
  public final long fixed64At(int field, int index) {
    int remaining = index;
    int p = start;
    while (p < end) {
      int tag = (int) ViewWire.varint(bytes, p);
      p = ViewWire.skipVarint(bytes, p);
      if (ViewWire.fieldNumber(tag) == field) {
        if (ViewWire.wireType(tag) == WireType.LEN) {
          int count = (int) ViewWire.varint(bytes, p) / Long.BYTES;
          if (remaining < count) {
            return ViewWire.fixed64(
                bytes, ViewWire.payloadStart(bytes, p) + remaining * Long.BYTES);
          }
          remaining -= count;
        } else if (remaining == 0) {
          return ViewWire.fixed64(bytes, p);
        } else {
          remaining--;
        }
      }
      p = ViewWire.skipValue(bytes, p, tag);
    }
    return 0;
  }

  /** Elements of a repeated varint field, packed or not. */
  @Internal
  public final int varintCount(int field) {
    int count = 0;
    int p = start;
    while (p < end) {
      int tag = (int) ViewWire.varint(bytes, p);
      p = ViewWire.skipVarint(bytes, p);
      if (ViewWire.fieldNumber(tag) == field) {
        if (ViewWire.wireType(tag) == WireType.LEN) {
          int q = ViewWire.payloadStart(bytes, p);
          int packedEnd = ViewWire.payloadEnd(bytes, p);
          while (q < packedEnd) {
            q = ViewWire.skipVarint(bytes, q);
            count++;
          }
        } else {
          count++;
        }
      }
      p = ViewWire.skipValue(bytes, p, tag);
    }
    return count;
  }

  /** Element {@code index} of a repeated varint field, packed or not; 0 past the end. */
  @Internal
  public final long varintAt(int field, int index) {
    int remaining = index;
    int p = start;
    while (p < end) {
      int tag = (int) ViewWire.varint(bytes, p);
      p = ViewWire.skipVarint(bytes, p);
      if (ViewWire.fieldNumber(tag) == field) {
        if (ViewWire.wireType(tag) == WireType.LEN) {
          int q = ViewWire.payloadStart(bytes, p);
          int packedEnd = ViewWire.payloadEnd(bytes, p);
          while (q < packedEnd) {
            if (remaining-- == 0) {
              return ViewWire.varint(bytes, q);
            }
            q = ViewWire.skipVarint(bytes, q);
          }
        } else if (remaining-- == 0) {
          return ViewWire.varint(bytes, p);
        }
      }
      p = ViewWire.skipValue(bytes, p, tag);
    }
    return 0;
  }

  /** Occurrences of a repeated message field. */
  @Internal
  public final int messageCount(int field) {
    int tag = WireType.tag(field, WireType.LEN);
    int count = 0;
    int p = ViewWire.next(bytes, start, end, tag);
    while (p >= 0) {
      count++;
      p = ViewWire.next(bytes, ViewWire.payloadEnd(bytes, p), end, tag);
    }
    return count;
  }

  /** The length prefix of occurrence {@code index} of a repeated message field, or -1. */
  @Internal
  public final int messageAt(int field, int index) {
    int tag = WireType.tag(field, WireType.LEN);
    int p = ViewWire.next(bytes, start, end, tag);
    for (int i = 0; i < index && p >= 0; i++) {
      p = ViewWire.next(bytes, ViewWire.payloadEnd(bytes, p), end, tag);
    }
    return p;
  }
}
