package dev.sluice.exporter.file;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The rotated files of one path, named as lumberjack (the Collector's rotation) names them: the
 * time of the rotation between the name and the extension, {@code
 * data-2006-01-02T15-04-05.000.json} for {@code data.json}, in UTC unless local time is asked for.
 * Pruning goes by the time in the name, as lumberjack's does, so files a person copied in with
 * another name are never touched.
 */
final class Backups {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss.SSS");
  private static final Duration DAY = Duration.ofDays(1);
  private static final int TIME_LENGTH = "2006-01-02T15-04-05.000".length();

  private final Path directory;
  private final String prefix;
  private final String extension;
  private final ZoneId zone;
  private final Clock clock;

  Backups(Path path, boolean localtime, Clock clock) {
    Path absolute = path.toAbsolutePath();
    this.directory = absolute.getParent();
    String name = absolute.getFileName().toString();
    int dot = name.lastIndexOf('.');
    // Go's filepath.Ext: from the last dot on, so ".hidden" has the extension ".hidden".
    this.prefix = (dot < 0 ? name : name.substring(0, dot)) + "-";
    this.extension = dot < 0 ? "" : name.substring(dot);
    this.zone = localtime ? ZoneId.systemDefault() : ZoneOffset.UTC;
    this.clock = clock;
  }

  /**
   * A name for a backup made now that no file has yet: two rotations within one millisecond (a
   * small {@code max_megabytes} and a fast disk) take the next free millisecond instead of
   * replacing the first backup, which lumberjack's rename would do.
   */
  Path next() {
    Instant at = clock.instant();
    while (true) {
      Path candidate = directory.resolve(prefix + TIME.format(at.atZone(zone)) + extension);
      if (!Files.exists(candidate)) {
        return candidate;
      }
      at = at.plusMillis(1);
    }
  }

  /**
   * Deletes the backups past {@code maxBackups} (oldest first; 0 keeps all) and those older than
   * {@code maxDays} (0 keeps any age).
   *
   * @return how many files were deleted
   */
  int prune(int maxBackups, int maxDays) throws IOException {
    if (maxBackups == 0 && maxDays == 0) {
      return 0;
    }
    record Backup(Path path, Instant time) {}
    List<Backup> backups = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
      for (Path file : files) {
        Instant time = timeOf(file.getFileName().toString());
        if (time != null && Files.isRegularFile(file)) {
          backups.add(new Backup(file, time));
        }
      }
    }
    backups.sort(Comparator.comparing(Backup::time).reversed());
    Instant cutoff = maxDays == 0 ? null : clock.instant().minus(DAY.multipliedBy(maxDays));
    int deleted = 0;
    for (int i = 0; i < backups.size(); i++) {
      Backup backup = backups.get(i);
      boolean tooMany = maxBackups > 0 && i >= maxBackups;
      boolean tooOld = cutoff != null && backup.time().isBefore(cutoff);
      if ((tooMany || tooOld) && Files.deleteIfExists(backup.path())) {
        deleted++;
      }
    }
    return deleted;
  }

  /** The time in a backup's name, or null for a file that is not one of this path's backups. */
  Instant timeOf(String fileName) {
    if (!fileName.startsWith(prefix)
        || !fileName.endsWith(extension)
        || fileName.length() != prefix.length() + TIME_LENGTH + extension.length()) {
      return null;
    }
    String time = fileName.substring(prefix.length(), prefix.length() + TIME_LENGTH);
    try {
      return LocalDateTime.parse(time, TIME).atZone(zone).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
