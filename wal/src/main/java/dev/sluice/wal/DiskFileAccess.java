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

/** The real file system, through {@link FileChannel}. */
final class DiskFileAccess implements FileAccess {
  static final DiskFileAccess INSTANCE = new DiskFileAccess();

  private DiskFileAccess() {}

  private static final class DiskSegment implements SegmentFile {
    private final FileChannel channel;

    DiskSegment(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public void append(ByteBuffer buffer) throws IOException {
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
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
    return new DiskSegment(channel);
  }

  @Override
  public SegmentFile reuse(Path spare, Path file) throws IOException {
    rename(spare, file);
    return new DiskSegment(FileChannel.open(file, StandardOpenOption.WRITE));
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
