package dev.sluice.wal;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * How a log is set up.
 *
 * @param directory where segments, the progress file and the lock file live; the log's alone
 * @param fsync whether a group is forced to disk before its appends are answered
 * @param maxSizeBytes bound on the bytes of all segments; appends past it are refused
 * @param segmentSizeBytes a segment is closed and a new one started past this size
 * @param commitIntervalNanos how long the writer may wait for more appends before it writes a group
 *     (0: write what is there at once; later appends join the next group while the current one
 *     syncs)
 * @param maxPendingAppends appends accepted but not yet written; more are refused
 * @param consumers the names of the log's consumers (durable exporters), whose progress is kept
 *     apart: a record is deleted once every consumer it is routed to is done with it
 * @param routing which consumers a record goes to, and what must be durable before a group is
 *     written
 */
public record WalOptions(
    Path directory,
    boolean fsync,
    long maxSizeBytes,
    long segmentSizeBytes,
    long commitIntervalNanos,
    int maxPendingAppends,
    List<String> consumers,
    Routing routing) {
  /** At most 31 consumers: their set is an int bit mask. */
  public static final int MAX_CONSUMERS = 31;

  /** A ring of pending appends that holds what thousands of requests in flight need. */
  public static final int MAX_PENDING_DEFAULT = 4096;

  public WalOptions {
    Objects.requireNonNull(directory, "directory");
    consumers = List.copyOf(consumers);
    Objects.requireNonNull(routing, "routing");
    if (consumers.isEmpty() || consumers.size() > MAX_CONSUMERS) {
      throw new IllegalArgumentException(
          "a log has 1 to " + MAX_CONSUMERS + " consumers, not " + consumers.size());
    }
    long smallest = SegmentHeader.BYTES + RecordFormat.HEADER_BYTES;
    if (segmentSizeBytes < smallest || maxSizeBytes < segmentSizeBytes) {
      throw new IllegalArgumentException(
          "segment size "
              + segmentSizeBytes
              + " must be at least "
              + smallest
              + " and at most max size "
              + maxSizeBytes);
    }
    if (maxPendingAppends < 1 || commitIntervalNanos < 0) {
      throw new IllegalArgumentException("maxPendingAppends >= 1 and commitIntervalNanos >= 0");
    }
  }
}
