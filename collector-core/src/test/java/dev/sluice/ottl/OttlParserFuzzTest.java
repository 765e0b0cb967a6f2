package dev.sluice.ottl;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes the parser and compiler: the first byte picks a context (or, past the contexts, a
 * statement), the rest is the text. Only {@link OttlException} escapes, with a position inside the
 * text and a message of bounded size; what a text costs is within the allocation bound of its size.
 * Seeds and found inputs: {@code
 * src/test/resources/dev/sluice/ottl/OttlParserFuzzTestInputs/parses/}. Fuzzing: {@code
 * bench/fuzz.sh OttlParserFuzzTest#parses 10m}.
 */
class OttlParserFuzzTest {
  /**
   * What one character may cost, in units of AllocationBound's per-byte allowance (8 bytes). A
   * token makes an AST node or two (records and their lists, 40 to 100 bytes) and the compiled tree
   * a node with its value holder (about 150 bytes, 64-byte buffers for strings): measured up to
   * about 600 bytes per character for dense inputs such as {@code [1,1,1,...]} (a list literal's
   * elements each compile to a constant node), so 128 units (1 KiB) per character.
   */
  static final int COST_PER_CHAR = 128;

  private static final int MAX_MESSAGE_CHARS = 16 * 1024;

  @BeforeAll
  static void warmUp() throws Exception {
    parse(2, "attributes[\"a\"] == \"b\" and IsMatch(name, \"^x\") or Len(Split(name, \"/\")) > 1");
    parse(6, "severity_number < SEVERITY_NUMBER_WARN and body[\"k\"][0] == 1.5");
    parse(7, "set(name, \"a\") where kind == SPAN_KIND_SERVER");
    for (String bad : new String[] {"name ==", "nmae == 1", "\"\\q\"", "name == 1", "Foo()"}) {
      try {
        parse(2, bad);
      } catch (OttlException expected) {
        // The error paths are loaded too.
      }
    }
  }

  private static void parse(int selector, String text) throws OttlException {
    OttlContext[] contexts = OttlContext.values();
    if (selector < contexts.length) {
      OttlCondition.parse(text, contexts[selector]).newEvaluator();
    } else {
      // A whole statement, editor and where clause, parsed and compiled as transform does.
      OttlStatement.parse(text, OttlContext.SPAN);
    }
  }

  @FuzzTest(maxDuration = "10m")
  void parses(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    int selector = (input[0] & 0xFF) % (OttlContext.values().length + 1);
    String text = new String(Arrays.copyOfRange(input, 1, input.length), StandardCharsets.UTF_8);
    AllocationBound.Outcome outcome = AllocationBound.measure(() -> parse(selector, text));
    long size = (long) COST_PER_CHAR * text.length();
    if (outcome.allocatedBytes() > AllocationBound.limitFor(size)) {
      // A first pass through a path links its string concatenations; the fuzzer's hooks allocate.
      outcome = FuzzerHooks.measurePaused(() -> parse(selector, text));
    }
    FuzzerHooks.assertWithin(outcome, "ottl parse", size);
    Exception thrown = outcome.thrown();
    if (thrown == null) {
      return;
    }
    if (!(thrown instanceof OttlException e)) {
      throw new AssertionError("undocumented " + thrown, thrown);
    }
    assertThat(e.getMessage()).hasSizeLessThan(MAX_MESSAGE_CHARS);
    assertThat(e.line()).isPositive();
    assertThat(e.column()).isPositive();
    long lines = text.chars().filter(c -> c == '\n').count() + 1;
    assertThat((long) e.line()).isLessThanOrEqualTo(lines);
  }
}
