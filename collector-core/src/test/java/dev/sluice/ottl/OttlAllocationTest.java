package dev.sluice.ottl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.testkit.AllocationBound;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Evaluating allocates nothing per item once an evaluator's buffers have grown: a visit of many
 * spans costs the same few bytes as a visit of one.
 */
class OttlAllocationTest {
  private static final int SPANS = 1_000;

  /**
   * Conditions on the common paths: string equality, regular expressions, converters. (A double
   * made a string, as {@code Concat} or {@code String} of a double do, allocates: not here.)
   */
  private static final List<String> CONDITIONS =
      List.of(
          "attributes[\"s\"] == \"abc\" and attributes[\"missing\"] == nil",
          "resource.attributes[\"service.name\"] == \"checkout\" and kind == SPAN_KIND_SERVER",
          "IsMatch(name, \"^GET /users/\\\\d+$\") and IsMatch(attributes[\"u\"], \"\u2615\")",
          "Len(Split(name, \"/\")) == 3 and Split(name, \"/\")[1] == \"users\"",
          "Concat([name, attributes[\"i\"], attributes[\"b\"]], \"|\") != \"\"",
          "ToLowerCase(name) == \"get /users/42\" and SHA256(name) != \"\"",
          "trace_id.string != \"\" and attributes[\"list\"][1] == \"y\" and attributes[\"map\"][\"k\"] == \"v\"",
          "Substring(name, 0, 3) == \"GET\" and Int(attributes[\"d\"]) == 1 and String(attributes[\"i\"]) == \"42\"");

  private int matched;

  @Test
  void evaluatingManySpansAllocatesNothingPerSpan() throws Exception {
    Span[] spans = new Span[SPANS];
    java.util.Arrays.fill(spans, Requests.richSpan());
    Batch many = Requests.traces(spans);
    Batch one = Requests.traces(Requests.richSpan());
    OttlCondition.Evaluator[] evaluators = new OttlCondition.Evaluator[CONDITIONS.size()];
    for (int i = 0; i < evaluators.length; i++) {
      evaluators[i] = OttlCondition.parse(CONDITIONS.get(i), OttlContext.SPAN).newEvaluator();
    }
    EvalContext item = new EvalContext();
    BatchView views = new BatchView();
    BatchView.SpanVisitor visitor =
        (resource, scope, span) -> {
          item.block(resource, scope).span(span);
          for (OttlCondition.Evaluator evaluator : evaluators) {
            if (evaluator.matches(item)) {
              matched++;
            }
          }
        };
    try {
      views.forEachSpan(many, visitor); // buffers grow, classes load
      long oneBytes = least(() -> views.forEachSpan(one, visitor));
      long manyBytes = least(() -> views.forEachSpan(many, visitor));
      // Every condition matches every span: a warm-up visit, then three of one and three of many.
      assertThat(matched).isEqualTo((SPANS + 3 + 3 * SPANS) * CONDITIONS.size());
      assertThat(manyBytes)
          .as("bytes for %d spans against %d for one", SPANS, oneBytes)
          .isLessThan(oneBytes + SPANS);
    } finally {
      many.clear();
      one.clear();
    }
  }

  /** The least of three measurements: one late compilation must not count as the code's. */
  private static long least(AllocationBound.Call call) {
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      least = Math.min(least, AllocationBound.measure(call).allocatedBytes());
    }
    return least;
  }
}
