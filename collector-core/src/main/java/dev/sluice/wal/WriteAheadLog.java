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
 * <p><b>Recovery</b> comes in two steps. {@link #open} reads every segment and checks it before
 * anything is appended: a torn tail is cut off; a corrupt record in the middle is skipped and
 * counted, and the records after it are kept; a missing or damaged progress file re-delivers
 * everything, never loses it. Appends are taken from then on. {@link #replay} then hands every
 * record some consumer is not done with to the {@link RecordConsumer}, in order, on the caller's
 * thread, while new records are appended; it may wait for room as long as it needs, and what it has
 * not handed when it is interrupted stays owed for the next start.
 */
public final class WriteAheadLog implements AutoCloseable {
  /** {@link #append} result: the ring or the log is full; try again later. */
  public static final long FULL = -1;

  /** {@link #append} result: the log has stopped. */
  public static final long CLOSED = -2;

  /** What each segment file takes beside its records (its header), counted against the bound. */
  public static final int SEGMENT_HEADER_BYTES = SegmentHeader.BYTES;

  /** The highest layout number a record can carry. */
  public static final int MAX_LAYOUT = RecordFormat.MAX_LAYOUT;

  /**
   * The layout of a record written before records carried one: its routing's bits refer to what the
   * owner recorded for the whole log then.
   */
  public static final int FORMER_LAYOUT = RecordFormat.FORMER_LAYOUT;

  /** Each appending thread's checksum state, so that appends compute checksums in parallel. */
  private static final ThreadLocal<CRC32C> APPEND_CRCS = ThreadLocal.withInitial(CRC32C::new);

  private static final System.Logger LOG = System.getLogger(WriteAheadLog.class.getName());

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
  final int[] layouts;
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

  // Recovery: what the progress file held, the consumers new to it, the segments that hold records
  // some consumer is owed (to be replayed), and the layouts the log's records carry.
  private final RecordConsumer recovery;
  private Map<String, Long> persistedWatermarks;
  private int newConsumers;
  private final List<Segment> toReplay = new ArrayList<>();
  private final java.util.Set<Integer> layoutsInUse = new java.util.TreeSet<>();
  private long owedAtOpen;
  private volatile long recoveredRecords;
  private long corruptRecords;
  private long tornBytes;
  private boolean replayStarted;

  private WriteAheadLog(
      WalOptions options,
      FileAccess files,
      RecordConsumer recovery,
      FatalListener fatal,
      AutoCloseable directoryLock) {
    this.options = options;
    this.recovery = recovery;
    this.files = files;
    this.fatal = fatal;
    this.directoryLock = directoryLock;
    this.progress = new ConsumerProgress[options.consumers().size()];
    int capacity = options.maxPendingAppends();
    payloads = new byte[capacity][];
    offsets = new int[capacity];
    lengths = new int[capacity];
    routings = new int[capacity];
    layouts = new int[capacity];
    signals = new int[capacity];
    payloadCrcs = new int[capacity];
    sequences = new long[capacity];
    appendNanos = new long[capacity];
    callbacks = new AppendCallback[capacity];
    writer = new LogWriter(this);
  }

  /**
   * Opens (or creates) the log on disk, checks what it holds and starts the writer: appends are
   * taken from now on. What is owed is handed to {@code recovery} by {@link #replay}.
   */
  public static WriteAheadLog open(WalOptions options, RecordConsumer recovery, FatalListener fatal)
      throws IOException {
    return open(options, DiskFileAccess.INSTANCE, recovery, fatal);
  }

  static WriteAheadLog open(
      WalOptions options, FileAccess files, RecordConsumer recovery, FatalListener fatal)
      throws IOException {
    Path directory = options.directory();
    try {
      boolean existed = files.exists(directory);
      files.createDirectories(directory);
      if (!existed && directory.toAbsolutePath().getParent() != null) {
        // The new directory's name must be durable too, or a crash could lose the whole log.
        files.forceDirectory(directory.toAbsolutePath().getParent());
      }
    } catch (IOException e) {
      throw new IOException("cannot use " + directory + " for the log: " + e.getMessage(), e);
    }
    AutoCloseable directoryLock = files.lock(directory.resolve("lock"));
    WriteAheadLog log = new WriteAheadLog(options, files, recovery, fatal, directoryLock);
    boolean opened = false;
    try {
      log.recover();
      log.writer.start();
      opened = true;
      return log;
    } finally {
      if (!opened) {
        log.releaseLock();
      }
    }
  }

  private void recover() throws IOException {
    Path directory = options.directory();
    Map<String, ProgressFile.Progress> persisted =
        ProgressFile.decode(
            files.readSmall(directory.resolve(ProgressFile.NAME), ProgressFile.MAX_BYTES));
    if (persisted != null
        && persisted.values().stream()
            .anyMatch(p -> p.watermark() < 0 || p.watermark() > Segment.MAX_SEQUENCE)) {
      LOG.log(
          System.Logger.Level.WARNING,
          "The log's progress file holds a sequence out of range: read as missing (everything in"
              + " the log is delivered again)");
      persisted = null;
    }
    if (persisted != null) {
      Map<String, Long> watermarks = new java.util.HashMap<>();
      persisted.forEach((name, p) -> watermarks.put(name, p.watermark()));
      persistedWatermarks = Map.copyOf(watermarks);
    }
    List<String> names = options.consumers();
    // A consumer the progress file does not know, beside ones it does, is new: owed nothing old,
    // unless it takes over the progress of a consumer of another name.
    for (int c = 0; c < names.size(); c++) {
      ProgressFile.Progress held = persisted == null ? null : persisted.get(names.get(c));
      if (held == null && persisted != null) {
        String predecessor = recovery.predecessorOf(names.get(c));
        held = predecessor == null ? null : persisted.get(predecessor);
      }
      progress[c] = new ConsumerProgress(held == null ? 0 : held.watermark());
      if (held != null) {
        long[] ranges = held.ranges();
        for (int r = 0; r < ranges.length; r += 2) {
          progress[c].markRangeDone(ranges[r], ranges[r + 1]);
        }
      }
      if (persisted != null && held == null) {
        newConsumers |= 1 << c;
      }
    }
    List<Path> found = new ArrayList<>();
    for (Path file : files.list(directory, Segment.GLOB)) {
      long first = Segment.firstSequenceOf(file);
      if (first > Segment.MAX_SEQUENCE) {
        throw new IOException(
            file
                + " names a sequence past any this log writes: not a segment of this log; move it"
                + " out of "
                + directory);
      }
      if (first >= 0) {
        found.add(file);
      }
    }
    found.sort(Comparator.comparingLong(Segment::firstSequenceOf));
    recovery.starting(this);
    Finder finder = new Finder();
    CRC32C crc = new CRC32C();
    for (int i = 0; i < found.size(); i++) {
      Path file = found.get(i);
      long firstSequence = Segment.firstSequenceOf(file);
      long limit = firstSequence + Segment.MAX_SEQUENCES;
      if (i + 1 < found.size()) {
        limit = Math.min(limit, Segment.firstSequenceOf(found.get(i + 1)));
      }
      finder.skipTo(firstSequence);
      finder.owedInSegment = false;
      SegmentScanner.Result result =
          SegmentScanner.scan(files, file, firstSequence, limit, crc, finder);
      corruptRecords += result.corrupt();
      boolean last = i == found.size() - 1;
      long size = result.goodEnd();
      if (result.tailBytes() > 0) {
        if (last || result.staleTail()) {
          // A write the crash cut short (never answered), or a reused file's old records: cut off.
          if (!result.staleTail()) {
            tornBytes += result.tailBytes();
          }
          try (FileAccess.SegmentFile tail = files.openForAppend(file)) {
            tail.truncate(size);
            tail.force();
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
      Segment segment = new Segment(file, firstSequence, result.lastSequence(), size);
      segments.add(segment);
      sizeBytes += size;
      if (finder.owedInSegment) {
        toReplay.add(segment);
      }
    }
    nextSequence = finder.expected;
    nextSequence = Math.max(nextSequence, recoverSpares(directory));
    for (ConsumerProgress consumer : progress) {
      nextSequence = Math.max(nextSequence, consumer.watermark());
    }
    // Sequences never written (skipped as corrupt, or lost to failed writes) are done for all.
    for (ConsumerProgress consumer : progress) {
      consumer.markRangeDone(finder.expected, nextSequence);
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

  /**
   * The consumers (a bit per index) owed a record: those its routing goes to, configured, not new
   * to the log, and not done with it.
   */
  private int owedOf(long sequence, int layout, int routing, int signal) {
    int configured = (int) ((1L << progress.length) - 1);
    int owed = options.routing().consumersOf(layout, routing, signal) & ~newConsumers & configured;
    for (int left = owed; left != 0; left &= left - 1) {
      int c = Integer.numberOfTrailingZeros(left);
      if (progress[c].isDone(sequence)) {
        owed &= ~(1 << c);
      }
    }
    return owed;
  }

  /** Settles every consumer's progress at open, and notes which segments hold owed records. */
  private final class Finder implements SegmentScanner.Found {
    long expected;
    boolean owedInSegment;

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
        long sequence,
        int layout,
        int routing,
        int signal,
        byte[] payload,
        int offset,
        int length) {
      skipTo(sequence);
      expected = sequence + 1;
      layoutsInUse.add(layout);
      int owed = owedOf(sequence, layout, routing, signal);
      for (int c = 0; c < progress.length; c++) {
        if ((owed & (1 << c)) == 0) {
          progress[c].markDone(sequence);
        }
      }
      if (owed == 0) {
        recovery.notReplayed(sequence, layout, routing, signal);
        return;
      }
      owedInSegment = true;
      owedAtOpen++;
    }
  }

  /** A replay consumer was interrupted; carried through the scanner to {@link #replay}. */
  private static final class ReplayInterrupted extends IOException {
    private static final long serialVersionUID = 1L;

    ReplayInterrupted(InterruptedException cause) {
      super(cause);
    }
  }

  /**
   * Hands every record some consumer is owed to the {@link RecordConsumer} given at {@link #open},
   * in order, on this thread, with the consumers it is owed to. Runs while the log takes appends;
   * call it once. The consumer may block as long as it must; interrupting this thread ends the
   * replay, and what was not handed stays owed for the next start.
   *
   * @throws IOException when a segment cannot be read back (the records not handed stay owed)
   */
  public void replay() throws IOException, InterruptedException {
    synchronized (toReplay) {
      if (replayStarted) {
        throw new IllegalStateException("the log is replayed once");
      }
      replayStarted = true;
    }
    CRC32C crc = new CRC32C();
    for (Segment segment : toReplay) {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      lock.lock();
      try {
        if (!segments.contains(segment)) {
          continue; // every record of it done meanwhile, and the segment retired
        }
      } finally {
        lock.unlock();
      }
      try {
        SegmentScanner.scan(
            files,
            segment.path,
            segment.firstSequence,
            segment.lastSequence + 1,
            crc,
            (sequence, layout, routing, signal, payload, offset, length) -> {
              int owed = owedOf(sequence, layout, routing, signal);
              if (owed == 0) {
                return;
              }
              byte[] copy = java.util.Arrays.copyOfRange(payload, offset, offset + length);
              try {
                recovery.replay(sequence, layout, routing, signal, owed, copy);
              } catch (InterruptedException e) {
                throw new ReplayInterrupted(e);
              }
              recoveredRecords++;
            });
      } catch (ReplayInterrupted e) {
        throw (InterruptedException) e.getCause();
      }
    }
  }

  /** Records some consumer was owed when the log was opened: what {@link #replay} hands on. */
  public long owedAtOpen() {
    return owedAtOpen;
  }

  /**
   * The layout numbers the log's records carry ({@link #FORMER_LAYOUT} among them for records of
   * the earlier format), as found when it was opened.
   */
  public java.util.Set<Integer> layoutsInUse() {
    return java.util.Collections.unmodifiableSet(layoutsInUse);
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
      byte[] payload,
      int offset,
      int length,
      int layout,
      int routing,
      int signal,
      AppendCallback callback) {
    if (layout < 0 || layout > MAX_LAYOUT) {
      throw new IllegalArgumentException("layout " + layout + " is not 0 to " + MAX_LAYOUT);
    }
    long recordBytes = recordBytes(length);
    int payloadCrc = RecordFormat.payloadCrc(payload, offset, length, APPEND_CRCS.get());
    long appendedAt = System.nanoTime();
    lock.lock();
    try {
      if (closing || stopped) {
        return CLOSED;
      }
      // Room for the records, and for the header of each segment they may start.
      long headers =
          SegmentHeader.BYTES * ((pendingBytes + recordBytes) / options.segmentSizeBytes() + 1);
      if (count == payloads.length
          || sizeBytes + pendingBytes + recordBytes + headers > options.maxSizeBytes()) {
        return FULL;
      }
      int slot = (head + count) % payloads.length;
      long sequence = nextSequence++;
      payloads[slot] = payload;
      offsets[slot] = offset;
      lengths[slot] = length;
      routings[slot] = routing;
      layouts[slot] = layout;
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

  /** The segments' bytes changed by {@code deltaBytes} (the writer wrote, cut or retired some). */
  void addSize(long deltaBytes) {
    lock.lock();
    try {
      sizeBytes += deltaBytes;
    } finally {
      lock.unlock();
    }
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
