package dev.sluice.exporter.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The file records are written to, behind a write buffer of {@link #WRITE_BUFFER_BYTES}: a record
 * that fits is copied into the buffer, a larger one is written straight through. So what waits in
 * memory for the next flush is bounded by the buffer, whatever the batch sizes.
 *
 * <p>A write either lands whole or not at all: when the file refuses bytes (disk full, I/O error),
 * it is cut back to the end of the last whole record and the failure is thrown, so that a retry
 * does not leave a torn record before the good one. Bytes in the buffer belong to requests already
 * answered; a failed flush keeps them for the next attempt instead of dropping them.
 *
 * <p>Before each record the path is checked to still name the open file: when the file was removed
 * or replaced (a person, or logrotate without {@code copytruncate}), writing goes on in a new file
 * at the path instead of into one nobody can read.
 *
 * <p>Not thread-safe: the exporter holds its lock around every call.
 */
final class RecordFile {
  /** The write buffer: what a flush writes at most, on the scheduler's thread. */
  static final int WRITE_BUFFER_BYTES = 64 * 1024;

  private final Path path;
  private final FileExporterConfig.Rotation rotation;
  private final Backups backups;
  private final Logger logger;
  private final ByteBuffer buffer = ByteBuffer.allocate(WRITE_BUFFER_BYTES);
  private final ByteBuffer prefix = ByteBuffer.allocate(Integer.BYTES);
  private final ByteBuffer suffix = ByteBuffer.wrap(new byte[] {Framing.NEWLINE});
  private FileChannel channel;
  private Object fileKey;
  private long fileBytes;
  private long rotations;
  private long reopens;

  private RecordFile(Path path, FileExporterConfig.Rotation rotation, Clock clock, Logger logger) {
    this.path = path;
    this.rotation = rotation;
    this.backups = rotation == null ? null : new Backups(path, rotation.localtime(), clock);
    this.logger = logger;
  }

  /**
   * Opens {@code path}, continuing what it holds when {@code continueExisting}, else truncating it.
   *
   * @param rotation rotation by size, or null for none
   */
  static RecordFile open(
      Path path,
      boolean continueExisting,
      FileExporterConfig.Rotation rotation,
      Clock clock,
      Logger logger)
      throws IOException {
    RecordFile file = new RecordFile(path, rotation, clock, logger);
    file.openChannel(
        continueExisting
            ? new OpenOption[] {StandardOpenOption.CREATE, StandardOpenOption.WRITE}
            : new OpenOption[] {
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING
            });
    if (rotation != null) {
      file.prune();
    }
    return file;
  }

  /** Writes one record, framed; see the class comment for what a failure leaves. */
  void write(Framing framing, byte[] payload, int offset, int length) throws IOException {
    followPath();
    long framed = framing.framedLength(length);
    long size = fileBytes + buffer.position();
    if (rotation != null && size > 0 && size + framed > rotation.maxBytes()) {
      rotate();
    }
    if (framed > buffer.remaining()) {
      flush();
    }
    if (framed <= buffer.remaining()) {
      if (framing.prefixBytes > 0) {
        buffer.putInt(length);
      }
      buffer.put(payload, offset, length);
      if (framing.suffixBytes > 0) {
        buffer.put(Framing.NEWLINE);
      }
      return;
    }
    writeThrough(framing, payload, offset, length);
  }

  /** Writes what the buffer holds to the file; on failure the buffer keeps it. */
  void flush() throws IOException {
    if (buffer.position() == 0) {
      return;
    }
    buffer.flip();
    try {
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
    } catch (IOException e) {
      int pending = buffer.limit();
      buffer.limit(buffer.capacity()).position(pending);
      cutBack(e);
      throw e;
    }
    fileBytes += buffer.limit();
    buffer.clear();
  }

  /** Bytes written but not yet flushed to the file. */
  int pendingBytes() {
    return buffer.position();
  }

  /** Rotations done so far. */
  long rotations() {
    return rotations;
  }

  /** Times the file was found removed or replaced and opened again. */
  long reopens() {
    return reopens;
  }

  /**
   * Flushes, forces the file's content to the device (once, at a clean stop) and closes it. The
   * file is closed even when the flush fails; the failure is thrown after.
   */
  void close() throws IOException {
    try {
      flush();
      channel.force(false);
    } finally {
      channel.close();
    }
  }

  private void writeThrough(Framing framing, byte[] payload, int offset, int length)
      throws IOException {
    flush();
    prefix.clear();
    if (framing.prefixBytes > 0) {
      prefix.putInt(length);
    }
    prefix.flip();
    suffix.rewind();
    if (framing.suffixBytes == 0) {
      suffix.position(suffix.limit());
    }
    ByteBuffer body = ByteBuffer.wrap(payload, offset, length);
    ByteBuffer[] parts = {prefix, body, suffix};
    long framed = framing.framedLength(length);
    long written = 0;
    try {
      while (written < framed) {
        written += channel.write(parts);
      }
    } catch (IOException e) {
      cutBack(e);
      throw e;
    }
    fileBytes += framed;
  }

  /** Cuts the file back to its last whole record after a failed write. */
  private void cutBack(IOException failure) {
    try {
      channel.truncate(fileBytes);
      channel.position(fileBytes);
    } catch (IOException e) {
      failure.addSuppressed(e);
    }
  }

  private void rotate() throws IOException {
    flush();
    Path backup = backups.next();
    Files.move(path, backup);
    FileChannel previous = channel;
    // If the new file cannot be made, the open channel now writes to the backup; the next write
    // finds the path gone and tries again (followPath), so nothing more goes to the backup.
    openChannel(
        StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    closeQuietly(previous);
    rotations++;
    prune();
  }

  private void prune() {
    try {
      backups.prune(rotation.maxBackups(), rotation.maxDays());
    } catch (IOException e) {
      // Not a failure of the write: the data is safe, only old backups stay longer.
      logger.log(Level.WARNING, "Cannot delete old backups of " + path, e);
    }
  }

  /** Reopens the path when it no longer names the open file. */
  private void followPath() throws IOException {
    if (fileKey == null) {
      return;
    }
    try {
      Object current = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
      if (fileKey.equals(current)) {
        return;
      }
    } catch (NoSuchFileException e) {
      // removed: make it again
    }
    FileChannel previous = channel;
    openChannel(StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    closeQuietly(previous);
    reopens++;
    logger.info(path + " was removed or replaced; writing to a new file there");
  }

  private void openChannel(OpenOption... options) throws IOException {
    FileChannel opened = FileChannel.open(path, options);
    try {
      long size = opened.size();
      opened.position(size);
      fileKey = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
      channel = opened;
      fileBytes = size;
    } catch (IOException e) {
      closeQuietly(opened);
      throw e;
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // Nothing is pending on a channel that is given up: the buffer is flushed before.
    }
  }
}
