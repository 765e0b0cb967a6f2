package dev.sluice.bench.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged daemon ({@code bin/sluice} over {@code collector/target/sluice.jar}) under some
 * 20,000 hostile requests over gRPC and HTTP, with a good client beside them.
 *
 * <p>The whole verdict must pass: every request answered within the allowed classes, the one daemon
 * alive at the end with its peak RSS under the bound, the pipelines' memory released, every good
 * span delivered intact. A failure prints the seed and replayable inputs ({@code
 * -Dsluice.hostile.seed=N} runs another seed).
 */
class HostileTrafficIT {
  private static final long REQUESTS = 20_000;
  private static final Duration SENDING_BOUND = Duration.ofSeconds(75);
  private static final int CONCURRENCY = 16;
  private static final long TIMEOUT_MILLIS = 10_000;
  private static final long GOOD_REQUESTS = 5_000;

  /** A daemon that dies fails the run: it is not started again. */
  private static final int MAX_DAEMONS = 1;

  @Test
  void daemonSurvivesHostileTrafficAndDeliversTheGoodClientsSpansIntact(@TempDir Path dir)
      throws Exception {
    Path launcher = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();
    assertThat(launcher).isExecutable();
    HostileRun.Settings settings =
        new HostileRun.Settings(
            Long.getLong("sluice.hostile.seed", 1),
            0,
            REQUESTS,
            SENDING_BOUND,
            CONCURRENCY,
            TIMEOUT_MILLIS,
            MAX_DAEMONS,
            HostileCommand.DEFAULT_RSS_BOUND_MIB,
            GOOD_REQUESTS,
            launcher,
            dir,
            examples(),
            Set.of());
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    Verdict verdict =
        new HostileRun(settings, new PrintStream(progress, true, StandardCharsets.UTF_8)).run();
    verdict.print(System.out);

    assertThat(verdict.answered()).isPositive();
    assertThat(verdict.runFailures()).as(progress.toString(StandardCharsets.UTF_8)).isEmpty();
    assertThat(verdict.failures()).isEmpty();
  }

  /** The OTLP specification's examples in the workspace's shared folder, where there is one. */
  private static Path examples() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path examples = dir.resolve("shared").resolve("otlp-examples");
      if (Files.isDirectory(examples)) {
        return examples;
      }
    }
    return null;
  }
}
