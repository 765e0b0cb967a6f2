package dev.sluice.receiver.kafka;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What one assigned partition has fetched and where each record stands, on the poll thread only. A
 * record is <em>waiting</em> (fetched, not offered yet), <em>pending</em> (offered, no answer yet),
 * <em>refused</em> (the pipelines said full or closed: it will be offered again, and the partition
 * offers nothing else until then), <em>held back</em> (refused on its own: see below), or
 * <em>done</em> (accepted, malformed and skipped, or set aside). The offset that may be committed
 * is the lowest offset not done: every record before it is done, whatever order answers came in.
 *
 * <p>A record the pipelines refuse <em>on its own</em> (they failed on it, or had room for others
 * but not for it) is held back: the records after it go on while it waits its backoff, and so show
 * whether the pipelines take other records. One record at a time is held back; another refused on
 * its own meanwhile waits as a refused one does. Each refusal of the held-back record with other
 * records accepted since its last one counts as a misfit, a refusal that says the pipelines are
 * full resets the count, and at the limit the record is set aside: done without being delivered.
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

  /** The record held back, refused on its own; null for none. */
  private ConsumerRecord<byte[], byte[]> heldBack;

  private long heldBackRetryAtNanos;
  private int heldBackRefusals;
  private int heldBackMisfits;

  /** The records the pipelines had accepted at the held-back record's last refusal. */
  private long heldBackAcceptedMark;

  /** What became of a refused record. */
  enum Refusal {
    /** It waits, and the partition with it: offered again at its retry time. */
    WAITS,
    /** It is held back, offered again at its retry time; the records after it go on. */
    HELD_BACK,
    /** It is set aside: done, never to be delivered; its bytes are no longer held. */
    SET_ASIDE
  }

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
    if (heldBackDue(nowNanos)) {
      return heldBack;
    }
    ConsumerRecord<byte[], byte[]> record = refused.poll();
    return record != null ? record : waiting.pollFirst();
  }

  private boolean heldBackDue(long nowNanos) {
    return heldBack != null
        && !pending.contains(heldBack.offset())
        && nowNanos - heldBackRetryAtNanos >= 0;
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
    if (isHeldBack(record)) {
      heldBack = null;
    }
    long size = sizeOf(record);
    heldBytes -= size;
    return size;
  }

  /**
   * The pipelines refused a pending record. Refused on its own ({@code ofItsOwn}), and no other
   * record held back, it is held back; refused again while held back, it counts a misfit if the
   * pipelines accepted other records since ({@code acceptedSoFar} moved), and is set aside at
   * {@code setAsideAfter} misfits. Otherwise it waits, and the partition offers nothing until
   * {@code retryAtNanos}.
   *
   * @param acceptedSoFar how many records the pipelines of its signal have accepted until now
   */
  Refusal refused(
      ConsumerRecord<byte[], byte[]> record,
      boolean ofItsOwn,
      long acceptedSoFar,
      long retryAtNanos,
      int setAsideAfter) {
    pending.remove(record.offset());
    if (isHeldBack(record)) {
      heldBackRefusals++;
      if (!ofItsOwn) {
        heldBackMisfits = 0;
      } else if (acceptedSoFar != heldBackAcceptedMark) {
        heldBackMisfits++;
      }
      heldBackAcceptedMark = acceptedSoFar;
      if (heldBackMisfits >= setAsideAfter) {
        heldBack = null;
        heldBytes -= sizeOf(record);
        return Refusal.SET_ASIDE;
      }
      heldBackRetryAtNanos = retryAtNanos;
      return Refusal.HELD_BACK;
    }
    if (ofItsOwn && heldBack == null) {
      heldBack = record;
      heldBackRefusals = 1;
      heldBackMisfits = 0;
      heldBackAcceptedMark = acceptedSoFar;
      heldBackRetryAtNanos = retryAtNanos;
      return Refusal.HELD_BACK;
    }
    refused.add(record);
    refusalsInARow++;
    blocked = true;
    blockedUntilNanos = retryAtNanos;
    return Refusal.WAITS;
  }

  /**
   * A pending record a pipeline failed on ({@code Admission.FAILED}): offering it again would fail
   * again, so it is set aside at once and the partition goes on past it. Returns its bytes.
   */
  long failed(ConsumerRecord<byte[], byte[]> record) {
    pending.remove(record.offset());
    if (isHeldBack(record)) {
      heldBack = null;
    }
    long size = sizeOf(record);
    heldBytes -= size;
    return size;
  }

  /** Refusals of this record before the one being answered, for its backoff. */
  int refusalsBefore(ConsumerRecord<byte[], byte[]> record) {
    return isHeldBack(record) ? heldBackRefusals : refusalsInARow;
  }

  /** Refusals of the held-back record, for the log when it is set aside. */
  int heldBackRefusals() {
    return heldBackRefusals;
  }

  private boolean isHeldBack(ConsumerRecord<byte[], byte[]> record) {
    return heldBack != null && heldBack.offset() == record.offset();
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
    if (heldBack != null) {
      offset = Math.min(offset, heldBack.offset());
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

  /**
   * Whether records of the partition wait here, so that it should not be fetched from. A record
   * held back does not count: the records after it are what shows whether it can ever be taken.
   */
  boolean hasBacklog() {
    return !waiting.isEmpty() || !refused.isEmpty();
  }

  /** Whether an offer waits for a refusal's backoff to end: see {@link #retryAtNanos()}. */
  boolean waitsForRetry() {
    return blocked || (heldBack != null && !pending.contains(heldBack.offset()));
  }

  /**
   * When the wait ends, while {@link #waitsForRetry()}: a blocked partition offers nothing, the
   * held-back record included, until its block ends.
   */
  long retryAtNanos() {
    return blocked ? blockedUntilNanos : heldBackRetryAtNanos;
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
    heldBack = null;
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
