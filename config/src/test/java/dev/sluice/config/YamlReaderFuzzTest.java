package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.config.ConfigNode.Entry;
import dev.sluice.config.ConfigNode.Mapping;
import dev.sluice.config.ConfigNode.Sequence;
import dev.sluice.testkit.AllocationBound;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes {@link YamlReader}: only {@link ConfigException} escapes, what a document costs is within
 * the allocation bound of its size, and the tree it reads, walked as a consumer walks it (through
 * every alias again), has a size proportional to the document.
 */
class YamlReaderFuzzTest {
  /**
   * What one character of YAML may cost, in units of AllocationBound's per-byte allowance (8
   * bytes). Measured without the fuzzer: up to about 760 bytes per character for dense flow
   * sequences ({@code [a,a,a,...]}; jackson-dataformat-yaml over snakeyaml makes a few objects per
   * token), 390 for block sequences, 230 for mappings. Under the Jazzer agent its comparison hooks
   * in our classes allocate too, per string compared (about 1.7 KiB per character for a long plain
   * scalar that the env expander looks at), so the bound is 4 KiB per character: still linear,
   * which is what the check is for (exponential aliases, quadratic paths).
   */
  static final int COST_PER_CHAR = 512;

  private static final EnvExpander EXPANDER = EnvExpander.of(Map.of("HOST", "example.com"));

  @BeforeAll
  static void warmUp() throws Exception {
    read("a: &a {b: [1, 2.5, true, null, \"${env:HOST}\"]}\nc: *a\nd: {<<: *a}\n");
    try {
      read("a: [\n");
    } catch (ConfigException expected) {
      // The syntax error path is loaded too.
    }
  }

  private static ConfigNode read(String text) throws ConfigException {
    Diagnostics diagnostics = new Diagnostics();
    ConfigNode root = new YamlReader("fuzz.yaml", EXPANDER, diagnostics).read(text);
    diagnostics.throwIfErrors();
    return root;
  }

  @FuzzTest
  void readsWithinBound(byte[] document) throws Exception {
    String text = new String(document, StandardCharsets.UTF_8);
    // Once unmeasured: a path's first run in the JVM links and loads what it uses.
    AllocationBound.measure(() -> read(text));
    ConfigNode[] root = new ConfigNode[1];
    AllocationBound.Outcome outcome = AllocationBound.measure(() -> root[0] = read(text));
    if (outcome.thrown() != null && !(outcome.thrown() instanceof ConfigException)) {
      throw new AssertionError("undocumented " + outcome.thrown(), outcome.thrown());
    }
    outcome.assertWithin("yaml", (long) COST_PER_CHAR * text.length());
    if (outcome.thrown() instanceof ConfigException e) {
      assertThat(e.getMessage()).hasSizeLessThan(64 * 1024);
      for (ConfigProblem problem : e.problems()) {
        assertThat(problem.location().line()).isPositive();
        assertThat(problem.location().column()).isPositive();
      }
    }
    if (root[0] != null) {
      long allowed =
          (1L + YamlReader.ALIAS_NODES_PER_NODE) * (text.length() + 1)
              + YamlReader.ALIAS_NODES_FIXED;
      assertThat(walk(root[0], allowed + 1, 0)).isLessThanOrEqualTo(allowed);
    }
  }

  /** The nodes a consumer visits from {@code node}, counting no further than {@code cap}. */
  static long walk(ConfigNode node, long cap, long seen) {
    long count = seen + 1;
    if (node instanceof Mapping m) {
      for (Entry e : m.entries()) {
        if (count >= cap) {
          return count;
        }
        count = walk(e.value(), cap, count);
      }
    } else if (node instanceof Sequence s) {
      for (ConfigNode item : s.items()) {
        if (count >= cap) {
          return count;
        }
        count = walk(item, cap, count);
      }
    }
    return count;
  }
}
