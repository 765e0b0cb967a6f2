package dev.sluice.receiver.kafka;

import dev.sluice.component.telemetry.RateLimitedLog;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Sends the offsets the partitions marked done to the group, on the poll thread: with {@code
 * autocommit.enable} every {@code autocommit.interval} (asynchronously), otherwise whenever one
 * advanced; synchronously at a rebalance and at the end. Only offsets past the last one sent go.
 */
final class OffsetCommits {
  /** The longest a synchronous commit waits. */
  static final Duration SYNC_COMMIT_TIMEOUT = Duration.ofSeconds(5);

  private final Consumer<byte[], byte[]> client;
  private final Map<TopicPartition, PartitionProgress> assigned;
  private final long intervalNanos;
  private final Logger logger;
  private final RateLimitedLog errorLog;
  private long nextNanos;

  /**
   * @param intervalNanos how often to commit; 0 commits at every call of {@link #commitIfDue}
   */
  OffsetCommits(
      Consumer<byte[], byte[]> client,
      Map<TopicPartition, PartitionProgress> assigned,
      long intervalNanos,
      Logger logger,
      RateLimitedLog errorLog) {
    this.client = client;
    this.assigned = assigned;
    this.intervalNanos = intervalNanos;
    this.logger = logger;
    this.errorLog = errorLog;
    this.nextNanos = System.nanoTime() + intervalNanos;
  }

  /** How long until the next commit is due, for the poll timeout; none when at every call. */
  long nanosUntilDue(long nowNanos) {
    return intervalNanos == 0 ? Long.MAX_VALUE : Math.max(0, nextNanos - nowNanos);
  }

  /** Commits asynchronously what advanced, when the interval is up. */
  void commitIfDue(long nowNanos) {
    if (intervalNanos > 0 && nowNanos - nextNanos < 0) {
      return;
    }
    nextNanos = nowNanos + intervalNanos;
    Map<TopicPartition, OffsetAndMetadata> offsets = offsetsToCommit(assigned.values());
    if (offsets.isEmpty()) {
      return;
    }
    client.commitAsync(
        offsets,
        (committed, error) -> {
          if (error != null) {
            errorLog.log("committing offsets failed, will commit again: " + error);
            for (TopicPartition partition : committed.keySet()) {
              PartitionProgress progress = assigned.get(partition);
              if (progress != null) {
                progress.commitFailed();
              }
            }
          }
        });
  }

  /**
   * Commits what advanced in {@code partitions} and waits for the broker. A wake-up meant for a
   * poll (an answer arrived, or the receiver stops) must not cost the commit: it is tried again.
   */
  void commitNow(Collection<PartitionProgress> partitions) {
    Map<TopicPartition, OffsetAndMetadata> offsets = offsetsToCommit(partitions);
    if (offsets.isEmpty()) {
      return;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        client.commitSync(offsets, SYNC_COMMIT_TIMEOUT);
        return;
      } catch (WakeupException e) {
        // The wake-up is used up: the second attempt runs.
      } catch (KafkaException e) {
        logger.warning("committing offsets " + offsets + " failed: " + e);
        return;
      }
    }
  }

  private static Map<TopicPartition, OffsetAndMetadata> offsetsToCommit(
      Collection<PartitionProgress> partitions) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (PartitionProgress progress : partitions) {
      long offset = progress.toCommit();
      if (offset >= 0) {
        progress.committing(offset);
        offsets.put(progress.partition, new OffsetAndMetadata(offset));
      }
    }
    return offsets;
  }
}
