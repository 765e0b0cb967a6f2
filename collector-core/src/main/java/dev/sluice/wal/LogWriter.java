package dev.sluice.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

/**
 * The log's one writer thread: takes every pending append as a group, copies headers and payloads
 * into one reused, block-aligned direct buffer (the copy the JDK would make for heap arrays anyway,
 * so each byte is copied once and nothing is allocated per record), writes it, forces the file
 * once, and then answers the whole group. The payloads' checksums come with the appends ({@link
 * WriteAheadLog#append} computes them on the appending threads). Between groups it persists the
 * consumers' progress and deletes segments every consumer is done with.
 *
 * <p>With {@code fsync}, segments are written directly to the device where the file system allows
 * it ({@link FileAccess.SegmentFile#alignmentBytes}): writes are then whole blocks, so each write
 * starts again at the block the previous one ended in, with the same bytes, and pads the block it
 * ends in with zeros that the next write covers.
 *
 * <p>A write that fails (ENOSPC, say) cuts the segment back to where the group began in it and
 * answers the group's appends as retryable; records of the group that went into a segment closed
 * (and forced) before the failure stay and are answered as written. A force that fails (of a
 * segment, or of the directory after a new segment's name) stops the log: what it covered may be
 * gone, and going on would answer appends on lost data.
 *
 * <p>The log's size ({@link WriteAheadLog#addSize}) follows the segments' bytes write by write, so
 * it stays what the segment files hold, whatever a group spans.
 */
final class LogWriter implements Runnable {
  private static final System.Logger LOG = System.getLogger(LogWriter.class.getName());

  /**
   * The writer's buffer: a group of the closed loop's 8 requests of 430 KB is one write. A direct
   * write waits for the device, so a group in fewer, larger writes waits less.
   */
  private static final int STAGING_BYTES = 4 << 20;

  private static final long PROGRESS_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /** At most one warning this often while progress cannot be written, or a callback fails. */
  private static final long WARNING_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

  /** A force that failed: the data it covered may be gone, so the log stops. */
  private static final class ForceFailed extends IOException {
    private static final long serialVersionUID = 1L;

    ForceFailed(String what, IOException cause) {
      super(what + " failed; data it held may be gone: " + cause.getMessage(), cause);
    }
  }

  private final WriteAheadLog log;
  private final Thread thread;
  private final ByteBuffer staging =
      ByteBuffer.allocateDirect(STAGING_BYTES + DiskFileAccess.MAX_DIRECT_ALIGNMENT_BYTES)
          .alignedSlice(DiskFileAccess.MAX_DIRECT_ALIGNMENT_BYTES);
  // The active segment's last partial block (when writes are aligned), at the start of `staging`:
  // the next write starts at that block and writes its bytes again, with the new ones after them.
  private int tailBytes;
  private final byte[] groupStartTail = new byte[DiskFileAccess.MAX_DIRECT_ALIGNMENT_BYTES];
  private int groupStartTailBytes;
  private final CRC32C crc = new CRC32C();
  volatile LongConsumer forceObserver;
  volatile LongConsumer writeObserver;
  volatile LongConsumer commitObserver;
  private FileAccess.SegmentFile activeFile;
  private Segment active;
  private long activeKey;
  // Where the group being written began in the active segment (or where the segment's records
  // begin, after a roll in the group): a failed write cuts the segment back to it.
  private long groupStartInActive;
  // Each consumer's count of changes when its progress was last persisted.
  private long[] persistedChanges;
  private long lastProgressNanos;
  private boolean progressFailing;
  private long progressWarnedNanos;
  private long callbackWarnedNanos;

  // Figures, updated under the log's lock.
  private long groups;
  private long groupedRecords;
  private long forces;
  private long forceNanos;
  private long maxForceNanos;
  private long failedWrites;
  private long reusedSegments;

  LogWriter(WriteAheadLog log) {
    this.log = log;
    this.thread = new Thread(this, "sluice-wal-writer");
    thread.setDaemon(true);
  }

  void start() {
    persistedChanges = new long[log.progress.length];
    Arrays.fill(persistedChanges, -1);
    thread.start();
  }

  void join(long timeoutMillis) throws InterruptedException {
    thread.join(timeoutMillis);
  }

  LogStatistics statistics(
      long sizeBytes, int segments, int pending, long recovered, long corrupt, long torn) {
    return new LogStatistics(
        sizeBytes,
        segments,
        pending,
        recovered,
        corrupt,
        torn,
        groups,
        groupedRecords,
        forces,
        forceNanos,
        maxForceNanos,
        failedWrites,
        reusedSegments);
  }

  @Override
  public void run() {
    try {
      loop();
    } catch (IOException e) {
      stop("the log cannot go on: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      stop("the log's writer was interrupted", new IOException(e));
    } catch (RuntimeException | Error e) {
      stop("the log's writer failed: " + e, new IOException(e));
      throw e;
    }
  }

  private void loop() throws IOException, InterruptedException {
    int capacity = log.payloads.length;
    while (true) {
      int first;
      int n;
      boolean closing;
      log.lock.lock();
      try {
        if (log.count == 0 && !log.closing) {
          log.pendingOrClosing.awaitNanos(PROGRESS_INTERVAL_NANOS);
        }
        long interval = log.options.commitIntervalNanos();
        if (interval > 0 && log.count > 0 && log.count < capacity && !log.closing) {
          log.pendingOrClosing.awaitNanos(interval);
        }
        first = log.head;
        n = log.count;
        closing = log.closing;
      } finally {
        log.lock.unlock();
      }
      if (n > 0 && !writeGroup(first, n)) {
        return;
      }
      maintain(closing && n == 0);
      if (closing && n == 0) {
        closeActive();
        return;
      }
    }
  }

  /** Writes, forces and answers appends {@code [first, first + n)}; false when the log stopped. */
  private boolean writeGroup(int first, int n) throws IOException {
    int capacity = log.payloads.length;
    long segmentSize = log.options.segmentSizeBytes();
    int durable = 0; // appends of the group already forced in a closed segment
    long recordBytes = 0;
    long startSequence = log.sequences[first];
    long writeStart = System.nanoTime();
    groupStartInActive = active == null ? 0 : active.sizeBytes;
    groupStartTailBytes = tailBytes;
    staging.get(0, groupStartTail, 0, tailBytes);
    try {
      log.options.routing().beforeWrite();
      for (int i = 0; i < n; i++) {
        int slot = (first + i) % capacity;
        long bytes = (long) RecordFormat.HEADER_BYTES + log.lengths[slot];
        recordBytes += bytes;
        long sequence = log.sequences[slot];
        if (active == null
            || sequence - active.firstSequence >= Segment.MAX_SEQUENCES
            || (activeSize() > SegmentHeader.BYTES && activeSize() + bytes > segmentSize)) {
          flush();
          roll(sequence);
          durable = i;
        }
        stage(slot);
        active.lastSequence = sequence;
      }
      flush();
    } catch (ForceFailed e) {
      stop("the log cannot go on: " + e.getMessage(), e);
      return false;
    } catch (IOException e) {
      failWrite(first, n, durable, e);
      return true;
    }
    LongConsumer writes = writeObserver;
    if (writes != null) {
      writes.accept(System.nanoTime() - writeStart);
    }
    CrashPoints.check(CrashPoints.Point.FORCE);
    if (log.options.fsync()) {
      long start = System.nanoTime();
      try {
        activeFile.force();
      } catch (IOException e) {
        stop("forcing the log to disk failed; data it held may be gone: " + e.getMessage(), e);
        return false;
      }
      long took = System.nanoTime() - start;
      LongConsumer observer = forceObserver;
      if (observer != null) {
        observer.accept(took);
      }
      forces++;
      forceNanos += took;
      maxForceNanos = Math.max(maxForceNanos, took);
    }
    observeCommits(first, n);
    // The group's bytes are in the log's size now: no longer pending, before any append answered
    // here makes its client send the next one.
    unpend(recordBytes);
    answer(first, 0, n);
    release(first, n);
    if (LOG.isLoggable(System.Logger.Level.TRACE)) {
      LOG.log(System.Logger.Level.TRACE, "group of " + n + " from " + startSequence);
    }
    return true;
  }

  /** The active segment's bytes, those staged and not yet written included. */
  private long activeSize() {
    return active.sizeBytes + staging.position() - tailBytes;
  }

  /** Tells the commit observer how long each append of the group waited to be on disk. */
  private void observeCommits(int first, int n) {
    LongConsumer commits = commitObserver;
    if (commits == null) {
      return;
    }
    int capacity = log.payloads.length;
    long now = System.nanoTime();
    for (int i = 0; i < n; i++) {
      commits.accept(now - log.appendNanos[(first + i) % capacity]);
    }
  }

  /** Copies one record (header, then payload) into the staging buffer, flushing as it fills. */
  private void stage(int slot) throws IOException {
    byte[] payload = log.payloads[slot];
    int offset = log.offsets[slot];
    int length = log.lengths[slot];
    if (staging.remaining() < RecordFormat.HEADER_BYTES) {
      flush();
    }
    RecordFormat.writeHeader(
        staging,
        activeKey,
        log.sequences[slot],
        length,
        log.payloadCrcs[slot],
        log.routings[slot],
        log.layouts[slot],
        log.signals[slot],
        crc);
    int copied = 0;
    while (copied < length) {
      if (!staging.hasRemaining()) {
        flush();
      }
      int chunk = Math.min(staging.remaining(), length - copied);
      staging.put(payload, offset + copied, chunk);
      copied += chunk;
    }
  }

  /**
   * Writes what is staged at the end of the active segment. With aligned writes (a file written
   * directly to the device) the write starts at the segment's last partial block, whose bytes are
   * at the start of the buffer, and is padded with zeros to a whole block; the zeros are written
   * over by the next write, or cut off when the segment closes (or at the next start, as a torn
   * tail).
   */
  private void flush() throws IOException {
    int end = staging.position();
    if (end == tailBytes) {
      return;
    }
    int alignment = activeFile.alignmentBytes();
    int padded = (end + alignment - 1) & -alignment;
    for (int i = end; i < padded; i++) {
      staging.put(i, (byte) 0);
    }
    long at = active.sizeBytes - tailBytes;
    staging.position(0).limit(padded);
    if (CrashPoints.reached(CrashPoints.Point.TORN_WRITE)) {
      staging.limit((padded / 2) & -alignment);
      activeFile.write(staging, at);
      CrashPoints.halt();
    }
    try {
      activeFile.write(staging, at);
    } catch (IOException e) {
      staging.clear();
      tailBytes = 0;
      throw e;
    }
    log.addSize(at + end - active.sizeBytes);
    active.sizeBytes = at + end;
    int kept = end & (alignment - 1);
    staging.clear();
    staging.put(0, staging, end - kept, kept);
    staging.position(kept);
    tailBytes = kept;
  }

  /**
   * Closes the active segment (forced first) and starts one named by {@code firstSequence}, in a
   * spare file when there is one, with its header written. A failed force is {@link ForceFailed}; a
   * segment that cannot be made or begun fails like any write, and leaves no segment active.
   */
  private void roll(long firstSequence) throws IOException {
    closeActive();
    // Closed and forced: if the next file cannot be made, a failed write has no segment to cut.
    active = null;
    staging.clear();
    tailBytes = 0;
    Path path = Segment.pathOf(log.options.directory(), firstSequence);
    Path spare = log.spares.poll();
    // Direct writes only pay when each is forced at once: without fsync the page cache is faster.
    boolean direct = log.options.fsync();
    FileAccess.SegmentFile file =
        spare == null ? log.files.create(path, direct) : log.files.reuse(spare, path, direct);
    try {
      log.files.forceDirectory(log.options.directory());
    } catch (IOException e) {
      closeQuietly(file);
      throw new ForceFailed("forcing the log's directory after a new segment", e);
    }
    CrashPoints.check(CrashPoints.Point.ROLL);
    Segment next = new Segment(path, firstSequence, firstSequence - 1, 0);
    activeFile = file;
    active = next;
    activeKey = SegmentHeader.newKey();
    log.lock.lock();
    try {
      log.segments.add(next);
      if (spare != null) {
        reusedSegments++;
      }
    } finally {
      log.lock.unlock();
    }
    SegmentHeader.write(staging, firstSequence, activeKey, crc);
    try {
      flush();
    } catch (IOException e) {
      // Nothing of the segment is on disk: it goes, and the next group starts another.
      log.lock.lock();
      try {
        log.segments.remove(next);
      } finally {
        log.lock.unlock();
      }
      log.addSize(-next.sizeBytes);
      closeQuietly(file);
      try {
        log.files.delete(path);
      } catch (IOException ignored) {
        // Recovery deletes a segment without records.
      }
      active = null;
      activeFile = null;
      staging.clear();
      tailBytes = 0;
      throw e;
    }
    groupStartInActive = active.sizeBytes;
    groupStartTailBytes = tailBytes;
    staging.get(0, groupStartTail, 0, tailBytes);
  }

  private static void closeQuietly(FileAccess.SegmentFile file) {
    try {
      file.close();
    } catch (IOException e) {
      // Going on without it.
    }
  }

  /**
   * A group's write failed: the active segment is cut back to where the group began in it (its last
   * partial block staged again), appends {@code [0, durable)} (written in a segment closed before
   * the failure) are answered as written, the rest as retryable.
   */
  private void failWrite(int first, int n, int durable, IOException cause) {
    staging.clear();
    tailBytes = 0;
    int capacity = log.payloads.length;
    if (active != null) {
      tailBytes = groupStartTailBytes;
      staging.put(0, groupStartTail, 0, tailBytes);
      staging.position(tailBytes);
      long cut = active.sizeBytes - groupStartInActive;
      active.sizeBytes = groupStartInActive;
      log.addSize(-cut);
      try {
        activeFile.truncate(groupStartInActive);
      } catch (IOException e) {
        stop("cutting the log back after a failed write failed: " + e.getMessage(), e);
        return;
      }
      active.lastSequence = log.sequences[(first + durable) % capacity] - 1;
    }
    long recordBytes = 0;
    for (int i = 0; i < n; i++) {
      recordBytes += RecordFormat.HEADER_BYTES + log.lengths[(first + i) % capacity];
    }
    unpend(recordBytes);
    answer(first, 0, durable);
    String reason = "writing the log failed: " + cause.getMessage();
    for (int i = 0; i < n; i++) {
      int slot = (first + i) % capacity;
      if (i >= durable) {
        long sequence = log.sequences[slot];
        for (ConsumerProgress consumer : log.progress) {
          consumer.markDone(sequence); // never written: nothing to wait for
        }
        tell(log.callbacks[slot], reason, true);
      }
    }
    log.lock.lock();
    try {
      failedWrites++;
    } finally {
      log.lock.unlock();
    }
    release(first, n);
    LOG.log(System.Logger.Level.WARNING, reason + "; " + (n - durable) + " appends refused");
  }

  /** Tells appends {@code [first + from, first + to)} they are written. */
  private void answer(int first, int from, int to) {
    int capacity = log.payloads.length;
    for (int i = from; i < to; i++) {
      int slot = (first + i) % capacity;
      long sequence = log.sequences[slot];
      int routed =
          log.options
              .routing()
              .consumersOf(log.layouts[slot], log.routings[slot], log.signals[slot]);
      for (int c = 0; c < log.progress.length; c++) {
        if ((routed & (1 << c)) == 0) {
          log.progress[c].markDone(sequence);
        }
      }
      try {
        log.callbacks[slot].committed(sequence);
      } catch (RuntimeException e) {
        callbackFailed(e);
      }
    }
  }

  /** Tells an append it failed; a callback that throws costs a warning, not the writer. */
  private void tell(AppendCallback callback, String reason, boolean retryable) {
    try {
      callback.failed(reason, retryable);
    } catch (RuntimeException e) {
      callbackFailed(e);
    }
  }

  /**
   * An append's callback threw (its receiver stopped while the append waited for the disk, say):
   * the record's fate is the log's either way, so the writer goes on.
   */
  private void callbackFailed(RuntimeException e) {
    long now = System.nanoTime();
    if (callbackWarnedNanos == 0 || now - callbackWarnedNanos > WARNING_INTERVAL_NANOS) {
      callbackWarnedNanos = now;
      LOG.log(System.Logger.Level.WARNING, "an append's answer could not be passed on: " + e, e);
    }
  }

  /** The group's bytes are written (and counted in the log's size), or refused. */
  private void unpend(long recordBytes) {
    log.lock.lock();
    try {
      log.pendingBytes -= recordBytes;
    } finally {
      log.lock.unlock();
    }
  }

  /** Frees the group's slots and counts it. */
  private void release(int first, int n) {
    int capacity = log.payloads.length;
    log.lock.lock();
    try {
      for (int i = 0; i < n; i++) {
        int slot = (first + i) % capacity;
        log.payloads[slot] = null;
        log.callbacks[slot] = null;
      }
      log.head = (first + n) % capacity;
      log.count -= n;
      groups++;
      groupedRecords += n;
    } finally {
      log.lock.unlock();
    }
  }

  /**
   * Persists the consumers' progress when it moved (at most every 100 ms, or now when {@code now}),
   * then retires the closed segments every consumer is done with, whether or not the progress could
   * be written: a done segment is never needed again (at the next start, sequences no segment holds
   * are done for every consumer), and on a full disk deleting it is what makes room for the
   * progress file.
   */
  private void maintain(boolean now) {
    long time = System.nanoTime();
    if (!now && time - lastProgressNanos < PROGRESS_INTERVAL_NANOS) {
      return;
    }
    lastProgressNanos = time;
    long[] watermarks = new long[log.progress.length];
    long[] changes = new long[log.progress.length];
    long[][] ranges = new long[log.progress.length][];
    boolean moved = false;
    long done = Long.MAX_VALUE;
    for (int c = 0; c < watermarks.length; c++) {
      // The changes first: a change after the read is persisted next time.
      changes[c] = log.progress[c].changes();
      watermarks[c] = log.progress[c].watermark();
      ranges[c] = log.progress[c].lowestRanges(ProgressFile.MAX_RANGES);
      moved |= changes[c] != persistedChanges[c];
      done = Math.min(done, watermarks[c]);
    }
    if (moved) {
      CrashPoints.check(CrashPoints.Point.PROGRESS);
      try {
        log.files.writeAtomically(
            log.options.directory().resolve(ProgressFile.NAME),
            ProgressFile.encode(log.options.consumers(), watermarks, ranges));
        persistedChanges = changes;
        if (progressFailing) {
          progressFailing = false;
          LOG.log(System.Logger.Level.INFO, "the log's progress is written again");
        }
      } catch (IOException e) {
        if (!progressFailing || time - progressWarnedNanos > WARNING_INTERVAL_NANOS) {
          progressWarnedNanos = time;
          LOG.log(
              System.Logger.Level.WARNING,
              "persisting the log's progress failed (tried again every 100 ms; done segments are"
                  + " still deleted): "
                  + e);
        }
        progressFailing = true;
      }
    }
    deleteDone(done);
  }

  /** Retires the closed segments whose records are all below {@code done}. */
  private void deleteDone(long done) {
    boolean deleted = false;
    while (true) {
      Segment oldest;
      log.lock.lock();
      try {
        oldest = log.segments.isEmpty() ? null : log.segments.get(0);
      } finally {
        log.lock.unlock();
      }
      if (oldest == null || oldest == active || oldest.lastSequence >= done) {
        break;
      }
      try {
        retire(oldest);
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "deleting " + oldest.path + " failed: " + e);
        break;
      }
      deleted = true;
      CrashPoints.check(CrashPoints.Point.DELETE);
      log.lock.lock();
      try {
        log.segments.remove(0);
        log.sizeBytes -= oldest.sizeBytes;
      } finally {
        log.lock.unlock();
      }
    }
    if (deleted) {
      try {
        log.files.forceDirectory(log.options.directory());
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "forcing the log's directory failed: " + e);
      }
    }
  }

  /** A done segment becomes a spare for the next segment to reuse, or is deleted. */
  private void retire(Segment done) throws IOException {
    if (log.spares.size() < Segment.MAX_SPARES && done.lastSequence >= done.firstSequence) {
      Path spare = Segment.sparePathOf(log.options.directory(), done.lastSequence);
      log.files.rename(done.path, spare);
      log.spares.add(spare);
    } else {
      log.files.delete(done.path);
    }
  }

  /**
   * Forces and closes the active segment, its file cut to what it holds if it was reused or padded.
   * Any failure is {@link ForceFailed}: the segment's last records may not be on disk.
   */
  private void closeActive() throws ForceFailed {
    if (activeFile != null) {
      try {
        if (activeFile.size() > active.sizeBytes) {
          activeFile.truncate(active.sizeBytes);
        }
        activeFile.force();
        activeFile.close();
      } catch (IOException e) {
        closeQuietly(activeFile);
        activeFile = null;
        throw new ForceFailed("closing segment " + active.path, e);
      }
      activeFile = null;
    }
  }

  /** Stops the log: every pending append is refused for good, and the owner is told. */
  private void stop(String message, IOException cause) {
    int capacity = log.payloads.length;
    log.lock.lock();
    int first;
    int n;
    try {
      log.stopped = true;
      first = log.head;
      n = log.count;
    } finally {
      log.lock.unlock();
    }
    LOG.log(System.Logger.Level.ERROR, message, cause);
    log.fatal.fatal(message, cause);
    for (int i = 0; i < n; i++) {
      AppendCallback callback = log.callbacks[(first + i) % capacity];
      if (callback != null) {
        tell(callback, message, false);
      }
    }
    release(first, n);
    try {
      if (activeFile != null) {
        activeFile.close();
      }
    } catch (IOException e) {
      // Stopping anyway.
    }
  }
}
