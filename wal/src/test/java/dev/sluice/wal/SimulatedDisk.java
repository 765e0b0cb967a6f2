package dev.sluice.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A disk in memory that loses what was not forced when the power goes ({@link #crash}): file
 * contents become durable at {@code force}, names (created, renamed, deleted) at {@code
 * forceDirectory}. At a crash each file keeps its durable bytes plus a random prefix of what was
 * written after them (a write the disk had partly done), and the directory keeps its durable names.
 * After a crash every operation of the old process fails until {@link #restart}.
 */
final class SimulatedDisk implements FileAccess {
  private static final class Content {
    byte[] live = new byte[0];
    int liveLength;
    byte[] durable = new byte[0];
    int durableLength;
  }

  private final Random random;
  private Map<String, Content> live = new HashMap<>();
  private Map<String, Content> durable = new HashMap<>();
  private boolean crashed;
  private boolean locked;

  SimulatedDisk(long seed) {
    this.random = new Random(seed);
  }

  /** The power goes: unforced bytes and names are lost, but for a random prefix of each tail. */
  synchronized void crash() {
    crashed = true;
    Map<String, Content> survivors = new HashMap<>();
    for (Map.Entry<String, Content> entry : durable.entrySet()) {
      Content content = entry.getValue();
      Content after = new Content();
      int kept = content.durableLength;
      boolean extendsDurable =
          content.liveLength >= content.durableLength
              && Arrays.equals(
                  content.live,
                  0,
                  content.durableLength,
                  content.durable,
                  0,
                  content.durableLength);
      if (extendsDurable && content.liveLength > content.durableLength && random.nextBoolean()) {
        kept += random.nextInt(content.liveLength - content.durableLength + 1);
      }
      byte[] source = extendsDurable ? content.live : content.durable;
      after.live = Arrays.copyOf(source, Math.max(kept, 1));
      after.liveLength = kept;
      after.durable = Arrays.copyOf(source, Math.max(kept, 1));
      after.durableLength = kept;
      survivors.put(entry.getKey(), after);
    }
    durable = survivors;
    live = new HashMap<>(survivors);
    locked = false;
  }

  /** A new process starts on what survived. */
  synchronized void restart() {
    crashed = false;
  }

  private void check() throws IOException {
    if (crashed) {
      throw new IOException("the process is gone");
    }
  }

  private static String key(Path file) {
    return file.toString();
  }

  private Content existing(Path file) throws IOException {
    Content content = live.get(key(file));
    if (content == null) {
      throw new java.nio.file.NoSuchFileException(file.toString());
    }
    return content;
  }

  @Override
  public synchronized void createDirectories(Path directory) throws IOException {
    check();
  }

  @Override
  public synchronized AutoCloseable lock(Path lockFile) throws IOException {
    check();
    if (locked) {
      throw new IOException(lockFile + " is locked");
    }
    locked = true;
    return () -> {
      synchronized (SimulatedDisk.this) {
        if (!crashed) {
          locked = false;
        }
      }
    };
  }

  @Override
  public synchronized SegmentFile openForAppend(Path file) throws IOException {
    check();
    Content content = live.computeIfAbsent(key(file), name -> new Content());
    return new SegmentFile() {
      @Override
      public void append(ByteBuffer buffer) throws IOException {
        synchronized (SimulatedDisk.this) {
          check();
          int length = buffer.remaining();
          if (content.liveLength + length > content.live.length) {
            content.live =
                Arrays.copyOf(
                    content.live, Math.max(content.liveLength + length, content.live.length * 2));
          }
          buffer.get(content.live, content.liveLength, length);
          content.liveLength += length;
        }
      }

      @Override
      public void force() throws IOException {
        synchronized (SimulatedDisk.this) {
          check();
          content.durable = Arrays.copyOf(content.live, Math.max(content.liveLength, 1));
          content.durableLength = content.liveLength;
        }
      }

      @Override
      public void truncate(long size) throws IOException {
        synchronized (SimulatedDisk.this) {
          check();
          content.liveLength = (int) Math.min(size, content.liveLength);
        }
      }

      @Override
      public long size() throws IOException {
        synchronized (SimulatedDisk.this) {
          check();
          return content.liveLength;
        }
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public synchronized int read(Path file, long position, ByteBuffer into) throws IOException {
    check();
    Content content = existing(file);
    int length = (int) Math.max(0, Math.min(into.remaining(), content.liveLength - position));
    into.put(content.live, (int) position, length);
    return length;
  }

  @Override
  public synchronized long size(Path file) throws IOException {
    check();
    return existing(file).liveLength;
  }

  @Override
  public synchronized List<Path> list(Path directory, String glob) throws IOException {
    check();
    PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob);
    List<Path> files = new ArrayList<>();
    for (String name : live.keySet()) {
      Path file = Path.of(name);
      if (directory.equals(file.getParent()) && matcher.matches(file.getFileName())) {
        files.add(file);
      }
    }
    return files;
  }

  @Override
  public synchronized void delete(Path file) throws IOException {
    check();
    live.remove(key(file));
  }

  @Override
  public synchronized void writeAtomically(Path file, byte[] content) throws IOException {
    check();
    Content written = new Content();
    written.live = content.clone();
    written.liveLength = content.length;
    written.durable = content.clone();
    written.durableLength = content.length;
    live.put(key(file), written);
    forceDirectory(file.getParent());
  }

  @Override
  public synchronized byte[] readSmall(Path file, int maxBytes) throws IOException {
    check();
    Content content = live.get(key(file));
    return content == null ? null : Arrays.copyOf(content.live, content.liveLength);
  }

  @Override
  public synchronized void forceDirectory(Path directory) throws IOException {
    check();
    durable = new HashMap<>(live);
  }
}
