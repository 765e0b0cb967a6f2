package dev.sluice.exporter.prometheusremotewrite;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.component.ExportResult;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of what the exporter reads from a remote-write receiver: the status, the
 * body (as text for the message), {@code Retry-After}, and the 2.0 {@code *-Written} counts.
 * Whatever the answer, reading it never throws, costs at most {@link AllocationBound}'s bound for
 * the answer's size, keeps the message short, never asks for a negative delay, and judges the
 * status as the remote-write specification says (2xx success; 5xx and 429 retried; the rest not).
 *
 * <p>The input: two bytes of status (100 to 599), one byte of {@code Retry-After} length, that many
 * bytes of it, the rest the body; the {@code Retry-After} bytes are also read as a count. Fuzzing:
 * {@code bench/fuzz.sh RemoteWriteAnswersFuzzTest#answer 10m}.
 */
class RemoteWriteAnswersFuzzTest {
  @BeforeAll
  static void warmUp() {
    for (String text : new String[] {"", "7", "Wed, 21 Oct 2099 07:28:00 GMT", "-1", "x"}) {
      check(503, text, "overloaded".getBytes(StandardCharsets.UTF_8));
    }
  }

  @FuzzTest
  void answer(byte[] input) {
    if (input.length < 3) {
      return;
    }
    int status = 100 + (((input[0] & 0xFF) << 8 | (input[1] & 0xFF)) % 500);
    int retryLength = Math.min(input[2] & 0xFF, input.length - 3);
    String retryAfter = new String(input, 3, retryLength, StandardCharsets.UTF_8);
    byte[] body = Arrays.copyOfRange(input, 3 + retryLength, input.length);
    check(status, retryAfter, body);
  }

  private static void check(int status, String retryAfter, byte[] body) {
    ExportResult[] result = new ExportResult[1];
    long[] count = new long[1];
    AllocationBound.Outcome outcome =
        AllocationBound.measure(
            () -> {
              result[0] = RemoteWriteAnswers.of(status, body, retryAfter);
              count[0] = RemoteWriteAnswers.writtenCount(retryAfter);
            });
    FuzzerHooks.assertWithin(outcome, "reading an answer", body.length + retryAfter.length() * 3L);
    assertThat(outcome.thrown()).as("what reading the answer threw").isNull();
    assertThat(result[0].retryAfterNanos()).isNotNegative();
    assertThat(result[0].message().length()).isLessThanOrEqualTo(520);
    assertThat(count[0]).isGreaterThanOrEqualTo(-1);
    ExportResult.Outcome expected;
    if (status >= 200 && status < 300) {
      expected = ExportResult.Outcome.SUCCESS;
    } else if (status == 429 || status >= 500) {
      expected = ExportResult.Outcome.RETRYABLE;
    } else {
      expected = ExportResult.Outcome.PERMANENT;
    }
    assertThat(result[0].outcome()).isEqualTo(expected);
  }
}
