package dev.sluice.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The real file system, through {@link FileChannel}.
 *
 * <p>Segments the writer creates or reuses are opened with {@code O_DIRECT} where the file system
 * takes it: a write then goes from the writer's buffer to the device, with no copy into the page
 * cache and no dirty pages for the force to find and write back (on this project's machine, five
 * rounds each on a busy host, a 3.4 MB group written and forced took 2.6 to 5.4 ms instead of 5.7
 * to 8.3 ms, with 30 to 250 instead of 180 to 310 us of system CPU per MiB). Where {@code O_DIRECT}
 * is refused (tmpfs, some network file systems), or with the system property {@value
 * #DIRECT_IO_PROPERTY} set to {@code false}, they go through the page cache as before.
 */
final class DiskFileAccess implements FileAccess {
  static final DiskFileAccess INSTANCE = new DiskFileAccess();

  /** Set to {@code false} to write segments through the page cache. */
  static final String DIRECT_IO_PROPERTY = "sluice.wal.direct-io";

  /**
   * The largest block size direct writes are aligned to: the writer's buffer is aligned to it, so a
   * file system with larger blocks is written through the page cache.
   */
  static final int MAX_DIRECT_ALIGNMENT_BYTES = 4096;

  private static final System.Logger LOG = System.getLogger(DiskFileAccess.class.getName());

  private final boolean directIo =
      !"false".equalsIgnoreCase(System.getProperty(DIRECT_IO_PROPERTY, "true"));
  private volatile boolean directRefusedLogged;

  private DiskFileAccess() {}

  private static final class DiskSegment implements SegmentFile {
    private final FileChannel channel;
    private final int alignmentBytes;

    DiskSegment(FileChannel channel, int alignmentBytes) {
      this.channel = channel;
      this.alignmentBytes = alignmentBytes;
    }

    @Override
    public void append(ByteBuffer buffer) throws IOException {
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
    }

    @Override
    public void write(ByteBuffer buffer, long position) throws IOException {
      long at = position;
      while (buffer.hasRemaining()) {
        at += channel.write(buffer, at);
      }
    }

    @Override
    public int alignmentBytes() {
      return alignmentBytes;
    }

    @Override
    public void force() throws IOException {
      channel.force(false);
    }

    @Override
    public void truncate(long size) throws IOException {
      channel.truncate(size);
      channel.position(size);
    }

    @Override
    public long size() throws IOException {
      return channel.size();
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  @Override
  public boolean exists(Path path) {
    return Files.exists(path);
  }

  @Override
  public void createDirectories(Path directory) throws IOException {
    Files.createDirectories(directory);
    if (!Files.isDirectory(directory) || !Files.isWritable(directory)) {
      throw new IOException(directory + " is not a writable directory");
    }
  }

  @Override
  public AutoCloseable lock(Path lockFile) throws IOException {
    FileChannel channel =
        FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      channel.close();
      throw new IOException(
          lockFile + " is locked: another collector (or another storage of this one) uses it");
    }
    FileLock held = lock;
    return () -> {
      held.release();
      channel.close();
    };
  }

  @Override
  public SegmentFile openForAppend(Path file) throws IOException {
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    channel.position(channel.size());
    return new DiskSegment(channel, 1);
  }

  @Override
  public SegmentFile create(Path file, boolean direct) throws IOException {
    return openForWriter(file, StandardOpenOption.CREATE, direct);
  }

  @Override
  public SegmentFile reuse(Path spare, Path file) throws IOException {
    return reuse(spare, file, false);
  }

  @Override
  public SegmentFile reuse(Path spare, Path file, boolean direct) throws IOException {
    rename(spare, file);
    return openForWriter(file, StandardOpenOption.WRITE, direct);
  }

  /** Opens a segment for the writer: directly to the device where asked and possible. */
  private SegmentFile openForWriter(Path file, StandardOpenOption how, boolean direct)
      throws IOException {
    int alignment =
        direct && directIo
            ? directAlignment(Files.getFileStore(file.getParent()).getBlockSize())
            : 1;
    if (alignment > 1) {
      try {
        return new DiskSegment(
            FileChannel.open(
                file, how, StandardOpenOption.WRITE, com.sun.nio.file.ExtendedOpenOption.DIRECT),
            alignment);
      } catch (IOException | UnsupportedOperationException e) {
        if (!directRefusedLogged) {
          directRefusedLogged = true;
          LOG.log(
              System.Logger.Level.INFO,
              "the log's segments in "
                  + file.getParent()
                  + " are written through the page cache: direct I/O was refused ("
                  + e
                  + ")");
        }
      }
    }
    return new DiskSegment(FileChannel.open(file, how, StandardOpenOption.WRITE), 1);
  }

  /**
   * The alignment of direct writes on a file system of {@code blockBytes} blocks, or 1 when the
   * writer's buffer cannot keep it (not a power of two, or above {@link
   * #MAX_DIRECT_ALIGNMENT_BYTES}) and segments go through the page cache.
   */
  static int directAlignment(long blockBytes) {
    boolean usable =
        blockBytes > 1
            && blockBytes <= MAX_DIRECT_ALIGNMENT_BYTES
            && Long.bitCount(blockBytes) == 1;
    return usable ? (int) blockBytes : 1;
  }

  @Override
  public void rename(Path from, Path to) throws IOException {
    Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public int read(Path file, long position, ByteBuffer into) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      int total = 0;
      while (into.hasRemaining()) {
        int read = channel.read(into, position + total);
        if (read < 0) {
          break;
        }
        total += read;
      }
      return total;
    }
  }

  @Override
  public long size(Path file) throws IOException {
    return Files.size(file);
  }

  @Override
  public List<Path> list(Path directory, String glob) throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, glob)) {
      for (Path file : stream) {
        files.add(file);
      }
    }
    return files;
  }

  @Override
  public void delete(Path file) throws IOException {
    Files.deleteIfExists(file);
  }

  @Override
  public void writeAtomically(Path file, byte[] content) throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel channel =
        FileChannel.open(
            temporary,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buffer = ByteBuffer.wrap(content);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(true);
    }
    Files.move(
        temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    forceDirectory(file.getParent());
  }

  @Override
  public byte[] readSmall(Path file, int maxBytes) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size > maxBytes) {
        throw new IOException(file + " has " + size + " bytes, more than " + maxBytes);
      }
      ByteBuffer buffer = ByteBuffer.allocate((int) size);
      while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
        // until full or at the end
      }
      return buffer.array();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  @Override
  public void forceDirectory(Path directory) throws IOException {
    // Opening a directory for reading and forcing it works on Linux and macOS, which is where
    // the name changes must be made durable; elsewhere the call is refused and skipped.
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("win")) {
        throw e;
      }
    }
  }
}
