package dev.sluice.pdata.internal;

import dev.sluice.pdata.codec.ByteArrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Replacement storage given back by overlays that were freed (or that outgrew it), for the next
 * overlay to take: a steady stream of edited requests then allocates no storage after the first
 * few. Byte arrays and int tables come in powers of two; each size keeps at most {@link
 * #SLOTS_PER_SIZE} of them, sizes above {@link #MAX_POOLED_BYTES} bytes are not kept, and all the
 * arrays kept weigh at most {@link #MAX_HELD_BYTES}. Lock-free: overlays are freed on whatever
 * thread releases their last slice.
 *
 * <p>The pool must hold every overlay alive in a steady stream: the requests being received plus
 * those waiting in batches, some twenty of half a megabyte behind a batch processor. Storage taken
 * and dropped instead lives as long as its request, so it survives young collections, is promoted,
 * and fills the old generation with garbage that only full collections free; kept, it is promoted
 * once and reused.
 *
 * <p>A taken array holds whatever its last user wrote; overlays read only what they wrote.
 */
final class StoragePool {
  static final int MIN_BYTES = 1 << 10;
  static final int MAX_POOLED_BYTES = 1 << 20;
  static final int SLOTS_PER_SIZE = 32;

  /** The most all kept arrays weigh: a sixteenth of the heap, and no more than 32 MiB. */
  static final long MAX_HELD_BYTES = Math.min(32L << 20, Runtime.getRuntime().maxMemory() / 16);

  private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(MIN_BYTES);
  private static final int MAX_SHIFT = Integer.numberOfTrailingZeros(MAX_POOLED_BYTES);
  private static final int SIZES = MAX_SHIFT - MIN_SHIFT + 1;

  private static final AtomicReferenceArray<byte[]> BYTES =
      new AtomicReferenceArray<>(SIZES * SLOTS_PER_SIZE);
  private static final AtomicReferenceArray<int[]> INTS =
      new AtomicReferenceArray<>(SIZES * SLOTS_PER_SIZE);

  // What the kept arrays weigh, never less: raised before an array is put in a slot, lowered after
  // one is taken out.
  private static final AtomicLong HELD = new AtomicLong();

  private StoragePool() {}

  /**
   * The capacity in bytes to take for {@code neededBytes}: a power of two up to {@link
   * #MAX_POOLED_BYTES}, exactly {@code neededBytes} above.
   */
  static int capacityFor(int neededBytes) {
    if (neededBytes <= MIN_BYTES) {
      return MIN_BYTES;
    }
    if (neededBytes > MAX_POOLED_BYTES) {
      return neededBytes; // not pooled: any size will do
    }
    return Integer.highestOneBit(neededBytes - 1) << 1;
  }

  /** A byte array of exactly {@code capacity} bytes (from {@link #capacityFor}). */
  static byte[] takeBytes(int capacity) {
    int first = firstSlot(capacity);
    if (first >= 0) {
      for (int i = first; i < first + SLOTS_PER_SIZE; i++) {
        byte[] pooled = BYTES.get(i);
        if (pooled != null && BYTES.compareAndSet(i, pooled, null)) {
          HELD.addAndGet(-pooled.length);
          return pooled;
        }
      }
    }
    // Not zeroed, like a pooled array: overlays read only what they wrote. Behind the batch
    // processor more requests' overlays are alive than the pool keeps, so this runs per request,
    // and zeroing half a megabyte was a pass over memory as long as the copy into it.
    return ByteArrays.forOverwrite(capacity);
  }

  /** Gives an array back; nobody may read or write it afterwards. */
  static void giveBytes(byte[] bytes) {
    int first = firstSlot(bytes.length);
    if (first < 0 || !admit(bytes.length)) {
      return;
    }
    for (int i = first; i < first + SLOTS_PER_SIZE; i++) {
      if (BYTES.get(i) == null && BYTES.compareAndSet(i, null, bytes)) {
        return;
      }
    }
    HELD.addAndGet(-bytes.length);
  }

  /** Counts {@code bytes} more as kept, unless that would weigh more than the pool may hold. */
  private static boolean admit(long bytes) {
    if (HELD.addAndGet(bytes) <= MAX_HELD_BYTES) {
      return true;
    }
    HELD.addAndGet(-bytes);
    return false;
  }

  /** An int table of at least {@code length} ints, its length a power of two when pooled. */
  static int[] takeInts(int length) {
    long bytes = (long) length * Integer.BYTES;
    if (bytes < MIN_BYTES || bytes > MAX_POOLED_BYTES) {
      return new int[length];
    }
    int capacity = capacityFor((int) bytes) / Integer.BYTES;
    int first = firstSlot(capacity * Integer.BYTES);
    if (first >= 0) {
      for (int i = first; i < first + SLOTS_PER_SIZE; i++) {
        int[] pooled = INTS.get(i);
        if (pooled != null && INTS.compareAndSet(i, pooled, null)) {
          HELD.addAndGet(-(long) pooled.length * Integer.BYTES);
          return pooled;
        }
      }
    }
    return new int[capacity];
  }

  static void giveInts(int[] ints) {
    if (ints.length > MAX_POOLED_BYTES / Integer.BYTES) {
      return;
    }
    long bytes = (long) ints.length * Integer.BYTES;
    int first = firstSlot((int) bytes);
    if (first < 0 || !admit(bytes)) {
      return;
    }
    for (int i = first; i < first + SLOTS_PER_SIZE; i++) {
      if (INTS.get(i) == null && INTS.compareAndSet(i, null, ints)) {
        return;
      }
    }
    HELD.addAndGet(-bytes);
  }

  /** The first slot of arrays of {@code bytes}, or -1 when arrays of that size are not pooled. */
  private static int firstSlot(int bytes) {
    if (bytes < MIN_BYTES || bytes > MAX_POOLED_BYTES || Integer.bitCount(bytes) != 1) {
      return -1;
    }
    return (Integer.numberOfTrailingZeros(bytes) - MIN_SHIFT) * SLOTS_PER_SIZE;
  }

  /** Arrays held now, for tests. */
  static long heldBytes() {
    long held = 0;
    for (int i = 0; i < BYTES.length(); i++) {
      byte[] bytes = BYTES.get(i);
      int[] ints = INTS.get(i);
      held += (bytes == null ? 0 : bytes.length) + (ints == null ? 0 : 4L * ints.length);
    }
    return held;
  }
}
