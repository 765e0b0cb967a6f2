package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Validatable;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordValidationTest {
  /** A section that checks its own key. */
  record Part(int size) implements Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      if (size < 1) {
        problems.add("size", "must be at least 1, was " + size);
      }
    }
  }

  /** A plain grouping record between the top and a section. */
  record Group(Part part) {}

  record Top(Part part, Group group, List<Part> parts, Map<String, Part> named)
      implements Validatable {
    static final Top DEFAULT = new Top(new Part(1), new Group(new Part(1)), List.of(), Map.of());

    @Override
    public void validate(ConfigProblems problems) {
      if (parts.size() > 2) {
        problems.add("parts", "at most 2");
      }
    }
  }

  private static List<String> problems(String yaml) {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () -> new ConfigBinder().bind(yaml, "t.yaml", Top.class, Top.DEFAULT));
    assertThat(e).as("binding should fail").isNotNull();
    return e.problems().stream().map(ConfigProblem::toString).toList();
  }

  @Test
  void validatesEveryNestedSectionOnceUnderItsKeyPath() {
    assertThat(
            problems(
                """
                part: {size: 0}
                group:
                  part:
                    size: -1
                parts:
                  - size: 3
                  - size: 0
                  - size: 1
                named:
                  a.b: {size: 0}
                """))
        .containsExactly(
            "t.yaml:1:8: part.size: must be at least 1, was 0",
            "t.yaml:4:5: group.part.size: must be at least 1, was -1",
            "t.yaml:5:1: parts: at most 2",
            "t.yaml:7:5: parts[1].size: must be at least 1, was 0",
            "t.yaml:10:9: named.a.b.size: must be at least 1, was 0");
  }

  @Test
  void aSectionLeftOutIsValidatedAtItsNearestEnclosingKey() {
    assertThat(
            catchThrowableOfType(
                    ConfigException.class,
                    () ->
                        new ConfigBinder()
                            .bind(
                                "parts: []\n",
                                "t.yaml",
                                Top.class,
                                new Top(new Part(0), new Group(new Part(1)), List.of(), Map.of())))
                .problems()
                .stream()
                .map(ConfigProblem::toString))
        .containsExactly("t.yaml:1:1: part.size: must be at least 1, was 0");
  }
}
