package dev.sluice.exporter.file;

import static dev.sluice.exporter.file.TestExporters.batch;
import static dev.sluice.exporter.file.TestExporters.start;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ExportResult;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.ManualScheduler;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RotationTest {
  private static final long MIB = 1024 * 1024;
  private static final Pattern BACKUP =
      Pattern.compile("traces-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}\\.json");

  /** Spans per request for a JSON record of about 170 KiB. */
  private static final int SPANS = 1000;

  @TempDir Path dir;
  private final ManualScheduler scheduler = new ManualScheduler();

  private Path file() {
    return dir.resolve("traces.json");
  }

  private ExportResult export(FileExporter exporter, int first, int spans) throws Exception {
    return exporter.export(
        batch(Signal.TRACES, SequencedSpans.request("svc", first, spans)),
        scheduler.nanoTime() + TimeUnit.HOURS.toNanos(1));
  }

  private static void shutdown(FileExporter exporter) throws InterruptedException {
    exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
  }

  /** The backups, oldest first (their names sort by time). */
  private List<Path> backups() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> BACKUP.matcher(f.getFileName().toString()).matches())
          .sorted()
          .toList();
    }
  }

  /** The first span number of each record in {@code file}. */
  private static List<Integer> firstSpans(Path file) throws IOException {
    List<Integer> firsts = new ArrayList<>();
    for (byte[] record : FileRecords.read(file, "json", false)) {
      ExportTraceServiceRequest request =
          (ExportTraceServiceRequest) FileRecords.parse(Signal.TRACES, "json", record);
      firsts.add(
          Integer.parseInt(request.getResourceSpans(0).getScopeSpans(0).getSpans(0).getName()));
    }
    return firsts;
  }

  /** The records of the backups, oldest first, then of the file. */
  private List<Integer> everyRecord() throws IOException {
    List<Integer> firsts = new ArrayList<>();
    for (Path backup : backups()) {
      firsts.addAll(firstSpans(backup));
    }
    firsts.addAll(firstSpans(file()));
    return firsts;
  }

  @Test
  void rotatesBySizeIntoTimestampedBackupsAndKeepsOnlyMaxBackups() throws Exception {
    FileExporter exporter =
        start("path: " + file() + "\nrotation:\n  max_megabytes: 1\n  max_backups: 2", scheduler);
    int records = 30;
    for (int i = 0; i < records; i++) {
      assertThat(export(exporter, i * SPANS, SPANS)).isEqualTo(ExportResult.SUCCESS);
    }
    shutdown(exporter);

    assertThat(exporter.writtenBytes()).isGreaterThan(4 * MIB);
    List<Path> backups = backups();
    assertThat(backups).hasSize(2);
    for (Path path : backups) {
      assertThat(Files.size(path)).isBetween(MIB / 2, MIB);
    }
    assertThat(Files.size(file())).isLessThanOrEqualTo(MIB);
    // What is left is the newest records, whole, in order, none twice.
    List<Integer> kept = everyRecord();
    assertThat(kept.get(kept.size() - 1)).isEqualTo((records - 1) * SPANS);
    for (int i = 1; i < kept.size(); i++) {
      assertThat(kept.get(i)).isEqualTo(kept.get(i - 1) + SPANS);
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.count()).isEqualTo(3);
    }
  }

  @Test
  void maxBackupsZeroKeepsEveryBackupAndNoRecordIsLost() throws Exception {
    FileExporter exporter =
        start("path: " + file() + "\nrotation:\n  max_megabytes: 1\n  max_backups: 0", scheduler);
    int records = 20;
    for (int i = 0; i < records; i++) {
      export(exporter, i * SPANS, SPANS);
    }
    shutdown(exporter);

    assertThat(backups()).hasSizeGreaterThanOrEqualTo(3);
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      expected.add(i * SPANS);
    }
    assertThat(everyRecord()).isEqualTo(expected);
  }

  @Test
  void maxDaysDeletesBackupsOlderThanTheTimeInTheirName() throws Exception {
    DateTimeFormatter names = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss.SSS");
    Path old = Files.createFile(dir.resolve("traces-2000-01-01T00-00-00.000.json"));
    String anHourAgo = names.format(Instant.now().minusSeconds(3600).atZone(ZoneOffset.UTC));
    Path recent = Files.createFile(dir.resolve("traces-" + anHourAgo + ".json"));
    Path notes = Files.createFile(dir.resolve("traces-notes.json"));
    Path other = Files.createFile(dir.resolve("metrics-2000-01-01T00-00-00.000.json"));
    FileExporter exporter =
        start(
            "path: " + file() + "\nrotation:\n  max_megabytes: 1\n  max_backups: 0\n  max_days: 1",
            scheduler);

    // Pruned at start already, as lumberjack prunes when it opens the file.
    assertThat(old).doesNotExist();
    for (int i = 0; i < 8; i++) {
      export(exporter, i * SPANS, SPANS);
    }
    shutdown(exporter);

    assertThat(recent).exists();
    assertThat(notes).exists();
    assertThat(other).exists();
    assertThat(backups()).hasSize(2).contains(recent);
  }

  @Test
  void theFileFoundAtStartIsContinuedAndRotatedWhenFull() throws Exception {
    FileExporter first = start("path: " + file() + "\nrotation:\n  max_megabytes: 1", scheduler);
    for (int i = 0; i < 5; i++) {
      export(first, i * SPANS, SPANS);
    }
    shutdown(first);
    assertThat(backups()).isEmpty();

    FileExporter second = start("path: " + file() + "\nrotation:\n  max_megabytes: 1", scheduler);
    for (int i = 5; i < 8; i++) {
      export(second, i * SPANS, SPANS);
    }
    shutdown(second);

    assertThat(backups()).hasSize(1);
    assertThat(everyRecord()).containsExactly(0, 1000, 2000, 3000, 4000, 5000, 6000, 7000);
  }

  @Test
  void aRecordLargerThanMaxMegabytesGetsAFileOfItsOwn() throws Exception {
    FileExporter exporter = start("path: " + file() + "\nrotation:\n  max_megabytes: 1", scheduler);
    export(exporter, 0, 8 * SPANS);
    assertThat(Files.size(file())).isGreaterThan(MIB);
    assertThat(backups()).isEmpty();

    export(exporter, 8 * SPANS, 10);
    shutdown(exporter);

    assertThat(backups()).hasSize(1);
    assertThat(firstSpans(backups().get(0))).containsExactly(0);
    assertThat(firstSpans(file())).containsExactly(8 * SPANS);
  }

  @Test
  void aRotationTheReadOnlyDirectoryRefusesIsAFailureAndSucceedsLater() throws Exception {
    FileExporter exporter =
        start("path: " + file() + "\nflush_interval: 1h\nrotation:\n  max_megabytes: 1", scheduler);
    assertThat(export(exporter, 0, SPANS)).isEqualTo(ExportResult.SUCCESS);
    // As many records as fit in the file; the next one needs a rotation.
    int fit = (int) (MIB / exporter.writtenBytes());
    for (int i = 1; i < fit; i++) {
      assertThat(export(exporter, i * SPANS, SPANS)).isEqualTo(ExportResult.SUCCESS);
    }
    List<Integer> written = new ArrayList<>();
    for (int i = 0; i <= fit; i++) {
      written.add(i * SPANS);
    }
    try (ReadOnlyDirectory readOnly = ReadOnlyDirectory.of(dir)) {
      ExportResult refused = export(exporter, fit * SPANS, SPANS);
      assertThat(refused.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
      assertThat(refused.message()).contains("cannot write to " + file());
      assertThat(exporter.writeFailures()).isEqualTo(1);
    }
    assertThat(export(exporter, fit * SPANS, SPANS)).isEqualTo(ExportResult.SUCCESS);
    shutdown(exporter);

    assertThat(backups()).hasSize(1);
    assertThat(firstSpans(file())).containsExactly(fit * SPANS);
    assertThat(everyRecord()).isEqualTo(written);
  }

  @Test
  void withoutTheSectionTheFileIsNeverRotated() throws Exception {
    FileExporter exporter = start("path: " + file(), scheduler);
    for (int i = 0; i < 8; i++) {
      export(exporter, i * SPANS, SPANS);
    }
    shutdown(exporter);

    assertThat(Files.size(file())).isGreaterThan(MIB);
    assertThat(backups()).isEmpty();
  }
}
