package dev.sluice.ottl;

import java.util.ArrayList;
import java.util.List;

/**
 * Gives a parsed expression types for one context and makes its evaluator: paths resolved,
 * converters' arguments checked, comparisons checked as OTTL compares. Whatever this build does not
 * have (an unknown path, converter or enum, an editor in a condition, keys where none fit) is an
 * error naming it and what there is instead: nothing is silently ignored.
 */
final class Compiler {
  private final OttlContext context;
  private final String text;
  // Where the span conditions this compiler specialises read their values; null: none are.
  private final SpanScan scan;

  Compiler(OttlContext context, String text) {
    this(context, text, null);
  }

  /**
   * A compiler that, in the span context, compiles the common keyed comparisons to read from {@code
   * scan} ({@link ScannedExprs}); with null, or in another context, every expression is the general
   * one.
   */
  Compiler(OttlContext context, String text, SpanScan scan) {
    this.context = context;
    this.text = text;
    this.scan = context == OttlContext.SPAN ? scan : null;
  }

  /** A condition: an expression that is a bool (or a value whose type is known when evaluated). */
  Expr condition(Ast.Node node) throws OttlException {
    Expr expr = compile(node);
    requireBool(expr, node);
    return expr;
  }

  /** An editor call, its arguments checked and its target resolved in this context. */
  Editor editor(Ast.Call call) throws OttlException {
    Editors.Factory factory = Editors.ALL.get(call.name());
    if (factory == null) {
      throw OttlException.at(
          text,
          call.at(),
          "unknown editor '"
              + OttlException.shown(call.name())
              + "'; this build supports "
              + Editors.names());
    }
    return factory.make(call, this, context, text);
  }

  Expr compile(Ast.Node node) throws OttlException {
    if (node instanceof Ast.Literal literal) {
      return Exprs.literal(literal.value());
    }
    if (node instanceof Ast.EnumSymbol symbol) {
      Long value = Enums.SYMBOLS.get(symbol.name());
      if (value == null) {
        throw OttlException.at(
            text,
            symbol.at(),
            "unknown enum '"
                + OttlException.shown(symbol.name())
                + "'; this build knows "
                + Enums.FAMILIES);
      }
      return Exprs.literal(value);
    }
    if (node instanceof Ast.Path path) {
      return Paths.resolve(context, path, text);
    }
    if (node instanceof Ast.Call call) {
      return call(call);
    }
    if (node instanceof Ast.ListLiteral list) {
      List<Expr> elements = new ArrayList<>();
      for (Ast.Node element : list.elements()) {
        elements.add(compile(element));
      }
      return new Exprs.ListLiteral(elements);
    }
    if (node instanceof Ast.Comparison comparison) {
      return comparison(comparison);
    }
    if (node instanceof Ast.And and) {
      return new Exprs.And(bools(and.terms()));
    }
    if (node instanceof Ast.Or or) {
      return new Exprs.Or(bools(or.terms()));
    }
    Ast.Not not = (Ast.Not) node;
    Expr operand = compile(not.operand());
    requireBool(operand, not.operand());
    return new Exprs.Not(operand);
  }

  private List<Expr> bools(List<Ast.Node> terms) throws OttlException {
    List<Expr> compiled = new ArrayList<>();
    for (Ast.Node term : terms) {
      Expr expr = compile(term);
      requireBool(expr, term);
      compiled.add(expr);
    }
    return compiled;
  }

  private void requireBool(Expr expr, Ast.Node node) throws OttlException {
    if (expr.type != OttlType.BOOL && expr.type != OttlType.ANY) {
      throw OttlException.at(
          text, node.at(), "expected a condition (a bool), found a " + expr.type.label);
    }
  }

  private Expr call(Ast.Call call) throws OttlException {
    if (!call.isConverter()) {
      throw OttlException.at(
          text,
          call.at(),
          "'"
              + OttlException.shown(call.name())
              + "' is an editor, which changes data: a condition takes only converters ("
              + Converters.names()
              + ")");
    }
    Converters.Factory factory = Converters.ALL.get(call.name());
    if (factory == null) {
      throw OttlException.at(
          text,
          call.at(),
          "unknown converter '"
              + OttlException.shown(call.name())
              + "'; this build supports "
              + Converters.names());
    }
    List<Expr> arguments = new ArrayList<>();
    for (Ast.Node argument : call.arguments()) {
      arguments.add(compile(argument));
    }
    Expr result = ScannedExprs.call(scan, call, factory.make(call, arguments, text));
    for (Ast.Key key : call.keys()) {
      if (result.type != OttlType.LIST && result.type != OttlType.ANY) {
        throw OttlException.at(text, key.at(), "a " + result.type.label + " takes no keys");
      }
      if (!key.isIndex()) {
        throw OttlException.at(
            text, key.at(), "the result of " + call.name() + " is indexed by integers");
      }
      result = new Index(result, key.index());
    }
    return result;
  }

  private Expr comparison(Ast.Comparison comparison) throws OttlException {
    Expr left = compile(comparison.left());
    Expr right = compile(comparison.right());
    OttlType a = left.type;
    OttlType b = right.type;
    TokenKind operator = comparison.operator();
    boolean equality = operator == TokenKind.EQ || operator == TokenKind.NE;
    if (a == OttlType.MAP || a == OttlType.LIST || b == OttlType.MAP || b == OttlType.LIST) {
      throw OttlException.at(
          text,
          comparison.at(),
          "comparing a " + a.label + " with a " + b.label + " is not supported by this build");
    }
    if ((a == OttlType.NIL || b == OttlType.NIL) && !equality) {
      throw OttlException.at(text, comparison.at(), "nil is compared only with == and !=");
    }
    boolean known =
        a != OttlType.ANY && b != OttlType.ANY && a != OttlType.NIL && b != OttlType.NIL;
    if (known && a != b && !(a.isNumeric() && b.isNumeric())) {
      throw OttlException.at(
          text,
          comparison.at(),
          "a "
              + a.label
              + " is compared with a "
              + b.label
              + ": OTTL finds values of different types never equal, so the condition would"
              + " never change");
    }
    if (known && a == OttlType.BOOL && !equality) {
      throw OttlException.at(text, comparison.at(), "bools are compared only with == and !=");
    }
    return ScannedExprs.comparison(scan, comparison, new Exprs.Comparison(operator, left, right));
  }

  /** An element of a list a converter returned ({@code Split(s, ",")[1]}). */
  static final class Index extends Expr {
    private final Expr list;
    private final long index;

    Index(Expr list, long index) {
      super(OttlType.ANY);
      this.list = list;
      this.index = index;
    }

    @Override
    Value eval(EvalContext context) {
      Value v = list.eval(context);
      if (v.kind != Value.Kind.LIST) {
        throw new OttlEvaluationException(
            "cannot index a " + v.typeName() + " with [" + index + "]");
      }
      int size = v.list.size();
      if (index >= size) {
        throw new OttlEvaluationException("index " + index + " out of range for a list of " + size);
      }
      v.list.get((int) index, out);
      return out;
    }
  }
}
