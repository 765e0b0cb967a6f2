package dev.sluice.wal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

/**
 * A segmented, append-only log of accepted requests, written before they are answered.
 *
 * <p><b>Appends</b> ({@link #append}) never block: they take a slot of a bounded ring, get the next
 * sequence, and are answered later on the writer thread through their {@link AppendCallback}. One
 * writer thread ({@link LogWriter}) takes every pending append as one group, writes it, forces the
 * file once, and only then answers the group; appends that come while it forces make the next
 * group. An append is refused ({@link #FULL}) when the ring is full or the log would pass {@code
 * maxSizeBytes}, and ({@link #CLOSED}) once the log has stopped.
 *
 * <p><b>Progress</b> ({@link #done}): each consumer tells the log when it is done with a record.
 * The writer thread persists every consumer's watermark atomically, and deletes a segment only once
 * the persisted watermarks are past its last record, so a crash never resumes at a segment that is
 * gone.
 *
 * <p><b>Recovery</b> ({@link #open}): before anything is appended, every record some consumer is
 * not done with is read back, checked and handed to a {@link RecordConsumer} in order. A torn tail
 * is cut off; a corrupt record in the middle is skipped and counted, and the records after it are
 * kept; a missing or damaged progress file re-delivers everything, never loses it.
 */
public final class WriteAheadLog implements AutoCloseable {
  /** {@link #append} result: the ring or the log is full; try again later. */
  public static final long FULL = -1;

  /** {@link #append} result: the log has stopped. */
  public static final long CLOSED = -2;

  /** Each appending thread's checksum state, so that appends compute checksums in parallel. */
  private static final ThreadLocal<CRC32C> APPEND_CRCS = ThreadLocal.withInitial(CRC32C::new);

  /** Told that the log stopped because data it held may be gone: the process should exit. */
  @FunctionalInterface
  public interface FatalListener {
    void fatal(String message, IOException cause);
  }

  final WalOptions options;
  final FileAccess files;
  final FatalListener fatal;
  final ConsumerProgress[] progress;
  private final AutoCloseable directoryLock;

  // The ring of pending appends, guarded by `lock`.
  final ReentrantLock lock = new ReentrantLock();
  final Condition pendingOrClosing = lock.newCondition();
  final byte[][] payloads;
  final int[] offsets;
  final int[] lengths;
  final int[] routings;
  final int[] signals;
  final int[] payloadCrcs;
  final long[] sequences;
  // When each pending append was made (System.nanoTime), for the commit latency.
  final long[] appendNanos;
  final AppendCallback[] callbacks;
  int head;
  int count;
  long pendingBytes;
  long nextSequence;
  long sizeBytes;
  boolean closing;
  boolean stopped;

  final List<Segment> segments = new ArrayList<>();
  // Done segment files kept to be reused by the next segments; the writer thread's alone once open.
  final java.util.ArrayDeque<Path> spares = new java.util.ArrayDeque<>();
  private final LogWriter writer;

  // Recovery figures.
  private Map<String, Long> persistedWatermarks;
  private long recoveredRecords;
  private long corruptRecords;
  private long tornBytes;

  private WriteAheadLog(
      WalOptions options, FileAccess files, FatalListener fatal, AutoCloseable directoryLock) {
    this.options = options;
    this.files = files;
    this.fatal = fatal;
    this.directoryLock = directoryLock;
    this.progress = new ConsumerProgress[options.consumers().size()];
    int capacity = options.maxPendingAppends();
    payloads = new byte[capacity][];
    offsets = new int[capacity];
    lengths = new int[capacity];
    routings = new int[capacity];
    signals = new int[capacity];
    payloadCrcs = new int[capacity];
    sequences = new long[capacity];
    appendNanos = new long[capacity];
    callbacks = new AppendCallback[capacity];
    writer = new LogWriter(this);
  }

  /** Opens (or creates) the log on disk, replays what is owed, and starts the writer. */
  public static WriteAheadLog open(WalOptions options, RecordConsumer replay, FatalListener fatal)
      throws IOException, InterruptedException {
    return open(options, DiskFileAccess.INSTANCE, replay, fatal);
  }

  static WriteAheadLog open(
      WalOptions options, FileAccess files, RecordConsumer replay, FatalListener fatal)
      throws IOException, InterruptedException {
    Path directory = options.directory();
    try {
      files.createDirectories(directory);
    } catch (IOException e) {
      throw new IOException("cannot use " + directory + " for the log: " + e.getMessage(), e);
    }
    AutoCloseable directoryLock = files.lock(directory.resolve("lock"));
    WriteAheadLog log = new WriteAheadLog(options, files, fatal, directoryLock);
    boolean opened = false;
    try {
      log.recover(replay);
      log.writer.start();
      opened = true;
      return log;
    } finally {
      if (!opened) {
        log.releaseLock();
      }
    }
  }

  private void recover(RecordConsumer replay) throws IOException, InterruptedException {
    Path directory = options.directory();
    Map<String, Long> persisted =
        ProgressFile.decode(
            files.readSmall(directory.resolve(ProgressFile.NAME), ProgressFile.MAX_BYTES));
    persistedWatermarks = persisted == null ? null : Map.copyOf(persisted);
    List<String> names = options.consumers();
    // A consumer the progress file does not know, beside ones it does, is new: owed nothing old,
    // unless it takes over the progress of a consumer of another name.
    int newConsumers = 0;
    for (int c = 0; c < names.size(); c++) {
      Long watermark = persisted == null ? null : persisted.get(names.get(c));
      if (watermark == null && persisted != null) {
        String predecessor = replay.predecessorOf(names.get(c));
        watermark = predecessor == null ? null : persisted.get(predecessor);
      }
      progress[c] = new ConsumerProgress(watermark == null ? 0 : watermark);
      if (persisted != null && watermark == null) {
        newConsumers |= 1 << c;
      }
    }
    List<Path> found = new ArrayList<>();
    for (Path file : files.list(directory, Segment.GLOB)) {
      if (Segment.firstSequenceOf(file) >= 0) {
        found.add(file);
      }
    }
    found.sort(Comparator.comparingLong(Segment::firstSequenceOf));
    replay.starting(this);
    Replayer replayer = new Replayer(replay, newConsumers);
    for (int i = 0; i < found.size(); i++) {
      Path file = found.get(i);
      replayer.skipTo(Segment.firstSequenceOf(file));
      long firstSequence = Segment.firstSequenceOf(file);
      SegmentScanner.Result result =
          SegmentScanner.scan(files, file, firstSequence, new CRC32C(), replayer);
      corruptRecords += result.corrupt();
      boolean last = i == found.size() - 1;
      long size = result.goodEnd();
      if (result.staleTail()) {
        // A reused file's old records after this segment's: old space, cut off.
        try (FileAccess.SegmentFile reused = files.openForAppend(file)) {
          reused.truncate(size);
          reused.force();
        }
      } else if (result.tornBytes() > 0) {
        if (last) {
          tornBytes += result.tornBytes();
          try (FileAccess.SegmentFile torn = files.openForAppend(file)) {
            torn.truncate(size);
            torn.force();
          }
        } else {
          // Damage at the end of a segment closed before the crash: skipped like any other.
          corruptRecords++;
          size = files.size(file);
        }
      }
      if (result.records() == 0) {
        files.delete(file);
        continue;
      }
      segments.add(new Segment(file, Segment.firstSequenceOf(file), result.lastSequence(), size));
      sizeBytes += size;
    }
    recoveredRecords = replayer.replayed;
    nextSequence = replayer.expected;
    nextSequence = Math.max(nextSequence, recoverSpares(directory));
    for (ConsumerProgress consumer : progress) {
      nextSequence = Math.max(nextSequence, consumer.watermark());
    }
    // Sequences never written (skipped as corrupt, or lost to failed writes) are done for all.
    for (ConsumerProgress consumer : progress) {
      consumer.markRangeDone(replayer.expected, nextSequence);
    }
    files.forceDirectory(directory);
  }

  /**
   * Keeps up to {@link Segment#MAX_SPARES} spare files for reuse and deletes the others. Returns
   * the sequence after the last one any spare held: new records must come after every old record a
   * reused file still holds, or recovery could not tell them apart, even when the progress file and
   * every segment are gone.
   */
  private long recoverSpares(Path directory) throws IOException {
    List<Path> found = new ArrayList<>();
    for (Path file : files.list(directory, Segment.SPARE_GLOB)) {
      if (Segment.lastSequenceOfSpare(file) >= 0) {
        found.add(file);
      }
    }
    found.sort(Comparator.comparingLong(Segment::lastSequenceOfSpare).reversed());
    long after = 0;
    for (Path spare : found) {
      after = Math.max(after, Segment.lastSequenceOfSpare(spare) + 1);
      if (spares.size() < Segment.MAX_SPARES) {
        spares.add(spare);
      } else {
        files.delete(spare);
      }
    }
    return after;
  }

  /** Hands each good record to the replay consumer and settles every consumer's progress. */
  private final class Replayer implements SegmentScanner.Found {
    private final RecordConsumer replay;
    private final int newConsumers;
    long expected;
    long replayed;

    Replayer(RecordConsumer replay, int newConsumers) {
      this.replay = replay;
      this.newConsumers = newConsumers;
    }

    /** Sequences up to {@code sequence} that no record holds are done for every consumer. */
    void skipTo(long sequence) {
      if (sequence > expected) {
        for (ConsumerProgress consumer : progress) {
          consumer.markRangeDone(expected, sequence);
        }
        expected = sequence;
      }
    }

    @Override
    public void record(
        long sequence, int routing, int signal, byte[] payload, int offset, int length)
        throws IOException {
      if (sequence < expected) {
        return; // a stale copy (a sequence already seen): never delivered twice at start
      }
      skipTo(sequence);
      expected = sequence + 1;
      // Only configured consumers can be owed: a routing may name more than there are now.
      int configured = (int) ((1L << progress.length) - 1);
      int owed = options.consumersOfRouting().applyAsInt(routing) & ~newConsumers & configured;
      for (int c = 0; c < progress.length; c++) {
        boolean routed = (owed & (1 << c)) != 0;
        if (!routed || sequence < progress[c].watermark()) {
          owed &= ~(1 << c);
          progress[c].markDone(sequence);
        }
      }
      if (owed == 0) {
        replay.notReplayed(sequence, routing, signal);
        return;
      }
      byte[] copy = java.util.Arrays.copyOfRange(payload, offset, offset + length);
      try {
        replay.replay(sequence, routing, signal, owed, copy);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("recovery interrupted", e);
      }
      replayed++;
    }
  }

  /**
   * Appends a record; answered later through {@code callback}, on the writer thread. The payload
   * must not change until then.
   *
   * <p>The payload's checksum is computed here, on the appending thread, not by the one writer:
   * appending threads are many and their payload is still in their caches (a receiver has just
   * validated it), and the writer's group waits on nothing but the copy, the write and the force.
   *
   * @return the record's sequence, or {@link #FULL} or {@link #CLOSED} (the callback is then not
   *     called)
   */
  public long append(
      byte[] payload, int offset, int length, int routing, int signal, AppendCallback callback) {
    long recordBytes = recordBytes(length);
    int payloadCrc = RecordFormat.payloadCrc(payload, offset, length, APPEND_CRCS.get());
    long appendedAt = System.nanoTime();
    lock.lock();
    try {
      if (closing || stopped) {
        return CLOSED;
      }
      if (count == payloads.length
          || sizeBytes + pendingBytes + recordBytes > options.maxSizeBytes()) {
        return FULL;
      }
      int slot = (head + count) % payloads.length;
      long sequence = nextSequence++;
      payloads[slot] = payload;
      offsets[slot] = offset;
      lengths[slot] = length;
      routings[slot] = routing;
      signals[slot] = signal;
      payloadCrcs[slot] = payloadCrc;
      sequences[slot] = sequence;
      appendNanos[slot] = appendedAt;
      callbacks[slot] = callback;
      count++;
      pendingBytes += recordBytes;
      pendingOrClosing.signal();
      return sequence;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The bytes a record of {@code payloadBytes} takes in the log, what {@code maxSizeBytes} bounds.
   */
  public static long recordBytes(int payloadBytes) {
    return (long) RecordFormat.HEADER_BYTES + payloadBytes;
  }

  /** Consumer {@code consumer} (an index into the options' consumers) is done with the record. */
  public void done(int consumer, long sequence) {
    progress[consumer].markDone(sequence);
  }

  /**
   * Tells {@code observer} how long each force of the log to disk took, in nanoseconds, on the
   * writer thread (for a latency histogram). Must be quick.
   */
  public void onForce(LongConsumer observer) {
    writer.forceObserver = observer;
  }

  /**
   * Tells {@code observer} how long each group's write took, in nanoseconds, before its force: the
   * copy into the writer's buffer, the writes, and a segment roll when the group starts a segment.
   * On the writer thread; must be quick.
   */
  public void onWrite(LongConsumer observer) {
    writer.writeObserver = observer;
  }

  /**
   * Tells {@code observer}, for each append written and forced, how long it waited from its append
   * until the log had it on disk, in nanoseconds: the time the log adds before the append's answer
   * (waiting for the group before it, its own write and its force). On the writer thread; must be
   * quick.
   */
  public void onCommit(LongConsumer observer) {
    writer.commitObserver = observer;
  }

  /**
   * Records appended that some consumer is not done with, those finished out of order included:
   * what the log must keep.
   */
  public long owedRecords() {
    long next = nextSequence();
    long owed = 0;
    for (ConsumerProgress consumer : progress) {
      owed = Math.max(owed, next - consumer.watermark());
    }
    return owed;
  }

  /**
   * Records appended that consumer {@code consumer} is not done with, those it finished out of
   * order included: its durable queue's length.
   */
  public long owedRecords(int consumer) {
    return Math.max(0, nextSequence() - progress[consumer].watermark());
  }

  private long nextSequence() {
    lock.lock();
    try {
      return nextSequence;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The watermarks the progress file held when the log was opened, by consumer name, those of
   * consumers no longer configured included; null when the file was missing or damaged (every
   * consumer was then done with nothing). Valid from {@link RecordConsumer#starting} on.
   */
  public Map<String, Long> persistedWatermarks() {
    return persistedWatermarks;
  }

  /** The first sequence the consumer is not done with. */
  public long watermark(int consumer) {
    return progress[consumer].watermark();
  }

  public LogStatistics statistics() {
    lock.lock();
    try {
      return writer.statistics(
          sizeBytes, segments.size(), count, recoveredRecords, corruptRecords, tornBytes);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Writes what is pending, persists progress, and stops the writer; appends are refused from now
   * on. Waits at most {@code timeoutMillis} for the writer.
   */
  public void close(long timeoutMillis) throws InterruptedException {
    lock.lock();
    try {
      closing = true;
      pendingOrClosing.signalAll();
    } finally {
      lock.unlock();
    }
    writer.join(timeoutMillis);
    releaseLock();
  }

  @Override
  public void close() throws InterruptedException {
    close(Long.MAX_VALUE / 2);
  }

  private void releaseLock() {
    try {
      directoryLock.close();
    } catch (Exception e) {
      // The lock goes with the process anyway.
    }
  }
}
