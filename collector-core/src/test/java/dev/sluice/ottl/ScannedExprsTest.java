package dev.sluice.ottl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ottl.ScannedSpans.Entry;
import dev.sluice.ottl.ScannedSpans.Shape;
import dev.sluice.ottl.ScannedSpans.SpanCase;
import dev.sluice.pdata.Batch;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which conditions compile to a one-walk read, and what such a read gives for chosen spans. */
class ScannedExprsTest {
  private static Expr compile(OttlContext context, String text) throws OttlException {
    return new Compiler(context, text, new SpanScan()).condition(Parser.parseCondition(text));
  }

  @Test
  void compilesTheCommonSpanComparisonsToScannedReads() throws Exception {
    for (String text :
        List.of(
            "attributes[\"http.route\"] == \"/health\"",
            "span.attributes[\"http.route\"] != \"/health\"",
            "\"/health\" == attributes[\"http.route\"]",
            "attributes[\"http.route\"] == nil",
            "name == \"GET /health\"",
            "span.name != \"\"")) {
      assertThat(compile(OttlContext.SPAN, text))
          .as(text)
          .isInstanceOf(ScannedExprs.Equality.class);
    }
    assertThat(compile(OttlContext.SPAN, "IsMatch(attributes[\"http.route\"], \"^/h\")"))
        .isInstanceOf(ScannedExprs.Match.class);
    assertThat(compile(OttlContext.SPAN, "IsMatch(name, \"^GET\")"))
        .isInstanceOf(ScannedExprs.Match.class);
  }

  @Test
  void leavesEveryOtherShapeToTheGeneralEvaluator() throws Exception {
    for (String text :
        List.of(
            "resource.attributes[\"service.name\"] == \"checkout\"",
            "attributes[\"m\"][\"k\"] == \"v\"",
            "attributes[\"i\"] == 1",
            "attributes[\"s\"] < \"b\"",
            "attributes[\"s\"] == name",
            "kind == SPAN_KIND_SERVER",
            "IsMatch(resource.attributes[\"service.name\"], \"^c\")")) {
      assertThat(compile(OttlContext.SPAN, text))
          .as(text)
          .isNotInstanceOfAny(ScannedExprs.Equality.class, ScannedExprs.Match.class);
    }
    assertThat(compile(OttlContext.SPANEVENT, "attributes[\"k\"] == \"v\""))
        .isNotInstanceOf(ScannedExprs.Equality.class);
    assertThat(compile(OttlContext.LOG, "attributes[\"k\"] == \"v\""))
        .isNotInstanceOf(ScannedExprs.Equality.class);
  }

  @Test
  void readsTheFirstEntryOfARepeatedKeyAndTheLastName() throws Exception {
    SpanCase span =
        new SpanCase(
            "first",
            true,
            List.of(
                new Entry(Shape.KEY_THEN_VALUE, "kk", "no"),
                new Entry(Shape.KEY_THEN_VALUE, "k", "yes"),
                new Entry(Shape.KEY_THEN_VALUE, "k", "no")));
    assertThat(results(span, "attributes[\"k\"] == \"yes\"", "attributes[\"k\"] == \"no\""))
        .containsExactly("true", "false");
    assertThat(results(span, "name == \"second\"", "name == \"first\""))
        .containsExactly("true", "false");
  }

  @Test
  void comparesAbsentAndNonStringValuesAsOttlDoes() throws Exception {
    SpanCase span =
        new SpanCase(
            null,
            false,
            List.of(
                new Entry(Shape.KEY_THEN_VALUE, "i", 1L),
                new Entry(Shape.KEY_ONLY, "none", null),
                new Entry(Shape.KEY_THEN_VALUE, "empty", ScannedSpans.EMPTY),
                new Entry(Shape.KEY_THEN_VALUE, "s", "")));
    assertThat(
            results(
                span,
                "attributes[\"i\"] == \"1\"",
                "attributes[\"i\"] != \"1\"",
                "attributes[\"missing\"] == \"\"",
                "attributes[\"missing\"] == nil",
                "attributes[\"none\"] == nil",
                "attributes[\"empty\"] != nil",
                "attributes[\"s\"] == \"\"",
                "attributes[\"s\"] == nil",
                "name == \"\"",
                "IsMatch(attributes[\"i\"], \"^1$\")",
                "IsMatch(attributes[\"missing\"], \"\")"))
        .containsExactly(
            "false", "true", "false", "true", "true", "false", "true", "false", "true", "true",
            "false");
  }

  @Test
  void aMapValueIsUnequalToAStringAndFailsIsMatchAsInTheGeneralEvaluator() throws Exception {
    SpanCase span =
        new SpanCase("n", false, List.of(new Entry(Shape.KEY_THEN_VALUE, "m", ScannedSpans.MAP)));
    assertThat(
            results(
                span,
                "attributes[\"m\"] == \"v\"",
                "attributes[\"m\"] != \"v\"",
                "IsMatch(attributes[\"m\"], \"v\")"))
        .containsExactly(
            "false", "true", "failed: IsMatch cannot take a map as a string in this build");
  }

  /** Each condition's outcome for the span, compiled together as a filter compiles its list. */
  private static List<String> results(SpanCase span, String... conditions) throws Exception {
    List<OttlCondition> compiled = new ArrayList<>();
    for (String text : conditions) {
      compiled.add(OttlCondition.parse(text, OttlContext.SPAN));
    }
    List<OttlCondition.Evaluator> evaluators = OttlCondition.newEvaluators(compiled);
    List<String> results = new ArrayList<>();
    EvalContext context = new EvalContext();
    Batch batch = ScannedSpans.batch(List.of(span));
    try {
      batch.visit(
          item -> {
            context.block(item).span(item.span());
            for (OttlCondition.Evaluator evaluator : evaluators) {
              try {
                results.add(Boolean.toString(evaluator.matches(context)));
              } catch (OttlEvaluationException e) {
                results.add("failed: " + e.getMessage());
              }
            }
          });
    } finally {
      batch.clear();
    }
    return results;
  }
}
