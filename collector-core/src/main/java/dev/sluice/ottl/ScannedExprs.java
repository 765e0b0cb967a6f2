package dev.sluice.ottl;

import dev.sluice.pdata.view.Utf8Chars;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The span conditions filters write most, compiled to read their one value from a {@link SpanScan}
 * instead of through cursors and value holders: {@code attributes["k"] == "lit"} (or {@code !=}, or
 * against {@code nil}, either way round), {@code name == "lit"}, and {@code
 * IsMatch(attributes["k"], "re")} or {@code IsMatch(name, "re")}. Each keeps the general expression
 * it stands for and hands over to it whenever the scan's answer is not OTTL's by construction (a
 * map or list value, a non-string value given to {@code IsMatch}, a span the scan cannot read), so
 * results and errors are the general evaluator's.
 */
final class ScannedExprs {
  private static final String ATTRIBUTES = "attributes";
  private static final String NAME = "name";
  private static final String SPAN = "span";

  private ScannedExprs() {}

  /**
   * {@code general}, or the same comparison read from {@code scan} when it has one of the shapes
   * this class compiles.
   */
  static Expr comparison(SpanScan scan, Ast.Comparison comparison, Expr general) {
    TokenKind operator = comparison.operator();
    if (scan == null || (operator != TokenKind.EQ && operator != TokenKind.NE)) {
      return general;
    }
    Ast.Node path = comparison.left();
    Ast.Node other = comparison.right();
    if (!(path instanceof Ast.Path)) {
      path = comparison.right();
      other = comparison.left();
    }
    if (!(other instanceof Ast.Literal literal)
        || !(literal.value() == null || literal.value() instanceof String)) {
      return general;
    }
    int slot = slot(scan, path);
    if (slot == NO_SLOT) {
      return general;
    }
    byte[] utf8 =
        literal.value() == null
            ? null
            : ((String) literal.value()).getBytes(StandardCharsets.UTF_8);
    return new Equality(scan, slot, utf8, operator == TokenKind.NE, general);
  }

  /** {@code general}, or the same {@code IsMatch} read from {@code scan}. */
  static Expr call(SpanScan scan, Ast.Call call, Expr general) {
    List<Ast.Node> arguments = call.arguments();
    if (scan == null
        || !call.name().equals("IsMatch")
        || !call.keys().isEmpty()
        || arguments.size() != 2
        || !(arguments.get(1) instanceof Ast.Literal literal)
        || !(literal.value() instanceof String regex)) {
      return general;
    }
    int slot = slot(scan, arguments.get(0));
    if (slot == NO_SLOT) {
      return general;
    }
    // The general expression compiled this pattern already: it is valid.
    return new Match(scan, slot, Pattern.compile(regex), general);
  }

  private static final int NO_SLOT = Integer.MIN_VALUE;

  /**
   * The scan's slot for a span context path that is {@code attributes["k"]} or {@code name} (with
   * or without the {@code span.} prefix), registering it; {@link #NO_SLOT} for any other node.
   */
  private static int slot(SpanScan scan, Ast.Node node) {
    if (!(node instanceof Ast.Path path)) {
      return NO_SLOT;
    }
    List<Ast.Segment> segments = path.segments();
    int first = segments.size() == 2 && segments.get(0).name().equals(SPAN) ? 1 : 0;
    if (segments.size() != first + 1) {
      return NO_SLOT;
    }
    String field = segments.get(first).name();
    List<Ast.Key> keys = path.keys();
    if (field.equals(ATTRIBUTES) && keys.size() == 1 && !keys.get(0).isIndex()) {
      return scan.key(keys.get(0).name().getBytes(StandardCharsets.UTF_8));
    }
    if (field.equals(NAME) && keys.isEmpty()) {
      return scan.name();
    }
    return NO_SLOT;
  }

  /** {@code value == literal} or {@code !=}, the literal a string or nil (null). */
  static final class Equality extends Expr {
    private final SpanScan scan;
    private final int slot;
    private final byte[] literal;
    private final boolean negated;
    private final Expr general;

    Equality(SpanScan scan, int slot, byte[] literal, boolean negated, Expr general) {
      super(OttlType.BOOL);
      this.scan = scan;
      this.slot = slot;
      this.literal = literal;
      this.negated = negated;
      this.general = general;
    }

    @Override
    Value eval(EvalContext context) {
      if (!scan.prepare(context)) {
        return general.eval(context);
      }
      boolean equal;
      switch (scan.kind(slot)) {
        case SpanScan.STRING -> {
          int from = scan.textFrom();
          int to = scan.textTo();
          equal =
              literal != null
                  && literal.length == to - from
                  && Arrays.equals(scan.bytes(), from, to, literal, 0, literal.length);
        }
        case SpanScan.NIL -> equal = literal == null;
        case SpanScan.SCALAR -> equal = false;
        default -> {
          return general.eval(context);
        }
      }
      out.setBool(equal != negated);
      return out;
    }
  }

  /** {@code IsMatch(value, "re")} of a string or nil value. */
  static final class Match extends Expr {
    private final SpanScan scan;
    private final int slot;
    private final Matcher matcher;
    private final Utf8Chars chars = new Utf8Chars();
    private final Expr general;

    Match(SpanScan scan, int slot, Pattern pattern, Expr general) {
      super(OttlType.BOOL);
      this.scan = scan;
      this.slot = slot;
      this.matcher = pattern.matcher("");
      this.general = general;
    }

    @Override
    Value eval(EvalContext context) {
      if (!scan.prepare(context)) {
        return general.eval(context);
      }
      switch (scan.kind(slot)) {
        case SpanScan.STRING -> {
          int from = scan.textFrom();
          matcher.reset(chars.decode(scan.bytes(), from, scan.textTo() - from));
          out.setBool(matcher.find());
        }
        case SpanScan.NIL -> out.setBool(false);
        default -> {
          // A number, bool or bytes matches in its string form; a map or list fails.
          return general.eval(context);
        }
      }
      return out;
    }
  }
}
