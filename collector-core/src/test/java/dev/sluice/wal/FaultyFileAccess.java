package dev.sluice.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** The real file system, with faults armed by tests: failed appends (ENOSPC) and forces (EIO). */
final class FaultyFileAccess implements FileAccess {
  private final FileAccess disk = DiskFileAccess.INSTANCE;

  /** Appends that fail from now on, after writing half of what they were given. */
  final AtomicInteger failingAppends = new AtomicInteger();

  /** Forces that fail from now on. */
  final AtomicInteger failingForces = new AtomicInteger();

  /** Directory forces that fail from now on (EIO). */
  final AtomicInteger failingDirectoryForces = new AtomicInteger();

  /** Every directory forced, in order. */
  final List<Path> forcedDirectories = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** Segment files that cannot be made from now on (ENOSPC), new or reused. */
  final AtomicInteger failingCreates = new AtomicInteger();

  /** How long each segment write and each force take longer than the disk's, for timing tests. */
  volatile long writeDelayMillis;

  volatile long forceDelayMillis;

  final AtomicInteger forces = new AtomicInteger();
  final AtomicInteger progressWrites = new AtomicInteger();
  final AtomicInteger reuses = new AtomicInteger();

  @Override
  public boolean exists(Path path) throws IOException {
    return disk.exists(path);
  }

  @Override
  public void createDirectories(Path directory) throws IOException {
    disk.createDirectories(directory);
  }

  @Override
  public AutoCloseable lock(Path lockFile) throws IOException {
    return disk.lock(lockFile);
  }

  @Override
  public SegmentFile openForAppend(Path file) throws IOException {
    return faulty(disk.openForAppend(file));
  }

  @Override
  public SegmentFile create(Path file, boolean direct) throws IOException {
    failCreate();
    return faulty(disk.create(file, direct));
  }

  @Override
  public SegmentFile reuse(Path spare, Path file) throws IOException {
    reuses.incrementAndGet();
    return faulty(disk.reuse(spare, file));
  }

  @Override
  public SegmentFile reuse(Path spare, Path file, boolean direct) throws IOException {
    failCreate();
    reuses.incrementAndGet();
    return faulty(disk.reuse(spare, file, direct));
  }

  @Override
  public void rename(Path from, Path to) throws IOException {
    disk.rename(from, to);
  }

  private void failCreate() throws IOException {
    if (failingCreates.get() > 0) {
      failingCreates.decrementAndGet();
      throw new IOException("No space left on device");
    }
  }

  private SegmentFile faulty(SegmentFile real) {
    return new SegmentFile() {
      @Override
      public void append(ByteBuffer buffer) throws IOException {
        if (failingAppends.get() > 0) {
          failingAppends.decrementAndGet();
          ByteBuffer half = buffer.duplicate();
          half.limit(half.position() + half.remaining() / 2);
          real.append(half);
          throw new IOException("No space left on device");
        }
        real.append(buffer);
      }

      @Override
      public void write(ByteBuffer buffer, long position) throws IOException {
        if (failingAppends.get() > 0) {
          failingAppends.decrementAndGet();
          ByteBuffer half = buffer.duplicate();
          int alignment = real.alignmentBytes();
          half.limit(half.position() + (half.remaining() / 2 & -alignment));
          real.write(half, position);
          throw new IOException("No space left on device");
        }
        pause(writeDelayMillis);
        real.write(buffer, position);
      }

      @Override
      public int alignmentBytes() {
        return real.alignmentBytes();
      }

      @Override
      public void force() throws IOException {
        forces.incrementAndGet();
        if (failingForces.get() > 0) {
          failingForces.decrementAndGet();
          throw new IOException("Input/output error");
        }
        pause(forceDelayMillis);
        real.force();
      }

      @Override
      public void truncate(long size) throws IOException {
        real.truncate(size);
      }

      @Override
      public long size() throws IOException {
        return real.size();
      }

      @Override
      public void close() throws IOException {
        real.close();
      }
    };
  }

  @Override
  public int read(Path file, long position, ByteBuffer into) throws IOException {
    return disk.read(file, position, into);
  }

  @Override
  public long size(Path file) throws IOException {
    return disk.size(file);
  }

  @Override
  public List<Path> list(Path directory, String glob) throws IOException {
    return disk.list(directory, glob);
  }

  @Override
  public void delete(Path file) throws IOException {
    disk.delete(file);
  }

  @Override
  public void writeAtomically(Path file, byte[] content) throws IOException {
    progressWrites.incrementAndGet();
    disk.writeAtomically(file, content);
  }

  @Override
  public byte[] readSmall(Path file, int maxBytes) throws IOException {
    return disk.readSmall(file, maxBytes);
  }

  @Override
  public void forceDirectory(Path directory) throws IOException {
    forcedDirectories.add(directory);
    if (failingDirectoryForces.get() > 0) {
      failingDirectoryForces.decrementAndGet();
      throw new IOException("Input/output error");
    }
    disk.forceDirectory(directory);
  }

  private static void pause(long millis) throws IOException {
    if (millis <= 0) {
      return;
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
