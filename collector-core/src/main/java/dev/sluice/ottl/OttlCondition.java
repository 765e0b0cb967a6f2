package dev.sluice.ottl;

/**
 * A condition checked for one context at configuration time: parsed and compiled once, so that any
 * error is reported before anything starts. Immutable and shared; each thread that evaluates it
 * compiles its own evaluator ({@link #newEvaluator()}), whose trees hold the buffers evaluation
 * reuses.
 */
public final class OttlCondition {
  private final String text;
  private final OttlContext context;
  private final Ast.Node tree;

  private OttlCondition(String text, OttlContext context, Ast.Node tree) {
    this.text = text;
    this.context = context;
    this.tree = tree;
  }

  /**
   * Parses and compiles {@code text} as a condition of {@code context}.
   *
   * @throws OttlException with the line and column of the first problem in {@code text}
   */
  public static OttlCondition parse(String text, OttlContext context) throws OttlException {
    Ast.Node tree = Parser.parseCondition(text);
    new Compiler(context, text).condition(tree);
    return new OttlCondition(text, context, tree);
  }

  /**
   * The contexts that the paths of condition {@code text} name by their first segment, as {@link
   * OttlStatement#contextsNamed} does for a statement.
   *
   * @throws OttlException when the condition does not parse, or a path names no context
   */
  public static java.util.Set<OttlContext> contextsNamed(String text) throws OttlException {
    java.util.Set<OttlContext> named = java.util.EnumSet.noneOf(OttlContext.class);
    PathScan.scan(Parser.parseCondition(text), text, named);
    return named;
  }

  public String text() {
    return text;
  }

  public OttlContext context() {
    return context;
  }

  /**
   * A fresh evaluator of this condition, for one thread. In the span context the common keyed
   * comparisons read the span in one walk of its fields ({@link #newEvaluators}).
   */
  public Evaluator newEvaluator() {
    return compile(new SpanScan());
  }

  /**
   * Fresh evaluators of {@code conditions}, for one thread, in their order: those of the span
   * context share one walk of each span for their keyed comparisons ({@code attributes["k"] ==
   * "lit"}, {@code !=}, against {@code nil}, {@code name == "lit"}, {@code IsMatch} of either), so
   * a list of them reads a span's attributes once. Everything else is evaluated as {@link
   * #newGeneralEvaluator} does, and so are these whenever their value is one only the general rules
   * decide: the results and errors are the same.
   */
  public static java.util.List<Evaluator> newEvaluators(java.util.List<OttlCondition> conditions) {
    SpanScan shared = new SpanScan();
    java.util.List<Evaluator> evaluators = new java.util.ArrayList<>(conditions.size());
    for (OttlCondition condition : conditions) {
      evaluators.add(condition.compile(shared));
    }
    return evaluators;
  }

  /**
   * A fresh evaluator of this condition that reads every path through the views and value holders:
   * the reference the specialised comparisons are checked against, and the baseline benchmarks
   * compare them with.
   */
  public Evaluator newGeneralEvaluator() {
    return compile(null);
  }

  private Evaluator compile(SpanScan scan) {
    try {
      return new Evaluator(new Compiler(context, text, scan).condition(tree));
    } catch (OttlException e) {
      throw new IllegalStateException("compiled once already: " + text, e);
    }
  }

  @Override
  public String toString() {
    return text;
  }

  /** Evaluates the condition for one item at a time; not thread-safe, allocation-free. */
  public static final class Evaluator {
    private final Expr root;

    private Evaluator(Expr root) {
      this.root = root;
    }

    /**
     * Whether the item the context points at matches.
     *
     * @throws OttlEvaluationException when the condition cannot be evaluated for this item
     */
    public boolean matches(EvalContext item) {
      return root.test(item);
    }
  }
}
