package dev.sluice.ottl;

/**
 * A compiled expression: its type as far as the compiler knows it, and how to evaluate it for one
 * item. Each node owns the holder it evaluates into ({@link #out}), so a compiled tree is used by
 * one thread at a time and evaluating it allocates nothing.
 */
abstract class Expr {
  final OttlType type;
  final Value out = new Value();

  Expr(OttlType type) {
    this.type = type;
  }

  /**
   * Evaluates the expression for the item; the result is valid until this node is evaluated again.
   *
   * @throws OttlEvaluationException when it cannot be evaluated for this item
   */
  abstract Value eval(EvalContext context);

  /** Evaluates a boolean expression. */
  final boolean test(EvalContext context) {
    Value v = eval(context);
    if (v.kind != Value.Kind.BOOL) {
      throw new OttlEvaluationException("expected a bool, got a " + v.typeName());
    }
    return v.boolValue;
  }
}
