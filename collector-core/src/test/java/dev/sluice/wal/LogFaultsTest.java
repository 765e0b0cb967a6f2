package dev.sluice.wal;

import static dev.sluice.wal.LogHarness.append;
import static dev.sluice.wal.LogHarness.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.sluice.testkit.Await;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log against what its disk and its clients can do to it: client bytes shaped like records,
 * sequences out of range, groups that span segments, a full disk, failed forces of a new segment's
 * directory, and answers that cannot be passed on.
 */
class LogFaultsTest {
  @TempDir Path directory;
  private final LogHarness harness = new LogHarness();
  private final FaultyFileAccess files = new FaultyFileAccess();

  private List<Path> segments(Path in) throws IOException {
    try (Stream<Path> listed = Files.list(in)) {
      return listed.filter(file -> Segment.firstSequenceOf(file) >= 0).sorted().toList();
    }
  }

  /** A complete record of the current format, under a key the log never drew. */
  private static byte[] forgedRecord(long key, long sequence, String payload) {
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    ByteBuffer out = ByteBuffer.allocate(RecordFormat.HEADER_BYTES + bytes.length);
    CRC32C crc = new CRC32C();
    RecordFormat.writeHeader(
        out,
        key,
        sequence,
        bytes.length,
        RecordFormat.payloadCrc(bytes, 0, bytes.length, crc),
        1,
        0,
        1,
        crc);
    out.put(bytes);
    return out.array();
  }

  /** A complete record of the earlier format (no key at all). */
  private static byte[] forgedFormerRecord(long sequence, String payload) {
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    ByteBuffer out = ByteBuffer.allocate(RecordFormat.Former.HEADER_BYTES + bytes.length);
    CRC32C crc = new CRC32C();
    RecordFormat.Former.writeHeader(
        out,
        sequence,
        bytes.length,
        RecordFormat.payloadCrc(bytes, 0, bytes.length, crc),
        1,
        1,
        crc);
    out.put(bytes);
    return out.array();
  }

  @Test
  void aPayloadHoldingWholeRecordsIsNeverReadAsRecordsAfterDamage() throws Exception {
    ByteBuffer carrier = ByteBuffer.allocate(4096);
    carrier.put("carrier:".getBytes(StandardCharsets.US_ASCII));
    for (long key : new long[] {0, -1, 1}) {
      carrier.put(forgedRecord(key, 1, "forged-next"));
      carrier.put(forgedRecord(key, Segment.MAX_SEQUENCE - 1, "forged-far"));
    }
    carrier.put(forgedFormerRecord(1, "forged-former-next"));
    carrier.put(forgedFormerRecord(Long.MAX_VALUE - 1, "forged-former-far"));
    String payload =
        new String(carrier.array(), 0, carrier.position(), StandardCharsets.ISO_8859_1);
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    byte[] carried = payload.getBytes(StandardCharsets.ISO_8859_1);
    LogHarness.Answer first = new LogHarness.Answer();
    log.append(carried, 0, carried.length, 0, 1, 1, first);
    first.await();
    append(log, "after", 1).await();
    log.close();
    // Damage the carrier before the bytes shaped like records: recovery searches past it.
    Path segment = segments(directory).get(0);
    byte[] content = Files.readAllBytes(segment);
    int at = new String(content, StandardCharsets.ISO_8859_1).indexOf("carrier:");
    content[at] ^= 0x55;
    Files.write(segment, content);

    WriteAheadLog reopened =
        assertTimeoutPreemptively(
            Duration.ofSeconds(20), () -> harness.open(options(directory, 1 << 20, "a"), files));

    assertThat(harness.replayedPayloads()).containsExactly("after");
    assertThat(reopened.statistics().corruptRecords()).isEqualTo(1);
    LogHarness.Answer next = append(reopened, "next", 1);
    assertThat(next.await()).isEqualTo(2);
    reopened.close();
  }

  @Test
  void progressMarksAJumpOverAnyNumberOfSequencesInOneStep() {
    ConsumerProgress progress = new ConsumerProgress(5);
    progress.markDone(7);
    progress.markRangeDone(10, Segment.MAX_SEQUENCE);
    assertThat(progress.ranges()).isEqualTo(2);
    assertThat(progress.isDone(6)).isFalse();
    assertThat(progress.isDone(7)).isTrue();
    assertThat(progress.isDone(Segment.MAX_SEQUENCE - 1)).isTrue();
    progress.markDone(5);
    progress.markDone(6);
    assertThat(progress.watermark()).isEqualTo(8);
    progress.markRangeDone(8, 10);
    assertThat(progress.watermark()).isEqualTo(Segment.MAX_SEQUENCE);
    assertThat(progress.ranges()).isZero();
  }

  @Test
  void aSegmentNamedPastAnySequenceStopsTheStartNamingIt() throws Exception {
    Files.createDirectories(directory);
    Path stray = directory.resolve("segment-09000000000000000000.wal");
    Files.write(stray, new byte[64]);
    assertThatThrownBy(() -> harness.open(options(directory, 1 << 20, "a"), files))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(stray.toString())
        .hasMessageContaining("not a segment of this log");
  }

  @Test
  void aProgressFileWithASequenceOutOfRangeReadsAsMissing() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    for (int i = 0; i < 3; i++) {
      log.done(0, append(log, "r" + i, 1).await());
    }
    log.close();
    Files.write(
        directory.resolve(ProgressFile.NAME),
        ProgressFile.encode(List.of("a"), new long[] {Long.MAX_VALUE - 1}));

    WriteAheadLog reopened = harness.open(options(directory, 1 << 20, "a"), files);

    // Delivered again, never skipped, and sequences go on from the log's own.
    assertThat(harness.replayedPayloads()).containsExactly("r0", "r1", "r2");
    assertThat(append(reopened, "r3", 1).await()).isEqualTo(3);
    reopened.close();
  }

  /** A log of 4 KiB segments, bounded at 1 MiB, with one consumer. */
  private static WalOptions smallSegments(Path in) {
    return new WalOptions(
        in, true, 1 << 20, 4096, 0, 1024, List.of("a"), (layout, routing, signal) -> routing);
  }

  @Test
  void recordsDoneOutOfOrderAreNotHandedAgainAfterARestart() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    List<Long> sequences = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      sequences.add(append(log, "r" + i, 1).await());
    }
    // Done with all but the first (a backend that delivered the others in parallel).
    for (long sequence : sequences.subList(1, 10)) {
      log.done(0, sequence);
    }
    log.close();

    harness.open(options(directory, 1 << 20, "a"), files).close();

    assertThat(harness.replayedPayloads()).containsExactly("r0");
  }

  @Test
  void aProgressFileOfTheEarlierVersionIsRead() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    for (int i = 0; i < 4; i++) {
      long sequence = append(log, "r" + i, 1).await();
      if (i < 2) {
        log.done(0, sequence);
      }
    }
    log.close();
    // Version 1: magic, version, count, then each name and watermark, then a checksum.
    byte[] name = "a".getBytes(StandardCharsets.UTF_8);
    ByteBuffer former = ByteBuffer.allocate(4 + 1 + 4 + 2 + name.length + 8 + 4);
    former.putInt(0x534C5750).put((byte) 1).putInt(1).putShort((short) name.length).put(name);
    former.putLong(2);
    CRC32C crc = new CRC32C();
    crc.update(former.array(), 0, former.position());
    former.putInt((int) crc.getValue());
    Files.write(directory.resolve(ProgressFile.NAME), former.array());

    harness.open(options(directory, 1 << 20, "a"), files).close();

    assertThat(harness.replayedPayloads()).containsExactly("r2", "r3");
  }

  @Test
  void theSizeIsWhatTheSegmentFilesHoldWhateverTheGroupsSpan() throws Exception {
    WriteAheadLog log = harness.open(smallSegments(directory), files);
    byte[] payload = new byte[700];
    for (int round = 0; round < 60; round++) {
      // Appends made together are written as one group, which spans segments.
      List<LogHarness.Answer> answers = new ArrayList<>();
      for (int i = 0; i < 9; i++) {
        LogHarness.Answer answer = new LogHarness.Answer();
        assertThat(log.append(payload, 0, payload.length, 0, 1, 1, answer)).isNotNegative();
        answers.add(answer);
      }
      for (LogHarness.Answer answer : answers) {
        log.done(0, answer.await());
      }
      // The writer retires done segments meanwhile: compare a listing the figure did not move
      // across.
      long files;
      long counted;
      int tries = 0;
      do {
        counted = log.statistics().sizeBytes();
        files = segmentBytes();
      } while (counted != log.statistics().sizeBytes() && ++tries < 1000);
      assertThat(counted).as("round %d", round).isNotNegative();
      assertThat(Math.abs(counted - files))
          .as("round %d: %d counted, %d on disk", round, counted, files)
          .isLessThanOrEqualTo(4096);
    }
    // Once every segment but the active one has gone, the figure is the active one's bytes (its
    // file may be padded to a whole block when written directly to the device).
    Await.until("only the active segment", () -> log.statistics().segments() == 1);
    assertThat(log.statistics().sizeBytes()).isLessThanOrEqualTo(4096);
    assertThat(segmentBytesOrFail() - log.statistics().sizeBytes()).isBetween(0L, 4095L);
    log.close();
  }

  private long segmentBytes() throws IOException {
    long bytes = 0;
    for (Path segment : segments(directory)) {
      try {
        bytes += Files.size(segment);
      } catch (java.nio.file.NoSuchFileException retired) {
        // Retired since it was listed: its bytes are gone from the figure too.
      }
    }
    return bytes;
  }

  private long segmentBytesOrFail() {
    try {
      return segmentBytes();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aFullDiskDrainsOnceTheConsumerIsDoneAndTheLogTakesAppendsAgain() throws Exception {
    SimulatedDisk disk = new SimulatedDisk(7);
    WalOptions options = smallSegments(Path.of("/disk/wal"));
    WriteAheadLog log = harness.open(options, disk);
    disk.capacity(24 * 1024);
    List<Long> written = fillUntilFull(log);
    assertThat(written).isNotEmpty();
    assertThat(disk.usedBytes()).isLessThanOrEqualTo(24 * 1024);
    // Others take what was left: not a byte free.
    disk.capacity(disk.usedBytes());

    // The consumer takes everything: done segments go though the progress file cannot be written
    // first, and the log takes appends again.
    for (long sequence : written) {
      log.done(0, sequence);
    }
    Await.until("the log taking appends again", () -> appendsAgain(log));
    log.close();
  }

  @Test
  void aRestartOnAFullDiskStartsReplaysAndDrains() throws Exception {
    SimulatedDisk disk = new SimulatedDisk(11);
    WalOptions options = smallSegments(Path.of("/disk/wal"));
    WriteAheadLog log = harness.open(options, disk);
    disk.capacity(24 * 1024);
    List<Long> written = fillUntilFull(log);
    disk.capacity(disk.usedBytes());
    log.close();

    WriteAheadLog reopened = harness.open(options, disk);
    assertThat(harness.replayed)
        .extracting(LogHarness.Replayed::sequence)
        .containsExactlyElementsOf(written);
    for (LogHarness.Replayed record : harness.replayed) {
      reopened.done(0, record.sequence());
    }
    Await.until("the log taking appends again", () -> appendsAgain(reopened));
    reopened.close();
  }

  /** Appends until the disk refuses; the sequences written. */
  private static List<Long> fillUntilFull(WriteAheadLog log) throws Exception {
    List<Long> written = new ArrayList<>();
    byte[] payload = new byte[1000];
    for (int i = 0; i < 200; i++) {
      LogHarness.Answer answer = new LogHarness.Answer();
      long sequence = log.append(payload, 0, payload.length, 0, 1, 1, answer);
      assertThat(sequence).isNotNegative();
      try {
        written.add(answer.await());
      } catch (java.util.concurrent.ExecutionException e) {
        assertThat(answer.retryable).isTrue();
        assertThat(answer.failure).contains("No space left on device");
        return written;
      }
    }
    throw new AssertionError("the disk never filled");
  }

  private static boolean appendsAgain(WriteAheadLog log) {
    LogHarness.Answer answer = append(log, "again", 1);
    try {
      return answer.await() >= 0;
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void anAnswerThatCannotBePassedOnCostsTheWriterNothing() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 1 << 20, "a"), files);
    AtomicInteger told = new AtomicInteger();
    AppendCallback throwing =
        new AppendCallback() {
          @Override
          public void committed(long sequence) {
            told.incrementAndGet();
            throw new java.util.concurrent.RejectedExecutionException("event loop shut down");
          }

          @Override
          public void failed(String reason, boolean retryable) {
            throw new java.util.concurrent.RejectedExecutionException("event loop shut down");
          }
        };
    byte[] payload = "lost-answer".getBytes(StandardCharsets.UTF_8);
    assertThat(log.append(payload, 0, payload.length, 0, 1, 1, throwing)).isNotNegative();
    assertThat(append(log, "next", 1).await()).isEqualTo(1);
    assertThat(told.get()).isEqualTo(1);
    assertThat(harness.fatal).isEmpty();
    log.close();
    harness.open(options(directory, 1 << 20, "a"), files).close();
    assertThat(harness.replayedPayloads()).containsExactly("lost-answer", "next");
  }

  @Test
  void aFailedForceOfTheDirectoryAtARollStopsTheLog() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 4096, "a"), files);
    append(log, "x".repeat(3000), 1).await();
    files.failingDirectoryForces.set(1);

    LogHarness.Answer rolled = append(log, "y".repeat(3000), 1);

    assertThatThrownBy(rolled::await).hasMessageContaining("forcing the log's directory");
    assertThat(rolled.retryable).isFalse();
    assertThat(harness.fatal).singleElement().asString().contains("Input/output error");
    assertThat(append(log, "z", 1).failure).isEqualTo("closed");
    log.close();
  }

  @Test
  void aFailedForceOfTheSegmentClosedAtARollStopsTheLog() throws Exception {
    WriteAheadLog log = harness.open(options(directory, 4096, "a"), files);
    append(log, "x".repeat(3000), 1).await();
    files.failingForces.set(1);

    LogHarness.Answer rolled = append(log, "y".repeat(3000), 1);

    assertThatThrownBy(rolled::await).hasMessageContaining("closing segment");
    assertThat(rolled.retryable).isFalse();
    assertThat(harness.fatal).singleElement().asString().contains("Input/output error");
    log.close();
  }

  @Test
  void aNewLogsDirectoryIsMadeDurableInItsParent() throws Exception {
    Path fresh = directory.resolve("new-log");
    harness.open(options(fresh, 1 << 20, "a"), files).close();
    assertThat(files.forcedDirectories).contains(directory.toAbsolutePath());
  }
}
