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

    /**
     * Writes all of {@code buffer} at {@code position}. The writer may write again over the end of
     * what it wrote before (the last block of a file that bypasses the page cache), with the same
     * bytes there.
     */
    void write(ByteBuffer buffer, long position) throws IOException;

    /**
     * What positions, lengths and buffer addresses of {@link #write} must be multiples of: 1 for a
     * file written through the page cache; the file system's block size for one written directly to
     * the device (then the buffer must be direct, and {@link #append} is not supported).
     */
    default int alignmentBytes() {
      return 1;
    }

    /** Makes everything written so far durable (fdatasync). */
    void force() throws IOException;

    /** Cuts the file back to {@code size} bytes (after a write that failed part way). */
    void truncate(long size) throws IOException;

    long size() throws IOException;

    @Override
    void close() throws IOException;
  }

  /** Whether a file or directory of that name exists. */
  boolean exists(Path path) throws IOException;

  /** Creates the directory if it is missing; fails if it cannot be used. */
  void createDirectories(Path directory) throws IOException;

  /** Takes the directory's lock file for this process; fails if another process holds it. */
  AutoCloseable lock(Path lockFile) throws IOException;

  /** Opens a segment for appending, creating it if it does not exist. */
  SegmentFile openForAppend(Path file) throws IOException;

  /**
   * Creates a new segment for the log's writer, which writes it with {@link SegmentFile#write}
   * only. With {@code direct}, it may bypass the page cache ({@link SegmentFile#alignmentBytes}):
   * worth it when every write is forced at once anyway.
   */
  default SegmentFile create(Path file, boolean direct) throws IOException {
    return openForAppend(file);
  }

  /**
   * {@link #reuse(Path, Path)} for the log's writer, bypassing the page cache as {@link #create}.
   */
  default SegmentFile reuse(Path spare, Path file, boolean direct) throws IOException {
    return reuse(spare, file);
  }

  /**
   * Renames {@code spare} (an old segment, every record of it done) to {@code file} and opens it
   * for writing from its start; its old bytes stay after what is written until they are cut off.
   * Overwriting a file's blocks spares the file system the block allocation and the journal commit
   * that growing a file costs at every force. The new name is durable at {@link #forceDirectory}.
   * Written by the log's writer only, as a file from {@link #create} is.
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
