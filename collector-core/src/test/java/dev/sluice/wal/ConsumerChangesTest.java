package dev.sluice.wal;

import static dev.sluice.wal.LogHarness.append;
import static dev.sluice.wal.LogHarness.options;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.Await;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log whose consumers change between runs: one renamed (its progress taken over), one removed (no
 * longer holding anything back), and each consumer's owed records apart.
 */
class ConsumerChangesTest {
  @TempDir Path directory;
  private final LogHarness harness = new LogHarness();
  private final FaultyFileAccess files = new FaultyFileAccess();

  /** Records what a replay is handed and what it is told is not replayed. */
  private static final class Recording implements RecordConsumer {
    final List<Long> replayed = new ArrayList<>();
    final List<Integer> owed = new ArrayList<>();
    final List<Long> notReplayed = new ArrayList<>();
    final String predecessor;
    WriteAheadLog opening;

    Recording(String predecessor) {
      this.predecessor = predecessor;
    }

    @Override
    public void starting(WriteAheadLog log) {
      opening = log;
    }

    @Override
    public void replay(
        long sequence, int layout, int routing, int signal, int owedConsumers, byte[] payload) {
      replayed.add(sequence);
      owed.add(owedConsumers);
    }

    @Override
    public void notReplayed(long sequence, int layout, int routing, int signal) {
      notReplayed.add(sequence);
    }

    @Override
    public String predecessorOf(String consumer) {
      return predecessor;
    }
  }

  private WriteAheadLog openAndReplay(WalOptions options, Recording recording) throws Exception {
    WriteAheadLog log = WriteAheadLog.open(options, files, recording, (m, c) -> {});
    log.replay();
    return log;
  }

  @Test
  void consumersNewToTheProgressFileTakeOverTheirPredecessorsProgress() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "shared"), files);
    for (int i = 0; i < 10; i++) {
      long sequence = append(log, "r" + i, 0b1).await();
      if (i < 6) {
        log.done(0, sequence);
      }
    }
    log.close();

    Recording renamed = new Recording("shared");
    openAndReplay(options(directory, 1 << 20, "x", "y"), renamed).close();

    // Both take over what "shared" owed; routing bit 0 goes to consumer 0 only.
    assertThat(renamed.replayed).containsExactly(6L, 7L, 8L, 9L);
    assertThat(renamed.owed).containsOnly(0b1);
    assertThat(renamed.opening.persistedWatermarks()).containsEntry("shared", 6L);
  }

  @Test
  void consumersNewToTheProgressFileWithoutAPredecessorAreOwedNothingOld() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "shared"), files);
    for (int i = 0; i < 4; i++) {
      append(log, "r" + i, 0b1).await();
    }
    log.close();

    Recording fresh = new Recording(null);
    openAndReplay(options(directory, 1 << 20, "x"), fresh).close();

    assertThat(fresh.replayed).isEmpty();
    assertThat(fresh.notReplayed).containsExactly(0L, 1L, 2L, 3L);
  }

  @Test
  void aRemovedConsumerNoLongerHoldsBackDeletionAndItsRecordsAreNotReplayed() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 4096, "a", "b"), files);
    for (int i = 0; i < 300; i++) {
      log.done(0, append(log, "payload-" + "x".repeat(100) + i, 0b11).await());
    }
    Thread.sleep(300);
    // b is done with nothing: every segment stays.
    int segments = log.statistics().segments();
    assertThat(segments).isGreaterThan(5);
    log.close();

    Recording withoutB = new Recording(null);
    WriteAheadLog reopened = openAndReplay(options(directory, 4096, "a"), withoutB);
    try {
      assertThat(withoutB.replayed).isEmpty();
      assertThat(withoutB.notReplayed).hasSize(300);
      assertThat(withoutB.opening.persistedWatermarks())
          .containsEntry("a", 300L)
          .containsEntry("b", 0L);
      Await.until("at most 1 segment", () -> reopened.statistics().segments() <= 1);
    } finally {
      reopened.close();
    }
  }

  @Test
  void countsEachConsumersOwedRecordsApart() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a", "b"), files);
    try {
      for (int i = 0; i < 10; i++) {
        long sequence = append(log, "r" + i, 0b11).await();
        log.done(0, sequence);
        if (i < 3) {
          log.done(1, sequence);
        }
      }

      assertThat(log.owedRecords(0)).isZero();
      assertThat(log.owedRecords(1)).isEqualTo(7);
      assertThat(log.owedRecords()).isEqualTo(7);
    } finally {
      log.close();
    }
  }
}
