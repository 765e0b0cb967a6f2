package dev.sluice.processor.tailsampling;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.ottl.ErrorMode;
import dev.sluice.ottl.EvalContext;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlContext;
import dev.sluice.ottl.OttlEvaluationException;
import dev.sluice.ottl.OttlException;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanView;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code ottl_condition}: the trace is sampled when any {@code span} condition holds for any of its
 * spans, or any {@code spanevent} condition for any event of them, as the OpenTelemetry Collector
 * decides (v0.161.0). Spans are taken in the order held, each span's conditions before its events';
 * the first match samples.
 *
 * <p>A condition that cannot be evaluated for an item: under {@code propagate} the policy answers
 * {@link Decision#ERROR} at once (a later match is not looked for); under {@code ignore} and {@code
 * silent} it counts as not matched ({@code ignore} logs it). Without {@code error_mode} the
 * Collector's zero value applies, which behaves as {@code silent}.
 */
final class OttlPolicy {
  private static final Logger LOGGER = Logger.getLogger(OttlPolicy.class.getName());
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private OttlPolicy() {}

  static void validate(PolicyConfig.OttlCondition condition, ConfigProblems problems) {
    List<String> span = span(condition);
    List<String> spanEvent = spanEvent(condition);
    if (span.isEmpty() && spanEvent.isEmpty()) {
      problems.add(
          "",
          "expected at least one OTTL condition, under span or spanevent, such as: span:"
              + " ['attributes[\"http.response.status_code\"] >= 500']");
      return;
    }
    parse("span", span, OttlContext.SPAN, problems);
    parse("spanevent", spanEvent, OttlContext.SPANEVENT, problems);
  }

  /** Parses the conditions of one key, reporting each that fails at its place in the list. */
  private static List<OttlCondition> parse(
      String key, List<String> conditions, OttlContext context, ConfigProblems problems) {
    List<OttlCondition> parsed = new ArrayList<>(conditions.size());
    for (int i = 0; i < conditions.size(); i++) {
      String text = conditions.get(i);
      if (text == null) {
        problems.under(key).item(i).add("", "an empty condition");
        continue;
      }
      try {
        parsed.add(OttlCondition.parse(text, context));
      } catch (OttlException e) {
        String where =
            e.line() == 1 ? "column " + e.column() : "line " + e.line() + ", column " + e.column();
        problems
            .under(key)
            .item(i)
            .add("", "invalid OTTL condition at " + where + " of the condition: " + e.reason());
      }
    }
    return parsed;
  }

  static PolicyEvaluator compile(PolicyConfig.OttlCondition condition) {
    ConfigProblems problems = new ConfigProblems();
    List<OttlCondition> span = parse("span", span(condition), OttlContext.SPAN, problems);
    List<OttlCondition> spanEvent =
        parse("spanevent", spanEvent(condition), OttlContext.SPANEVENT, problems);
    if (!problems.isEmpty()) {
      throw new IllegalStateException("validated already: " + problems.all());
    }
    ErrorMode mode = condition.errorMode() == null ? ErrorMode.SILENT : condition.errorMode();
    return new Evaluator(span, spanEvent, mode);
  }

  private static List<String> span(PolicyConfig.OttlCondition condition) {
    return condition == null || condition.span() == null ? List.of() : condition.span();
  }

  private static List<String> spanEvent(PolicyConfig.OttlCondition condition) {
    return condition == null || condition.spanevent() == null ? List.of() : condition.spanevent();
  }

  /** The compiled conditions and the cursors they read through; one trace at a time. */
  private static final class Evaluator extends SpanWalk {
    private final OttlCondition[] spanConditions;
    private final OttlCondition.Evaluator[] span;
    private final OttlCondition[] spanEventConditions;
    private final OttlCondition.Evaluator[] spanEvent;
    private final ErrorMode mode;
    private final RateLimitedLog log;
    private final EvalContext context = new EvalContext();
    private final SpanEventView events = new SpanEventView();
    private Decision decided;

    Evaluator(List<OttlCondition> span, List<OttlCondition> spanEvent, ErrorMode mode) {
      this.spanConditions = span.toArray(new OttlCondition[0]);
      this.span = OttlCondition.newEvaluators(span).toArray(new OttlCondition.Evaluator[0]);
      this.spanEventConditions = spanEvent.toArray(new OttlCondition[0]);
      this.spanEvent =
          OttlCondition.newEvaluators(spanEvent).toArray(new OttlCondition.Evaluator[0]);
      this.mode = mode;
      this.log = new RateLimitedLog(LOGGER, Level.WARNING, LOG_INTERVAL_MILLIS);
    }

    @Override
    void begin() {
      decided = null;
    }

    @Override
    Decision end(TraceData trace) {
      // The context lets go of the trace's views; none is read after the walk.
      context.clear();
      return decided == null ? Decision.NOT_SAMPLED : decided;
    }

    @Override
    public void visit(BatchItem item) {
      if (decided != null) {
        return;
      }
      SpanView view = item.span();
      context.block(item).span(view);
      if (span.length > 0) {
        decided = anyMatches(spanConditions, span);
        if (decided != null) {
          return;
        }
      }
      if (spanEvent.length == 0) {
        return;
      }
      view.events(events);
      context.spanEvent(events);
      while (events.next()) {
        decided = anyMatches(spanEventConditions, spanEvent);
        if (decided != null) {
          return;
        }
      }
    }

    /** SAMPLED when a condition holds, ERROR when one fails under propagate, else null. */
    private Decision anyMatches(OttlCondition[] conditions, OttlCondition.Evaluator[] evaluators) {
      for (int i = 0; i < evaluators.length; i++) {
        try {
          if (evaluators[i].matches(context)) {
            return Decision.SAMPLED;
          }
        } catch (OttlEvaluationException e) {
          switch (mode) {
            case PROPAGATE -> {
              return Decision.ERROR;
            }
            case IGNORE ->
                log.log(
                    "ottl_condition: condition '"
                        + conditions[i].text()
                        + "' failed and counts as not matched: "
                        + e.getMessage());
            default -> {}
          }
        }
      }
      return null;
    }
  }
}
