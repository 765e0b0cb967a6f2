package dev.sluice.wal;

import static dev.sluice.wal.LogHarness.append;
import static dev.sluice.wal.LogHarness.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log against the real file system: appends, group commit, progress, recovery, bounds. */
class WriteAheadLogTest {
  @TempDir Path directory;
  private final LogHarness harness = new LogHarness();
  private final FaultyFileAccess files = new FaultyFileAccess();

  /** Appends {@code n} records, waits for every answer, and returns the figures that follow. */
  private static LogStatistics appendAndAwaitGroups(WriteAheadLog log, int n) throws Exception {
    List<LogHarness.Answer> answers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      answers.add(append(log, "r" + i, 1));
    }
    for (LogHarness.Answer answer : answers) {
      answer.await();
    }
    // A group's figures are counted just after its answers are given.
    Await.until(n + " records counted in groups", () -> log.statistics().groupedRecords() == n);
    return log.statistics();
  }

  /** Room for thousands of small appends: 64 MiB in 1 MiB segments, forced, grouped at once. */
  private WalOptions roomy() {
    return new WalOptions(
        directory,
        true,
        64 << 20,
        1 << 20,
        0,
        4096,
        List.of("a"),
        (layout, routing, signal) -> routing);
  }

  @Test
  void recoversEveryAnsweredRecordInOrderWithItsRoutingAndSignal() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    List<LogHarness.Answer> answers = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      answers.add(append(log, "record-" + i, 1));
    }
    for (int i = 0; i < 100; i++) {
      assertThat(answers.get(i).await()).isEqualTo(i);
    }
    log.close();

    WriteAheadLog reopened = harness.open(options(directory, 1 << 20, "a"), files);

    assertThat(harness.replayed).hasSize(100);
    for (int i = 0; i < 100; i++) {
      LogHarness.Replayed record = harness.replayed.get(i);
      assertThat(record.sequence()).isEqualTo(i);
      assertThat(record.payload()).isEqualTo("record-" + i);
      assertThat(record.routing()).isEqualTo(1);
      assertThat(record.signal()).isEqualTo(1);
      assertThat(record.owed()).isEqualTo(1);
    }
    assertThat(append(reopened, "next", 1).await()).isEqualTo(100);
    reopened.close();
  }

  @Test
  void timesEachGroupsWriteAndForceAndEachAppendsWaitForDisk() throws Exception {
    files.writeDelayMillis = 10;
    files.forceDelayMillis = 20;
    WriteAheadLog log = harness.open(roomy(), files);
    Queue<Long> writes = new ConcurrentLinkedQueue<>();
    Queue<Long> forces = new ConcurrentLinkedQueue<>();
    Queue<Long> commits = new ConcurrentLinkedQueue<>();
    log.onWrite(writes::add);
    log.onForce(forces::add);
    log.onCommit(commits::add);
    LogStatistics statistics = appendAndAwaitGroups(log, 50);
    log.close();

    // One figure per group for the write and the force, one per append for its wait.
    assertThat(writes).hasSize((int) statistics.groups());
    assertThat(forces).hasSize((int) statistics.forces());
    assertThat(commits).hasSize(50);
    long millis = 1_000_000L;
    assertThat(writes).allSatisfy(nanos -> assertThat(nanos).isGreaterThanOrEqualTo(10 * millis));
    assertThat(forces).allSatisfy(nanos -> assertThat(nanos).isGreaterThanOrEqualTo(20 * millis));
    // Every append waited at least for its own group's write and force.
    assertThat(commits).allSatisfy(nanos -> assertThat(nanos).isGreaterThanOrEqualTo(30 * millis));
  }

  @Test
  void answersOnlyAfterTheGroupIsForcedAndSharesForcesBetweenAppends() throws Exception {
    WriteAheadLog log = harness.open(roomy(), files);
    LogStatistics statistics = appendAndAwaitGroups(log, 2000);
    log.close();

    assertThat(statistics.groupedRecords()).isEqualTo(2000);
    assertThat(statistics.forces()).isEqualTo(statistics.groups());
    // Appends made while a group was being written went in later groups together.
    assertThat(statistics.groups()).isLessThan(2000);
  }

  @Test
  void deletesSegmentsOnceEveryConsumerIsDoneAndDoesNotReplayWhatIsDone() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 4096, "a", "b"), files);
    List<Long> sequences = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      sequences.add(append(log, "payload-" + "x".repeat(100) + i, 0b11).await());
    }
    assertThat(log.statistics().segments()).isGreaterThan(5);
    for (long sequence : sequences) {
      log.done(0, sequence);
    }
    Thread.sleep(300);
    // Consumer b is not done: nothing may go.
    assertThat(log.statistics().segments()).isGreaterThan(5);
    for (long sequence : sequences.subList(0, 240)) {
      log.done(1, sequence);
    }
    // 26 records fill a segment: those past the 240th take 3 segments and part of a fourth.
    Await.until("fewer than 5 segments", () -> log.statistics().segments() < 5);
    log.close();

    harness.open(options(directory, 4096, "a", "b"), files).close();

    // Only b's 60 records are owed, to b alone.
    assertThat(harness.replayed).hasSize(60);
    assertThat(harness.replayed).allSatisfy(record -> assertThat(record.owed()).isEqualTo(0b10));
    assertThat(harness.replayed.get(0).sequence()).isEqualTo(240);
  }

  @Test
  void aMissingProgressFileReDeliversEverythingNeverLosesIt() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    for (int i = 0; i < 10; i++) {
      log.done(0, append(log, "r" + i, 1).await());
    }
    log.close();
    Files.delete(directory.resolve(ProgressFile.NAME));

    harness.open(options(directory, 1 << 20, "a"), files).close();

    assertThat(harness.replayedPayloads()).hasSize(10);
  }

  @Test
  void aDamagedProgressFileReDeliversEverything() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    for (int i = 0; i < 10; i++) {
      log.done(0, append(log, "r" + i, 1).await());
    }
    log.close();
    byte[] progress = Files.readAllBytes(directory.resolve(ProgressFile.NAME));
    progress[progress.length / 2] ^= 0x10;
    Files.write(directory.resolve(ProgressFile.NAME), progress);

    harness.open(options(directory, 1 << 20, "a"), files).close();

    assertThat(harness.replayedPayloads()).hasSize(10);
  }

  @Test
  void aConsumerAddedLaterIsOwedNothingOld() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    for (int i = 0; i < 5; i++) {
      append(log, "r" + i, 0b11).await();
    }
    log.close();

    harness.open(options(directory, 1 << 20, "a", "b"), files).close();

    assertThat(harness.replayed).hasSize(5).allSatisfy(r -> assertThat(r.owed()).isEqualTo(1));
  }

  @Test
  void refusesAppendsPastTheSizeBoundAndAcceptsThemAgainOnceDone() throws Exception {
    WalOptions small =
        new WalOptions(
            directory,
            true,
            8192,
            4096,
            0,
            1024,
            List.of("a"),
            (layout, routing, signal) -> routing);
    WriteAheadLog log = harness.open(small, files);
    String payload = "y".repeat(500);
    List<Long> sequences = new ArrayList<>();
    long refused = 0;
    for (int i = 0; i < 40; i++) {
      LogHarness.Answer answer = append(log, payload, 1);
      if (answer.failure != null) {
        refused++;
      } else {
        sequences.add(answer.await());
      }
    }

    assertThat(refused).isPositive();
    assertThat(log.statistics().sizeBytes()).isLessThanOrEqualTo(8192);
    for (long sequence : sequences) {
      log.done(0, sequence);
    }
    Await.until("the log down to 4096 bytes", () -> log.statistics().sizeBytes() <= 4096);
    assertThat(append(log, payload, 1).await()).isGreaterThan(sequences.get(sequences.size() - 1));
    log.close();
  }

  @Test
  void refusesAppendsWhenThePendingRingIsFull() throws Exception {
    WalOptions tiny =
        new WalOptions(
            directory,
            true,
            64 << 20,
            1 << 20,
            0,
            2,
            List.of("a"),
            (layout, routing, signal) -> routing);
    WriteAheadLog log = harness.open(tiny, files);
    files.failingForces.set(0);
    long full = 0;
    List<LogHarness.Answer> answers = new ArrayList<>();
    byte[] big = new byte[256 << 10];
    for (int i = 0; i < 200; i++) {
      LogHarness.Answer answer = new LogHarness.Answer();
      long result = log.append(big, 0, big.length, 0, 1, 1, answer);
      if (result == WriteAheadLog.FULL) {
        full++;
      } else {
        answers.add(answer);
      }
    }
    for (LogHarness.Answer answer : answers) {
      answer.await();
    }
    log.close();

    assertThat(full).isPositive();
  }

  @Test
  void theDirectoryIsTheLogsAlone() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);

    assertThatThrownBy(() -> harness.open(options(directory, 1 << 20, "a"), files))
        .hasMessageContaining("is locked");
    log.close();
    harness.open(options(directory, 1 << 20, "a"), files).close();
  }

  @Test
  void aDirectoryThatCannotBeUsedStopsTheStartWithAClearError() throws Exception {
    Path file = directory.resolve("not-a-directory");
    Files.writeString(file, "x");

    assertThatThrownBy(() -> harness.open(options(file, 1 << 20, "a"), files))
        .hasMessageContaining("cannot use " + file + " for the log");
  }

  @Test
  void appendsAfterCloseAreRefused() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    log.close();

    byte[] bytes = new byte[1];
    assertThat(log.append(bytes, 0, 1, 0, 1, 1, new LogHarness.Answer()))
        .isEqualTo(WriteAheadLog.CLOSED);
  }
}
