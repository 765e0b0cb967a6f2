package dev.sluice.pdata.build;

import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.ArrayValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValueList;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.WireType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Writes a list of values: the attributes of a resource, scope, span, event, link, log record, data
 * point or exemplar, a metric's metadata, and the array and key-value list values nested in them or
 * in a log record's body.
 *
 * <p>Key-value lists take {@code put(key, value)}, arrays take {@code add(value)}. Values are
 * strings, booleans, longs, doubles, bytes, empty values, and arrays and key-value lists, which
 * {@link #putArray}, {@link #putKvList}, {@link #addArray} and {@link #addKvList} open and {@link
 * #end()} closes; until then the calls go into the innermost open one:
 *
 * <pre>{@code
 * span.attributes()
 *     .put("http.route", "/users/{id}")
 *     .put("http.response.status_code", 200)
 *     .putArray("http.request.header.accept").add("text/html").add("application/json").end();
 * }</pre>
 *
 * <p>Each writer has its own {@code ValueWriter}, reused for each item; it can be written while the
 * thing it belongs to is open (until the next span, log record, metric, data point, ... of the
 * builder), and every array or key-value list opened in it must be closed before that ends. Values
 * nest at most {@value #MAX_NESTING} deep, which keeps every request within the depth the indexer
 * accepts. Strings are written as UTF-8; a surrogate without its pair becomes {@code '?'}, as in
 * protobuf-java.
 */
public final class ValueWriter {
  /**
   * How deep arrays and key-value lists may nest. The deepest attributes (an exemplar's) are at
   * depth 7 below the request; each key-value list level adds three messages (list, entry, value),
   * so 30 levels reach depth 98, within the indexer's default limit of 100.
   */
  public static final int MAX_NESTING = 30;

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static final byte NONE = 0;
  private static final byte ARRAY = 1;
  private static final byte KVLIST = 2;

  // Every field written here has a number below 16, so a one-byte tag.
  private static final byte KEY_TAG = tag(KeyValue.KEY, WireType.LEN);
  private static final byte VALUE_TAG = tag(KeyValue.VALUE, WireType.LEN);
  private static final byte ELEMENT_TAG = tag(ArrayValue.VALUES, WireType.LEN);
  private static final byte STRING_TAG = tag(AnyValue.STRING_VALUE, WireType.LEN);
  private static final byte BOOL_TAG = tag(AnyValue.BOOL_VALUE, WireType.VARINT);
  private static final byte INT_TAG = tag(AnyValue.INT_VALUE, WireType.VARINT);
  private static final byte DOUBLE_TAG = tag(AnyValue.DOUBLE_VALUE, WireType.I64);
  private static final byte BYTES_TAG = tag(AnyValue.BYTES_VALUE, WireType.LEN);

  /** A one-byte length, and the four more it may need ({@link Fields#endLength}). */
  private static final int LENGTH_ROOM = 5;

  private static final int TAG_AND_LENGTH_ROOM = 1 + LENGTH_ROOM;

  private final String owner;
  private final String what;
  private final ProtoWriter out = new ProtoWriter(64);
  private int rootField;
  private boolean open;

  // Where the length of the entry (KeyValue or element) being written goes, and its value's.
  private int entryMark;
  private int valueMark;

  // Open arrays and key-value lists: the kind at each depth (depth 0 is the list itself, when the
  // writer has one), and the length-delimited fields each opened, to be closed by end().
  private int depth;
  private final byte[] kinds = new byte[MAX_NESTING + 1];
  private final byte[] levelMarks = new byte[MAX_NESTING + 1];
  private final int[] marks = new int[3 * MAX_NESTING + 3];
  private int markCount;

  /**
   * @param owner what the values belong to, for messages ("span")
   * @param what what they are, for messages ("attributes")
   */
  ValueWriter(String owner, String what) {
    this.owner = owner;
    this.what = what;
  }

  // Key-value lists.

  public ValueWriter put(CharSequence key, CharSequence value) {
    Objects.requireNonNull(value, "value");
    int p = openEntry(key, TAG_AND_LENGTH_ROOM + Fields.utf8Room(value.length()));
    return closeEntry(writeString(out.array(), p, value));
  }

  public ValueWriter put(CharSequence key, boolean value) {
    int p = openEntry(key, 2);
    return closeEntry(writeBool(out.array(), p, value));
  }

  public ValueWriter put(CharSequence key, long value) {
    int p = openEntry(key, 11);
    return closeEntry(writeInt(out.array(), p, value));
  }

  public ValueWriter put(CharSequence key, double value) {
    int p = openEntry(key, 9);
    return closeEntry(writeDouble(out.array(), p, value));
  }

  /** A {@code bytes_value}: the whole array, copied. */
  public ValueWriter put(CharSequence key, byte[] value) {
    Objects.requireNonNull(value, "value");
    int p = openEntry(key, TAG_AND_LENGTH_ROOM + value.length);
    return closeEntry(writeBytes(out.array(), p, value));
  }

  /** An entry whose value is empty (an {@code AnyValue} with no value set). */
  public ValueWriter putEmpty(CharSequence key) {
    return closeEntry(openEntry(key, 0));
  }

  /** Opens an array value under {@code key}; {@link #add} fills it and {@link #end()} closes it. */
  public ValueWriter putArray(CharSequence key) {
    checkRoom();
    return openLevel(openEntry(key, TAG_AND_LENGTH_ROOM), true, ARRAY);
  }

  /** Opens a key-value list value under {@code key}, closed by {@link #end()}. */
  public ValueWriter putKvList(CharSequence key) {
    checkRoom();
    return openLevel(openEntry(key, TAG_AND_LENGTH_ROOM), true, KVLIST);
  }

  // Arrays.

  public ValueWriter add(CharSequence value) {
    Objects.requireNonNull(value, "value");
    int p = openElement(TAG_AND_LENGTH_ROOM + Fields.utf8Room(value.length()));
    return closeElement(writeString(out.array(), p, value));
  }

  public ValueWriter add(boolean value) {
    int p = openElement(2);
    return closeElement(writeBool(out.array(), p, value));
  }

  public ValueWriter add(long value) {
    int p = openElement(11);
    return closeElement(writeInt(out.array(), p, value));
  }

  public ValueWriter add(double value) {
    int p = openElement(9);
    return closeElement(writeDouble(out.array(), p, value));
  }

  public ValueWriter add(byte[] value) {
    Objects.requireNonNull(value, "value");
    int p = openElement(TAG_AND_LENGTH_ROOM + value.length);
    return closeElement(writeBytes(out.array(), p, value));
  }

  /** An empty element (an {@code AnyValue} with no value set). */
  public ValueWriter addEmpty() {
    return closeElement(openElement(0));
  }

  /** Opens an array element, closed by {@link #end()}. */
  public ValueWriter addArray() {
    checkRoom();
    return openLevel(openElement(TAG_AND_LENGTH_ROOM), false, ARRAY);
  }

  /** Opens a key-value list element, closed by {@link #end()}. */
  public ValueWriter addKvList() {
    checkRoom();
    return openLevel(openElement(TAG_AND_LENGTH_ROOM), false, KVLIST);
  }

  /** Closes the innermost open array or key-value list. */
  public ValueWriter end() {
    checkOpen();
    if (depth == 0) {
      throw new IllegalStateException(
          "end() closes an array or key-value list value, and none is open in the "
              + owner
              + " "
              + what);
    }
    for (int i = levelMarks[depth]; i > 0; i--) {
      out.endLengthDelimited(marks[--markCount]);
    }
    depth--;
    return this;
  }

  // For the writers that own this one.

  /** Starts the values of a new owner: a list of entries in {@code rootField}, or none (0). */
  void start(int rootField) {
    out.reset();
    this.rootField = rootField;
    depth = 0;
    markCount = 0;
    kinds[0] = rootField == 0 ? NONE : KVLIST;
    open = true;
  }

  /** Checks that nothing opened is left open; the owner is about to write or drop the bytes. */
  void checkClosed() {
    if (depth > 0) {
      throw new IllegalStateException(
          (kinds[depth] == ARRAY ? "an array" : "a key-value list")
              + " value in the "
              + owner
              + " "
              + what
              + " is still open: end() it first");
    }
  }

  /** Ends writing: the owner has taken the bytes. */
  void close() {
    open = false;
  }

  /** The encoded entries (or value), in the fields the owner copies. */
  ProtoWriter bytes() {
    return out;
  }

  // A value of its own (a log record's body) in {@code field}, in place of what was there.

  void rootString(int field, CharSequence value) {
    Objects.requireNonNull(value, "value");
    int p = openRoot(field, TAG_AND_LENGTH_ROOM + Fields.utf8Room(value.length()));
    closeElement(writeString(out.array(), p, value));
  }

  void rootBool(int field, boolean value) {
    int p = openRoot(field, 2);
    closeElement(writeBool(out.array(), p, value));
  }

  void rootInt(int field, long value) {
    int p = openRoot(field, 11);
    closeElement(writeInt(out.array(), p, value));
  }

  void rootDouble(int field, double value) {
    int p = openRoot(field, 9);
    closeElement(writeDouble(out.array(), p, value));
  }

  void rootBytes(int field, byte[] value) {
    Objects.requireNonNull(value, "value");
    int p = openRoot(field, TAG_AND_LENGTH_ROOM + value.length);
    closeElement(writeBytes(out.array(), p, value));
  }

  void rootEmpty(int field) {
    closeElement(openRoot(field, 0));
  }

  /** Opens an array or key-value list of its own in {@code field}. */
  ValueWriter rootList(int field, boolean array) {
    return openLevel(openRoot(field, TAG_AND_LENGTH_ROOM), false, array ? ARRAY : KVLIST);
  }

  // Writing. Each entry makes room for all it may take once, then writes into the array.

  /**
   * Writes a {@code KeyValue}'s tag, its key and its value's tag, with room for {@code valueRoom}
   * bytes of value; returns where the value goes.
   */
  private int openEntry(CharSequence key, int valueRoom) {
    Objects.requireNonNull(key, "key");
    checkOpen();
    if (kinds[depth] != KVLIST) {
      throw new IllegalStateException(
          kinds[depth] == ARRAY
              ? "put(key, value) is for key-value lists, and the innermost open value in the "
                  + owner
                  + " "
                  + what
                  + " is an array: add(value) to it, or end() it first"
              : "no key-value list is open in the " + owner + " " + what);
    }
    int field = depth == 0 ? rootField : KeyValueList.VALUES;
    out.ensureRemaining(3 * TAG_AND_LENGTH_ROOM + Fields.utf8Room(key.length()) + valueRoom);
    byte[] b = out.array();
    int p = out.size();
    b[p] = tag(field, WireType.LEN);
    entryMark = p + 1;
    p += 2;
    if (key.length() > 0) {
      b[p] = KEY_TAG;
      p = Fields.endLength(b, p + 1, Fields.utf8(key, b, p + 2));
    }
    b[p] = VALUE_TAG;
    valueMark = p + 1;
    return p + 2;
  }

  private ValueWriter closeEntry(int end) {
    byte[] b = out.array();
    end = Fields.endLength(b, entryMark, Fields.endLength(b, valueMark, end));
    out.advance(end - out.size());
    return this;
  }

  /** Writes an array element's tag, with room for {@code valueRoom}; returns where it goes. */
  private int openElement(int valueRoom) {
    checkOpen();
    if (kinds[depth] != ARRAY) {
      String list = owner + " " + what;
      throw new IllegalStateException(
          kinds[depth] == NONE
              ? "no array is open in the " + list
              : depth == 0
                  ? "add(value) is for arrays, and the "
                      + list
                      + " are a key-value list: use"
                      + " put(key, value)"
                  : "add(value) is for arrays, and the innermost open value in the "
                      + list
                      + " is a key-value list: put(key, value) into it, or end() it first");
    }
    return openValue(ELEMENT_TAG, valueRoom);
  }

  private int openRoot(int field, int valueRoom) {
    start(0);
    return openValue(tag(field, WireType.LEN), valueRoom);
  }

  private int openValue(byte tag, int valueRoom) {
    out.ensureRemaining(TAG_AND_LENGTH_ROOM + valueRoom);
    byte[] b = out.array();
    int p = out.size();
    b[p] = tag;
    entryMark = -1;
    valueMark = p + 1;
    return p + 2;
  }

  private ValueWriter closeElement(int end) {
    end = Fields.endLength(out.array(), valueMark, end);
    out.advance(end - out.size());
    return this;
  }

  /**
   * Opens an array or key-value list as the value begun by {@link #openEntry} ({@code keyed}) or
   * {@link #openElement}, whose content starts at {@code p}: its fields stay open on the stack.
   */
  private ValueWriter openLevel(int p, boolean keyed, byte kind) {
    if (keyed) {
      marks[markCount++] = entryMark;
    }
    marks[markCount++] = valueMark;
    byte[] b = out.array();
    b[p] = tag(kind == ARRAY ? AnyValue.ARRAY_VALUE : AnyValue.KVLIST_VALUE, WireType.LEN);
    marks[markCount++] = p + 1;
    out.advance(p + 2 - out.size());
    depth++;
    kinds[depth] = kind;
    levelMarks[depth] = (byte) (keyed ? 3 : 2);
    return this;
  }

  private static int writeString(byte[] b, int p, CharSequence value) {
    b[p] = STRING_TAG;
    return Fields.endLength(b, p + 1, Fields.utf8(value, b, p + 2));
  }

  private static int writeBool(byte[] b, int p, boolean value) {
    b[p] = BOOL_TAG;
    b[p + 1] = (byte) (value ? 1 : 0);
    return p + 2;
  }

  private static int writeInt(byte[] b, int p, long value) {
    b[p++] = INT_TAG;
    while ((value & ~0x7FL) != 0) {
      b[p++] = (byte) (value & 0x7F | 0x80);
      value >>>= 7;
    }
    b[p++] = (byte) value;
    return p;
  }

  private static int writeDouble(byte[] b, int p, double value) {
    b[p] = DOUBLE_TAG;
    LONGS.set(b, p + 1, Double.doubleToRawLongBits(value));
    return p + 9;
  }

  private static int writeBytes(byte[] b, int p, byte[] value) {
    b[p] = BYTES_TAG;
    int mark = p + 1;
    System.arraycopy(value, 0, b, mark + 1, value.length);
    return Fields.endLength(b, mark, mark + 1 + value.length);
  }

  private static byte tag(int field, int wireType) {
    return (byte) WireType.tag(field, wireType);
  }

  private void checkRoom() {
    checkOpen();
    if (depth == MAX_NESTING) {
      throw new IllegalStateException(
          "array and key-value list values nest at most " + MAX_NESTING + " deep");
    }
  }

  private void checkOpen() {
    if (!open) {
      throw new IllegalStateException(
          "the " + owner + " " + what + " can no longer be written: the " + owner + " has ended");
    }
  }
}
