package dev.sluice.ottl;

import dev.sluice.ottl.Ast.Call;
import dev.sluice.ottl.Ast.Key;
import dev.sluice.ottl.Ast.Node;
import dev.sluice.ottl.Ast.Segment;
import java.util.ArrayList;
import java.util.List;

/**
 * A recursive-descent parser for OTTL conditions and statements:
 *
 * <pre>
 * statement  = editor [ "where" condition ]
 * editor     = lower-case-name arguments
 * condition  = and { "or" and }
 * and        = not { "and" not }
 * not        = "not" not | comparison
 * comparison = value [ ( "==" | "!=" | "&lt;" | "&lt;=" | "&gt;" | "&gt;=" ) value ]
 * value      = literal | "-" number | "(" condition ")" | "[" [ value { "," value } ] "]"
 *            | Converter arguments { key } | ENUM_NAME | name { "." name } { key }
 * arguments  = "(" [ value { "," value } ] ")"
 * key        = "[" ( string | integer ) "]"
 * </pre>
 *
 * Every error names the line and column in the statement. Nesting is bounded ({@link #MAX_DEPTH})
 * so that no input exhausts the stack.
 */
final class Parser {
  /** Parentheses, calls, lists and {@code not}s nested deeper than this are refused. */
  static final int MAX_DEPTH = 64;

  private final Lexer lexer;
  private int depth;

  private Parser(String text) throws OttlException {
    this.lexer = new Lexer(text);
  }

  /** Parses a boolean expression, such as a filter condition or a {@code where} clause. */
  static Node parseCondition(String text) throws OttlException {
    Parser parser = new Parser(text);
    if (parser.lexer.kind == TokenKind.END) {
      throw parser.error("the condition is empty");
    }
    Node condition = parser.condition();
    parser.expectEnd();
    return condition;
  }

  /** Parses a statement: an editor call and an optional {@code where} condition. */
  static Ast.Statement parseStatement(String text) throws OttlException {
    Parser parser = new Parser(text);
    Lexer lexer = parser.lexer;
    if (lexer.kind != TokenKind.IDENTIFIER) {
      throw parser.error(
          "a statement starts with an editor such as set(...), found " + describe(lexer));
    }
    int at = lexer.start;
    String name = lexer.identifier;
    lexer.advance();
    if (lexer.kind != TokenKind.LEFT_PAREN) {
      throw parser.error(
          "expected '(' after the editor "
              + OttlException.shown(name)
              + ", found "
              + describe(lexer));
    }
    Call editor = parser.call(name, at);
    if (editor.isConverter()) {
      throw OttlException.at(
          lexer.text(),
          at,
          "a statement starts with an editor (a lower-case name), found the converter "
              + OttlException.shown(name));
    }
    if (!editor.keys().isEmpty()) {
      throw OttlException.at(lexer.text(), editor.keys().get(0).at(), "an editor takes no keys");
    }
    Node condition = null;
    if (lexer.kind == TokenKind.IDENTIFIER && lexer.identifier.equals("where")) {
      lexer.advance();
      condition = parser.condition();
    }
    parser.expectEnd();
    return new Ast.Statement(editor, condition);
  }

  private void expectEnd() throws OttlException {
    if (lexer.kind != TokenKind.END) {
      if (lexer.kind.isComparison()) {
        throw error("comparisons do not chain: use 'and'");
      }
      if (isArithmetic(lexer.kind)) {
        throw error("arithmetic (" + lexer.kind.description + ") is not supported by this build");
      }
      throw error("unexpected " + describe(lexer));
    }
  }

  private Node condition() throws OttlException {
    int at = lexer.start;
    Node first = and();
    if (!isKeyword("or")) {
      return first;
    }
    List<Node> terms = new ArrayList<>();
    terms.add(first);
    while (isKeyword("or")) {
      lexer.advance();
      terms.add(and());
    }
    return new Ast.Or(List.copyOf(terms), at);
  }

  private Node and() throws OttlException {
    int at = lexer.start;
    Node first = not();
    if (!isKeyword("and")) {
      return first;
    }
    List<Node> terms = new ArrayList<>();
    terms.add(first);
    while (isKeyword("and")) {
      lexer.advance();
      terms.add(not());
    }
    return new Ast.And(List.copyOf(terms), at);
  }

  private Node not() throws OttlException {
    if (isKeyword("not")) {
      int at = lexer.start;
      enter(at);
      lexer.advance();
      Node operand = not();
      depth--;
      return new Ast.Not(operand, at);
    }
    return comparison();
  }

  private Node comparison() throws OttlException {
    int at = lexer.start;
    Node left = value();
    if (!lexer.kind.isComparison()) {
      return left;
    }
    TokenKind operator = lexer.kind;
    lexer.advance();
    Node right = value();
    return new Ast.Comparison(operator, left, right, at);
  }

  private Node value() throws OttlException {
    Node value =
        switch (lexer.kind) {
          case STRING -> literal(lexer.stringValue);
          case INT -> literal(lexer.intValue);
          case FLOAT -> literal(lexer.floatValue);
          case BYTES -> literal(lexer.bytesValue);
          case MINUS -> negative();
          case LEFT_PAREN -> parenthesised();
          case LEFT_BRACKET -> list();
          case LEFT_BRACE -> throw error("map literals are not supported by this build");
          case IDENTIFIER -> named();
          default -> throw error("expected a value, found " + describe(lexer));
        };
    if (isArithmetic(lexer.kind)) {
      throw error("arithmetic (" + lexer.kind.description + ") is not supported by this build");
    }
    if (value instanceof Ast.Literal && lexer.kind == TokenKind.LEFT_BRACKET) {
      throw error("a literal takes no keys");
    }
    return value;
  }

  private Node literal(Object value) throws OttlException {
    Node node = new Ast.Literal(value, lexer.start);
    lexer.advance();
    return node;
  }

  private Node negative() throws OttlException {
    int at = lexer.start;
    lexer.advance();
    if (lexer.kind == TokenKind.INT) {
      Node node = new Ast.Literal(-lexer.intValue, at);
      lexer.advance();
      return node;
    }
    if (lexer.kind == TokenKind.FLOAT) {
      Node node = new Ast.Literal(-lexer.floatValue, at);
      lexer.advance();
      return node;
    }
    throw OttlException.at(
        lexer.text(),
        at,
        "'-' only makes a negative number: arithmetic is not supported by this build");
  }

  private Node parenthesised() throws OttlException {
    int at = lexer.start;
    enter(at);
    lexer.advance();
    Node inner = condition();
    depth--;
    if (lexer.kind != TokenKind.RIGHT_PAREN) {
      if (lexer.kind == TokenKind.END) {
        throw OttlException.at(lexer.text(), at, "'(' not closed");
      }
      throw error("expected ')', found " + describe(lexer));
    }
    lexer.advance();
    return inner;
  }

  private Node list() throws OttlException {
    int at = lexer.start;
    enter(at);
    lexer.advance();
    List<Node> elements = new ArrayList<>();
    if (lexer.kind != TokenKind.RIGHT_BRACKET) {
      elements.add(value());
      while (lexer.kind == TokenKind.COMMA) {
        lexer.advance();
        elements.add(value());
      }
    }
    depth--;
    if (lexer.kind != TokenKind.RIGHT_BRACKET) {
      if (lexer.kind == TokenKind.END) {
        throw OttlException.at(lexer.text(), at, "'[' not closed");
      }
      throw error("expected ',' or ']', found " + describe(lexer));
    }
    lexer.advance();
    return new Ast.ListLiteral(List.copyOf(elements), at);
  }

  private Node named() throws OttlException {
    int at = lexer.start;
    String name = lexer.identifier;
    switch (name) {
      case "true":
        return literal(Boolean.TRUE);
      case "false":
        return literal(Boolean.FALSE);
      case "nil":
        lexer.advance();
        return new Ast.Literal(null, at);
      case "and":
      case "or":
      case "not":
      case "where":
        throw error("expected a value, found '" + name + "'");
      default:
        break;
    }
    lexer.advance();
    if (lexer.kind == TokenKind.LEFT_PAREN) {
      return call(name, at);
    }
    if (lexer.kind == TokenKind.ASSIGN) {
      throw error(
          "'=' names an argument, which this build does not support (to compare, write '==')");
    }
    if (isEnumName(name) && lexer.kind != TokenKind.DOT && lexer.kind != TokenKind.LEFT_BRACKET) {
      return new Ast.EnumSymbol(name, at);
    }
    List<Segment> segments = new ArrayList<>();
    segments.add(new Segment(name, at));
    while (lexer.kind == TokenKind.DOT) {
      lexer.advance();
      if (lexer.kind != TokenKind.IDENTIFIER) {
        throw error("expected a name after '.', found " + describe(lexer));
      }
      segments.add(new Segment(lexer.identifier, lexer.start));
      lexer.advance();
    }
    return new Ast.Path(List.copyOf(segments), keys(), at);
  }

  private Call call(String name, int at) throws OttlException {
    int open = lexer.start;
    enter(open);
    lexer.advance();
    List<Node> arguments = new ArrayList<>();
    if (lexer.kind != TokenKind.RIGHT_PAREN) {
      arguments.add(value());
      while (lexer.kind == TokenKind.COMMA) {
        lexer.advance();
        arguments.add(value());
      }
    }
    depth--;
    if (lexer.kind != TokenKind.RIGHT_PAREN) {
      if (lexer.kind == TokenKind.END) {
        throw OttlException.at(
            lexer.text(), open, "'(' of " + OttlException.shown(name) + " not closed");
      }
      throw error(
          "expected ',' or ')' in the arguments of "
              + OttlException.shown(name)
              + ", found "
              + describe(lexer));
    }
    lexer.advance();
    return new Call(name, List.copyOf(arguments), keys(), at);
  }

  private List<Key> keys() throws OttlException {
    if (lexer.kind != TokenKind.LEFT_BRACKET) {
      return List.of();
    }
    List<Key> keys = new ArrayList<>();
    while (lexer.kind == TokenKind.LEFT_BRACKET) {
      int at = lexer.start;
      lexer.advance();
      Key key;
      if (lexer.kind == TokenKind.STRING) {
        key = new Key(lexer.stringValue, 0, false, at);
      } else if (lexer.kind == TokenKind.INT) {
        key = new Key(null, lexer.intValue, true, at);
      } else {
        throw error("a key is a string or an integer, found " + describe(lexer));
      }
      lexer.advance();
      if (lexer.kind != TokenKind.RIGHT_BRACKET) {
        throw error("expected ']', found " + describe(lexer));
      }
      lexer.advance();
      keys.add(key);
    }
    return List.copyOf(keys);
  }

  private void enter(int at) throws OttlException {
    if (++depth > MAX_DEPTH) {
      throw OttlException.at(lexer.text(), at, "nested more than " + MAX_DEPTH + " deep");
    }
  }

  private boolean isKeyword(String keyword) {
    return lexer.kind == TokenKind.IDENTIFIER && lexer.identifier.equals(keyword);
  }

  private OttlException error(String reason) {
    return OttlException.at(lexer.text(), lexer.start, reason);
  }

  private static boolean isArithmetic(TokenKind kind) {
    return kind == TokenKind.PLUS
        || kind == TokenKind.MINUS
        || kind == TokenKind.STAR
        || kind == TokenKind.SLASH;
  }

  /**
   * Upper-case letters, digits and underscores, starting with a letter: {@code SPAN_KIND_SERVER}.
   */
  static boolean isEnumName(String name) {
    if (!Character.isUpperCase(name.charAt(0))) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!(c >= 'A' && c <= 'Z') && !Lexer.isDigit(c) && c != '_') {
        return false;
      }
    }
    return true;
  }

  private static String describe(Lexer lexer) {
    return switch (lexer.kind) {
      case IDENTIFIER -> "'" + OttlException.shown(lexer.identifier) + "'";
      case END -> "the end";
      default -> lexer.kind.description;
    };
  }
}
