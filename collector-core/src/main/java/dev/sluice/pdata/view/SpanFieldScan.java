package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.WireType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The one walk over a span's fields for readers that want several of them at once: the values of
 * the attribute keys asked for ({@link #key}), the name ({@link #name}), the trace ID and the
 * trace_state ({@link #traceFields}), found in one pass over the span's top-level fields. Each
 * entry's key is compared by length and bytes with the keys wanted, no cursor, view or {@code
 * String} made. OTTL's compiled span conditions and the probabilistic sampler read spans through
 * it.
 *
 * <p>It reads as the {@link SpanView} and the {@link AttributeCursor} do: the first entry with a
 * key wins (as {@code AttributeCursor.find}), an entry without a value has an empty value (nil),
 * the last name, trace_id and trace_state fields win (as protobuf decides), an absent name or
 * trace_state is the empty string, and a trace ID that is not 16 bytes reads as zeros. The walk
 * stops once every key is found unless the name or the trace fields are wanted. A field it does not
 * walk (a group) makes the whole span undecided ({@link #scan} false): the reader then takes the
 * view. {@code SpanFieldScanPropertyTest} holds it to the view and the cursor.
 *
 * <p>Configure once ({@link #key}, {@link #name}, {@link #traceFields}), then {@link #scan} each
 * span; the results stay until the next scan and read the span's bytes through its view, so they
 * are valid as long as the view is. Not thread-safe.
 */
public final class SpanFieldScan {
  /** {@link #kind}: the value is nil (no such key, an entry without a value, an empty value). */
  public static final int NIL = 0;

  /** {@link #kind}: a string, in {@link #textFrom()}..{@link #textTo()} of {@link #bytes()}. */
  public static final int STRING = 1;

  /** {@link #kind}: a bool, int, double or bytes. */
  public static final int SCALAR = 2;

  /** {@link #kind}: a map or a list. */
  public static final int COMPOSITE = 3;

  /** The slot of the span's name in {@link #kind}. */
  public static final int NAME = -1;

  private static final int NAME_TAG = WireType.tag(Span.NAME, WireType.LEN);
  private static final int ATTRIBUTES_TAG = WireType.tag(Span.ATTRIBUTES, WireType.LEN);
  private static final int TRACE_ID_TAG = WireType.tag(Span.TRACE_ID, WireType.LEN);
  private static final int SPAN_ID_TAG = WireType.tag(Span.SPAN_ID, WireType.LEN);
  private static final int TRACE_STATE_TAG = WireType.tag(Span.TRACE_STATE, WireType.LEN);
  private static final int TAG_AND_LENGTH_BYTES = 2;

  /** The least tag of a field numbered {@code trace_state} or higher. */
  private static final int FIRST_TAG_FROM_TRACE_STATE = WireType.tag(Span.TRACE_STATE, 0);

  private static final int SPAN_ID_AT = TAG_AND_LENGTH_BYTES + SpanView.TRACE_ID_BYTES;
  private static final int IDS_BYTES = SPAN_ID_AT + TAG_AND_LENGTH_BYTES + SpanView.SPAN_ID_BYTES;
  private static final int KEY_TAG = WireType.tag(KeyValue.KEY, WireType.LEN);
  private static final int VALUE_TAG = WireType.tag(KeyValue.VALUE, WireType.LEN);

  private static final int STRING_VALUE_TAG = WireType.tag(AnyValue.STRING_VALUE, WireType.LEN);

  private static final int TYPE_BITS = 3;
  private static final int TYPE_MASK = 7;
  private static final int VARINT_PAYLOAD_MASK = 0x7F;
  private static final int VARINT_PAYLOAD_BITS = 7;

  private static final VarHandle BIG_ENDIAN_LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  // valueFrom[slot] before a key is seen, and for an entry without a value.
  private static final int NOT_SEEN = -2;
  private static final int NO_VALUE = -1;

  private byte[][] keys = new byte[0][];
  // Bit n: some key wanted is n bytes long (n below 64); longKeys: some is longer.
  private long keyLengths;
  private boolean longKeys;
  private boolean wantsName;
  private boolean wantsTraceFields;
  private TraceIdReader traceIdReader;
  private int[] valueFrom = new int[0];
  private int[] valueTo = new int[0];

  // Read through, never copied: the scan keeps no bytes of its own, so it keeps no request
  // reachable once the view has let go of it.
  private SpanView scanned;
  private boolean undecided;
  private int nameFrom;
  private int nameTo;
  private int textFrom;
  private int textTo;
  private long traceIdHigh;
  private long traceIdLow;
  private int traceStateFrom;
  private int traceStateTo;
  private int traceStateFields;
  private final TextView traceState = new TextView();
  private final TextView name = new TextView();
  private final AnyValueView value = new AnyValueView();

  /** At setup: the slot of attribute key {@code utf8}, shared by every lookup of it. */
  public int key(byte[] utf8) {
    for (int i = 0; i < keys.length; i++) {
      if (Arrays.equals(keys[i], utf8)) {
        return i;
      }
    }
    keys = Arrays.copyOf(keys, keys.length + 1);
    keys[keys.length - 1] = utf8.clone();
    if (utf8.length < Long.SIZE) {
      keyLengths |= 1L << utf8.length;
    } else {
      longKeys = true;
    }
    valueFrom = new int[keys.length];
    valueTo = new int[keys.length];
    return keys.length - 1;
  }

  /** At setup: the span's name is read too; returns its slot, {@link #NAME}. */
  public int name() {
    wantsName = true;
    return NAME;
  }

  /** At setup: the trace ID and the trace_state are read too. */
  public SpanFieldScan traceFields() {
    wantsTraceFields = true;
    return this;
  }

  /** Takes a span's trace ID as soon as the walk reads it. */
  @FunctionalInterface
  public interface TraceIdReader {
    /** The trace ID's halves, big-endian; zeros when it is not 16 bytes. */
    void traceId(long high, long low);
  }

  /**
   * At setup: the trace ID and the trace_state are read too, and {@code reader} is given each
   * trace_id field's value as soon as it is read (the last call of a span is its trace ID), so that
   * work on it (a hash: a chain of dependent multiplications) runs while the walk goes on through
   * the span's other fields instead of after it. Not called for a span without a trace_id field.
   */
  public SpanFieldScan traceFields(TraceIdReader reader) {
    this.traceIdReader = reader;
    return traceFields();
  }

  /**
   * Walks {@code span} for what was asked; false when the span holds a field the walk does not read
   * (a group), and the results are then not to be used.
   */
  public boolean scan(SpanView span) {
    walk(span);
    return !undecided;
  }

  /**
   * The kind of the value in {@code slot} (a key's, or {@link #NAME}) of the span scanned last; for
   * a {@link #STRING}, its bytes are then {@link #textFrom()}..{@link #textTo()} of {@link
   * #bytes()}.
   */
  public int kind(int slot) {
    if (slot == NAME) {
      textFrom = nameFrom;
      textTo = nameTo;
      return STRING;
    }
    int from = valueFrom[slot];
    if (from < 0) {
      return NIL;
    }
    int to = valueTo[slot];
    byte[] b = bytes();
    if (from < to && b[from] == STRING_VALUE_TAG) {
      // The common case, one string member: no walk.
      int start = lengthEnd(b, from + 1);
      if (start + length(b, from + 1) == to) {
        textFrom = start;
        textTo = to;
        return STRING;
      }
    }
    // As AnyValueView reads it: the last member on the wire wins.
    int member = 0;
    int memberAt = from;
    int p = from;
    while (p < to) {
      int tag = tag(b, p);
      p = skipVarint(b, p);
      int field = tag >>> TYPE_BITS;
      if (field >= AnyValue.STRING_VALUE && field <= AnyValue.STRING_VALUE_STRINDEX) {
        member = field;
        memberAt = p;
      }
      p = skipValue(b, p, tag);
      if (p < 0) {
        return COMPOSITE;
      }
    }
    if (member == 0 || member == AnyValue.STRING_VALUE_STRINDEX) {
      return NIL;
    }
    if (member == AnyValue.STRING_VALUE) {
      textFrom = lengthEnd(b, memberAt);
      textTo = textFrom + length(b, memberAt);
      return STRING;
    }
    return member == AnyValue.ARRAY_VALUE || member == AnyValue.KVLIST_VALUE ? COMPOSITE : SCALAR;
  }

  /** Whether the span scanned last has an attribute with the key in {@code slot}. */
  public boolean found(int slot) {
    return valueFrom[slot] != NOT_SEEN;
  }

  /**
   * The value of the first attribute with the key in {@code slot} of the span scanned last ({@link
   * #found} true), as the cursor reads it: an entry without a value has an empty value. One view,
   * reused by the next call.
   */
  public AnyValueView value(int slot) {
    int from = valueFrom[slot];
    if (from < 0) {
      value.wrapRegion(bytes(), 0, 0);
    } else {
      value.wrapRegion(bytes(), from, valueTo[slot]);
    }
    return value;
  }

  /** The bytes of the span scanned last, which {@link #textFrom()} points into; read-only. */
  public byte[] bytes() {
    return scanned.array();
  }

  public int textFrom() {
    return textFrom;
  }

  public int textTo() {
    return textTo;
  }

  /** The span's name ({@link #name} asked for). */
  public TextView nameText() {
    name.wrap(bytes(), nameFrom, nameTo - nameFrom);
    return name;
  }

  /** The trace ID's first eight bytes, big-endian; 0 when it is absent or not 16 bytes. */
  public long traceIdHigh() {
    return traceIdHigh;
  }

  /** The trace ID's last eight bytes, big-endian; 0 when it is absent or not 16 bytes. */
  public long traceIdLow() {
    return traceIdLow;
  }

  /** The value of the span's last trace_state field; empty when it has none. */
  public TextView traceState() {
    traceState.wrap(bytes(), traceStateFrom, traceStateTo - traceStateFrom);
    return traceState;
  }

  /** How many trace_state fields the span has (one, or none, unless a writer repeated it). */
  public int traceStateFields() {
    return traceStateFields;
  }

  private void walk(SpanView span) {
    undecided = false;
    if (scanned != span) {
      scanned = span;
    }
    int[] seen = valueFrom;
    for (int i = 0; i < seen.length; i++) {
      seen[i] = NOT_SEEN; // a loop: Arrays.fill's call costs more than one or two stores
    }
    nameFrom = 0;
    nameTo = 0;
    traceIdHigh = 0;
    traceIdLow = 0;
    traceStateFrom = 0;
    traceStateTo = 0;
    traceStateFields = 0;
    if (wantsTraceFields) {
      walkWithTraceFields(span);
    } else {
      walkForKeys(span);
    }
  }

  /**
   * The walk for keys and perhaps the name: it stops once every key is found, unless the name is
   * wanted.
   */
  private void walkForKeys(SpanView span) {
    byte[] b = span.array();
    int p = span.messageStart();
    int end = span.messageEnd();
    boolean common = span.commonSpan();
    boolean readAll = wantsName;
    int missing = keys.length;
    if (p + IDS_BYTES <= end
        && b[p] == TRACE_ID_TAG
        && b[p + 1] == SpanView.TRACE_ID_BYTES
        && b[p + SPAN_ID_AT] == SPAN_ID_TAG
        && b[p + SPAN_ID_AT + 1] == SpanView.SPAN_ID_BYTES) {
      // The trace and span IDs every SDK writes first, passed over by their sizes: the next read
      // does not wait for their lengths to be loaded.
      p += IDS_BYTES;
    }
    while (p < end) {
      int tag = b[p];
      if (tag >= 0) {
        p++;
      } else {
        tag = tag(b, p);
        p = skipVarint(b, p);
      }
      if (tag == ATTRIBUTES_TAG) {
        int length = b[p];
        int from = p + 1;
        if (length < 0) {
          length = (int) varint(b, p);
          from = skipVarint(b, p);
        }
        int to = from + length;
        if (missing > 0 && !(common && otherKeyLength(b[from + 1]))) {
          // A common span's entry is a key (its length at from + 1) and then a value: one whose
          // key has a length no key wanted has is passed without reading further.
          missing -= entry(b, from, to);
          if (undecided) {
            return;
          }
        }
        p = to;
      } else if (tag == NAME_TAG) {
        nameFrom = lengthEnd(b, p);
        nameTo = nameFrom + length(b, p);
        p = nameTo;
      } else {
        p = skipValue(b, p, tag);
        if (p < 0) {
          undecided = true;
          return;
        }
      }
      if (missing == 0 && !readAll) {
        return;
      }
    }
  }

  /**
   * The walk that reads the trace fields too: every field, the trace ID handed to the reader as it
   * is read, and where a new trace_state goes told to the span. Its own loop, in two phases, so
   * that the loop over the span's many fields carries as few values as the walk for keys alone: the
   * fields numbered below trace_state (the IDs) come first, where the first field numbered
   * trace_state or higher starts is where a new one goes, and a trace_state field's place is kept
   * in fields when one is met (rarely).
   */
  private void walkWithTraceFields(SpanView span) {
    byte[] b = span.array();
    int p = span.messageStart();
    int end = span.messageEnd();
    stateFieldFrom = -1;
    stateFieldTo = -1;
    if (p + IDS_BYTES <= end
        && b[p] == TRACE_ID_TAG
        && b[p + 1] == SpanView.TRACE_ID_BYTES
        && b[p + SPAN_ID_AT] == SPAN_ID_TAG
        && b[p + SPAN_ID_AT + 1] == SpanView.SPAN_ID_BYTES) {
      // The trace and span IDs every SDK writes first, passed over by their sizes.
      traceId(
          (long) BIG_ENDIAN_LONGS.get(b, p + TAG_AND_LENGTH_BYTES),
          (long) BIG_ENDIAN_LONGS.get(b, p + TAG_AND_LENGTH_BYTES + Long.BYTES));
      p += IDS_BYTES;
    }
    // The fields numbered below trace_state: trace_id, span_id.
    int stateAt = end;
    while (p < end) {
      int fieldStart = p;
      int tag = b[p];
      if (tag >= 0) {
        p++;
      } else {
        tag = tag(b, p);
        p = skipVarint(b, p);
      }
      if (tag >= FIRST_TAG_FROM_TRACE_STATE) {
        stateAt = fieldStart;
        p = fieldStart;
        break;
      }
      if (tag == TRACE_ID_TAG) {
        p = readTraceId(b, p);
      } else {
        p = skipValue(b, p, tag);
        if (p < 0) {
          undecided = true;
          return;
        }
      }
    }
    if (!walkRest(span, b, p, end)) {
      return;
    }
    if (traceStateFields <= 1) {
      // Where an editor's new trace_state goes, found on the way: it need not walk the span again.
      span.placeTraceState(stateAt, stateFieldFrom, stateFieldTo);
    }
  }

  // The last trace_state field met by walkRest, tag included.
  private int stateFieldFrom;
  private int stateFieldTo;

  /** The fields from the first numbered trace_state or higher; false when undecided. */
  private boolean walkRest(SpanView span, byte[] b, int from, int end) {
    boolean common = span.commonSpan();
    // Read into locals once: the attribute loop below tests them for every entry.
    long lengths = keyLengths;
    boolean anyLongKey = longKeys;
    int missing = keys.length;
    int p = from;
    while (p < end) {
      int fieldStart = p;
      int tag = b[p];
      if (tag >= 0) {
        p++;
      } else {
        tag = tag(b, p);
        p = skipVarint(b, p);
      }
      if (tag == ATTRIBUTES_TAG) {
        // The commonest field, and it comes in runs: the run is walked here at once.
        while (true) {
          int length = b[p];
          int entryFrom = p + 1;
          if (length < 0) {
            length = (int) varint(b, p);
            entryFrom = skipVarint(b, p);
          }
          int to = entryFrom + length;
          if (missing > 0) {
            // A common span's entry is a key (its length at from + 1) and then a value: one whose
            // key has a length no key wanted has is passed without reading further.
            int keyLength = b[entryFrom + 1];
            boolean otherLength =
                keyLength < Long.SIZE ? (lengths & (1L << keyLength)) == 0 : !anyLongKey;
            if (!(common && otherLength)) {
              missing -= entry(b, entryFrom, to);
              if (undecided) {
                return false;
              }
            }
          }
          p = to;
          if (p >= end || b[p] != ATTRIBUTES_TAG) {
            break;
          }
          p++;
        }
      } else if (tag == NAME_TAG) {
        nameFrom = lengthEnd(b, p);
        nameTo = nameFrom + length(b, p);
        p = nameTo;
      } else if (tag == TRACE_STATE_TAG) {
        traceStateFrom = lengthEnd(b, p);
        traceStateTo = traceStateFrom + length(b, p);
        traceStateFields++;
        stateFieldFrom = fieldStart;
        stateFieldTo = traceStateTo;
        p = traceStateTo;
      } else if (tag == TRACE_ID_TAG) {
        p = readTraceId(b, p); // out of order
      } else {
        p = skipValue(b, p, tag);
        if (p < 0) {
          undecided = true;
          return false;
        }
      }
    }
    return true;
  }

  /** Reads the trace_id field's value whose length is at {@code p}; returns where it ends. */
  private int readTraceId(byte[] b, int p) {
    int from = lengthEnd(b, p);
    int length = length(b, p);
    boolean full = length == SpanView.TRACE_ID_BYTES;
    traceId(
        full ? (long) BIG_ENDIAN_LONGS.get(b, from) : 0,
        full ? (long) BIG_ENDIAN_LONGS.get(b, from + Long.BYTES) : 0);
    return from + length;
  }

  private void traceId(long high, long low) {
    traceIdHigh = high;
    traceIdLow = low;
    TraceIdReader reader = traceIdReader;
    if (reader != null) {
      reader.traceId(high, low);
    }
  }

  /** Whether no key wanted is {@code length} bytes long. */
  private boolean otherKeyLength(int length) {
    return length < Long.SIZE ? (keyLengths & (1L << length)) == 0 : !longKeys;
  }

  /** Reads the entry {@code [from, to)}; 1 when it is the first of a key wanted, else 0. */
  private int entry(byte[] b, int from, int to) {
    int valueStart = commonShapeValue(b, from, to);
    if (valueStart >= 0) {
      return found(b, from + TAG_AND_LENGTH_BYTES, b[from + 1], valueStart, to);
    }
    return unusualEntry(b, from, to);
  }

  /** An entry of another shape, read as the attribute cursor reads it: the last key and value. */
  private int unusualEntry(byte[] b, int from, int to) {
    int keyFrom = from;
    int keyLength = 0;
    int entryValueFrom = NO_VALUE;
    int entryValueTo = NO_VALUE;
    int p = from;
    while (p < to) {
      int tag = b[p];
      if (tag >= 0) {
        p++;
      } else {
        tag = tag(b, p);
        p = skipVarint(b, p);
      }
      if (tag == KEY_TAG || tag == VALUE_TAG) {
        int start = lengthEnd(b, p);
        int length = length(b, p);
        if (tag == KEY_TAG) {
          keyFrom = start;
          keyLength = length;
        } else {
          entryValueFrom = start;
          entryValueTo = start + length;
        }
        p = start + length;
      } else {
        p = skipValue(b, p, tag);
        if (p < 0) {
          undecided = true;
          return 0;
        }
      }
    }
    return found(b, keyFrom, keyLength, entryValueFrom, entryValueTo);
  }

  /** Records the value when the key is one wanted and not seen yet: 1 then, else 0. */
  private int found(byte[] b, int keyFrom, int keyLength, int entryValueFrom, int entryValueTo) {
    byte[][] wanted = keys;
    for (int i = 0; i < wanted.length; i++) {
      byte[] key = wanted[i];
      if (key.length == keyLength
          && valueFrom[i] == NOT_SEEN
          && Arrays.equals(b, keyFrom, keyFrom + keyLength, key, 0, keyLength)) {
        valueFrom[i] = entryValueFrom;
        valueTo[i] = entryValueTo;
        return 1;
      }
    }
    return 0;
  }

  /**
   * Where the value starts when the entry {@code [from, to)} is the shape every SDK writes, its key
   * field (shorter than 128 bytes) then its value field and nothing else; -1 for any other shape,
   * which only reading every field of the entry tells.
   */
  private static int commonShapeValue(byte[] b, int from, int to) {
    if (from + 1 >= to || b[from] != KEY_TAG || b[from + 1] < 0) {
      return -1;
    }
    int valueTag = from + TAG_AND_LENGTH_BYTES + b[from + 1];
    if (valueTag + 1 >= to || b[valueTag] != VALUE_TAG) {
      return -1;
    }
    int length = b[valueTag + 1];
    int start = valueTag + TAG_AND_LENGTH_BYTES;
    if (length < 0) {
      if (start >= to || b[start] < 0) {
        return -1;
      }
      length = (length & VARINT_PAYLOAD_MASK) | (b[start] << VARINT_PAYLOAD_BITS);
      start++;
    }
    return start + length == to ? start : -1;
  }

  private static int tag(byte[] b, int p) {
    return (int) varint(b, p);
  }

  private static long varint(byte[] b, int position) {
    long value = 0;
    int shift = 0;
    int p = position;
    while (true) {
      byte next = b[p++];
      value |= (long) (next & VARINT_PAYLOAD_MASK) << shift;
      if (next >= 0) {
        return value;
      }
      shift += VARINT_PAYLOAD_BITS;
    }
  }

  private static int skipVarint(byte[] b, int position) {
    int p = position;
    while (b[p++] < 0) {
      // continuation bytes
    }
    return p;
  }

  /** The length of a length-delimited value whose prefix is at {@code p}. */
  private static int length(byte[] b, int p) {
    int first = b[p];
    return first >= 0 ? first : (int) varint(b, p);
  }

  /** Where the payload of a length-delimited value whose prefix is at {@code p} starts. */
  private static int lengthEnd(byte[] b, int p) {
    return b[p] >= 0 ? p + 1 : skipVarint(b, p);
  }

  /** Past the value of {@code tag} at {@code p}; -1 for a group, which this walk does not read. */
  private static int skipValue(byte[] b, int p, int tag) {
    switch (tag & TYPE_MASK) {
      case WireType.VARINT:
        return skipVarint(b, p);
      case WireType.I64:
        return p + Long.BYTES;
      case WireType.I32:
        return p + Integer.BYTES;
      case WireType.LEN:
        int length = b[p];
        return length >= 0 ? p + 1 + length : skipVarint(b, p) + (int) varint(b, p);
      default:
        return -1;
    }
  }
}
