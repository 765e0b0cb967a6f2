package dev.sluice.connector.spanmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.build.TracesBuilder;
import dev.sluice.pdata.view.TextView;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of the one thing the connector parses from the wire: a span's {@code
 * trace_state}, for the {@code ot=th:} sampling threshold. Whatever the text, the reader answers 0
 * (no valid threshold) or an adjusted count of at least 1 and at most 2^56, never throws, and
 * allocates nothing beyond {@link AllocationBound}'s bound for the input's length.
 *
 * <p>Fuzzing: {@code bench/fuzz.sh SamplingThresholdFuzzTest#read 10m}.
 */
class SamplingThresholdFuzzTest {
  private static final double MAX_COUNT = 0x1p56;

  @BeforeAll
  static void warmUp() {
    for (String text :
        new String[] {"ot=th:8", "ot=th:0;rv:ab", "x=1, ot=th:fffffffffffff", "ot"}) {
      adjustedCountOf(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The adjusted count the reader gives for a span whose trace_state is {@code input} as text. */
  private static double adjustedCountOf(byte[] input) {
    TracesBuilder builder = new TracesBuilder();
    builder.resource();
    builder.scope();
    builder.span().traceState(new String(input, StandardCharsets.UTF_8));
    Batch batch = Batch.of(builder.build());
    double[] count = new double[1];
    AllocationBound.Outcome[] outcome = new AllocationBound.Outcome[1];
    batch.visit(
        item -> {
          TextView traceState = item.span().traceState();
          outcome[0] =
              AllocationBound.measure(() -> count[0] = SamplingThreshold.adjustedCount(traceState));
        });
    batch.clear();
    FuzzerHooks.assertWithin(outcome[0], "reading a trace_state's threshold", input.length);
    assertThat(outcome[0].thrown()).as("what the reader threw").isNull();
    return count[0];
  }

  @FuzzTest
  void read(byte[] input) {
    double count = adjustedCountOf(input);
    assertThat(count == 0 || (count >= 1 && count <= MAX_COUNT))
        .as("adjusted count %s", count)
        .isTrue();
  }
}
