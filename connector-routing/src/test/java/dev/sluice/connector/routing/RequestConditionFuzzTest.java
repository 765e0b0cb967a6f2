package dev.sluice.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.component.ConfigProblems;
import dev.sluice.pdata.RequestMetadata;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of the routing connector's own parser: a {@code request} route's
 * condition, {@code request["<key>"] == "<value>"} or {@code !=}, as a configuration file gives it.
 * Whatever the text, it compiles or is reported as a problem (never an exception), and compiling it
 * and matching it against metadata made from the same text allocate no more than {@link
 * AllocationBound}'s bound for the text's length.
 *
 * <p>Fuzzing: {@code bench/fuzz.sh RequestConditionFuzzTest#compile 10m}.
 */
class RequestConditionFuzzTest {
  /** Loads and initializes what compiling takes, which the first calls would count. */
  @BeforeAll
  static void warmUp() {
    for (String text :
        new String[] {"request[\"x\"] == \"a\"", "request[\"x\"] != \"\"", "request[x] == 1", ""}) {
      for (int i = 0; i < 3; i++) {
        RouteCondition compiled =
            RouteCondition.compileCondition(text, RouteContext.REQUEST, new ConfigProblems());
        if (compiled != null) {
          compiled.matches(RequestMetadata.of(Map.of("x", List.of(text))));
        }
      }
    }
  }

  private static void compileAndMatch(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    ConfigProblems problems = new ConfigProblems();
    RouteCondition[] compiled = new RouteCondition[1];
    boolean[] matched = new boolean[1];
    RequestMetadata metadata = RequestMetadata.of(Map.of("x", List.of(text)));
    AllocationBound.Outcome outcome =
        FuzzerHooks.measurePaused(
            () -> {
              compiled[0] = RouteCondition.compileCondition(text, RouteContext.REQUEST, problems);
              if (compiled[0] != null) {
                matched[0] = compiled[0].matches(metadata);
              }
            });
    assertThat(outcome.thrown()).as("what compiling %s threw", text).isNull();
    FuzzerHooks.assertWithin(outcome, "compiling a request condition", input.length);
    assertThat(compiled[0] != null || !problems.all().isEmpty())
        .as("compiled, or a problem reported, for %s", text)
        .isTrue();
  }

  @FuzzTest
  void compile(byte[] input) {
    compileAndMatch(input);
  }
}
