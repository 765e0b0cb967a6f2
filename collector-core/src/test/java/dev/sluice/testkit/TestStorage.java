package dev.sluice.testkit;

import dev.sluice.component.DurableStorage;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A {@code file_storage} stand-in for tests of durable pipelines: a directory, forced writes, no
 * wait to group appends, and the given bounds (64 MiB of 1 MiB segments unless told).
 */
public class TestStorage implements DurableStorage {
  private final Path directory;
  private final long maxSizeBytes;
  private final long segmentSizeBytes;

  public TestStorage(Path directory, long maxSizeBytes, long segmentSizeBytes) {
    this.directory = directory;
    this.maxSizeBytes = maxSizeBytes;
    this.segmentSizeBytes = segmentSizeBytes;
  }

  public TestStorage(Path directory) {
    this(directory, 64L << 20, 1L << 20);
  }

  @Override
  public Path directory() {
    return directory;
  }

  @Override
  public boolean fsync() {
    return true;
  }

  @Override
  public long maxSizeBytes() {
    return maxSizeBytes;
  }

  @Override
  public long segmentSizeBytes() {
    return segmentSizeBytes;
  }

  @Override
  public Duration commitInterval() {
    return Duration.ZERO;
  }
}
