package dev.sluice.ottl;

import dev.sluice.pdata.view.SpanView;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The converters this build has, and the checks of their arguments at compile time: how many, and
 * that each can be of the type the converter takes. Types known only when evaluated (attribute
 * values) are checked then.
 */
final class Converters {
  /** Makes a converter's expression from its compiled arguments. */
  interface Factory {
    Expr make(Ast.Call call, List<Expr> arguments, String text) throws OttlException;
  }

  static final Map<String, Factory> ALL = all();

  private Converters() {}

  static String names() {
    return String.join(", ", ALL.keySet());
  }

  private static Map<String, Factory> all() {
    Map<String, Factory> m = new LinkedHashMap<>();
    m.put("IsMatch", Converters::isMatch);
    for (Value.Kind kind :
        List.of(
            Value.Kind.STRING,
            Value.Kind.INT,
            Value.Kind.DOUBLE,
            Value.Kind.BOOL,
            Value.Kind.MAP,
            Value.Kind.LIST)) {
      String name = "Is" + typeWord(kind);
      m.put(
          name,
          (call, args, text) -> {
            arity(call, args, 1, text);
            return new ConverterExprs.IsKind(args.get(0), kind);
          });
    }
    m.put(
        "Len",
        (call, args, text) -> {
          arity(call, args, 1, text);
          notOf(call, args, 0, text, OttlType.INT, OttlType.DOUBLE, OttlType.BOOL, OttlType.BYTES);
          return new ConverterExprs.Len(args.get(0));
        });
    m.put(
        "Concat",
        (call, args, text) -> {
          arity(call, args, 2, text);
          require(call, args, 0, text, OttlType.LIST);
          require(call, args, 1, text, OttlType.STRING);
          return new ConverterExprs.Concat(args.get(0), args.get(1));
        });
    m.put(
        "Split",
        (call, args, text) -> {
          arity(call, args, 2, text);
          require(call, args, 0, text, OttlType.STRING);
          require(call, args, 1, text, OttlType.STRING);
          return new ConverterExprs.Split(args.get(0), args.get(1));
        });
    m.put(
        "Substring",
        (call, args, text) -> {
          arity(call, args, 3, text);
          require(call, args, 0, text, OttlType.STRING);
          require(call, args, 1, text, OttlType.INT);
          require(call, args, 2, text, OttlType.INT);
          return new ConverterExprs.Substring(args.get(0), args.get(1), args.get(2));
        });
    m.put("ToLowerCase", (call, args, text) -> caseOf(call, args, text, false));
    m.put("ToUpperCase", (call, args, text) -> caseOf(call, args, text, true));
    digest(m, "SHA1", "SHA-1");
    digest(m, "SHA256", "SHA-256");
    digest(m, "SHA512", "SHA-512");
    digest(m, "MD5", "MD5");
    m.put("Murmur3Hash", (call, args, text) -> murmur3(call, args, text, false));
    m.put("Murmur3Hash128", (call, args, text) -> murmur3(call, args, text, true));
    m.put(
        "FNV",
        (call, args, text) -> {
          arity(call, args, 1, text);
          require(call, args, 0, text, OttlType.STRING);
          return new HashExprs.Fnv(args.get(0));
        });
    m.put(
        "Int",
        (call, args, text) -> {
          arity(call, args, 1, text);
          return new ConverterExprs.ToInt(args.get(0));
        });
    m.put(
        "Double",
        (call, args, text) -> {
          arity(call, args, 1, text);
          return new ConverterExprs.ToDouble(args.get(0));
        });
    m.put(
        "String",
        (call, args, text) -> {
          arity(call, args, 1, text);
          notOf(call, args, 0, text, OttlType.MAP, OttlType.LIST);
          return new ConverterExprs.ToStringExpr(args.get(0));
        });
    m.put("TraceID", (call, args, text) -> id(call, args, text, SpanView.TRACE_ID_BYTES));
    m.put("SpanID", (call, args, text) -> id(call, args, text, SpanView.SPAN_ID_BYTES));
    return Collections.unmodifiableMap(m);
  }

  private static void digest(Map<String, Factory> m, String name, String algorithm) {
    m.put(
        name,
        (call, args, text) -> {
          arity(call, args, 1, text);
          require(call, args, 0, text, OttlType.STRING);
          return new HashExprs.Digest(name, algorithm, args.get(0));
        });
  }

  private static Expr murmur3(Ast.Call call, List<Expr> args, String text, boolean wide)
      throws OttlException {
    arity(call, args, 1, text);
    require(call, args, 0, text, OttlType.STRING);
    return new HashExprs.Murmur3(call.name(), args.get(0), wide);
  }

  private static String typeWord(Value.Kind kind) {
    String name = kind.name();
    return name.charAt(0) + name.substring(1).toLowerCase(java.util.Locale.ROOT);
  }

  private static Expr isMatch(Ast.Call call, List<Expr> args, String text) throws OttlException {
    arity(call, args, 2, text);
    notOf(call, args, 0, text, OttlType.MAP, OttlType.LIST);
    Ast.Node pattern = call.arguments().get(1);
    if (!(pattern instanceof Ast.Literal literal) || !(literal.value() instanceof String regex)) {
      throw OttlException.at(text, pattern.at(), "the pattern of IsMatch must be a string literal");
    }
    try {
      return new ConverterExprs.IsMatch(args.get(0), Pattern.compile(regex));
    } catch (PatternSyntaxException e) {
      throw OttlException.at(
          text, pattern.at(), "invalid regular expression: " + e.getDescription());
    }
  }

  private static Expr caseOf(Ast.Call call, List<Expr> args, String text, boolean upper)
      throws OttlException {
    arity(call, args, 1, text);
    require(call, args, 0, text, OttlType.STRING);
    return new ConverterExprs.ChangeCase(args.get(0), upper);
  }

  private static Expr id(Ast.Call call, List<Expr> args, String text, int idBytes)
      throws OttlException {
    arity(call, args, 1, text);
    require(call, args, 0, text, OttlType.BYTES);
    Ast.Node argument = call.arguments().get(0);
    if (argument instanceof Ast.Literal literal
        && literal.value() instanceof byte[] bytes
        && bytes.length != idBytes) {
      throw OttlException.at(
          text,
          argument.at(),
          call.name()
              + " takes "
              + idBytes
              + " bytes ("
              + 2 * idBytes
              + " hex digits), got "
              + bytes.length);
    }
    return new ConverterExprs.Id(call.name(), args.get(0), idBytes);
  }

  static void arity(Ast.Call call, List<Expr> args, int count, String text) throws OttlException {
    if (args.size() != count) {
      throw OttlException.at(
          text,
          call.at(),
          call.name()
              + " takes "
              + count
              + (count == 1 ? " argument" : " arguments")
              + ", got "
              + args.size());
    }
  }

  /** The argument must be of {@code type}, or of a type known only when evaluated. */
  private static void require(Ast.Call call, List<Expr> args, int index, String text, OttlType type)
      throws OttlException {
    OttlType actual = args.get(index).type;
    if (actual != type && actual != OttlType.ANY) {
      throw OttlException.at(
          text,
          call.arguments().get(index).at(),
          "argument "
              + (index + 1)
              + " of "
              + call.name()
              + " must be a "
              + type.label
              + ", is a "
              + actual.label);
    }
  }

  private static void notOf(
      Ast.Call call, List<Expr> args, int index, String text, OttlType... refused)
      throws OttlException {
    OttlType actual = args.get(index).type;
    for (OttlType t : refused) {
      if (actual == t) {
        throw OttlException.at(
            text, call.arguments().get(index).at(), call.name() + " cannot take a " + actual.label);
      }
    }
  }
}
