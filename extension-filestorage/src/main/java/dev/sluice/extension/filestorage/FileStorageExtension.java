package dev.sluice.extension.filestorage;

import dev.sluice.component.DurableStorage;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A {@code file_storage} extension: the settings of the write-ahead log the service opens in its
 * directory. Holds no resources itself; the service opens and closes the log.
 */
final class FileStorageExtension implements DurableStorage {
  private static final long MIB = 1 << 20;

  private final FileStorageConfig config;

  FileStorageExtension(FileStorageConfig config) {
    this.config = config;
  }

  @Override
  public Path directory() {
    return Path.of(config.directory());
  }

  @Override
  public boolean fsync() {
    return config.fsync();
  }

  @Override
  public long maxSizeBytes() {
    return config.maxSizeMib() * MIB;
  }

  @Override
  public long segmentSizeBytes() {
    return config.segmentSizeMib() * MIB;
  }

  @Override
  public Duration commitInterval() {
    return config.commitInterval();
  }

  @Override
  public void start() {}

  @Override
  public void shutdown(long deadlineNanos) {}
}
