package dev.sluice.bench;

import dev.sluice.wal.AppendCallback;
import dev.sluice.wal.WalOptions;
import dev.sluice.wal.WriteAheadLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the write-ahead log's append path costs per record: {@value #RECORDS} appends of a {@code
 * payloadBytes} request made at once (as a receiver's event loops do under load), then a wait for
 * the last answer. Run with {@code -prof gc}; B/op is per record.
 *
 * <ul>
 *   <li>{@code groupCommit}: {@link WriteAheadLog}: one writer thread writes every pending append
 *       as a group through one reused direct buffer and forces once per group.
 *   <li>{@code forceEach}: the naive log: a header and the payload written with a gathering {@code
 *       FileChannel.write} of wrapped arrays, and a force, for every record.
 * </ul>
 *
 * With {@code fsync=false} neither forces: that compares the write paths alone.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class WalAppendBenchmark {
  static final int RECORDS = 100;

  @Param({"1024"})
  public int payloadBytes;

  @Param({"true", "false"})
  public boolean fsync;

  private Path directory;
  private WriteAheadLog log;
  private byte[] payload;
  private final AtomicLong committed = new AtomicLong();
  private long appended;
  private AppendCallback callback;

  private FileChannel naive;
  private final CRC32C crc = new CRC32C();
  private long naiveSequence;

  @Setup(Level.Trial)
  public void setup() throws Exception {
    directory = Files.createTempDirectory("sluice-wal-bench");
    payload = new byte[payloadBytes];
    new java.util.Random(1).nextBytes(payload);
    WalOptions options =
        new WalOptions(
            directory.resolve("log"),
            fsync,
            1L << 30,
            64L << 20,
            0,
            4096,
            List.of("exporter"),
            (layout, routing, signal) -> routing);
    log = WriteAheadLog.open(options, (s, l, r, g, o, p) -> {}, (message, cause) -> {});
    callback =
        new AppendCallback() {
          @Override
          public void committed(long sequence) {
            log.done(0, sequence);
            committed.incrementAndGet();
          }

          @Override
          public void failed(String reason, boolean retryable) {
            throw new IllegalStateException(reason);
          }
        };
    naive =
        FileChannel.open(
            directory.resolve("naive.log"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    log.close();
    naive.close();
    try (var files = Files.walk(directory)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public long groupCommit() throws InterruptedException {
    for (int i = 0; i < RECORDS; i++) {
      while (log.append(payload, 0, payload.length, 0, 1, 1, callback) < 0) {
        Thread.onSpinWait();
      }
      appended++;
    }
    while (committed.get() < appended) {
      Thread.onSpinWait();
    }
    return appended;
  }

  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public long forceEach() throws IOException {
    for (int i = 0; i < RECORDS; i++) {
      ByteBuffer header = ByteBuffer.wrap(new byte[32]);
      crc.reset();
      crc.update(payload, 0, payload.length);
      header
          .putLong(8, naiveSequence++)
          .putInt(16, payload.length)
          .putInt(20, (int) crc.getValue());
      ByteBuffer[] record = {header, ByteBuffer.wrap(payload)};
      while (record[1].hasRemaining()) {
        naive.write(record);
      }
      if (fsync) {
        naive.force(false);
      }
    }
    return naiveSequence;
  }
}
