package dev.sluice.exporter.file;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.GoDuration;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.Validatable;
import java.time.Duration;
import java.util.Set;

/**
 * The {@code file} exporter's configuration, with the OpenTelemetry Collector's keys and defaults:
 * OTLP/JSON lines, no compression, no rotation unless the {@code rotation} section is present, a
 * flush every second, and the file truncated at start.
 *
 * @param path the file to write; its directory must exist
 * @param format {@code json} (one OTLP/JSON request per line) or {@code proto} (each request as a
 *     4-byte big-endian length and the protobuf bytes)
 * @param compression {@code zstd}, or {@code none} (or empty) for none; each request is compressed
 *     on its own and written length-prefixed, whatever the format
 * @param rotation rotation by size, on when present (even empty); null when left out
 * @param flushInterval how long written requests may wait in the write buffer; 0 means the default
 * @param append continue the file found at start instead of truncating it
 * @param groupBy accepted so that it can be refused by name when enabled: not supported
 * @param sendingQueue the shared sending queue; off by default, as the Collector's file exporter
 *     has none
 * @param retryOnFailure retries of failed writes (disk full, file unwritable); on by default, see
 *     the docs
 */
public record FileExporterConfig(
    String path,
    Format format,
    String compression,
    @OptionalSection Rotation rotation,
    Duration flushInterval,
    boolean append,
    @OptionalSection GroupBy groupBy,
    QueueConfig sendingQueue,
    RetryConfig retryOnFailure)
    implements ExporterConfig {
  /** What a {@code flush_interval} of 0 (or left out) means, as in the Collector. */
  static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofSeconds(1);

  public static final FileExporterConfig DEFAULT =
      new FileExporterConfig(
          "",
          Format.JSON,
          "",
          null,
          DEFAULT_FLUSH_INTERVAL,
          false,
          null,
          QueueConfig.DISABLED,
          RetryConfig.DEFAULT);

  private static final Set<String> COMPRESSIONS = Set.of("", "none", "zstd");

  /** How each request is encoded. */
  public enum Format {
    JSON,
    PROTO
  }

  /**
   * Rotation by size, as the Collector's lumberjack-based rotation: when the next request would
   * take the file past {@code max_megabytes}, the file is renamed to {@code name-<time>.ext} and a
   * new one started.
   *
   * @param maxMegabytes the size (in MiB) a file may reach before it is rotated
   * @param maxDays backups older than this many days (by the time in their name) are deleted; 0
   *     keeps them whatever their age
   * @param maxBackups at most this many backups are kept, the newest; 0 keeps all
   * @param localtime the time in backup names is local time instead of UTC
   */
  public record Rotation(int maxMegabytes, int maxDays, int maxBackups, boolean localtime)
      implements Validatable {
    public static final Rotation DEFAULT = new Rotation(100, 0, 100, false);

    static final long BYTES_PER_MEGABYTE = 1024L * 1024L;

    long maxBytes() {
      return maxMegabytes * BYTES_PER_MEGABYTE;
    }

    @Override
    public void validate(ConfigProblems problems) {
      if (maxMegabytes < 1) {
        problems.add("max_megabytes", "must be at least 1, was " + maxMegabytes);
      }
      if (maxDays < 0) {
        problems.add(
            "max_days", "must not be negative (0 keeps backups of any age), was " + maxDays);
      }
      if (maxBackups < 0) {
        problems.add(
            "max_backups", "must not be negative (0 keeps all backups), was " + maxBackups);
      }
    }
  }

  /**
   * The Collector's writing of a file per resource attribute value. Its keys bind so that a file
   * written for the Collector with {@code enabled: false} loads; enabled, it is refused.
   */
  public record GroupBy(boolean enabled, String resourceAttribute, int maxOpenFiles) {
    public static final GroupBy DEFAULT = new GroupBy(false, "fileexporter.path_segment", 100);
  }

  /** Whether each request is compressed. */
  boolean compressed() {
    return "zstd".equals(compression);
  }

  /** The flush interval with the Collector's meaning of 0. */
  Duration effectiveFlushInterval() {
    return flushInterval.isZero() ? DEFAULT_FLUSH_INTERVAL : flushInterval;
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (path == null || path.isBlank()) {
      problems.add("path", "is required: the file to write, such as ./telemetry.json");
    }
    if (!COMPRESSIONS.contains(compression)) {
      problems.add("compression", "must be zstd or none, was \"" + compression + "\"");
    }
    if (flushInterval.isNegative()) {
      problems.add(
          "flush_interval", "must not be negative, was " + GoDuration.format(flushInterval));
    }
    if (append && compressed()) {
      problems.add(
          "append",
          "cannot be true together with compression: zstd (the OpenTelemetry Collector refuses it"
              + " too); set append: false or compression: none");
    }
    if (append && rotation != null) {
      problems.add(
          "append",
          "cannot be true together with rotation (the OpenTelemetry Collector refuses it too);"
              + " with rotation the file found at start is continued anyway");
    }
    if (groupBy != null && groupBy.enabled()) {
      problems.add(
          "group_by",
          "is not supported by Sluice's file exporter: every request goes to path; remove"
              + " group_by or set group_by.enabled: false");
    }
  }
}
