package dev.sluice.ottl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ottl.ScannedSpans.Entry;
import dev.sluice.ottl.ScannedSpans.Shape;
import dev.sluice.ottl.ScannedSpans.SpanCase;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import dev.sluice.pdata.internal.ActionVisitors;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The keyed comparisons compiled to read a span in one walk ({@link ScannedExprs}) give what the
 * general evaluator gives, true, false or the same failure, for random spans (duplicate, absent and
 * prefix keys, values of every type under the same key, empty strings, unusual entry layouts) and
 * random conditions of the shapes they compile, alone, combined with and/or/not, and as a list that
 * shares one walk.
 */
class ScannedConditionPropertyTest {
  private static final List<String> KEYS = List.of("k", "ka", "kk", "", "\u00e9");
  private static final List<String> STRINGS = List.of("", "v", "va", "/health", "\u00e9", "second");
  private static final List<String> PATTERNS = List.of("^v", "a$", "", "\u00e9", "^$", "v+", "1");
  private static final int MAX_ATTRIBUTES = 6;
  private static final int MAX_SPANS = 4;
  private static final int MAX_CONDITIONS = 3;
  private static final int MAX_DEPTH = 2;
  private static final int LONG_VALUE = 130;

  /**
   * {@code rewrittenFirst}: an attributes edit first appends to every span an entry too long for a
   * one-byte length, so the walk reads rewritten spans that must not be read as common ones.
   */
  @Property(tries = 600)
  void scannedConditionsAgreeWithTheGeneralEvaluator(
      @ForAll("spans") List<SpanCase> spans,
      @ForAll("conditionLists") List<String> conditions,
      @ForAll boolean rewrittenFirst)
      throws Exception {
    List<OttlCondition> compiled = new ArrayList<>();
    for (String text : conditions) {
      compiled.add(OttlCondition.parse(text, OttlContext.SPAN));
    }
    List<OttlCondition.Evaluator> shared = OttlCondition.newEvaluators(compiled);
    List<OttlCondition.Evaluator> alone = new ArrayList<>();
    List<OttlCondition.Evaluator> general = new ArrayList<>();
    for (OttlCondition condition : compiled) {
      alone.add(condition.newEvaluator());
      general.add(condition.newGeneralEvaluator());
    }
    List<String> expected = new ArrayList<>();
    List<String> sharedResults = new ArrayList<>();
    List<String> aloneResults = new ArrayList<>();
    EvalContext context = new EvalContext();
    Batch batch = ScannedSpans.batch(spans);
    if (rewrittenFirst) {
      AttributeActions rewriter =
          (AttributeActions.builder()
              .upsert("zz", AttributeValue.string("w".repeat(LONG_VALUE)))
              .build());
      batch.visit(ActionVisitors.items(rewriter));
    }
    try {
      batch.visit(
          item -> {
            context.block(item).span(item.span());
            for (int i = 0; i < compiled.size(); i++) {
              // The shared scan is asked in list order, as a filter asks, and before the others.
              sharedResults.add(outcome(shared.get(i), context));
            }
            for (int i = 0; i < compiled.size(); i++) {
              aloneResults.add(outcome(alone.get(i), context));
              expected.add(outcome(general.get(i), context));
            }
          });
    } finally {
      batch.clear();
    }
    assertThat(expected).hasSize(spans.size() * conditions.size());
    assertThat(sharedResults).as("%s over %s", conditions, spans).isEqualTo(expected);
    assertThat(aloneResults).as("%s over %s", conditions, spans).isEqualTo(expected);
  }

  private static String outcome(OttlCondition.Evaluator evaluator, EvalContext context) {
    try {
      return Boolean.toString(evaluator.matches(context));
    } catch (OttlEvaluationException e) {
      return "failed: " + e.getMessage();
    }
  }

  @Provide
  Arbitrary<List<SpanCase>> spans() {
    Arbitrary<Object> values =
        Arbitraries.frequencyOf(
            Tuple.of(6, Arbitraries.of(STRINGS).map(s -> (Object) s)),
            Tuple.of(1, Arbitraries.longs().between(-2, 2).map(l -> (Object) l)),
            Tuple.of(1, Arbitraries.of(true, false).map(b -> (Object) b)),
            Tuple.of(1, Arbitraries.of(0.0, 1.5).map(d -> (Object) d)),
            Tuple.of(1, Arbitraries.just((Object) new byte[] {'v'})),
            Tuple.of(
                2,
                Arbitraries.of(
                    ScannedSpans.EMPTY,
                    ScannedSpans.MAP,
                    ScannedSpans.LIST,
                    ScannedSpans.INT_THEN_STRING)));
    Arbitrary<Shape> shapes =
        Arbitraries.frequencyOf(
            Tuple.of(8, Arbitraries.just(Shape.KEY_THEN_VALUE)),
            Tuple.of(1, Arbitraries.of(Shape.class)));
    Arbitrary<Entry> entries =
        Combinators.combine(shapes, Arbitraries.of(KEYS), values).as(Entry::new);
    Arbitrary<String> names =
        Arbitraries.frequencyOf(
            Tuple.of(5, Arbitraries.of(STRINGS)), Tuple.of(1, Arbitraries.just((String) null)));
    Arbitrary<SpanCase> spans =
        Combinators.combine(
                names,
                Arbitraries.frequencyOf(
                    Tuple.of(5, Arbitraries.just(false)), Tuple.of(1, Arbitraries.just(true))),
                entries.list().ofMaxSize(MAX_ATTRIBUTES))
            .as(SpanCase::new);
    return spans.list().ofMinSize(1).ofMaxSize(MAX_SPANS);
  }

  @Provide
  Arbitrary<List<String>> conditionLists() {
    return condition(MAX_DEPTH).list().ofMinSize(1).ofMaxSize(MAX_CONDITIONS);
  }

  private static Arbitrary<String> condition(int depth) {
    if (depth == 0) {
      return leaf();
    }
    Arbitrary<String> inner = condition(depth - 1);
    return Arbitraries.frequencyOf(
        Tuple.of(3, leaf()),
        Tuple.of(1, Combinators.combine(inner, inner).as((a, b) -> "(" + a + ") and (" + b + ")")),
        Tuple.of(1, Combinators.combine(inner, inner).as((a, b) -> "(" + a + ") or (" + b + ")")),
        Tuple.of(1, inner.map(a -> "not (" + a + ")")));
  }

  private static Arbitrary<String> leaf() {
    Arbitrary<String> attribute =
        Combinators.combine(Arbitraries.of("attributes", "span.attributes"), Arbitraries.of(KEYS))
            .as((path, key) -> path + "[" + quoted(key) + "]");
    Arbitrary<String> target =
        Arbitraries.frequencyOf(
            Tuple.of(4, attribute), Tuple.of(1, Arbitraries.of("name", "span.name")));
    Arbitrary<String> literal =
        Arbitraries.frequencyOf(
            Tuple.of(5, Arbitraries.of(STRINGS).map(ScannedConditionPropertyTest::quoted)),
            Tuple.of(1, Arbitraries.just("nil")));
    Arbitrary<String> comparison =
        Combinators.combine(
                target, Arbitraries.of("==", "!="), literal, Arbitraries.of(true, false))
            .as(
                (path, operator, value, pathFirst) ->
                    pathFirst
                        ? path + " " + operator + " " + value
                        : value + " " + operator + " " + path);
    Arbitrary<String> match =
        Combinators.combine(target, Arbitraries.of(PATTERNS))
            .as((path, pattern) -> "IsMatch(" + path + ", " + quoted(pattern) + ")");
    return Arbitraries.frequencyOf(Tuple.of(4, comparison), Tuple.of(1, match));
  }

  private static String quoted(String s) {
    return "\"" + s + "\"";
  }
}
