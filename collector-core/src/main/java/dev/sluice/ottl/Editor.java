package dev.sluice.ottl;

/** A compiled editor call: changes the item the context points at. One thread at a time. */
abstract class Editor {
  /**
   * Runs the editor over the item; returns whether it changed anything.
   *
   * @throws OttlEvaluationException when it cannot run for this item
   */
  abstract boolean run(EvalContext context);

  /** {@code set(target, value)}: nothing happens when the value is nil. */
  static final class Set extends Editor {
    private final Target target;
    private final Expr value;

    Set(Target target, Expr value) {
      this.target = target;
      this.value = value;
    }

    @Override
    boolean run(EvalContext context) {
      Value v = value.eval(context);
      if (v.kind == Value.Kind.NIL) {
        return false;
      }
      return target.write(context, v);
    }
  }
}
