package dev.sluice.component;

import java.nio.file.Path;
import java.time.Duration;

/**
 * An extension that durable pipelines keep their write-ahead log in ({@code file_storage}). An
 * exporter names it in {@code sending_queue.storage}; the service opens one log in its directory.
 */
public interface DurableStorage extends Extension {
  /** The log's directory; the log's alone. */
  Path directory();

  /** Whether each group of appends is forced to disk before its requests are answered. */
  boolean fsync();

  /** Bound on the log's bytes on disk: requests past it are refused, retryably. */
  long maxSizeBytes();

  /** A segment file is closed, and a new one started, past this size. */
  long segmentSizeBytes();

  /** How long the log's writer may wait for more requests to group with the first. */
  Duration commitInterval();
}
