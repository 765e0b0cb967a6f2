package dev.sluice.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * Every file operation the log makes, behind one seam so that tests can inject faults (a torn
 * write, ENOSPC, EIO on {@code force}) at exactly the point they mean. {@link DiskFileAccess} is
 * the real one.
 */
interface FileAccess {
  /** An open log segment: appended to, forced, truncated back after a failed write. */
  interface SegmentFile extends AutoCloseable {
    /**
     * Writes all of {@code buffer} where the previous write ended: at the end of a file opened for
     * appending, from the start of a reused one.
     */
    void append(ByteBuffer buffer) throws IOException;

    /** Makes everything written so far durable (fdatasync). */
    void force() throws IOException;

    /** Cuts the file back to {@code size} bytes (after a write that failed part way). */
    void truncate(long size) throws IOException;

    long size() throws IOException;

    @Override
    void close() throws IOException;
  }

  /** Creates the directory if it is missing; fails if it cannot be used. */
  void createDirectories(Path directory) throws IOException;

  /** Takes the directory's lock file for this process; fails if another process holds it. */
  AutoCloseable lock(Path lockFile) throws IOException;

  /** Opens a segment for appending, creating it if it does not exist. */
  SegmentFile openForAppend(Path file) throws IOException;

  /**
   * Renames {@code spare} (an old segment, every record of it done) to {@code file} and opens it
   * for writing from its start; its old bytes stay after what is written until they are cut off.
   * Overwriting a file's blocks spares the file system the block allocation and the journal commit
   * that growing a file costs at every force. The new name is durable at {@link #forceDirectory}.
   */
  SegmentFile reuse(Path spare, Path file) throws IOException;

  /** Renames {@code from} to {@code to}, atomically; durable at {@link #forceDirectory}. */
  void rename(Path from, Path to) throws IOException;

  /** Reads {@code length} bytes from {@code position} into {@code into}; returns bytes read. */
  int read(Path file, long position, ByteBuffer into) throws IOException;

  long size(Path file) throws IOException;

  /** The files of the directory whose names match the glob, in no particular order. */
  List<Path> list(Path directory, String glob) throws IOException;

  void delete(Path file) throws IOException;

  /**
   * Replaces {@code file} with {@code content} so that a crash leaves the old or the new content,
   * never a mix: written to a temporary file, forced, renamed over the old one, and the directory
   * forced too.
   */
  void writeAtomically(Path file, byte[] content) throws IOException;

  /** Reads a whole small file; null when it does not exist. */
  byte[] readSmall(Path file, int maxBytes) throws IOException;

  /** Forces the directory, so that created, renamed and deleted names are durable. */
  void forceDirectory(Path directory) throws IOException;
}
