package dev.sluice.ottl;

import java.util.List;

/**
 * What the parser makes of a statement: a tree of nodes, each with the character offset where it
 * starts in the statement's text (for messages). Untyped; the compiler gives it types for one
 * context.
 */
final class Ast {
  private Ast() {}

  /** A node of an expression. */
  sealed interface Node
      permits Literal, EnumSymbol, Path, Call, ListLiteral, Comparison, And, Or, Not {
    int at();
  }

  /** A key after a path or a call: {@code ["name"]} or {@code [0]}. */
  record Key(String name, long index, boolean isIndex, int at) {
    String describe() {
      return isIndex ? "[" + index + "]" : "[\"" + name + "\"]";
    }
  }

  /** A name in a path, such as {@code attributes} in {@code resource.attributes}. */
  record Segment(String name, int at) {}

  /** A string, integer, float, bool, {@code nil} or bytes: {@code value} is null for nil. */
  record Literal(Object value, int at) implements Node {}

  /** An upper-case name not followed by arguments: {@code SPAN_KIND_SERVER}. */
  record EnumSymbol(String name, int at) implements Node {}

  /** {@code resource.attributes["k"]}: names, then keys. */
  record Path(List<Segment> segments, List<Key> keys, int at) implements Node {
    String describe() {
      StringBuilder out = new StringBuilder();
      for (Segment s : segments) {
        if (out.length() > 0) {
          out.append('.');
        }
        out.append(s.name());
      }
      for (Key k : keys) {
        out.append(k.describe());
      }
      return out.toString();
    }
  }

  /** A converter ({@code IsMatch(...)}) or editor ({@code set(...)}) call, then keys. */
  record Call(String name, List<Node> arguments, List<Key> keys, int at) implements Node {
    boolean isConverter() {
      return Character.isUpperCase(name.charAt(0));
    }
  }

  /** {@code [a, b, c]}. */
  record ListLiteral(List<Node> elements, int at) implements Node {}

  /** {@code left op right} with op one of the comparisons. */
  record Comparison(TokenKind operator, Node left, Node right, int at) implements Node {}

  record And(List<Node> terms, int at) implements Node {}

  record Or(List<Node> terms, int at) implements Node {}

  record Not(Node operand, int at) implements Node {}

  /** An editor call and its optional {@code where} condition (null without one). */
  record Statement(Call editor, Node condition) {}
}
