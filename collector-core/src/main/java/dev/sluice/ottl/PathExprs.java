package dev.sluice.ottl;

import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.ArrayCursor;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.TextView;
import dev.sluice.pdata.view.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Expressions that read a field of the item through its views. */
final class PathExprs {
  private PathExprs() {}

  interface TextField {
    TextView read(EvalContext context);
  }

  interface LongField {
    long read(EvalContext context);
  }

  interface DoubleField {
    double read(EvalContext context);
  }

  interface BoolField {
    boolean read(EvalContext context);
  }

  /** Copies an ID into {@code destination}; false when the item has none. */
  interface IdField {
    boolean copy(EvalContext context, byte[] destination);
  }

  /** Points {@code cursor} at a list of attributes of the item. */
  interface AttributesField {
    AttributeCursor point(EvalContext context, AttributeCursor cursor);
  }

  interface AnyField {
    AnyValueView read(EvalContext context);
  }

  static final class Text extends Expr {
    private final TextField field;

    Text(TextField field) {
      super(OttlType.STRING);
      this.field = field;
    }

    @Override
    Value eval(EvalContext context) {
      out.setText(field.read(context));
      return out;
    }
  }

  static final class Int extends Expr {
    private final LongField field;

    Int(LongField field) {
      super(OttlType.INT);
      this.field = field;
    }

    @Override
    Value eval(EvalContext context) {
      out.setInt(field.read(context));
      return out;
    }
  }

  static final class Double extends Expr {
    private final DoubleField field;

    Double(DoubleField field) {
      super(OttlType.DOUBLE);
      this.field = field;
    }

    @Override
    Value eval(EvalContext context) {
      out.setDouble(field.read(context));
      return out;
    }
  }

  static final class Bool extends Expr {
    private final BoolField field;

    Bool(BoolField field) {
      super(OttlType.BOOL);
      this.field = field;
    }

    @Override
    Value eval(EvalContext context) {
      out.setBool(field.read(context));
      return out;
    }
  }

  /**
   * A trace or span ID: its bytes (all zeros when the item has none, as pdata's empty ID), or with
   * {@code hex} its lower-case hex string (empty when it has none, as Go's {@code .string}).
   */
  static final class Id extends Expr {
    private final IdField field;
    private final byte[] id;
    private final boolean hex;

    Id(IdField field, int idBytes, boolean hex) {
      super(hex ? OttlType.STRING : OttlType.BYTES);
      this.field = field;
      this.id = new byte[idBytes];
      this.hex = hex;
    }

    @Override
    Value eval(EvalContext context) {
      boolean present = field.copy(context, id);
      if (!hex) {
        out.setBytesRef(id, 0, id.length);
      } else if (present) {
        Values.writeHex(id, 0, id.length, out);
      } else {
        out.setStringRef(id, 0, 0);
      }
      return out;
    }
  }

  /**
   * An {@code AnyValue} reached from a list of attributes ({@code attributes["a"][0]["b"]}) or from
   * a value field ({@code body["a"]}): a missing key is nil; a key that does not fit the value (a
   * string key on a list, a key on a string) or an index out of range fails, as in Go.
   */
  static final class Lookup extends Expr {
    private final AttributesField attributes;
    private final AnyField root;
    private final byte[][] names;
    private final long[] indexes;
    private final String path;
    private final AttributeCursor[] maps;
    private final ArrayCursor[] arrays;
    private final Value.ArrayList elements = new Value.ArrayList();

    private Lookup(
        AttributesField attributes, AnyField root, List<Ast.Key> keys, String path, OttlType type) {
      super(type);
      this.attributes = attributes;
      this.root = root;
      this.path = path;
      int count = keys.size();
      names = new byte[count][];
      indexes = new long[count];
      for (int i = 0; i < count; i++) {
        Ast.Key key = keys.get(i);
        names[i] = key.isIndex() ? null : key.name().getBytes(StandardCharsets.UTF_8);
        indexes[i] = key.index();
      }
      maps = new AttributeCursor[count + 1];
      arrays = new ArrayCursor[count + 1];
      for (int i = 0; i <= count; i++) {
        maps[i] = new AttributeCursor();
        arrays[i] = new ArrayCursor();
      }
    }

    /** {@code attributes} itself (a map) or one of its values, further keys included. */
    static Lookup ofAttributes(AttributesField attributes, List<Ast.Key> keys, String path) {
      return new Lookup(attributes, null, keys, path, keys.isEmpty() ? OttlType.MAP : OttlType.ANY);
    }

    static Lookup ofValue(AnyField root, List<Ast.Key> keys, String path) {
      return new Lookup(null, root, keys, path, OttlType.ANY);
    }

    @Override
    Value eval(EvalContext context) {
      AnyValueView current;
      int next;
      if (attributes != null) {
        AttributeCursor cursor = attributes.point(context, maps[0]);
        if (names.length == 0) {
          out.setMap(cursor);
          return out;
        }
        if (!cursor.find(names[0])) {
          out.setNil();
          return out;
        }
        current = cursor.value();
        next = 1;
      } else {
        current = root.read(context);
        next = 0;
      }
      for (int k = next; k < names.length; k++) {
        ValueType type = current.type();
        if (type == ValueType.KVLIST && names[k] != null) {
          AttributeCursor cursor = current.kvlist(maps[k]);
          if (!cursor.find(names[k])) {
            out.setNil();
            return out;
          }
          current = cursor.value();
        } else if (type == ValueType.ARRAY && names[k] == null) {
          current = element(current.array(arrays[k]), indexes[k]);
        } else if (type == ValueType.EMPTY) {
          out.setNil();
          return out;
        } else {
          throw new OttlEvaluationException(
              path + ": cannot index a " + describe(type) + " with " + describeKey(k));
        }
      }
      out.setAny(current, maps[names.length], arrays[names.length], elements);
      return out;
    }

    private AnyValueView element(ArrayCursor cursor, long index) {
      long seen = 0;
      while (cursor.next()) {
        if (seen++ == index) {
          return cursor.value();
        }
      }
      throw new OttlEvaluationException(
          path + ": index " + index + " out of range for a list of " + seen);
    }

    private String describeKey(int k) {
      return names[k] == null
          ? "[" + indexes[k] + "]"
          : "[\"" + new String(names[k], StandardCharsets.UTF_8) + "\"]";
    }

    private static String describe(ValueType type) {
      return switch (type) {
        case KVLIST -> "map";
        case ARRAY -> "list";
        case STRING, STRING_INDEX -> "string";
        default -> type.name().toLowerCase(java.util.Locale.ROOT);
      };
    }
  }
}
