package dev.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of what recovery reads from disk: a segment file (records, torn tails,
 * damage anywhere) and the progress file. For every input nothing escapes, every record handed on
 * lies inside the file and checks out, the damage figures add up, and reading allocates within
 * {@link AllocationBound}.
 *
 * <p>Regression inputs: {@code src/test/resources/dev/sluice/wal/LogRecoveryFuzzTestInputs/}.
 * Fuzzing: {@code bench/fuzz.sh LogRecoveryFuzzTest#segment 5m}.
 */
class LogRecoveryFuzzTest {
  private static final Path SEGMENT = Path.of("/fuzz/segment-00000000000000000000.wal");

  @BeforeAll
  static void warmUp() throws Exception {
    checkSegment(validSegment(3));
    checkSegment(formerSegment(3));
    checkSegment(new byte[] {1, 2, 3});
    checkProgress(ProgressFile.encode(List.of("a", "b"), new long[] {1, 2}));
    checkProgress(
        ProgressFile.encode(
            List.of("a", "b"), new long[] {1, 2}, new long[][] {{3, 5, 9, 12}, {}}));
  }

  private static final long KEY = 0x5EED5EED5EED5EEDL;

  /** Sequences the scanned segment may hold: {@code [0, LIMIT)}. */
  private static final long LIMIT = 1000;

  /** A segment of {@code records} good records, as the writer lays them out. */
  static byte[] validSegment(int records) {
    ByteBuffer out =
        ByteBuffer.allocate(SegmentHeader.BYTES + records * (RecordFormat.HEADER_BYTES + 24));
    CRC32C crc = new CRC32C();
    SegmentHeader.write(out, 0, KEY, crc);
    for (int i = 0; i < records; i++) {
      byte[] payload = ("payload-" + i + "-abcdef").getBytes(StandardCharsets.US_ASCII);
      RecordFormat.writeHeader(
          out,
          KEY,
          i,
          payload.length,
          RecordFormat.payloadCrc(payload, 0, payload.length, crc),
          1,
          0,
          0,
          crc);
      out.put(payload);
    }
    return java.util.Arrays.copyOf(out.array(), out.position());
  }

  /** A segment of the earlier format: version 1 records from the start, no header. */
  static byte[] formerSegment(int records) {
    ByteBuffer out = ByteBuffer.allocate(records * (RecordFormat.Former.HEADER_BYTES + 24));
    CRC32C crc = new CRC32C();
    for (int i = 0; i < records; i++) {
      byte[] payload = ("payload-" + i + "-abcdef").getBytes(StandardCharsets.US_ASCII);
      RecordFormat.Former.writeHeader(
          out,
          i,
          payload.length,
          RecordFormat.payloadCrc(payload, 0, payload.length, crc),
          1,
          0,
          crc);
      out.put(payload);
    }
    return java.util.Arrays.copyOf(out.array(), out.position());
  }

  @FuzzTest
  void segment(byte[] input) throws Exception {
    checkSegment(input);
  }

  @FuzzTest
  void progress(byte[] input) throws Exception {
    checkProgress(input);
  }

  static void checkSegment(byte[] input) throws Exception {
    SimulatedDisk disk = new SimulatedDisk(0);
    try (FileAccess.SegmentFile file = disk.openForAppend(SEGMENT)) {
      file.append(ByteBuffer.wrap(input));
    }
    long[] handed = new long[3];
    SegmentScanner.Result[] result = new SegmentScanner.Result[1];
    AllocationBound.Call scan =
        () -> {
          handed[0] = 0;
          handed[1] = 0;
          handed[2] = -1;
          result[0] =
              SegmentScanner.scan(
                  disk,
                  SEGMENT,
                  0,
                  LIMIT,
                  new CRC32C(),
                  (sequence, layout, routing, signal, payload, offset, length) -> {
                    if (offset < RecordFormat.Former.HEADER_BYTES
                        || offset + length > input.length) {
                      throw new AssertionError(
                          "a record outside the file: " + offset + "+" + length);
                    }
                    if (sequence <= handed[2] || sequence >= LIMIT) {
                      throw new AssertionError(
                          "sequence " + sequence + " after " + handed[2] + ", limit " + LIMIT);
                    }
                    handed[0]++;
                    handed[1] += RecordFormat.Former.HEADER_BYTES + length;
                    handed[2] = sequence;
                  });
        };
    AllocationBound.Outcome measured = AllocationBound.measure(scan);
    if (measured.allocatedBytes() > AllocationBound.limitFor(input.length)) {
      // The first pass through a path loads its classes, once per JVM.
      for (int pass = 0; pass < 2; pass++) {
        measured = FuzzerHooks.measurePaused(scan);
      }
    }
    if (measured.thrown() != null) {
      throw new AssertionError("escaped the scanner: " + measured.thrown(), measured.thrown());
    }
    FuzzerHooks.assertWithin(measured, "segment", input.length);
    assertThat(result[0].records()).isEqualTo(handed[0]);
    assertThat(result[0].goodEnd() + result[0].tailBytes()).isEqualTo(input.length);
    assertThat(handed[1]).isLessThanOrEqualTo(result[0].goodEnd());
  }

  static void checkProgress(byte[] input) throws Exception {
    Object[] decoded = new Object[1];
    AllocationBound.Call decode = () -> decoded[0] = ProgressFile.decode(input);
    AllocationBound.Outcome measured = AllocationBound.measure(decode);
    if (measured.allocatedBytes() > AllocationBound.limitFor(input.length)) {
      for (int pass = 0; pass < 2; pass++) {
        measured = FuzzerHooks.measurePaused(decode);
      }
    }
    if (measured.thrown() != null) {
      throw new AssertionError("escaped the decoder: " + measured.thrown(), measured.thrown());
    }
    FuzzerHooks.assertWithin(measured, "progress file", input.length);
    if (decoded[0] instanceof Map<?, ?> watermarks) {
      assertThat(watermarks.size()).isLessThanOrEqualTo(input.length / 10);
    }
  }
}
