package dev.sluice.processor.tailsampling;

import static dev.sluice.processor.tailsampling.Decision.ERROR;
import static dev.sluice.processor.tailsampling.Decision.NOT_SAMPLED;
import static dev.sluice.processor.tailsampling.Decision.SAMPLED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigProblem;
import dev.sluice.ottl.ErrorMode;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OttlPolicyTest {
  // Fails for names shorter than 12 characters; true for "GET /users/{id}".
  private static final String FAILING = "Substring(name, 0, 12) == \"GET /users/{\"";

  private final Logger logger = Logger.getLogger(OttlPolicy.class.getName());
  private final List<String> logged = new ArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          logged.add(record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private final List<TraceData> traces = new ArrayList<>();

  @BeforeEach
  void listen() {
    logger.addHandler(handler);
  }

  @AfterEach
  void release() {
    logger.removeHandler(handler);
    traces.forEach(trace -> trace.spans().clear());
  }

  private TraceData trace(String... spans) {
    TraceData trace = Spans.trace(0, spans);
    traces.add(trace);
    return trace;
  }

  private static PolicyEvaluator policy(ErrorMode mode, List<String> span, List<String> event) {
    PolicyConfig config = Policy.ottl("ottl", mode, span, event);
    assertThat(Policy.problems(config)).isEmpty();
    return Policies.compileOne(config);
  }

  @Test
  void samplesWhenAnyConditionHoldsForAnySpan() {
    PolicyEvaluator policy =
        policy(
            ErrorMode.PROPAGATE,
            List.of("name == \"POST /orders\"", "attributes[\"index\"] == 7"),
            List.of());
    assertThat(policy.evaluate(trace("GET /a", "GET /b", "POST /orders"))).isEqualTo(SAMPLED);
    assertThat(policy.evaluate(trace("GET /a", "GET /b"))).isEqualTo(NOT_SAMPLED);
    assertThat(policy.evaluate(trace("0", "1", "2", "3", "4", "5", "6", "7"))).isEqualTo(SAMPLED);
  }

  @Test
  void readsTheResourceAndTakesTheCollectorsContextPrefixes() {
    PolicyEvaluator policy =
        policy(
            ErrorMode.PROPAGATE,
            List.of("resource.attributes[\"service.name\"] == \"checkout\" and span.name == \"b\""),
            List.of());
    assertThat(policy.evaluate(trace("a", "b"))).isEqualTo(SAMPLED);
    assertThat(policy.evaluate(trace("a"))).isEqualTo(NOT_SAMPLED);
  }

  @Test
  void samplesWhenASpanEventConditionHoldsForAnyEvent() {
    PolicyEvaluator policy =
        policy(
            ErrorMode.PROPAGATE,
            List.of(),
            List.of("name == \"exception\" and span.name == \"GET /b\""));
    assertThat(policy.evaluate(trace("GET /a>exception", "GET /b>retry,exception")))
        .isEqualTo(SAMPLED);
    assertThat(policy.evaluate(trace("GET /a>exception", "GET /b>retry"))).isEqualTo(NOT_SAMPLED);
    assertThat(policy.evaluate(trace("GET /a", "GET /b"))).isEqualTo(NOT_SAMPLED);
  }

  @Test
  void propagateAnswersErrorAtTheFirstFailureEvenWhenALaterSpanMatches() {
    PolicyEvaluator policy = policy(ErrorMode.PROPAGATE, List.of(FAILING), List.of());
    assertThat(policy.evaluate(trace("short", "GET /users/{id}"))).isEqualTo(ERROR);
    // A match before the failure decides first.
    assertThat(policy.evaluate(trace("GET /users/{id}", "short"))).isEqualTo(SAMPLED);
    assertThat(logged).isEmpty();
  }

  @Test
  void eachSpansEventsAreAskedBeforeTheNextSpan() {
    PolicyEvaluator policy =
        policy(
            ErrorMode.PROPAGATE,
            List.of("Substring(name, 0, 5) == \"zzzzz\""),
            List.of("name == \"match\""));
    assertThat(policy.evaluate(trace("long name>match", "ab"))).isEqualTo(SAMPLED);
    assertThat(policy.evaluate(trace("long name>other", "ab"))).isEqualTo(ERROR);
  }

  @Test
  void propagateAnswersErrorForAFailingSpanEventCondition() {
    PolicyEvaluator policy =
        policy(ErrorMode.PROPAGATE, List.of(), List.of("Substring(name, 0, 8) == \"database\""));
    assertThat(policy.evaluate(trace("a>retry", "b>database call"))).isEqualTo(ERROR);
    assertThat(policy.evaluate(trace("a>database call", "b>retry"))).isEqualTo(SAMPLED);
  }

  @Test
  void ignoreCountsAFailureAsNotMatchedGoesOnAndLogsIt() {
    PolicyEvaluator policy =
        policy(ErrorMode.IGNORE, List.of(FAILING, "name == \"short\""), List.of());
    // The first condition fails for "short"; the second holds for it.
    assertThat(policy.evaluate(trace("short"))).isEqualTo(SAMPLED);
    assertThat(policy.evaluate(trace("tiny", "GET /users/{id}"))).isEqualTo(SAMPLED);
    assertThat(policy.evaluate(trace("tiny", "min"))).isEqualTo(NOT_SAMPLED);
    assertThat(logged)
        .isNotEmpty()
        .allSatisfy(m -> assertThat(m).contains("counts as not matched").contains("Substring"));
  }

  @Test
  void silentAndALeftOutErrorModeDecideAsIgnoreWithoutALog() {
    for (ErrorMode mode : new ErrorMode[] {ErrorMode.SILENT, null}) {
      PolicyEvaluator policy = policy(mode, List.of(FAILING, "name == \"short\""), List.of());
      assertThat(policy.evaluate(trace("short"))).isEqualTo(SAMPLED);
      assertThat(policy.evaluate(trace("tiny", "GET /users/{id}"))).isEqualTo(SAMPLED);
      assertThat(policy.evaluate(trace("tiny", "min"))).isEqualTo(NOT_SAMPLED);
    }
    assertThat(logged).isEmpty();
  }

  @Test
  void bindsTheCollectorsKeys() throws Exception {
    TailSamplingConfig config =
        Policy.config(
            """
            policies:
              - name: o
                type: ottl_condition
                ottl_condition:
                  error_mode: ignore
                  span: ['name == "a"']
                  spanevent: ['name == "b"']
            """);
    assertThat(config.policies().get(0).ottlCondition())
        .isEqualTo(
            new PolicyConfig.OttlCondition(
                ErrorMode.IGNORE, List.of("name == \"a\""), List.of("name == \"b\"")));
  }

  @Test
  void placesAnInvalidConditionAtItsKeyWithItsColumn() {
    ConfigProblem problem =
        Policy.firstProblem(
            """
            policies:
              - name: o
                type: ottl_condition
                ottl_condition:
                  span:
                    - name == "a"
                    - attributes["k"] == "v" and nmae == "b"
            """);
    assertThat(problem.path()).isEqualTo("policies[0].ottl_condition.span[1]");
    assertThat(problem.location().line()).isEqualTo(7);
    assertThat(problem.message())
        .startsWith("invalid OTTL condition at column 28 of the condition: unknown path 'nmae'");
  }

  @Test
  void reportsEveryInvalidConditionOfBothContexts() {
    assertThat(
            Policy.yamlProblems(
                """
                policies:
                  - name: o
                    type: ottl_condition
                    ottl_condition:
                      span: ['kind ==', 'name == "a"']
                      spanevent: ['kind == 1', 'dropped_attributes_count == 0']
                  - {name: empty, type: ottl_condition, ottl_condition: {error_mode: silent}}
                """))
        .satisfiesExactlyInAnyOrder(
            p -> assertThat(p).startsWith("policies[0].ottl_condition.span[0]: invalid OTTL"),
            p ->
                assertThat(p)
                    .startsWith("policies[0].ottl_condition.spanevent[0]: invalid OTTL")
                    .contains("unknown path 'kind' in the spanevent context"),
            p ->
                assertThat(p)
                    .isEqualTo(
                        "policies[1].ottl_condition: expected at least one OTTL condition, under"
                            + " span or spanevent, such as: span:"
                            + " ['attributes[\"http.response.status_code\"] >= 500']"));
  }

  @Test
  void refusesAnUnknownErrorMode() {
    assertThat(
            Policy.yamlProblems(
                """
                policies:
                  - name: o
                    type: ottl_condition
                    ottl_condition: {error_mode: loud, span: ['name == "a"']}
                """))
        .singleElement()
        .satisfies(p -> assertThat(p).startsWith("policies[0].ottl_condition.error_mode: "));
  }
}
