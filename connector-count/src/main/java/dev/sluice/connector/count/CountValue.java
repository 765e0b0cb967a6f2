package dev.sluice.connector.count;

import dev.sluice.pdata.build.ValueWriter;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.ArrayCursor;
import dev.sluice.pdata.view.AttributeCursor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * An attribute value a count is kept for: decoded from an item (or from a {@code default_value}),
 * so that it can key the count past the item's visit and be written into the emitted data point as
 * it was read. Values are equal when their type and content are (doubles by their bits, as the Go
 * collector's map hash does).
 */
sealed interface CountValue {
  /** How deep arrays and key-value lists are copied; deeper levels become empty values. */
  int MAX_DEPTH = ValueWriter.MAX_NESTING;

  record Text(String value) implements CountValue {}

  record Int(long value) implements CountValue {}

  record Floating(double value) implements CountValue {}

  record Bool(boolean value) implements CountValue {}

  /** A {@code bytes_value}. */
  record Bytes(byte[] value) implements CountValue {
    @Override
    public boolean equals(Object other) {
      return other instanceof Bytes b && Arrays.equals(value, b.value);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(value);
    }

    @Override
    public String toString() {
      return "Bytes" + Arrays.toString(value);
    }
  }

  record Array(List<CountValue> elements) implements CountValue {}

  record KvList(List<Entry> entries) implements CountValue {}

  /** An {@code AnyValue} with no member set. */
  record Empty() implements CountValue {}

  /** A key and its value: an attribute, or an entry of a key-value list. */
  record Entry(String key, CountValue value) {}

  Empty EMPTY = new Empty();

  /** Decodes {@code value}; its arrays and key-value lists are walked with fresh cursors. */
  static CountValue read(AnyValueView value) {
    return read(value, 0);
  }

  private static CountValue read(AnyValueView value, int depth) {
    return switch (value.type()) {
      case STRING -> new Text(value.stringValue().asString());
      case INT -> new Int(value.intValue());
      case DOUBLE -> new Floating(value.doubleValue());
      case BOOL -> new Bool(value.boolValue());
      case BYTES -> {
        byte[] bytes = new byte[value.bytesLength()];
        value.copyBytes(bytes, 0);
        yield new Bytes(bytes);
      }
      case ARRAY -> depth >= MAX_DEPTH ? EMPTY : readArray(value, depth);
      case KVLIST -> depth >= MAX_DEPTH ? EMPTY : readKvList(value, depth);
      case STRING_INDEX -> new Int(value.stringIndex());
      case EMPTY -> EMPTY;
    };
  }

  private static CountValue readArray(AnyValueView value, int depth) {
    ArrayCursor elements = value.array(new ArrayCursor());
    List<CountValue> read = new ArrayList<>();
    while (elements.next()) {
      read.add(read(elements.value(), depth + 1));
    }
    return new Array(List.copyOf(read));
  }

  private static CountValue readKvList(AnyValueView value, int depth) {
    AttributeCursor entries = value.kvlist(new AttributeCursor());
    List<Entry> read = new ArrayList<>();
    while (entries.next()) {
      read.add(new Entry(entries.key().asString(), read(entries.value(), depth + 1)));
    }
    return new KvList(List.copyOf(read));
  }

  /**
   * The value a configuration file gives ({@code default_value}): a string, a whole number, a
   * floating-point number, a boolean, or a list or mapping of them, as the configuration binder
   * reads them.
   *
   * @throws IllegalArgumentException for anything else
   */
  static CountValue fromConfig(Object value) {
    if (value instanceof String s) {
      return new Text(s);
    }
    if (value instanceof Long || value instanceof Integer || value instanceof Short) {
      return new Int(((Number) value).longValue());
    }
    if (value instanceof Double || value instanceof Float) {
      return new Floating(((Number) value).doubleValue());
    }
    if (value instanceof Boolean b) {
      return new Bool(b);
    }
    if (value instanceof List<?> list) {
      List<CountValue> elements = new ArrayList<>(list.size());
      for (Object element : list) {
        elements.add(element == null ? EMPTY : fromConfig(element));
      }
      return new Array(List.copyOf(elements));
    }
    if (value instanceof Map<?, ?> map) {
      List<Entry> entries = new ArrayList<>(map.size());
      for (Map.Entry<?, ?> e : map.entrySet()) {
        Object v = e.getValue();
        entries.add(new Entry(String.valueOf(e.getKey()), v == null ? EMPTY : fromConfig(v)));
      }
      return new KvList(List.copyOf(entries));
    }
    throw new IllegalArgumentException(
        "must be a string, a number, a boolean, or a list or mapping of them, not "
            + (value == null ? "null" : value.getClass().getSimpleName()));
  }

  /** Writes {@code key: value} into the key-value list {@code out} is writing. */
  static void put(ValueWriter out, String key, CountValue value) {
    if (value instanceof Text t) {
      out.put(key, t.value());
    } else if (value instanceof Int i) {
      out.put(key, i.value());
    } else if (value instanceof Floating f) {
      out.put(key, f.value());
    } else if (value instanceof Bool b) {
      out.put(key, b.value());
    } else if (value instanceof Bytes b) {
      out.put(key, b.value());
    } else if (value instanceof Array a) {
      out.putArray(key);
      addAll(out, a.elements());
      out.end();
    } else if (value instanceof KvList kv) {
      out.putKvList(key);
      putAll(out, kv.entries());
      out.end();
    } else {
      out.putEmpty(key);
    }
  }

  private static void putAll(ValueWriter out, List<Entry> entries) {
    for (Entry entry : entries) {
      put(out, entry.key(), entry.value());
    }
  }

  private static void addAll(ValueWriter out, List<CountValue> elements) {
    for (CountValue element : elements) {
      if (element instanceof Text t) {
        out.add(t.value());
      } else if (element instanceof Int i) {
        out.add(i.value());
      } else if (element instanceof Floating f) {
        out.add(f.value());
      } else if (element instanceof Bool b) {
        out.add(b.value());
      } else if (element instanceof Bytes b) {
        out.add(b.value());
      } else if (element instanceof Array a) {
        out.addArray();
        addAll(out, a.elements());
        out.end();
      } else if (element instanceof KvList kv) {
        out.addKvList();
        putAll(out, kv.entries());
        out.end();
      } else {
        out.addEmpty();
      }
    }
  }
}
