package dev.sluice.pdata.build;

import dev.sluice.pdata.otlp.OtlpFields.AnyValue;
import dev.sluice.pdata.otlp.OtlpFields.ArrayValue;
import dev.sluice.pdata.otlp.OtlpFields.KeyValue;
import dev.sluice.pdata.otlp.OtlpFields.KeyValueList;
import dev.sluice.pdata.wire.ProtoWriter;
import dev.sluice.pdata.wire.WireType;
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

  private static final byte NONE = 0;
  private static final byte ARRAY = 1;
  private static final byte KVLIST = 2;

  private final String owner;
  private final String what;
  private final ProtoWriter out = new ProtoWriter(64);
  private int rootField;
  private boolean open;

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
    openEntry(key);
    Fields.stringAlways(out, AnyValue.STRING_VALUE, value);
    return closeEntry(2);
  }

  public ValueWriter put(CharSequence key, boolean value) {
    openEntry(key);
    writeBool(value);
    return closeEntry(2);
  }

  public ValueWriter put(CharSequence key, long value) {
    openEntry(key);
    writeInt(value);
    return closeEntry(2);
  }

  public ValueWriter put(CharSequence key, double value) {
    openEntry(key);
    Fields.doubleAlways(out, AnyValue.DOUBLE_VALUE, value);
    return closeEntry(2);
  }

  /** A {@code bytes_value}: the whole array, copied. */
  public ValueWriter put(CharSequence key, byte[] value) {
    Objects.requireNonNull(value, "value");
    openEntry(key);
    Fields.bytes(out, AnyValue.BYTES_VALUE, value, value.length);
    return closeEntry(2);
  }

  /** An entry whose value is empty (an {@code AnyValue} with no value set). */
  public ValueWriter putEmpty(CharSequence key) {
    openEntry(key);
    return closeEntry(2);
  }

  /** Opens an array value under {@code key}; {@link #add} fills it and {@link #end()} closes it. */
  public ValueWriter putArray(CharSequence key) {
    checkRoom();
    openEntry(key);
    return openLevel(ARRAY, AnyValue.ARRAY_VALUE, 3);
  }

  /** Opens a key-value list value under {@code key}, closed by {@link #end()}. */
  public ValueWriter putKvList(CharSequence key) {
    checkRoom();
    openEntry(key);
    return openLevel(KVLIST, AnyValue.KVLIST_VALUE, 3);
  }

  // Arrays.

  public ValueWriter add(CharSequence value) {
    Objects.requireNonNull(value, "value");
    openElement();
    Fields.stringAlways(out, AnyValue.STRING_VALUE, value);
    return closeEntry(1);
  }

  public ValueWriter add(boolean value) {
    openElement();
    writeBool(value);
    return closeEntry(1);
  }

  public ValueWriter add(long value) {
    openElement();
    writeInt(value);
    return closeEntry(1);
  }

  public ValueWriter add(double value) {
    openElement();
    Fields.doubleAlways(out, AnyValue.DOUBLE_VALUE, value);
    return closeEntry(1);
  }

  public ValueWriter add(byte[] value) {
    Objects.requireNonNull(value, "value");
    openElement();
    Fields.bytes(out, AnyValue.BYTES_VALUE, value, value.length);
    return closeEntry(1);
  }

  /** An empty element (an {@code AnyValue} with no value set). */
  public ValueWriter addEmpty() {
    openElement();
    return closeEntry(1);
  }

  /** Opens an array element, closed by {@link #end()}. */
  public ValueWriter addArray() {
    checkRoom();
    openElement();
    return openLevel(ARRAY, AnyValue.ARRAY_VALUE, 2);
  }

  /** Opens a key-value list element, closed by {@link #end()}. */
  public ValueWriter addKvList() {
    checkRoom();
    openElement();
    return openLevel(KVLIST, AnyValue.KVLIST_VALUE, 2);
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
    closeMarks(levelMarks[depth]);
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

  // A value of its own (a log record's body), in place of what was there.

  void rootString(int field, CharSequence value) {
    Objects.requireNonNull(value, "value");
    int mark = startRoot(field);
    Fields.stringAlways(out, AnyValue.STRING_VALUE, value);
    out.endLengthDelimited(mark);
  }

  void rootBool(int field, boolean value) {
    int mark = startRoot(field);
    writeBool(value);
    out.endLengthDelimited(mark);
  }

  void rootInt(int field, long value) {
    int mark = startRoot(field);
    writeInt(value);
    out.endLengthDelimited(mark);
  }

  void rootDouble(int field, double value) {
    int mark = startRoot(field);
    Fields.doubleAlways(out, AnyValue.DOUBLE_VALUE, value);
    out.endLengthDelimited(mark);
  }

  void rootBytes(int field, byte[] value) {
    Objects.requireNonNull(value, "value");
    int mark = startRoot(field);
    Fields.bytes(out, AnyValue.BYTES_VALUE, value, value.length);
    out.endLengthDelimited(mark);
  }

  void rootEmpty(int field) {
    out.endLengthDelimited(startRoot(field));
  }

  /** Opens a value of its own in {@code field} as an array or a key-value list. */
  ValueWriter rootList(int field, boolean array) {
    int mark = startRoot(field);
    marks[markCount++] = mark;
    return openLevel(
        array ? ARRAY : KVLIST, array ? AnyValue.ARRAY_VALUE : AnyValue.KVLIST_VALUE, 2);
  }

  private int startRoot(int field) {
    start(0);
    return out.beginLengthDelimited(field);
  }

  // Internals.

  private void writeBool(boolean value) {
    out.writeTag(AnyValue.BOOL_VALUE, WireType.VARINT);
    out.writeVarint32(value ? 1 : 0);
  }

  private void writeInt(long value) {
    out.writeTag(AnyValue.INT_VALUE, WireType.VARINT);
    out.writeVarint64(value);
  }

  /** Opens a {@code KeyValue} and its {@code value}: two marks. */
  private void openEntry(CharSequence key) {
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
    marks[markCount++] = out.beginLengthDelimited(depth == 0 ? rootField : KeyValueList.VALUES);
    Fields.string(out, KeyValue.KEY, key);
    marks[markCount++] = out.beginLengthDelimited(KeyValue.VALUE);
  }

  /** Opens an array element's {@code AnyValue}: one mark. */
  private void openElement() {
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
    marks[markCount++] = out.beginLengthDelimited(ArrayValue.VALUES);
  }

  private ValueWriter closeEntry(int count) {
    closeMarks(count);
    return this;
  }

  private ValueWriter openLevel(byte kind, int valueField, int levelMarkCount) {
    marks[markCount++] = out.beginLengthDelimited(valueField);
    depth++;
    kinds[depth] = kind;
    levelMarks[depth] = (byte) levelMarkCount;
    return this;
  }

  private void closeMarks(int count) {
    for (int i = 0; i < count; i++) {
      out.endLengthDelimited(marks[--markCount]);
    }
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
