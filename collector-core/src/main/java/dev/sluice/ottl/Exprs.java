package dev.sluice.ottl;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Literals, comparisons and the boolean operators. */
final class Exprs {
  private Exprs() {}

  static Expr literal(Object value) {
    if (value == null) {
      return new Constant(OttlType.NIL, v -> v.setNil());
    }
    if (value instanceof String s) {
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      return new Constant(OttlType.STRING, v -> v.setStringRef(utf8, 0, utf8.length));
    }
    if (value instanceof Long l) {
      return new Constant(OttlType.INT, v -> v.setInt(l));
    }
    if (value instanceof Double d) {
      return new Constant(OttlType.DOUBLE, v -> v.setDouble(d));
    }
    if (value instanceof Boolean b) {
      return new Constant(OttlType.BOOL, v -> v.setBool(b));
    }
    if (value instanceof byte[] bytes) {
      return new Constant(OttlType.BYTES, v -> v.setBytesRef(bytes, 0, bytes.length));
    }
    throw new IllegalArgumentException("not a literal: " + value);
  }

  /** A value known at compile time, set again on each evaluation (a caller may have changed it). */
  static final class Constant extends Expr {
    interface Setter {
      void set(Value into);
    }

    private final Setter setter;

    Constant(OttlType type, Setter setter) {
      super(type);
      this.setter = setter;
      setter.set(out);
    }

    @Override
    Value eval(EvalContext context) {
      setter.set(out);
      return out;
    }
  }

  static final class Comparison extends Expr {
    private final TokenKind operator;
    private final Expr left;
    private final Expr right;

    Comparison(TokenKind operator, Expr left, Expr right) {
      super(OttlType.BOOL);
      this.operator = operator;
      this.left = left;
      this.right = right;
    }

    @Override
    Value eval(EvalContext context) {
      Value a = left.eval(context);
      Value b = right.eval(context);
      out.setBool(Values.compare(operator, a, b));
      return out;
    }
  }

  static final class And extends Expr {
    private final Expr[] terms;

    And(List<Expr> terms) {
      super(OttlType.BOOL);
      this.terms = terms.toArray(new Expr[0]);
    }

    @Override
    Value eval(EvalContext context) {
      for (Expr term : terms) {
        if (!term.test(context)) {
          out.setBool(false);
          return out;
        }
      }
      out.setBool(true);
      return out;
    }
  }

  static final class Or extends Expr {
    private final Expr[] terms;

    Or(List<Expr> terms) {
      super(OttlType.BOOL);
      this.terms = terms.toArray(new Expr[0]);
    }

    @Override
    Value eval(EvalContext context) {
      for (Expr term : terms) {
        if (term.test(context)) {
          out.setBool(true);
          return out;
        }
      }
      out.setBool(false);
      return out;
    }
  }

  static final class Not extends Expr {
    private final Expr operand;

    Not(Expr operand) {
      super(OttlType.BOOL);
      this.operand = operand;
    }

    @Override
    Value eval(EvalContext context) {
      out.setBool(!operand.test(context));
      return out;
    }
  }

  /** {@code [a, b, c]}: a list whose elements are evaluated when read. */
  static final class ListLiteral extends Expr implements Value.ListSource {
    private final Expr[] elements;
    private EvalContext current;

    ListLiteral(List<Expr> elements) {
      super(OttlType.LIST);
      this.elements = elements.toArray(new Expr[0]);
    }

    @Override
    Value eval(EvalContext context) {
      current = context;
      out.setList(this);
      return out;
    }

    @Override
    public int size() {
      return elements.length;
    }

    @Override
    public void get(int index, Value into) {
      into.copyFrom(elements[index].eval(current));
    }
  }
}
