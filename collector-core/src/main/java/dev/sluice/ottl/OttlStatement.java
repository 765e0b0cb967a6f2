package dev.sluice.ottl;

import java.util.EnumSet;
import java.util.Set;

/**
 * A statement checked for one context at configuration time: an editor call and an optional {@code
 * where} condition, parsed and compiled once, so that any error (an unknown editor, a path this
 * context cannot write, an argument of the wrong type) is reported with its position before
 * anything starts. Immutable and shared; each thread that runs it compiles its own executor ({@link
 * #newExecutor()}).
 */
public final class OttlStatement {
  private final String text;
  private final OttlContext context;
  private final Ast.Statement tree;

  private OttlStatement(String text, OttlContext context, Ast.Statement tree) {
    this.text = text;
    this.context = context;
    this.tree = tree;
  }

  /**
   * Parses and compiles {@code text} as a statement of {@code context}.
   *
   * @throws OttlException with the line and column of the first problem in {@code text}
   */
  public static OttlStatement parse(String text, OttlContext context) throws OttlException {
    Ast.Statement tree = Parser.parseStatement(text);
    compile(tree, context, text);
    return new OttlStatement(text, context, tree);
  }

  private static Executor compile(Ast.Statement tree, OttlContext context, String text)
      throws OttlException {
    Compiler compiler = new Compiler(context, text);
    Editor editor = compiler.editor(tree.editor());
    Expr condition = tree.condition() == null ? null : compiler.condition(tree.condition());
    return new Executor(editor, condition);
  }

  /**
   * The contexts that the paths of statement {@code text} name by their first segment ({@code
   * span.name} names span); a path that names none is an error, as it is where the Collector infers
   * the context from the statements.
   *
   * @throws OttlException when the statement does not parse, or a path names no context
   */
  public static Set<OttlContext> contextsNamed(String text) throws OttlException {
    Ast.Statement tree = Parser.parseStatement(text);
    Set<OttlContext> named = EnumSet.noneOf(OttlContext.class);
    PathScan.scan(tree.editor(), text, named);
    if (tree.condition() != null) {
      PathScan.scan(tree.condition(), text, named);
    }
    return named;
  }

  public String text() {
    return text;
  }

  public OttlContext context() {
    return context;
  }

  /** A fresh executor of this statement, for one thread. */
  public Executor newExecutor() {
    try {
      return compile(tree, context, text);
    } catch (OttlException e) {
      throw new IllegalStateException("compiled once already: " + text, e);
    }
  }

  @Override
  public String toString() {
    return text;
  }

  /** Runs the statement for one item at a time; not thread-safe. */
  public static final class Executor {
    private final Editor editor;
    private final Expr condition;

    private Executor(Editor editor, Expr condition) {
      this.editor = editor;
      this.condition = condition;
    }

    /**
     * Runs the editor over the item the context points at, when the {@code where} condition (read
     * on the item as earlier statements left it) holds. Returns whether the item changed; a
     * condition that does not hold allocates nothing.
     *
     * @throws OttlEvaluationException when the condition or the editor fails for this item
     */
    public boolean execute(EvalContext item) {
      if (condition != null && !condition.test(item)) {
        return false;
      }
      return editor.run(item);
    }
  }
}
