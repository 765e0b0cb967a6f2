package dev.sluice.ottl;

import dev.sluice.ottl.Value.Kind;
import dev.sluice.pdata.view.Utf8Chars;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The converters' expressions. */
final class ConverterExprs {
  private static final byte[] NIL_TEXT = "<nil>".getBytes(StandardCharsets.US_ASCII);
  private static final int INITIAL_PARTS = 8;
  private static final int ASCII_CASE_BIT = 0x20;

  private ConverterExprs() {}

  /** The string an argument that takes a string must be (not nil, not another type). */
  static Value string(Expr argument, EvalContext context, String function) {
    Value v = argument.eval(context);
    if (v.kind != Kind.STRING) {
      throw new OttlEvaluationException(function + " expects a string, got a " + v.typeName());
    }
    return v;
  }

  static long integer(Expr argument, EvalContext context, String function) {
    Value v = argument.eval(context);
    if (v.kind != Kind.INT) {
      throw new OttlEvaluationException(function + " expects an int, got a " + v.typeName());
    }
    return v.longValue;
  }

  /** {@code IsMatch(target, "regex")}: a regular expression found in the target's string form. */
  static final class IsMatch extends Expr {
    private final Expr target;
    private final Matcher matcher;
    private final Utf8Chars chars = new Utf8Chars();
    private final Value text = new Value();

    IsMatch(Expr target, Pattern pattern) {
      super(OttlType.BOOL);
      this.target = target;
      this.matcher = pattern.matcher("");
    }

    @Override
    Value eval(EvalContext context) {
      Value v = target.eval(context);
      if (!Values.toStringValue(v, text, "IsMatch")) {
        out.setBool(false);
        return out;
      }
      matcher.reset(chars.decode(text.bytes, text.offset, text.length));
      out.setBool(matcher.find());
      return out;
    }
  }

  /** {@code IsString(v)}, {@code IsInt(v)}, ...: whether the value is of one type. */
  static final class IsKind extends Expr {
    private final Expr target;
    private final Kind kind;

    IsKind(Expr target, Kind kind) {
      super(OttlType.BOOL);
      this.target = target;
      this.kind = kind;
    }

    @Override
    Value eval(EvalContext context) {
      out.setBool(target.eval(context).kind == kind);
      return out;
    }
  }

  /** {@code Len(v)}: bytes of a string (as Go's {@code len}), entries of a map or a list. */
  static final class Len extends Expr {
    private final Expr target;

    Len(Expr target) {
      super(OttlType.INT);
      this.target = target;
    }

    @Override
    Value eval(EvalContext context) {
      Value v = target.eval(context);
      switch (v.kind) {
        case STRING -> out.setInt(v.length);
        case MAP -> out.setInt(v.map.count());
        case LIST -> out.setInt(v.list.size());
        default -> throw new OttlEvaluationException("Len cannot take a " + v.typeName());
      }
      return out;
    }
  }

  /** {@code Concat([a, b], "-")}: the string forms joined, nil written {@code <nil>} as in Go. */
  static final class Concat extends Expr {
    private final Expr values;
    private final Expr delimiter;
    private final Value element = new Value();
    private final Value elementText = new Value();
    private byte[] joined = new byte[64];

    Concat(Expr values, Expr delimiter) {
      super(OttlType.STRING);
      this.values = values;
      this.delimiter = delimiter;
    }

    @Override
    Value eval(EvalContext context) {
      Value list = values.eval(context);
      if (list.kind != Kind.LIST) {
        throw new OttlEvaluationException("Concat expects a list, got a " + list.typeName());
      }
      Value separator = string(delimiter, context, "Concat");
      int size = 0;
      int count = list.list.size();
      for (int i = 0; i < count; i++) {
        if (i > 0) {
          size = append(size, separator.bytes, separator.offset, separator.length);
        }
        list.list.get(i, element);
        if (Values.toStringValue(element, elementText, "Concat")) {
          size = append(size, elementText.bytes, elementText.offset, elementText.length);
        } else {
          size = append(size, NIL_TEXT, 0, NIL_TEXT.length);
        }
      }
      out.setStringRef(joined, 0, size);
      return out;
    }

    private int append(int size, byte[] bytes, int from, int count) {
      if (joined.length < size + count) {
        joined = Arrays.copyOf(joined, Math.max(size + count, 2 * joined.length));
      }
      System.arraycopy(bytes, from, joined, size, count);
      return size + count;
    }
  }

  /** {@code Split(s, delimiter)}: the parts, as Go's {@code strings.Split}. */
  static final class Split extends Expr implements Value.ListSource {
    private final Expr target;
    private final Expr delimiter;
    private byte[] source = new byte[64];
    private int[] starts = new int[INITIAL_PARTS];
    private int[] lengths = new int[INITIAL_PARTS];
    private int parts;

    Split(Expr target, Expr delimiter) {
      super(OttlType.LIST);
      this.target = target;
      this.delimiter = delimiter;
    }

    @Override
    Value eval(EvalContext context) {
      Value s = string(target, context, "Split");
      if (source.length < s.length) {
        source = new byte[Math.max(s.length, 2 * source.length)];
      }
      System.arraycopy(s.bytes, s.offset, source, 0, s.length);
      int length = s.length;
      Value d = string(delimiter, context, "Split");
      parts = 0;
      if (d.length == 0) {
        // Go splits into the UTF-8 sequences.
        int p = 0;
        while (p < length) {
          int n = sequenceLength(source[p]);
          add(p, Math.min(n, length - p));
          p += n;
        }
      } else {
        int from = 0;
        int p = 0;
        while (p + d.length <= length) {
          if (Arrays.equals(source, p, p + d.length, d.bytes, d.offset, d.offset + d.length)) {
            add(from, p - from);
            p += d.length;
            from = p;
          } else {
            p++;
          }
        }
        add(from, length - from);
      }
      out.setList(this);
      return out;
    }

    private static int sequenceLength(byte lead) {
      if (lead >= 0) {
        return 1;
      }
      if ((lead & 0xE0) == 0xC0) {
        return 2;
      }
      return (lead & 0xF0) == 0xE0 ? 3 : 4;
    }

    private void add(int start, int length) {
      if (parts == starts.length) {
        starts = Arrays.copyOf(starts, 2 * parts);
        lengths = Arrays.copyOf(lengths, 2 * parts);
      }
      starts[parts] = start;
      lengths[parts] = length;
      parts++;
    }

    @Override
    public int size() {
      return parts;
    }

    @Override
    public void get(int index, Value into) {
      into.setStringRef(source, starts[index], lengths[index]);
    }
  }

  /** {@code Substring(s, start, length)}, in bytes as Go's; a range past the end fails. */
  static final class Substring extends Expr {
    private final Expr target;
    private final Expr start;
    private final Expr length;

    Substring(Expr target, Expr start, Expr length) {
      super(OttlType.STRING);
      this.target = target;
      this.start = start;
      this.length = length;
    }

    @Override
    Value eval(EvalContext context) {
      Value s = string(target, context, "Substring");
      byte[] bytes = s.bytes;
      int offset = s.offset;
      int size = s.length;
      long from = integer(start, context, "Substring");
      long count = integer(length, context, "Substring");
      if (from < 0) {
        throw new OttlEvaluationException("Substring: start " + from + " is negative");
      }
      if (count <= 0) {
        throw new OttlEvaluationException("Substring: length " + count + " is not positive");
      }
      if (from + count > size) {
        throw new OttlEvaluationException(
            "Substring: "
                + from
                + " + "
                + count
                + " is past the end of a string of "
                + size
                + " bytes");
      }
      out.setStringRef(bytes, offset + (int) from, (int) count);
      return out;
    }
  }

  /** {@code ToLowerCase(s)} / {@code ToUpperCase(s)}: ASCII in place, other text through Java. */
  static final class ChangeCase extends Expr {
    private final Expr target;
    private final boolean upper;

    ChangeCase(Expr target, boolean upper) {
      super(OttlType.STRING);
      this.target = target;
      this.upper = upper;
    }

    @Override
    Value eval(EvalContext context) {
      Value s = string(target, context, upper ? "ToUpperCase" : "ToLowerCase");
      boolean ascii = true;
      for (int i = 0; i < s.length; i++) {
        if (s.bytes[s.offset + i] < 0) {
          ascii = false;
          break;
        }
      }
      if (!ascii) {
        // Rare: full Unicode case mapping, which allocates.
        String text = new String(s.bytes, s.offset, s.length, StandardCharsets.UTF_8);
        byte[] mapped =
            (upper ? text.toUpperCase(Locale.ROOT) : text.toLowerCase(Locale.ROOT))
                .getBytes(StandardCharsets.UTF_8);
        byte[] buffer = out.buffer(mapped.length);
        System.arraycopy(mapped, 0, buffer, 0, mapped.length);
        out.setStringRef(buffer, 0, mapped.length);
        return out;
      }
      byte[] source = s.bytes;
      int from = s.offset;
      int count = s.length;
      byte[] buffer = out.buffer(count);
      for (int i = 0; i < count; i++) {
        byte b = source[from + i];
        if (upper && b >= 'a' && b <= 'z') {
          b = (byte) (b & ~ASCII_CASE_BIT);
        } else if (!upper && b >= 'A' && b <= 'Z') {
          b = (byte) (b | ASCII_CASE_BIT);
        }
        buffer[i] = b;
      }
      out.setStringRef(buffer, 0, count);
      return out;
    }
  }

  /**
   * {@code Int(v)}: ints as they are, doubles truncated, bools 1 or 0, decimal strings parsed; else
   * nil.
   */
  static final class ToInt extends Expr {
    private final Expr target;

    ToInt(Expr target) {
      super(OttlType.ANY);
      this.target = target;
    }

    @Override
    Value eval(EvalContext context) {
      Value v = target.eval(context);
      switch (v.kind) {
        case INT -> out.setInt(v.longValue);
        case DOUBLE -> out.setInt((long) v.doubleValue);
        case BOOL -> out.setInt(v.boolValue ? 1 : 0);
        case STRING -> parse(v);
        default -> out.setNil();
      }
      return out;
    }

    private void parse(Value v) {
      // Rare in conditions: parsing through a String allocates.
      try {
        out.setInt(Long.parseLong(new String(v.bytes, v.offset, v.length, StandardCharsets.UTF_8)));
      } catch (NumberFormatException e) {
        out.setNil();
      }
    }
  }

  /** {@code Double(v)}: numbers as doubles, bools 1.0 or 0.0, numeric strings parsed; else nil. */
  static final class ToDouble extends Expr {
    private final Expr target;

    ToDouble(Expr target) {
      super(OttlType.ANY);
      this.target = target;
    }

    @Override
    Value eval(EvalContext context) {
      Value v = target.eval(context);
      switch (v.kind) {
        case INT -> out.setDouble(v.longValue);
        case DOUBLE -> out.setDouble(v.doubleValue);
        case BOOL -> out.setDouble(v.boolValue ? 1 : 0);
        case STRING -> parse(v);
        default -> out.setNil();
      }
      return out;
    }

    private void parse(Value v) {
      String text = new String(v.bytes, v.offset, v.length, StandardCharsets.UTF_8).trim();
      try {
        out.setDouble(Double.parseDouble(text));
      } catch (NumberFormatException e) {
        out.setNil();
      }
    }
  }

  /** {@code String(v)}: the string form of a scalar or bytes; nil stays nil. */
  static final class ToStringExpr extends Expr {
    private final Expr target;

    ToStringExpr(Expr target) {
      super(OttlType.ANY);
      this.target = target;
    }

    @Override
    Value eval(EvalContext context) {
      Value v = target.eval(context);
      if (!Values.toStringValue(v, out, "String")) {
        out.setNil();
      }
      return out;
    }
  }

  /** {@code TraceID(0x...)} / {@code SpanID(0x...)}: bytes of the ID's exact length. */
  static final class Id extends Expr {
    private final String name;
    private final Expr bytes;
    private final int idBytes;

    Id(String name, Expr bytes, int idBytes) {
      super(OttlType.BYTES);
      this.name = name;
      this.bytes = bytes;
      this.idBytes = idBytes;
    }

    @Override
    Value eval(EvalContext context) {
      Value v = bytes.eval(context);
      if (v.kind != Kind.BYTES || v.length != idBytes) {
        throw new OttlEvaluationException(
            name + " expects " + idBytes + " bytes, got a " + v.typeName());
      }
      return v;
    }
  }
}
