package dev.sluice.exporter.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackupsTest {
  private static final Instant AT = Instant.parse("2022-09-14T05:02:14.173Z");

  @TempDir Path dir;

  private Backups backups(String name) {
    return new Backups(dir.resolve(name), false, Clock.fixed(AT, ZoneOffset.UTC));
  }

  @Test
  void namesABackupWithTheRotationTimeBeforeTheExtensionInUtc() {
    assertThat(backups("data.json").next())
        .isEqualTo(dir.resolve("data-2022-09-14T05-02-14.173.json"));
    assertThat(backups("data.json.zst").next())
        .isEqualTo(dir.resolve("data.json-2022-09-14T05-02-14.173.zst"));
    assertThat(backups("data").next()).isEqualTo(dir.resolve("data-2022-09-14T05-02-14.173"));
  }

  @Test
  void aSecondBackupInTheSameMillisecondTakesTheNextOne() throws Exception {
    Backups backups = backups("data.json");
    Files.createFile(backups.next());

    assertThat(backups.next()).isEqualTo(dir.resolve("data-2022-09-14T05-02-14.174.json"));
  }

  @Test
  void readsTheTimeOnlyFromThisPathsBackups() {
    Backups backups = backups("data.json");

    assertThat(backups.timeOf("data-2022-09-14T05-02-14.173.json")).isEqualTo(AT);
    assertThat(backups.timeOf("data-2022-09-14T05-02-14.173.txt")).isNull();
    assertThat(backups.timeOf("other-2022-09-14T05-02-14.173.json")).isNull();
    assertThat(backups.timeOf("data-2022-13-14T05-02-14.173.json")).isNull();
    assertThat(backups.timeOf("data-notes.json")).isNull();
  }

  @Test
  void prunesTheOldestPastMaxBackups() throws Exception {
    Path oldest = Files.createFile(dir.resolve("data-2022-09-12T00-00-00.000.json"));
    Path middle = Files.createFile(dir.resolve("data-2022-09-13T00-00-00.000.json"));
    Path newest = Files.createFile(dir.resolve("data-2022-09-14T00-00-00.000.json"));

    assertThat(backups("data.json").prune(2, 0)).isEqualTo(1);

    assertThat(oldest).doesNotExist();
    assertThat(middle).exists();
    assertThat(newest).exists();
  }
}
