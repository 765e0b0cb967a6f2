package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigNode.Mapping;
import dev.sluice.config.ConfigNode.Sequence;
import dev.sluice.testkit.AllocationBound;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bounds that keep what a document costs proportional to its size. */
class YamlLimitsTest {
  private final Diagnostics diagnostics = new Diagnostics();

  private ConfigNode read(String yaml) throws ConfigException {
    return new YamlReader("c.yaml", EnvExpander.of(Map.of()), diagnostics).read(yaml);
  }

  private static ConfigProblem onlyProblem(ConfigException e) {
    assertThat(e.problems()).hasSize(1);
    return e.problems().get(0);
  }

  /** The classic: ten levels of ten aliases each, a billion nodes in a few hundred bytes. */
  static String billionLaughs() {
    StringBuilder yaml = new StringBuilder("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int level = 1; level < 10; level++) {
      yaml.append('l').append(level).append(": &l").append(level).append(" [");
      for (int i = 0; i < 10; i++) {
        yaml.append(i == 0 ? "" : ", ").append("*l").append(level - 1);
      }
      yaml.append("]\n");
    }
    return yaml.toString();
  }

  @Test
  void refusesABillionLaughsAtTheAliasThatPassesTheBound() {
    String yaml = billionLaughs();

    AllocationBound.Outcome outcome = AllocationBound.measure(() -> read(yaml));

    assertThat(outcome.thrown()).isInstanceOf(ConfigException.class);
    ConfigProblem problem = onlyProblem((ConfigException) outcome.thrown());
    assertThat(problem.message()).contains("aliases stand for more than").contains("expands");
    assertThat(problem.location().line()).isEqualTo(4);
    assertThat(problem.path()).startsWith("l3[");
  }

  @Test
  void acceptsAliasesWithinTheBound() throws ConfigException {
    Mapping root = (Mapping) read("a: &a [1, 2, 3]\nb: [*a, *a, *a, *a]\n");

    Sequence b = (Sequence) root.entry("b").orElseThrow().value();
    assertThat(b.items()).hasSize(4).allMatch(item -> item == root.entry("a").get().value());
  }

  @Test
  void countsAnAliasOfAScalarAsTheNodeWrittenForIt() throws ConfigException {
    Mapping root = (Mapping) read("a: &a x\nb: [" + "*a, ".repeat(5000) + "*a]\n");

    assertThat(((Sequence) root.entry("b").orElseThrow().value()).items()).hasSize(5001);
  }

  @Test
  void refusesDeepFlowNestingWithItsPosition() {
    String yaml = "a: " + "[".repeat(100_000) + "]".repeat(100_000) + "\n";

    assertThatThrownBy(() -> read(yaml))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e -> {
              ConfigProblem problem = onlyProblem(e);
              assertThat(problem.message()).contains("nest more than 64 deep");
              assertThat(problem.location()).isEqualTo(new Location("c.yaml", 1, 67));
            });
  }

  @Test
  void refusesDeepBlockNestingWithItsPosition() {
    StringBuilder yaml = new StringBuilder();
    for (int depth = 0; depth < 200; depth++) {
      yaml.append("  ".repeat(depth)).append("k").append(depth).append(":\n");
    }

    assertThatThrownBy(() -> read(yaml.toString()))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e -> {
              ConfigProblem problem = onlyProblem(e);
              assertThat(problem.message()).contains("nest more than 64 deep");
              assertThat(problem.location().line()).isEqualTo(65);
              assertThat(problem.path()).hasSizeLessThanOrEqualTo(KeyPath.MAX_CHARS + 3);
            });
  }

  @Test
  void acceptsNestingUpToTheLimit() throws ConfigException {
    String yaml =
        "[".repeat(YamlReader.MAX_NESTING_DEPTH) + "]".repeat(YamlReader.MAX_NESTING_DEPTH);

    assertThat(read(yaml)).isInstanceOf(Sequence.class);
  }

  @Test
  void refusesADocumentOverTheSizeLimit() {
    String yaml = "a: " + "x".repeat(YamlReader.MAX_DOCUMENT_CHARS) + "\n";

    assertThatThrownBy(() -> read(yaml))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(onlyProblem(e).message())
                    .contains("over the limit of " + YamlReader.MAX_DOCUMENT_CHARS));
  }

  @Test
  void refusesAFileOverTheSizeLimitBeforeReadingIt(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("big.yaml");
    Files.write(file, new byte[ConfigLoader.MAX_FILE_BYTES + 1]);

    assertThatThrownBy(() -> new ConfigLoader().load(file))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e -> assertThat(onlyProblem(e).message()).contains("over the limit of"));
  }

  @Test
  void listsAtMostAHundredErrorsAndCountsTheRest() {
    StringBuilder yaml = new StringBuilder();
    for (int i = 0; i < 500; i++) {
      yaml.append("k: ").append(i).append('\n');
    }

    assertThatThrownBy(
            () -> {
              read(yaml.toString());
              diagnostics.throwIfErrors();
            })
        .isInstanceOfSatisfying(
            ConfigException.class,
            e -> {
              assertThat(e.problems()).hasSize(Diagnostics.MAX_KEPT + 1);
              assertThat(e.problems().get(Diagnostics.MAX_KEPT).message())
                  .isEqualTo("399 more errors not listed");
            });
    assertThat(diagnostics.errorCount()).isEqualTo(499);
  }

  @Test
  void cutsLongKeysAndValuesInProblems() {
    String key = "k".repeat(1000); // snakeyaml's longest implicit key is 1024
    String yaml = key + ":\n  " + key + ": 1\n  " + key + ": 2\n";

    assertThatThrownBy(
            () -> {
              read(yaml);
              diagnostics.throwIfErrors();
            })
        .isInstanceOfSatisfying(
            ConfigException.class,
            e -> assertThat(onlyProblem(e).path()).hasSize(KeyPath.MAX_CHARS + 3));
    assertThat(ConfigNode.quote("v".repeat(100_000))).hasSize(ConfigNode.MAX_QUOTED_CHARS + 5);
  }
}
