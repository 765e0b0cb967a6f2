package dev.sluice.exporter.file;

import static dev.sluice.exporter.file.TestExporters.batch;
import static dev.sluice.exporter.file.TestExporters.signalOf;
import static dev.sluice.exporter.file.TestExporters.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.Message;
import dev.sluice.component.ExportResult;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpJsonEncoder;
import dev.sluice.testkit.ManualScheduler;
import dev.sluice.testkit.RandomRequests;
import dev.sluice.testkit.SequencedSpans;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class FileExporterTest {
  private static final long HOUR_NANOS = TimeUnit.HOURS.toNanos(1);

  @TempDir Path dir;
  private final ManualScheduler scheduler = new ManualScheduler();

  private long deadline() {
    return scheduler.nanoTime() + HOUR_NANOS;
  }

  private static long shutdownDeadline() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
  }

  /** Three requests of each signal, interleaved. */
  private static List<Message> requestsOfEverySignal() {
    List<Message> requests = new ArrayList<>();
    for (int seed = 1; seed <= 3; seed++) {
      requests.add(RandomRequests.traces(seed));
      requests.add(RandomRequests.metrics(seed));
      requests.add(RandomRequests.logs(seed));
    }
    return requests;
  }

  private ExportResult export(FileExporter exporter, Message request) throws Exception {
    return exporter.export(batch(signalOf(request), request), deadline());
  }

  @ParameterizedTest(name = "{0}, compression {1}")
  @CsvSource({"json, none", "json, zstd", "proto, none", "proto, zstd"})
  void everyBatchOfEverySignalReadsBackAsItsRequest(String format, String compression)
      throws Exception {
    Path file = dir.resolve("telemetry.out");
    FileExporter exporter =
        start("path: " + file + "\nformat: " + format + "\ncompression: " + compression, scheduler);
    List<Message> sent = requestsOfEverySignal();
    for (Message request : sent) {
      assertThat(export(exporter, request)).isEqualTo(ExportResult.SUCCESS);
    }
    exporter.shutdown(shutdownDeadline());

    List<byte[]> records = FileRecords.read(file, format, compression.equals("zstd"));
    assertThat(records).hasSize(sent.size());
    for (int i = 0; i < sent.size(); i++) {
      Message request = sent.get(i);
      assertThat(FileRecords.parse(signalOf(request), format, records.get(i)))
          .as("record %d", i)
          .isEqualTo(FileRecords.expected(request, format));
    }
    assertThat(exporter.writtenBytes()).isEqualTo(Files.size(file));
  }

  @Test
  void protoRecordsAreABigEndianLengthThenTheRequestBytes() throws Exception {
    Path file = dir.resolve("traces.pb");
    FileExporter exporter = start("path: " + file + "\nformat: proto", scheduler);
    Message first = SequencedSpans.request("svc", 0, 3);
    Message second = SequencedSpans.request("svc", 3, 300);
    export(exporter, first);
    export(exporter, second);
    exporter.shutdown(shutdownDeadline());

    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    for (Message request : List.of(first, second)) {
      byte[] bytes = request.toByteArray();
      expected.write(ByteBuffer.allocate(4).putInt(bytes.length).array());
      expected.write(bytes);
    }
    assertThat(Files.readAllBytes(file)).isEqualTo(expected.toByteArray());
  }

  @Test
  void jsonRecordsAreOneLineOfOtlpJsonEach() throws Exception {
    Path file = dir.resolve("traces.json");
    FileExporter exporter = start("path: " + file, scheduler);
    Message request = SequencedSpans.request("svc", 0, 3);
    export(exporter, request);
    export(exporter, request);
    exporter.shutdown(shutdownDeadline());

    byte[] bytes = request.toByteArray();
    String line =
        new String(
            new OtlpJsonEncoder().encode(Signal.TRACES, bytes, 0, bytes.length),
            StandardCharsets.UTF_8);
    assertThat(line).startsWith("{\"resourceSpans\":[").doesNotContain("\n");
    assertThat(Files.readString(file)).isEqualTo(line + "\n" + line + "\n");
  }

  @Test
  void zstdCompressesEachRecordOnItsOwnBehindItsLength() throws Exception {
    Path file = dir.resolve("traces.json.zst");
    FileExporter exporter = start("path: " + file + "\ncompression: zstd", scheduler);
    Message request = SequencedSpans.request("svc", 0, 500);
    export(exporter, request);
    export(exporter, request);
    exporter.shutdown(shutdownDeadline());

    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
    int firstLength = bytes.getInt();
    // Each record is one whole zstd frame: its magic number right after the length.
    assertThat(Integer.reverseBytes(bytes.getInt(4))).isEqualTo(0xFD2FB528);
    assertThat(Integer.reverseBytes(bytes.getInt(4 + firstLength + 4))).isEqualTo(0xFD2FB528);
    assertThat(firstLength).isLessThan(request.toByteArray().length / 2);
    List<byte[]> records = FileRecords.read(file, "json", true);
    assertThat(records).hasSize(2);
    assertThat(FileRecords.parse(Signal.TRACES, "json", records.get(1)))
        .isEqualTo(FileRecords.expected(request, "json"));
  }

  @ParameterizedTest(name = "append: {0}")
  @ValueSource(booleans = {false, true})
  void appendDecidesWhetherTheFileFoundAtStartIsKept(boolean append) throws Exception {
    Path file = dir.resolve("traces.json");
    Message earlier = SequencedSpans.request("earlier", 0, 2);
    FileExporter first = start("path: " + file, scheduler);
    export(first, earlier);
    first.shutdown(shutdownDeadline());

    FileExporter second = start("path: " + file + "\nappend: " + append, scheduler);
    Message later = SequencedSpans.request("later", 0, 2);
    export(second, later);
    second.shutdown(shutdownDeadline());

    List<Message> read = new ArrayList<>();
    for (byte[] record : FileRecords.read(file, "json", false)) {
      read.add(FileRecords.parse(Signal.TRACES, "json", record));
    }
    assertThat(read).isEqualTo(append ? List.of(earlier, later) : List.of(later));
  }

  @Test
  void writtenRecordsReachTheFileByTheFlushInterval() throws Exception {
    Path file = dir.resolve("traces.json");
    FileExporter exporter = start("path: " + file + "\nflush_interval: 5s", scheduler);
    export(exporter, SequencedSpans.request("svc", 0, 2));

    assertThat(Files.size(file)).isZero();
    scheduler.advance(TimeUnit.SECONDS.toNanos(4));
    assertThat(Files.size(file)).isZero();
    scheduler.advance(TimeUnit.SECONDS.toNanos(1));
    assertThat(Files.size(file)).isEqualTo(exporter.writtenBytes()).isPositive();

    export(exporter, SequencedSpans.request("svc", 2, 2));
    scheduler.advance(TimeUnit.SECONDS.toNanos(5));
    assertThat(Files.size(file)).isEqualTo(exporter.writtenBytes());
    exporter.shutdown(shutdownDeadline());
  }

  @Test
  void holdsAtMostTheWriteBufferUntilAFlush() throws Exception {
    Path file = dir.resolve("traces.json");
    FileExporter exporter = start("path: " + file + "\nflush_interval: 1h", scheduler);
    Message request = SequencedSpans.request("svc", 0, 20);
    while (exporter.writtenBytes() < 3L * RecordFile.WRITE_BUFFER_BYTES) {
      assertThat(export(exporter, request)).isEqualTo(ExportResult.SUCCESS);
      assertThat(exporter.writtenBytes() - Files.size(file))
          .isBetween(0L, (long) RecordFile.WRITE_BUFFER_BYTES);
    }
    assertThat(Files.size(file)).isGreaterThan(RecordFile.WRITE_BUFFER_BYTES);
    exporter.shutdown(shutdownDeadline());
    assertThat(Files.size(file)).isEqualTo(exporter.writtenBytes());
  }

  @Test
  void aRecordLargerThanTheWriteBufferGoesStraightToTheFile() throws Exception {
    Path file = dir.resolve("traces.json");
    FileExporter exporter = start("path: " + file + "\nflush_interval: 1h", scheduler);
    export(exporter, SequencedSpans.request("svc", 0, 2));
    export(exporter, SequencedSpans.request("svc", 0, 2000));

    assertThat(exporter.writtenBytes()).isGreaterThan(RecordFile.WRITE_BUFFER_BYTES);
    assertThat(Files.size(file)).isEqualTo(exporter.writtenBytes());
    exporter.shutdown(shutdownDeadline());
  }

  @Test
  void shutdownFlushesWhatTheBufferHolds() throws Exception {
    Path file = dir.resolve("logs.json");
    FileExporter exporter = start("path: " + file + "\nflush_interval: 1h", scheduler);
    Message request = RandomRequests.logs(7);
    export(exporter, request);
    assertThat(Files.size(file)).isZero();

    exporter.shutdown(shutdownDeadline());

    List<byte[]> records = FileRecords.read(file, "json", false);
    assertThat(records).hasSize(1);
    assertThat(FileRecords.parse(Signal.LOGS, "json", records.get(0)))
        .isEqualTo(FileRecords.expected(request, "json"));
    assertThat(export(exporter, request).outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
  }

  @Test
  void aFullDiskIsAnsweredRetryableAndCounted() throws Exception {
    Path full = Path.of("/dev/full");
    assumeTrue(Files.isWritable(full), "/dev/full is needed to fill a disk");
    FileExporter exporter = start("path: " + full + "\nflush_interval: 1s", scheduler);

    ExportResult large = export(exporter, SequencedSpans.request("svc", 0, 2000));
    assertThat(large.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(large.message()).contains("/dev/full").contains("No space left on device");
    assertThat(exporter.writeFailures()).isEqualTo(1);

    // A small record waits in the buffer; the flush that fails keeps it and is counted.
    assertThat(export(exporter, SequencedSpans.request("svc", 0, 2)))
        .isEqualTo(ExportResult.SUCCESS);
    scheduler.advance(TimeUnit.SECONDS.toNanos(1));
    assertThat(exporter.writeFailures()).isEqualTo(2);
    exporter.shutdown(shutdownDeadline());
    assertThat(exporter.writeFailures()).isEqualTo(3);
  }

  @Test
  void aWriteTheReadOnlyDirectoryRefusesIsAFailureAndNoAnsweredRecordIsLost() throws Exception {
    Path file = dir.resolve("traces.json");
    FileExporter exporter = start("path: " + file + "\nflush_interval: 1h", scheduler);
    Message answered = SequencedSpans.request("svc", 0, 2);
    Message refused = SequencedSpans.request("svc", 2, 2);
    assertThat(export(exporter, answered)).isEqualTo(ExportResult.SUCCESS);
    Files.delete(file);

    try (ReadOnlyDirectory readOnly = ReadOnlyDirectory.of(dir)) {
      ExportResult result = export(exporter, refused);
      assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
      assertThat(result.message()).contains("cannot write to " + file);
      assertThat(exporter.writeFailures()).isEqualTo(1);
    }
    assertThat(export(exporter, refused)).isEqualTo(ExportResult.SUCCESS);
    exporter.shutdown(shutdownDeadline());

    List<Message> read = new ArrayList<>();
    for (byte[] record : FileRecords.read(file, "json", false)) {
      read.add(FileRecords.parse(Signal.TRACES, "json", record));
    }
    assertThat(read).isEqualTo(List.of(answered, refused));
  }

  @Test
  void aFileMovedAwayOrRemovedIsFollowedByANewOneAtThePath() throws Exception {
    Path file = dir.resolve("traces.json");
    Path moved = dir.resolve("traces.json.1");
    FileExporter exporter = start("path: " + file + "\nflush_interval: 1s", scheduler);
    Message first = SequencedSpans.request("svc", 0, 1);
    Message second = SequencedSpans.request("svc", 1, 1);
    Message third = SequencedSpans.request("svc", 2, 1);
    export(exporter, first);
    scheduler.advance(TimeUnit.SECONDS.toNanos(1));
    Files.move(file, moved);
    export(exporter, second);
    scheduler.advance(TimeUnit.SECONDS.toNanos(1));
    Files.delete(file);
    export(exporter, third);
    exporter.shutdown(shutdownDeadline());

    assertThat(FileRecords.read(moved, "json", false)).hasSize(1);
    List<byte[]> records = FileRecords.read(file, "json", false);
    assertThat(records).hasSize(1);
    assertThat(FileRecords.parse(Signal.TRACES, "json", records.get(0))).isEqualTo(third);
  }

  @Test
  void startFailsWhenTheDirectoryDoesNotExist() {
    Path file = dir.resolve("missing").resolve("traces.json");

    assertThatThrownBy(() -> start("path: " + file, scheduler))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(file.toString());
  }

  @Test
  void concurrentSendsEachWriteOneWholeRecord() throws Exception {
    Path file = dir.resolve("traces.pb");
    FileExporter exporter = start("path: " + file + "\nformat: proto", scheduler);
    int threads = 4;
    int perThread = 25;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> sends = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        sends.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    // Sizes on both sides of the write buffer.
                    int spans = i % 5 == 0 ? 1500 : 3;
                    Message request = SequencedSpans.request("t" + thread + "-" + i, 0, spans);
                    assertThat(export(exporter, request)).isEqualTo(ExportResult.SUCCESS);
                  }
                  return null;
                }));
      }
      for (Future<?> send : sends) {
        send.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    exporter.shutdown(shutdownDeadline());

    List<byte[]> records = FileRecords.read(file, "proto", false);
    assertThat(records).hasSize(threads * perThread);
    List<String> services = new ArrayList<>();
    for (byte[] record : records) {
      var request =
          (io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest)
              FileRecords.parse(Signal.TRACES, "proto", record);
      services.add(
          request.getResourceSpans(0).getResource().getAttributes(0).getValue().getStringValue());
    }
    assertThat(services).doesNotHaveDuplicates().hasSize(threads * perThread);
  }
}
