package dev.sluice.receiver.kafka;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What one assigned partition has fetched and where each record stands, on the poll thread only. A
 * record is <em>waiting</em> (fetched, not offered yet), <em>pending</em> (offered, no answer yet),
 * <em>refused</em> (the pipelines said full or closed: it will be offered again), or <em>done</em>
 * (accepted, or malformed and skipped). The offset that may be committed is the lowest offset not
 * done: every record before it is done, whatever order answers came in.
 *
 * <p>A partition is revoked once and for all; a later assignment of the same partition makes a new
 * object, so an answer that arrives for a revoked one is ignored.
 */
final class PartitionProgress {
  final TopicPartition partition;

  private final ArrayDeque<ConsumerRecord<byte[], byte[]>> waiting = new ArrayDeque<>();
  private final PriorityQueue<ConsumerRecord<byte[], byte[]>> refused =
      new PriorityQueue<>((a, b) -> Long.compare(a.offset(), b.offset()));
  private final TreeSet<Long> pending = new TreeSet<>();

  /** One past the highest offset fetched; -1 before the first record. */
  private long nextOffset = -1;

  /** The offset last handed to a commit; -1 for none. */
  private long committedOffset = -1;

  private long heldBytes;
  private long blockedUntilNanos;
  private boolean blocked;
  private int refusalsInARow;
  private boolean revoked;

  PartitionProgress(TopicPartition partition) {
    this.partition = partition;
  }

  /** Takes a fetched record; records arrive in offset order. */
  void fetched(ConsumerRecord<byte[], byte[]> record) {
    waiting.addLast(record);
    heldBytes += sizeOf(record);
    nextOffset = record.offset() + 1;
  }

  /**
   * The next record to offer, refused ones first (lowest offset first), or null when there is none
   * or the partition waits out a refusal.
   */
  ConsumerRecord<byte[], byte[]> nextToOffer(long nowNanos) {
    if (blocked) {
      if (nowNanos - blockedUntilNanos < 0) {
        return null;
      }
      blocked = false;
    }
    ConsumerRecord<byte[], byte[]> record = refused.poll();
    return record != null ? record : waiting.pollFirst();
  }

  /** The record taken by {@link #nextToOffer} was offered; its answer will come. */
  void offered(ConsumerRecord<byte[], byte[]> record) {
    pending.add(record.offset());
  }

  /** The record taken by {@link #nextToOffer} is done without an offer (it is malformed). */
  long skipped(ConsumerRecord<byte[], byte[]> record) {
    long size = sizeOf(record);
    heldBytes -= size;
    return size;
  }

  /** The pipelines accepted a pending record; returns the bytes no longer held. */
  long accepted(ConsumerRecord<byte[], byte[]> record) {
    pending.remove(record.offset());
    refusalsInARow = 0;
    long size = sizeOf(record);
    heldBytes -= size;
    return size;
  }

  /**
   * The pipelines refused a pending record: it waits to be offered again, and the partition offers
   * nothing until {@code retryAtNanos}.
   */
  void refused(ConsumerRecord<byte[], byte[]> record, long retryAtNanos) {
    pending.remove(record.offset());
    refused.add(record);
    refusalsInARow++;
    blocked = true;
    blockedUntilNanos = retryAtNanos;
  }

  /** Refusals since the last accepted record, for the backoff. */
  int refusalsInARow() {
    return refusalsInARow;
  }

  /** The lowest offset not done, the one to commit; -1 before anything was fetched. */
  long doneUpTo() {
    long offset = nextOffset;
    if (!pending.isEmpty()) {
      offset = Math.min(offset, pending.first());
    }
    ConsumerRecord<byte[], byte[]> firstRefused = refused.peek();
    if (firstRefused != null) {
      offset = Math.min(offset, firstRefused.offset());
    }
    ConsumerRecord<byte[], byte[]> firstWaiting = waiting.peekFirst();
    if (firstWaiting != null) {
      offset = Math.min(offset, firstWaiting.offset());
    }
    return offset;
  }

  /** The offset to commit now, or -1 when it is not past the last one committed. */
  long toCommit() {
    long offset = doneUpTo();
    return offset > committedOffset ? offset : -1;
  }

  void committing(long offset) {
    committedOffset = Math.max(committedOffset, offset);
  }

  /** A commit of this partition failed: the next one sends its offset again. */
  void commitFailed() {
    committedOffset = -1;
  }

  /** Whether records of the partition wait here, so that it should not be fetched from. */
  boolean hasBacklog() {
    return !waiting.isEmpty() || !refused.isEmpty();
  }

  boolean blocked() {
    return blocked;
  }

  /** When the wait after a refusal ends, while {@link #blocked()}. */
  long blockedUntilNanos() {
    return blockedUntilNanos;
  }

  int pendingCount() {
    return pending.size();
  }

  long heldBytes() {
    return heldBytes;
  }

  /** No longer assigned: answers for it are ignored from now on; returns the bytes it held. */
  long revoke() {
    revoked = true;
    long held = heldBytes;
    heldBytes = 0;
    waiting.clear();
    refused.clear();
    pending.clear();
    return held;
  }

  boolean revoked() {
    return revoked;
  }

  static long sizeOf(ConsumerRecord<byte[], byte[]> record) {
    byte[] value = record.value();
    return value == null ? 0 : value.length;
  }
}
