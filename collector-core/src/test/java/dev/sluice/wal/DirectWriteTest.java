package dev.sluice.wal;

import static dev.sluice.wal.LogHarness.append;
import static dev.sluice.wal.LogHarness.options;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments written directly to the device ({@code O_DIRECT}): whole blocks from an aligned buffer,
 * each write starting again at the last partial block.
 */
class DirectWriteTest {
  private static final int BLOCK_BYTES = 4096;

  @TempDir Path directory;
  private final LogHarness harness = new LogHarness();

  @Test
  void theWritersSegmentsBypassThePageCacheWhereTheFileSystemTakesIt() throws Exception {
    Path probe = directory.resolve("probe");
    boolean takesDirect;
    try (FileChannel channel =
        FileChannel.open(
            probe,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
      takesDirect = true;
    } catch (IOException e) {
      takesDirect = false;
    }
    int blockBytes = (int) Files.getFileStore(directory).getBlockSize();

    try (FileAccess.SegmentFile direct =
            DiskFileAccess.INSTANCE.create(directory.resolve("direct.wal"), true);
        FileAccess.SegmentFile cached =
            DiskFileAccess.INSTANCE.create(directory.resolve("cached.wal"), false)) {
      assertThat(direct.alignmentBytes()).isEqualTo(takesDirect ? blockBytes : 1);
      assertThat(cached.alignmentBytes()).isEqualTo(1);
    }
  }

  @Test
  void blocksLargerThanTheWritersBufferAlignmentAreWrittenThroughThePageCache() {
    assertThat(DiskFileAccess.directAlignment(512)).isEqualTo(512);
    assertThat(DiskFileAccess.directAlignment(DiskFileAccess.MAX_DIRECT_ALIGNMENT_BYTES))
        .isEqualTo(DiskFileAccess.MAX_DIRECT_ALIGNMENT_BYTES);
    assertThat(DiskFileAccess.directAlignment(2L * DiskFileAccess.MAX_DIRECT_ALIGNMENT_BYTES))
        .isEqualTo(1);
    assertThat(DiskFileAccess.directAlignment(3000)).isEqualTo(1);
    assertThat(DiskFileAccess.directAlignment(0)).isEqualTo(1);
  }

  @Test
  void aClosedSegmentHoldsItsRecordsAndNoPaddingAndComesBackWhole() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), DiskFileAccess.INSTANCE);
    List<String> payloads = new ArrayList<>();
    long bytes = SegmentHeader.BYTES;
    for (int i = 0; i < 40; i++) {
      // Sizes that end groups inside blocks, and one record over several blocks.
      String payload = "record-" + i + "-" + "r".repeat(i == 20 ? 3 * BLOCK_BYTES + 7 : i * 37);
      payloads.add(payload);
      bytes += RecordFormat.HEADER_BYTES + payload.length();
      append(log, payload, 1).await();
    }
    log.close();

    try (var files = Files.list(directory)) {
      Path segment = files.filter(p -> p.toString().endsWith(".wal")).findFirst().orElseThrow();
      assertThat(Files.size(segment)).isEqualTo(bytes);
    }
    harness.open(options(directory, 1 << 20, "a"), DiskFileAccess.INSTANCE).close();
    assertThat(harness.replayedPayloads()).isEqualTo(payloads);
  }

  @Test
  void aGroupLargerThanTheWritersBufferIsWrittenInSeveralAlignedWrites() throws Exception {
    SimulatedDisk disk = new SimulatedDisk(7, BLOCK_BYTES);
    Path simulated = Path.of("/simulated/direct");
    WalOptions options =
        new WalOptions(
            simulated,
            true,
            64L << 20,
            32L << 20,
            0,
            64,
            List.of("a"),
            (layout, routing, signal) -> routing);
    WriteAheadLog log = harness.open(options, disk);
    append(log, "first", 1).await();
    // Three records of 3 MiB and a bit, appended at once: one group, more than the 4 MiB buffer.
    List<LogHarness.Answer> answers = new ArrayList<>();
    List<String> payloads = new ArrayList<>(List.of("first"));
    for (int i = 0; i < 3; i++) {
      char[] filler = new char[(3 << 20) + 1001 * i];
      Arrays.fill(filler, (char) ('a' + i));
      String payload = new String(filler);
      payloads.add(payload);
      answers.add(append(log, payload, 1));
    }
    for (LogHarness.Answer answer : answers) {
      answer.await();
    }
    log.close();

    harness.open(options, disk).close();
    assertThat(harness.replayedPayloads()).isEqualTo(payloads);
  }

  @Test
  void aCrashAfterAWriteLeavesTheAnsweredRecordsAndCutsThePaddingAsATornTail() throws Exception {
    SimulatedDisk disk = new SimulatedDisk(3, BLOCK_BYTES);
    Path simulated = Path.of("/simulated/crash");
    WalOptions options =
        new WalOptions(
            simulated,
            true,
            64L << 20,
            1L << 20,
            0,
            64,
            List.of("a"),
            (layout, routing, signal) -> routing);
    WriteAheadLog log = harness.open(options, disk);
    List<String> payloads = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      String payload = "answered-" + i + "-" + "x".repeat(100 * i);
      payloads.add(payload);
      append(log, payload, 1).await();
    }
    disk.crash();
    log.close(5_000);
    disk.restart();

    WriteAheadLog reopened = harness.open(options, disk);

    assertThat(harness.replayedPayloads()).isEqualTo(payloads);
    assertThat(reopened.statistics().tornBytes()).isPositive().isLessThan(BLOCK_BYTES);
    assertThat(reopened.statistics().corruptRecords()).isZero();
    assertThat(append(reopened, "after", 1).await()).isEqualTo(10);
    reopened.close();
    harness.open(options, disk).close();
    assertThat(harness.replayedPayloads()).last().isEqualTo("after");
  }

  @Test
  void aFailedAlignedWriteKeepsTheBlockItBeganInForTheNextWrite() throws Exception {
    FaultyFileAccess files = new FaultyFileAccess();
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    append(log, "before-" + "b".repeat(5000), 1).await();
    files.failingAppends.set(1);

    LogHarness.Answer failed = append(log, "lost-" + "q".repeat(9000), 1);
    assertThat(failed.committed).failsWithin(java.time.Duration.ofSeconds(10));
    append(log, "after", 1).await();
    log.close();

    harness.open(options(directory, 1 << 20, "a"), files).close();
    assertThat(harness.replayedPayloads()).containsExactly("before-" + "b".repeat(5000), "after");
  }
}
