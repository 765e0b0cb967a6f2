package dev.sluice.ottl;

import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.ArrayCursor;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.TextView;
import java.util.Arrays;

/**
 * The result of evaluating an expression for one item: a mutable holder that each expression node
 * owns and overwrites on every evaluation, so that evaluating allocates nothing once its buffers
 * have grown. Strings are UTF-8 bytes, copied from the item into the holder's own buffer or
 * pointing at a literal's bytes; maps and lists point at cursors over the item.
 */
final class Value {
  enum Kind {
    NIL,
    STRING,
    INT,
    DOUBLE,
    BOOL,
    BYTES,
    MAP,
    LIST
  }

  private static final int INITIAL_BYTES = 64;

  Kind kind = Kind.NIL;
  long longValue;
  double doubleValue;
  boolean boolValue;

  /** STRING (UTF-8) and BYTES: {@code bytes[offset, offset + length)}. */
  byte[] bytes;

  int offset;
  int length;

  /** MAP: the entries. */
  AttributeCursor map;

  /** LIST: the elements. */
  ListSource list;

  private byte[] own = new byte[INITIAL_BYTES];

  /** A list of values read one at a time into a caller's holder. */
  interface ListSource {
    int size();

    /** Reads element {@code index} (in range) into {@code into}. */
    void get(int index, Value into);
  }

  void setNil() {
    kind = Kind.NIL;
  }

  void setInt(long value) {
    kind = Kind.INT;
    longValue = value;
  }

  void setDouble(double value) {
    kind = Kind.DOUBLE;
    doubleValue = value;
  }

  void setBool(boolean value) {
    kind = Kind.BOOL;
    boolValue = value;
  }

  void setMap(AttributeCursor entries) {
    kind = Kind.MAP;
    map = entries;
  }

  void setList(ListSource elements) {
    kind = Kind.LIST;
    list = elements;
  }

  /** A string whose bytes are someone else's and stay put (a literal's). */
  void setStringRef(byte[] utf8, int from, int count) {
    kind = Kind.STRING;
    bytes = utf8;
    offset = from;
    length = count;
  }

  void setBytesRef(byte[] value, int from, int count) {
    setStringRef(value, from, count);
    kind = Kind.BYTES;
  }

  /** A string copied from a text field of the item. */
  void setText(TextView text) {
    byte[] buffer = buffer(text.length());
    text.copyTo(buffer, 0);
    setStringRef(buffer, 0, text.length());
  }

  /**
   * This holder's own buffer, at least {@code size} bytes, for a string or bytes the caller writes
   * and then sets with {@link #setStringRef} or {@link #setBytesRef}.
   */
  byte[] buffer(int size) {
    if (own.length < size) {
      own = Arrays.copyOf(own, Math.max(size, own.length * 2));
    }
    return own;
  }

  /**
   * An {@code AnyValue} of the item: scalars copied, a map or list pointed at through the given
   * cursor and list (which the caller owns, one per place a value is read).
   */
  void setAny(
      AnyValueView value, AttributeCursor mapCursor, ArrayCursor arrayCursor, ArrayList elements) {
    switch (value.type()) {
      case STRING -> setText(value.stringValue());
      case BOOL -> setBool(value.boolValue());
      case INT -> setInt(value.intValue());
      case DOUBLE -> setDouble(value.doubleValue());
      case BYTES -> {
        int size = value.bytesLength();
        byte[] buffer = buffer(size);
        value.copyBytes(buffer, 0);
        setBytesRef(buffer, 0, size);
      }
      case KVLIST -> setMap(value.kvlist(mapCursor));
      case ARRAY -> setList(elements.point(value.array(arrayCursor)));
      default -> setNil();
    }
  }

  /** Copies {@code other} (its bytes into this holder's buffer, so that it may change). */
  void copyFrom(Value other) {
    kind = other.kind;
    longValue = other.longValue;
    doubleValue = other.doubleValue;
    boolValue = other.boolValue;
    map = other.map;
    list = other.list;
    if (kind == Kind.STRING || kind == Kind.BYTES) {
      byte[] buffer = buffer(other.length);
      System.arraycopy(other.bytes, other.offset, buffer, 0, other.length);
      bytes = buffer;
      offset = 0;
      length = other.length;
    }
  }

  boolean bytesEqual(byte[] other, int otherOffset, int otherLength) {
    return length == otherLength
        && Arrays.equals(
            bytes, offset, offset + length, other, otherOffset, otherOffset + otherLength);
  }

  /** The type of what it holds, for messages. */
  String typeName() {
    return OttlType.of(kind).label;
  }

  /**
   * An {@code array_value} of the item as a list: element {@code i} is read by walking the array's
   * cursor to it, into holders whose own nested maps and lists get cursors of this list's.
   */
  static final class ArrayList implements ListSource {
    private ArrayCursor cursor;
    private final AttributeCursor elementMap = new AttributeCursor();
    private final ArrayCursor elementArray = new ArrayCursor();
    private ArrayList nested;

    ArrayList point(ArrayCursor array) {
      cursor = array;
      return this;
    }

    @Override
    public int size() {
      return cursor.count();
    }

    @Override
    public void get(int index, Value into) {
      cursor.reset();
      for (int i = 0; i <= index; i++) {
        cursor.next();
      }
      if (nested == null) {
        nested = new ArrayList();
      }
      into.setAny(cursor.value(), elementMap, elementArray, nested);
    }
  }
}
