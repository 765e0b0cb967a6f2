package dev.sluice.wal;

import static dev.sluice.wal.LogHarness.append;
import static dev.sluice.wal.LogHarness.options;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.Await;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Done segments' files are reused by the next segments, and the old records a reused file still
 * holds are never taken for new ones: not at recovery, not when the progress file is gone too.
 */
class SegmentReuseTest {
  private static final long SEGMENT_BYTES = 4096;

  @TempDir Path directory;
  private final LogHarness harness = new LogHarness();
  private final FaultyFileAccess files = new FaultyFileAccess();

  private List<Path> filesMatching(String glob) throws IOException {
    List<Path> found = new ArrayList<>();
    try (Stream<Path> all = Files.list(directory)) {
      all.filter(f -> f.getFileSystem().getPathMatcher("glob:" + glob).matches(f.getFileName()))
          .sorted()
          .forEach(found::add);
    }
    return found;
  }

  /** Appends {@code n} records of about 150 bytes and marks them done; returns their sequences. */
  private List<Long> appendDone(WriteAheadLog log, String prefix, int n) throws Exception {
    List<Long> sequences = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long sequence = append(log, prefix + "-" + "x".repeat(120) + "-" + i, 1).await();
      log.done(0, sequence);
      sequences.add(sequence);
    }
    return sequences;
  }

  @Test
  void aDoneSegmentBecomesASpareThatTheNextSegmentReuses() throws Exception {
    WriteAheadLog log = harness.open(options(directory, SEGMENT_BYTES, "a"), files);
    appendDone(log, "first", 100);
    Await.until("at most 2 segments", () -> log.statistics().segments() <= 2);
    Await.until("a spare segment", () -> !filesMatching(Segment.SPARE_GLOB).isEmpty());
    assertThat(filesMatching(Segment.SPARE_GLOB)).hasSizeLessThanOrEqualTo(Segment.MAX_SPARES);

    appendDone(log, "second", 100);
    log.close();

    assertThat(files.reuses.get()).isPositive();
    assertThat(filesMatching(Segment.SPARE_GLOB)).hasSizeLessThanOrEqualTo(Segment.MAX_SPARES);
    // A closed segment holds its own records only: a reused file's old tail is cut off.
    for (Path segment : filesMatching(Segment.GLOB)) {
      SegmentScanner.Result scanned =
          SegmentScanner.scan(
              files,
              segment,
              Segment.firstSequenceOf(segment),
              Segment.firstSequenceOf(segment) + Segment.MAX_SEQUENCES,
              new CRC32C(),
              (a, b, c, d, e, f, g) -> {});
      assertThat(scanned.tailBytes()).as(segment.toString()).isZero();
    }
  }

  @Test
  void recoveryReplaysWhatIsOwedAndNoneOfAReusedFilesOldRecords() throws Exception {
    WriteAheadLog log = harness.open(options(directory, SEGMENT_BYTES, "a"), files);
    appendDone(log, "done", 200);
    // Progress is persisted (and done segments retired) every 100 ms: go on until a file is reused.
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    for (int round = 0; files.reuses.get() == 0 && System.nanoTime() - deadline < 0; round++) {
      Thread.sleep(20);
      appendDone(log, "more-" + round, 20);
    }
    List<Long> owed = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      owed.add(append(log, "owed-" + i, 1).await());
    }
    assertThat(files.reuses.get()).isPositive();
    log.close();

    harness.open(options(directory, SEGMENT_BYTES, "a"), files).close();

    assertThat(harness.replayed).extracting(LogHarness.Replayed::sequence).isEqualTo(owed);
  }

  @Test
  void withTheProgressFileLostTooNoOldRecordOfASpareOrAReusedFileIsReplayed() throws Exception {
    WriteAheadLog log = harness.open(options(directory, SEGMENT_BYTES, "a"), files);
    appendDone(log, "old", 200);
    log.close();
    // Every segment gone, the spare left, and the progress file lost.
    for (Path segment : filesMatching(Segment.GLOB)) {
      Files.delete(segment);
    }
    Files.delete(directory.resolve(ProgressFile.NAME));
    List<Path> spares = filesMatching(Segment.SPARE_GLOB);
    assertThat(spares).isNotEmpty();
    long spareLast = Segment.lastSequenceOfSpare(spares.get(spares.size() - 1));

    WriteAheadLog reopened = harness.open(options(directory, SEGMENT_BYTES, "a"), files);
    assertThat(harness.replayed).isEmpty();
    long first = append(reopened, "new-0", 1).await();
    // The spare will be reused: new sequences come after every record it still holds.
    assertThat(first).isGreaterThan(spareLast);
    List<Long> fresh = new ArrayList<>(List.of(first));
    for (int i = 1; i < 5; i++) {
      fresh.add(append(reopened, "new-" + i, 1).await());
    }
    reopened.close();
    Files.delete(directory.resolve(ProgressFile.NAME));

    harness.open(options(directory, SEGMENT_BYTES, "a"), files).close();

    assertThat(harness.replayed).extracting(LogHarness.Replayed::sequence).isEqualTo(fresh);
  }

  @Test
  void theScannerTakesNoneOfAReusedFilesOldRecordsWhichCarryAnotherKey() throws Exception {
    SimulatedDisk disk = new SimulatedDisk(1);
    Path file = directory.resolve("segment-00000000000000000020.wal");
    try (FileAccess.SegmentFile old = disk.openForAppend(file)) {
      old.append(segmentHeader(0, 111));
      for (long sequence = 0; sequence < 10; sequence++) {
        old.append(record(111, sequence, "old-record-" + sequence));
      }
    }
    try (FileAccess.SegmentFile reused = disk.reuse(file, file)) {
      reused.append(segmentHeader(20, 222));
      reused.append(record(222, 20, "new-20"));
      reused.append(record(222, 21, "new-21"));
    }
    List<Long> found = new ArrayList<>();

    SegmentScanner.Result result =
        SegmentScanner.scan(
            disk, file, 20, 40, new CRC32C(), (sequence, n, r, s, p, o, l) -> found.add(sequence));

    assertThat(found).containsExactly(20L, 21L);
    assertThat(result.records()).isEqualTo(2);
    assertThat(result.corrupt()).isZero();
    assertThat(result.tailBytes()).isPositive();
    assertThat(result.goodEnd())
        .isEqualTo(
            SegmentHeader.BYTES
                + 2L * RecordFormat.HEADER_BYTES
                + "new-20".length()
                + "new-21".length());
    assertThat(result.lastSequence()).isEqualTo(21);
  }

  @Test
  void aSegmentOfTheEarlierFormatEndsAtAReusedFilesOldRecords() throws Exception {
    SimulatedDisk disk = new SimulatedDisk(1);
    Path file = directory.resolve("segment-00000000000000000020.wal");
    try (FileAccess.SegmentFile old = disk.openForAppend(file)) {
      for (long sequence = 0; sequence < 10; sequence++) {
        old.append(formerRecord(sequence, "old-0" + sequence));
      }
    }
    // Records of the same size, so that an old one starts where the new ones end.
    try (FileAccess.SegmentFile reused = disk.reuse(file, file)) {
      reused.append(formerRecord(20, "new-20"));
      reused.append(formerRecord(21, "new-21"));
    }
    List<Long> found = new ArrayList<>();

    SegmentScanner.Result result =
        SegmentScanner.scan(
            disk, file, 20, 40, new CRC32C(), (sequence, n, r, s, p, o, l) -> found.add(sequence));

    assertThat(found).containsExactly(20L, 21L);
    assertThat(result.records()).isEqualTo(2);
    assertThat(result.corrupt()).isZero();
    assertThat(result.staleTail()).isTrue();
    assertThat(result.goodEnd())
        .isEqualTo(2L * RecordFormat.Former.HEADER_BYTES + "new-20".length() + "new-21".length());
    assertThat(result.lastSequence()).isEqualTo(21);
  }

  static ByteBuffer segmentHeader(long firstSequence, long key) {
    ByteBuffer buffer = ByteBuffer.allocate(SegmentHeader.BYTES);
    SegmentHeader.write(buffer, firstSequence, key, new CRC32C());
    return buffer.flip();
  }

  static ByteBuffer record(long key, long sequence, String payload) {
    byte[] bytes = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ByteBuffer buffer = ByteBuffer.allocate(RecordFormat.HEADER_BYTES + bytes.length);
    CRC32C crc = new CRC32C();
    RecordFormat.writeHeader(
        buffer,
        key,
        sequence,
        bytes.length,
        RecordFormat.payloadCrc(bytes, 0, bytes.length, crc),
        1,
        0,
        1,
        crc);
    buffer.put(bytes);
    return buffer.flip();
  }

  static ByteBuffer formerRecord(long sequence, String payload) {
    byte[] bytes = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ByteBuffer buffer = ByteBuffer.allocate(RecordFormat.Former.HEADER_BYTES + bytes.length);
    CRC32C crc = new CRC32C();
    RecordFormat.Former.writeHeader(
        buffer,
        sequence,
        bytes.length,
        RecordFormat.payloadCrc(bytes, 0, bytes.length, crc),
        1,
        1,
        crc);
    buffer.put(bytes);
    return buffer.flip();
  }
}
