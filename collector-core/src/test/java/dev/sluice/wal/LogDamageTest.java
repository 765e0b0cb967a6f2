package dev.sluice.wal;

import static dev.sluice.wal.LogHarness.append;
import static dev.sluice.wal.LogHarness.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What recovery does with damage, made on purpose: torn tails at every byte offset of a record,
 * flipped bytes in the middle, failed writes (ENOSPC) and failed forces (EIO).
 */
class LogDamageTest {
  @TempDir Path directory;
  private final LogHarness harness = new LogHarness();
  private final FaultyFileAccess files = new FaultyFileAccess();

  private List<Long> writeRecords(Path into, int count) throws Exception {
    WriteAheadLog log = harness.open(options(into, 1 << 20, "a"), files);
    List<Long> sequences = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      sequences.add(append(log, "record-" + i + "-" + "z".repeat(i * 7), 1).await());
    }
    log.close();
    return sequences;
  }

  private static Path onlySegment(Path in) throws Exception {
    try (Stream<Path> files = Files.list(in)) {
      List<Path> segments = files.filter(f -> Segment.firstSequenceOf(f) >= 0).sorted().toList();
      assertThat(segments).hasSize(1);
      return segments.get(0);
    }
  }

  private static void copyDirectory(Path from, Path to) throws Exception {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path file : files.toList()) {
        if (!file.getFileName().toString().equals("lock")) {
          Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  @Test
  void aTornTailAtEveryByteOffsetOfTheLastRecordIsCutOffAndTheRestKept() throws Exception {
    Path original = directory.resolve("original");
    writeRecords(original, 3);
    long fullSize = Files.size(onlySegment(original));
    long lastRecordBytes = RecordFormat.HEADER_BYTES + ("record-2-" + "z".repeat(14)).length();
    long lastStart = fullSize - lastRecordBytes;

    for (long cut = lastStart; cut < fullSize; cut++) {
      Path copy = directory.resolve("cut-" + cut);
      copyDirectory(original, copy);
      Path segment = onlySegment(copy);
      try (var channel =
          java.nio.channels.FileChannel.open(segment, java.nio.file.StandardOpenOption.WRITE)) {
        channel.truncate(cut);
      }

      WriteAheadLog log = harness.open(options(copy, 1 << 20, "a"), files);
      LogStatistics statistics = log.statistics();
      assertThat(harness.replayedPayloads())
          .as("cut at " + cut)
          .containsExactly("record-0-", "record-1-" + "z".repeat(7));
      assertThat(statistics.tornBytes()).isEqualTo(cut - lastStart);
      assertThat(statistics.corruptRecords()).isZero();
      assertThat(Files.size(segment)).isEqualTo(lastStart);
      // The log goes on after the cut, and the next start sees both old and new records.
      append(log, "after", 1).await();
      log.close();
      harness.open(options(copy, 1 << 20, "a"), files).close();
      assertThat(harness.replayedPayloads()).hasSize(3).endsWith("after");
    }
  }

  @Test
  void aFlippedByteInTheMiddleSkipsThatRecordAndKeepsTheOnesAfterIt() throws Exception {
    writeRecords(directory, 5);
    Path segment = onlySegment(directory);
    byte[] bytes = Files.readAllBytes(segment);
    // Inside the third record's payload.
    int third =
        SegmentHeader.BYTES
            + 3 * RecordFormat.HEADER_BYTES
            + "record-0-".length()
            + ("record-1-" + "z".repeat(7)).length();
    bytes[third + 4] ^= 0x01;
    Files.write(segment, bytes);

    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);

    assertThat(harness.replayedPayloads())
        .containsExactly(
            "record-0-",
            "record-1-" + "z".repeat(7),
            "record-3-" + "z".repeat(21),
            "record-4-" + "z".repeat(28));
    assertThat(log.statistics().corruptRecords()).isEqualTo(1);
    assertThat(log.statistics().tornBytes()).isZero();
    // The skipped record's sequence is done for everyone: the log can still be emptied.
    for (LogHarness.Replayed record : harness.replayed) {
      log.done(0, record.sequence());
    }
    assertThat(log.watermark(0)).isEqualTo(5);
    log.close();
  }

  @Test
  void aFlippedByteInAHeaderIsFoundAsDamageNotTrustedAsALength() throws Exception {
    writeRecords(directory, 4);
    Path segment = onlySegment(directory);
    byte[] bytes = Files.readAllBytes(segment);
    int second = SegmentHeader.BYTES + RecordFormat.HEADER_BYTES + "record-0-".length();
    bytes[second + 25] ^= 0x7F; // the payload length's second byte
    Files.write(segment, bytes);

    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);

    assertThat(harness.replayedPayloads())
        .containsExactly("record-0-", "record-2-" + "z".repeat(14), "record-3-" + "z".repeat(21));
    assertThat(log.statistics().corruptRecords()).isEqualTo(1);
    log.close();
  }

  @Test
  void aFailedWriteAnswersItsGroupAsRetryableCutsBackAndGoesOn() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    append(log, "before", 1).await();
    files.failingAppends.set(1);

    LogHarness.Answer failed = append(log, "lost-" + "q".repeat(100), 1);
    assertThatThrownBy(failed::await).hasMessageContaining("No space left on device");
    assertThat(failed.retryable).isTrue();
    assertThat(append(log, "after", 1).await()).isGreaterThan(1);
    assertThat(log.statistics().failedWrites()).isEqualTo(1);
    log.close();

    harness.open(options(directory, 1 << 20, "a"), files).close();
    assertThat(harness.replayedPayloads()).containsExactly("before", "after");
  }

  @Test
  void aSegmentThatCannotBeMadeAtARollAnswersItsGroupAsRetryableAndGoesOn() throws Exception {
    // Each record fills most of a segment: the next one rolls to a new segment file.
    WriteAheadLog log = harness.open(options(directory, 8192, "a"), files);
    append(log, "before-" + "b".repeat(6000), 1).await();
    files.failingCreates.set(1);

    LogHarness.Answer failed = append(log, "lost-" + "q".repeat(6000), 1);
    assertThatThrownBy(failed::await).hasMessageContaining("No space left on device");
    assertThat(failed.retryable).isTrue();
    assertThat(append(log, "after-" + "a".repeat(6000), 1).await()).isGreaterThan(1);
    assertThat(log.statistics().failedWrites()).isEqualTo(1);
    log.close();

    harness.open(options(directory, 8192, "a"), files).close();
    assertThat(harness.replayedPayloads())
        .containsExactly("before-" + "b".repeat(6000), "after-" + "a".repeat(6000));
  }

  @Test
  void aFailedForceStopsTheLogAndSaysSo() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    append(log, "before", 1).await();
    files.failingForces.set(1);

    LogHarness.Answer failed = append(log, "unsure", 1);
    assertThatThrownBy(failed::await).hasMessageContaining("forcing the log to disk failed");
    assertThat(failed.retryable).isFalse();
    assertThat(harness.fatal).singleElement().asString().contains("Input/output error");
    assertThat(log.append(new byte[1], 0, 1, 0, 1, 1, new LogHarness.Answer()))
        .isEqualTo(WriteAheadLog.CLOSED);
    log.close();
  }

  @Test
  void aConsumerThatIsDownLongKeepsItsRecordsWhileTheOtherMovesOn() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 8192, "up", "down"), files);
    for (int i = 0; i < 2000; i++) {
      long sequence = append(log, "record-" + i + "-" + "w".repeat(60), 0b11).await();
      log.done(0, sequence);
    }
    assertThat(log.watermark(0)).isEqualTo(2000);
    assertThat(log.watermark(1)).isZero();
    log.close();

    WriteAheadLog reopened = harness.open(options(directory, 8192, "up", "down"), files);

    // Everything is owed to "down" and nothing to "up": no duplicates for the healthy one.
    assertThat(harness.replayed).hasSize(2000);
    assertThat(harness.replayed).allSatisfy(r -> assertThat(r.owed()).isEqualTo(0b10));
    for (LogHarness.Replayed record : harness.replayed) {
      reopened.done(1, record.sequence());
    }
    Await.until("at most 1 segment", () -> reopened.statistics().segments() <= 1);
    reopened.close();
  }
}
