package dev.sluice.processor.tailsampling;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.build.TracesBuilder;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of what {@code tail_sampling} parses from the wire: a span's {@code
 * trace_state}, as a W3C list for the {@code trace_state} policy. Whatever the text, the parser
 * never throws, allocates nothing beyond {@link AllocationBound}'s bound for the input's length
 * once its buffer has grown, and when it takes a list every member has a well-formed key and value,
 * no key twice, at most 32 of them, each found again by its key.
 *
 * <p>Fuzzing: {@code bench/fuzz.sh W3cTraceStateFuzzTest#parse 10m}.
 */
class W3cTraceStateFuzzTest {
  private static final W3cTraceState PARSER = new W3cTraceState();

  @BeforeAll
  static void warmUp() {
    for (String text : new String[] {"k=v", "a=1,b=2", "t@s=x, ,k=v ", "=", "k=v,k=w"}) {
      check(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  @FuzzTest
  void parse(byte[] input) {
    check(input);
  }

  private static void check(byte[] input) {
    TracesBuilder builder = new TracesBuilder();
    builder.resource();
    builder.scope();
    builder.span().traceState(new String(input, StandardCharsets.UTF_8));
    Batch batch = Batch.of(builder.build());
    boolean[] parsed = new boolean[1];
    AllocationBound.Outcome[] outcome = new AllocationBound.Outcome[1];
    batch.visit(
        item -> {
          var traceState = item.span().traceState();
          PARSER.parse(traceState); // the buffer grows to the text once, outside the measure
          outcome[0] = AllocationBound.measure(() -> parsed[0] = PARSER.parse(traceState));
        });
    batch.clear();
    FuzzerHooks.assertWithin(outcome[0], "parsing a trace_state", input.length);
    assertThat(outcome[0].thrown()).as("what the parser threw").isNull();
    if (!parsed[0]) {
      assertThat(PARSER.members()).isZero();
      return;
    }
    assertThat(PARSER.members()).isBetween(0, SpanPolicies.MAX_TRACE_STATE_MEMBERS);
    Set<String> keys = new HashSet<>();
    for (int m = 0; m < PARSER.members(); m++) {
      byte[] key = PARSER.key(m);
      byte[] value = PARSER.valueBytes(m);
      assertThat(W3cTraceState.validKey(key)).as("key %d", m).isTrue();
      assertThat(W3cTraceState.validValue(value, 0, value.length)).as("value %d", m).isTrue();
      assertThat(keys.add(new String(key, StandardCharsets.US_ASCII))).as("key twice").isTrue();
      assertThat(PARSER.find(key)).isEqualTo(m);
      assertThat(PARSER.valueEquals(m, value)).isTrue();
    }
  }
}
