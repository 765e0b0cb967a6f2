package dev.sluice.extension.filestorage;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.DurableStorageConfig;
import java.time.Duration;

/**
 * The {@code file_storage} extension's configuration: the OpenTelemetry Collector's keys, with
 * Sluice's own for the write-ahead log it holds.
 *
 * @param directory where the log lives (required; created if missing; the log's alone)
 * @param fsync force each group of appends to disk before answering it; Sluice's default is true
 *     (the Go collector's is false)
 * @param timeout the Go collector's wait for its database lock; Sluice takes its lock at once and
 *     fails the start if another process holds it, so the key is accepted and has no effect
 * @param createDirectory the Go collector's switch; Sluice always creates a missing directory
 * @param maxSizeMib Sluice: bound on the log's size on disk, in MiB
 * @param segmentSizeMib Sluice: size at which a segment file is closed, in MiB
 * @param commitInterval Sluice: how long the writer may wait to group more requests with the first
 *     (0: none; requests that come while a group is written make the next one anyway)
 */
public record FileStorageConfig(
    String directory,
    boolean fsync,
    Duration timeout,
    boolean createDirectory,
    long maxSizeMib,
    long segmentSizeMib,
    Duration commitInterval)
    implements DurableStorageConfig {
  static final long MAX_SIZE_MIB_DEFAULT = 1024;
  static final long SEGMENT_SIZE_MIB_DEFAULT = 64;
  private static final long MAX_MIB = 1L << 30;

  public static final FileStorageConfig DEFAULT =
      new FileStorageConfig(
          "",
          true,
          Duration.ofSeconds(1),
          true,
          MAX_SIZE_MIB_DEFAULT,
          SEGMENT_SIZE_MIB_DEFAULT,
          Duration.ZERO);

  @Override
  public void validate(ConfigProblems problems) {
    if (directory == null || directory.isBlank()) {
      problems.add("directory", "is required: where the write-ahead log lives");
    }
    if (segmentSizeMib < 1 || segmentSizeMib > MAX_MIB) {
      problems.add("segment_size_mib", "must be at least 1, was " + segmentSizeMib);
    }
    if (maxSizeMib < segmentSizeMib || maxSizeMib > MAX_MIB) {
      problems.add(
          "max_size_mib",
          "must be at least segment_size_mib (" + segmentSizeMib + "), was " + maxSizeMib);
    }
    if (commitInterval.isNegative() || commitInterval.compareTo(Duration.ofSeconds(1)) > 0) {
      problems.add("commit_interval", "must be between 0s and 1s, was " + commitInterval);
    }
    if (timeout.isNegative()) {
      problems.add("timeout", "must not be negative, was " + timeout);
    }
  }
}
