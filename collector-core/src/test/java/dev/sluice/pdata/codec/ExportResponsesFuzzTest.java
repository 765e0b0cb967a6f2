package dev.sluice.pdata.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of what an exporter reads from a backend: the export response's partial
 * success and a failure's {@code google.rpc.Status} (message and RetryInfo delay). Whatever the
 * bytes, the readers answer (null, empty or -1 for what they cannot read) and never throw, allocate
 * within {@link AllocationBound}, return messages no longer than the input, and a delay of -1
 * (none) or more.
 *
 * <p>Regression inputs: {@code
 * src/test/resources/dev/sluice/pdata/codec/ExportResponsesFuzzTestInputs/}. Fuzzing: {@code
 * bench/fuzz.sh ExportResponsesFuzzTest#read 10m}.
 */
class ExportResponsesFuzzTest {

  @BeforeAll
  static void warmUp() {
    // Loads the readers' classes, on their paths that succeed and on those that give up.
    byte[] status = ExportResponses.status(8, "over the limit", 1_500);
    byte[] partial = ExportResponses.partialSuccessResponse(3, "bad spans");
    for (byte[] input : new byte[][] {status, partial, {0x0A, 0x05, 0x12}}) {
      ExportResponses.partialSuccess(input);
      ExportResponses.statusMessage(input);
      ExportResponses.retryDelayNanos(input);
    }
  }

  @FuzzTest
  void read(byte[] input) {
    String[] message = new String[2];
    long[] delay = new long[1];
    ExportResponses.Partial[] partial = new ExportResponses.Partial[1];
    AllocationBound.Outcome outcome =
        AllocationBound.measure(
            () -> {
              partial[0] = ExportResponses.partialSuccess(input);
              message[0] = ExportResponses.statusMessage(input);
              delay[0] = ExportResponses.retryDelayNanos(input);
            });
    if (outcome.allocatedBytes() > AllocationBound.limitFor(input.length)) {
      outcome =
          FuzzerHooks.measurePaused(
              () -> {
                ExportResponses.partialSuccess(input);
                ExportResponses.statusMessage(input);
                ExportResponses.retryDelayNanos(input);
              });
    }
    FuzzerHooks.assertWithin(outcome, "reading an export response", input.length);
    assertThat(outcome.thrown()).as("what the readers threw").isNull();
    assertThat(message[0].length()).isLessThanOrEqualTo(input.length);
    if (partial[0] != null) {
      assertThat(partial[0].errorMessage().length()).isLessThanOrEqualTo(input.length);
    }
    assertThat(delay[0]).isGreaterThanOrEqualTo(-1);
  }
}
