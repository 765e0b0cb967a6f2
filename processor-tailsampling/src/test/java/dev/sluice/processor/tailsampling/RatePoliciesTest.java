package dev.sluice.processor.tailsampling;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RatePoliciesTest {
  private static final long SECOND = 1_000_000_000L;

  /** One recorded run of Go's limiter: the sequence drawn from the seed, and its answers. */
  record GoRun(
      long seed,
      long perSecond,
      long burst,
      long maxStepNanos,
      long maxN,
      int steps,
      String answers) {
    @Override
    public String toString() {
      return "seed " + seed + ": " + perSecond + "/s, burst " + burst;
    }
  }

  static Stream<GoRun> goRuns() throws IOException {
    List<GoRun> runs = new ArrayList<>();
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(
                RatePoliciesTest.class.getResourceAsStream("/token-bucket-go.txt"),
                StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("#") || line.isBlank()) {
          continue;
        }
        String[] f = line.split(" ");
        runs.add(
            new GoRun(
                Long.parseLong(f[0]),
                Long.parseLong(f[1]),
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[4]),
                Integer.parseInt(f[5]),
                f[6]));
      }
    }
    return runs.stream();
  }

  /** SplitMix64, drawn the same way by the Go program that recorded the answers. */
  private static final class Draws {
    private long state;

    Draws(long seed) {
      this.state = seed;
    }

    long next() {
      state += 0x9E3779B97F4A7C15L;
      long z = state;
      z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
      z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
      return z ^ (z >>> 31);
    }
  }

  /** The answers of {@code policy} for the run's sequence, with {@code cost} spans or bytes. */
  private static String answers(GoRun run, PolicyEvaluator policy, boolean bytes) {
    Draws draws = new Draws(run.seed());
    // Any origin: the scheduler's clock is not the wall clock, and only differences count.
    long now = -7 * SECOND;
    StringBuilder answers = new StringBuilder();
    for (int i = 0; i < run.steps(); i++) {
      long n = 1;
      if (run.maxStepNanos() == 0) {
        now += i > 0 ? 333_333_333 : 0;
      } else {
        now += Long.remainderUnsigned(draws.next(), run.maxStepNanos());
        n = 1 + Long.remainderUnsigned(draws.next(), run.maxN());
      }
      TraceData trace = bytes ? Policy.sized(now, 1, n) : Policy.sized(now, n, 1);
      Decision decision = policy.evaluate(trace);
      assertThat(decision).isIn(Decision.SAMPLED, Decision.NOT_SAMPLED);
      answers.append(decision == Decision.SAMPLED ? '1' : '0');
    }
    return answers.toString();
  }

  @ParameterizedTest
  @MethodSource("goRuns")
  void rateLimitingAnswersAsGosTokenBucketForEveryTrace(GoRun run) {
    PolicyEvaluator policy =
        RatePolicies.compile(Policy.rateLimiting("rate", run.perSecond(), run.burst()));
    assertThat(answers(run, policy, false)).isEqualTo(run.answers());
  }

  @ParameterizedTest
  @MethodSource("goRuns")
  void bytesLimitingAnswersAsGosTokenBucketForEveryTrace(GoRun run) {
    PolicyEvaluator policy =
        RatePolicies.compile(Policy.bytesLimiting("bytes", run.perSecond(), run.burst()));
    assertThat(answers(run, policy, true)).isEqualTo(run.answers());
  }

  @Test
  void startsFullSpendsAndRefillsContinuouslyUpToTheBurst() {
    PolicyEvaluator policy = RatePolicies.compile(Policy.rateLimiting("rate", 10, 15));
    long t = 100 * SECOND;
    assertThat(policy.evaluate(Policy.sized(t, 15, 0))).isEqualTo(Decision.SAMPLED);
    assertThat(policy.evaluate(Policy.sized(t, 1, 0))).isEqualTo(Decision.NOT_SAMPLED);
    // Half a second refills 5 spans, not 6.
    assertThat(policy.evaluate(Policy.sized(t + SECOND / 2, 6, 0))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(policy.evaluate(Policy.sized(t + SECOND / 2, 5, 0))).isEqualTo(Decision.SAMPLED);
    // Ten seconds later the bucket holds the burst (15), no more.
    assertThat(policy.evaluate(Policy.sized(t + 11 * SECOND, 16, 0)))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(policy.evaluate(Policy.sized(t + 11 * SECOND, 15, 0))).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void aRefusedTraceTakesNothing() {
    PolicyEvaluator policy = RatePolicies.compile(Policy.rateLimiting("rate", 10, 10));
    assertThat(policy.evaluate(Policy.sized(0, 8, 0))).isEqualTo(Decision.SAMPLED);
    assertThat(policy.evaluate(Policy.sized(0, 3, 0))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(policy.evaluate(Policy.sized(0, 2, 0))).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void burstDefaultsToTwiceTheRateAndATraceAboveItNeverPasses() {
    PolicyEvaluator policy = RatePolicies.compile(Policy.rateLimiting("rate", 10, 0));
    assertThat(policy.evaluate(Policy.sized(0, 21, 0))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(policy.evaluate(Policy.sized(3600 * SECOND, 21, 0))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(policy.evaluate(Policy.sized(3600 * SECOND, 20, 0))).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void bytesLimitingCountsTheTracesBytesNotItsSpans() {
    PolicyEvaluator policy = RatePolicies.compile(Policy.bytesLimiting("bytes", 1000, 1500));
    assertThat(policy.evaluate(Policy.sized(0, 1, 1400))).isEqualTo(Decision.SAMPLED);
    assertThat(policy.evaluate(Policy.sized(0, 1, 101))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(policy.evaluate(Policy.sized(SECOND / 10, 50, 200))).isEqualTo(Decision.SAMPLED);
    assertThat(policy.evaluate(Policy.sized(SECOND, 1, 1501))).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void aClockThatStepsBackRefillsNothing() {
    PolicyEvaluator policy = RatePolicies.compile(Policy.rateLimiting("rate", 10, 10));
    assertThat(policy.evaluate(Policy.sized(5 * SECOND, 10, 0))).isEqualTo(Decision.SAMPLED);
    assertThat(policy.evaluate(Policy.sized(SECOND, 1, 0))).isEqualTo(Decision.NOT_SAMPLED);
    // As Go's limiter, the refill counts from the later of the two times it last took tokens.
    assertThat(policy.evaluate(Policy.sized(5 * SECOND + SECOND / 10, 1, 0)))
        .isEqualTo(Decision.SAMPLED);
  }

  @Test
  void refusesRatesBelowOneAndNegativeBursts() {
    assertThat(
            Policy.yamlProblems(
                """
                policies:
                  - {name: spans, type: rate_limiting, rate_limiting: {spans_per_second: 0}}
                  - {name: missing, type: rate_limiting}
                  - name: bytes
                    type: bytes_limiting
                    bytes_limiting: {bytes_per_second: 100, burst_capacity: -1}
                  - {name: fine, type: rate_limiting, rate_limiting: {spans_per_second: 5}}
                """))
        .containsExactlyInAnyOrder(
            "policies[0].rate_limiting.spans_per_second: must be at least 1 (spans per second),"
                + " was 0",
            "policies[1].rate_limiting.spans_per_second: must be at least 1 (spans per second),"
                + " was 0",
            "policies[2].bytes_limiting.burst_capacity: must not be negative (0: twice the rate,"
                + " 200 bytes), was -1");
  }

  @Test
  void bindsTheCollectorsKeys() throws Exception {
    TailSamplingConfig config =
        Policy.config(
            """
            policies:
              - name: r
                type: rate_limiting
                rate_limiting: {spans_per_second: 35, burst_capacity: 70}
            """);
    assertThat(config.policies().get(0).rateLimiting())
        .isEqualTo(new PolicyConfig.RateLimiting(35, 70));
  }
}
