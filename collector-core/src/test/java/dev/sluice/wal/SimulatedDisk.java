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
 *
 * <p>With an alignment above 1 its segment files act as files opened with {@code O_DIRECT}: a write
 * the log's writer makes must start and end on a block boundary, from a direct buffer.
 */
final class SimulatedDisk implements FileAccess {
  private static final class Content {
    byte[] live = new byte[0];
    int liveLength;
    byte[] durable = new byte[0];
    int durableLength;
  }

  private final Random random;
  private final int alignmentBytes;
  private Map<String, Content> live = new HashMap<>();
  private Map<String, Content> durable = new HashMap<>();
  private boolean crashed;
  private boolean locked;
  // What the files may hold in all: a write that would grow them past it fails with ENOSPC.
  private long capacityBytes = Long.MAX_VALUE;

  SimulatedDisk(long seed) {
    this(seed, 1);
  }

  SimulatedDisk(long seed, int alignmentBytes) {
    this.random = new Random(seed);
    this.alignmentBytes = alignmentBytes;
  }

  /**
   * The power goes: unforced bytes and names are lost, but for a random prefix of what was written
   * since the last force (writes are sequential: appends, or a reused file overwritten from its
   * start).
   */
  synchronized void crash() {
    crashed = true;
    Map<String, Content> survivors = new HashMap<>();
    for (Map.Entry<String, Content> entry : durable.entrySet()) {
      Content content = entry.getValue();
      Content after = new Content();
      // Where the unforced writes begin: the first byte the live file differs from the durable one.
      int common = Math.min(content.liveLength, content.durableLength);
      int from = Arrays.mismatch(content.live, 0, common, content.durable, 0, common);
      from = from < 0 ? common : from;
      int kept = content.durableLength;
      byte[] bytes = Arrays.copyOf(content.durable, Math.max(content.durableLength, 1));
      if (content.liveLength > from && random.nextBoolean()) {
        int reached = random.nextInt(content.liveLength - from + 1);
        kept = Math.max(kept, from + reached);
        bytes = Arrays.copyOf(bytes, Math.max(kept, 1));
        System.arraycopy(content.live, from, bytes, from, reached);
      }
      after.live = bytes.clone();
      after.liveLength = kept;
      after.durable = bytes;
      after.durableLength = kept;
      survivors.put(entry.getKey(), after);
    }
    durable = survivors;
    live = new HashMap<>(survivors);
    locked = false;
  }

  /** A disk of {@code bytes}: from now on, writes that would grow the files past it fail. */
  synchronized void capacity(long bytes) {
    capacityBytes = bytes;
  }

  /** What the files hold in all. */
  synchronized long usedBytes() {
    long used = 0;
    for (Content content : live.values()) {
      used += content.liveLength;
    }
    return used;
  }

  private void claim(long growthBytes) throws IOException {
    if (growthBytes > 0 && usedBytes() + growthBytes > capacityBytes) {
      throw new IOException("No space left on device");
    }
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
  public synchronized boolean exists(Path path) throws IOException {
    check();
    // Directories are not simulated: every one exists.
    return true;
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
    return new Handle(content, content.liveLength);
  }

  @Override
  public synchronized SegmentFile reuse(Path spare, Path file) throws IOException {
    rename(spare, file);
    return new Handle(existing(file), 0);
  }

  @Override
  public synchronized void rename(Path from, Path to) throws IOException {
    check();
    Content content = existing(from);
    live.remove(key(from));
    live.put(key(to), content);
  }

  /** An open file: writes go where the last one ended. */
  private final class Handle implements SegmentFile {
    private final Content content;
    private int position;

    Handle(Content content, int position) {
      this.content = content;
      this.position = position;
    }

    @Override
    public void append(ByteBuffer buffer) throws IOException {
      synchronized (SimulatedDisk.this) {
        check();
        int length = buffer.remaining();
        claim((long) position + length - content.liveLength);
        if (position + length > content.live.length) {
          content.live =
              Arrays.copyOf(content.live, Math.max(position + length, content.live.length * 2));
        }
        buffer.get(content.live, position, length);
        position += length;
        content.liveLength = Math.max(content.liveLength, position);
      }
    }

    @Override
    public void write(ByteBuffer buffer, long at) throws IOException {
      if (alignmentBytes > 1
          && (at % alignmentBytes != 0
              || buffer.remaining() % alignmentBytes != 0
              || !buffer.isDirect())) {
        throw new IllegalArgumentException(
            "a direct write of "
                + buffer.remaining()
                + " bytes at "
                + at
                + " is not aligned to "
                + alignmentBytes);
      }
      synchronized (SimulatedDisk.this) {
        position = (int) at;
        append(buffer);
      }
    }

    @Override
    public int alignmentBytes() {
      return alignmentBytes;
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
        position = (int) size;
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
    // The new content is written beside the old before it replaces it.
    claim(content.length);
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
