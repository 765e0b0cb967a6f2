package dev.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real process appending to the log on disk is killed with SIGKILL at random moments, 20 times,
 * and restarted each time: every record it answered as written and had not marked done is replayed
 * by the next process, and nothing it never appended. The child marks records done as it goes, so
 * segments retire and their files are reused: the old records of a reused file are never replayed
 * either.
 */
class LogKillTest {
  private static final int KILLS = 20;

  @TempDir Path directory;

  @Test
  void everyAnsweredRecordSurvivesTwentyKills() throws Exception {
    Random random = new Random(42);
    TreeSet<Long> owed = new TreeSet<>();
    long highestAppended = -1;
    long answeredTotal = 0;
    long replayedTotal = 0;
    long reusedTotal = 0;
    long owedChecked = 0;
    for (int kill = 0; kill <= KILLS; kill++) {
      Process child = start(random.nextLong());
      List<String> lines = new ArrayList<>();
      Thread reader = reader(child, lines);
      awaitOpen(lines);
      if (kill < KILLS) {
        Thread.sleep(50 + random.nextInt(400));
      }
      // SIGKILL through the process handle: Process.destroyForcibly would also close our end of
      // the child's stdout, and lines still in the pipe (a busy machine leaves many) would be
      // lost, among them appends whose records the next start rightly replays.
      child.toHandle().destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      reader.join(30_000);
      assertThat(reader.isAlive()).as("the child's output was read to its end").isFalse();
      TreeSet<Long> replayed = new TreeSet<>();
      synchronized (lines) {
        for (String line : lines) {
          if (line.startsWith("R ")) {
            replayed.add(Long.parseLong(line.substring(2)));
          }
        }
        assertThat(replayed)
            .as("start %d replays what was answered and owed", kill)
            .containsAll(owed);
        owedChecked += owed.size();
        assertThat(replayed.isEmpty() || replayed.last() <= highestAppended + 1)
            .as(
                "nothing replayed beyond what was appended: replayed up to %s, appended up to %d",
                replayed.isEmpty() ? "none" : replayed.last(), highestAppended)
            .isTrue();
        replayedTotal += replayed.size();
        owed.clear();
        owed.addAll(replayed);
        long reusedInRun = 0;
        for (String line : lines) {
          if (line.startsWith("C ")) {
            long sequence = Long.parseLong(line.substring(2));
            owed.add(sequence);
            answeredTotal++;
          } else if (line.startsWith("A ")) {
            highestAppended = Math.max(highestAppended, Long.parseLong(line.substring(2)));
          } else if (line.startsWith("U ")) {
            reusedInRun = Math.max(reusedInRun, Long.parseLong(line.substring(2)));
          } else if (line.startsWith("D ")) {
            owed.remove(Long.parseLong(line.substring(2)));
          }
        }
        reusedTotal += reusedInRun;
      }
    }
    assertThat(answeredTotal).isGreaterThan(KILLS);
    assertThat(owedChecked).as("answered records owed at a start, each checked").isPositive();
    // Done segments retired while the children ran, and later ones reused their files.
    assertThat(reusedTotal).as("segments that reused a done one's file").isPositive();
    System.out.println(
        "LogKillTest: "
            + KILLS
            + " kills, "
            + answeredTotal
            + " records answered, "
            + replayedTotal
            + " replayed in all, "
            + reusedTotal
            + " segments in reused files");
  }

  private Process start(long seed) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder =
        new ProcessBuilder(
            java,
            "-Xmx64m",
            "-cp",
            System.getProperty("java.class.path"),
            LogKillChild.class.getName(),
            directory.toString(),
            Long.toString(seed));
    builder.redirectErrorStream(false);
    builder.redirectError(ProcessBuilder.Redirect.DISCARD);
    return builder.start();
  }

  private static Thread reader(Process child, List<String> lines) {
    Thread thread =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                // Only lines ended by a newline count: the kill may cut the last one short.
                StringBuilder line = new StringBuilder();
                int c;
                while ((c = in.read()) >= 0) {
                  if (c != '\n') {
                    line.append((char) c);
                    continue;
                  }
                  String complete = line.toString();
                  line.setLength(0);
                  if (complete.equals("OPEN") || complete.matches("[ARCDU] \\d+")) {
                    synchronized (lines) {
                      lines.add(complete);
                      lines.notifyAll();
                    }
                  }
                }
              } catch (java.io.IOException e) {
                // the child is gone
              }
            });
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static void awaitOpen(List<String> lines) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    synchronized (lines) {
      while (!lines.contains("OPEN")) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) {
          throw new AssertionError("the child did not open its log in 30 s");
        }
        lines.wait(left);
      }
    }
  }
}
