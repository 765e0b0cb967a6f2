package dev.sluice.bench;

import dev.sluice.pdata.codec.ByteArrays;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.CompositeByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.PooledByteBufAllocator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Taking a received request out of the network buffers: the 1000-span request ({@link SpanShapes},
 * about 430 KB) held in pooled direct buffers of 16 KiB, as gRPC's HTTP/2 DATA frames leave it,
 * copied into the array that becomes the request's source.
 *
 * <ul>
 *   <li>{@code zeroedArray}: {@code new byte[n]}, which the JVM zeroes before the copy (the naive
 *       way).
 *   <li>{@code uninitializedArray}: {@link ByteArrays#forOverwrite}, as the receivers do, under the
 *       daemon's JVM flags.
 *   <li>{@code reusedArray}: the copy alone into one array kept between calls, the floor (a
 *       receiver cannot keep it: the array stays with the request until its batches are sent).
 * </ul>
 *
 * <p>The fork runs with {@code bin/jvm.options}' flags (a copy, which {@code DaemonFlagsTest} keeps
 * equal) and the export that the collector's jar asks for. Scores are in nanoseconds per span
 * ({@code @OperationsPerInvocation(1000)}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(ReceiveCopyBenchmark.SPANS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "-XX:+UseSerialGC",
      "-Xms64m",
      "-Xmn48m",
      "-Xmx256m",
      "-XX:TLABWasteTargetPercent=10",
      "-XX:TLABRefillWasteFraction=4",
      "-XX:+ExitOnOutOfMemoryError",
      "--add-exports",
      "java.base/jdk.internal.misc=ALL-UNNAMED"
    })
public class ReceiveCopyBenchmark {
  static final int SPANS = 1000;
  private static final int FRAME_BYTES = 16 * 1024;

  CompositeByteBuf received;
  byte[] reused;

  @Setup
  public void setup() {
    if (!ByteArrays.uninitializedAvailable()) {
      throw new IllegalStateException("the fork lacks --add-exports java.base/jdk.internal.misc");
    }
    byte[] request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, SPANS);
    received = PooledByteBufAllocator.DEFAULT.compositeDirectBuffer(Integer.MAX_VALUE);
    for (int at = 0; at < request.length; at += FRAME_BYTES) {
      int length = Math.min(FRAME_BYTES, request.length - at);
      ByteBuf frame = PooledByteBufAllocator.DEFAULT.directBuffer(length);
      frame.writeBytes(request, at, length);
      received.addComponent(true, frame);
    }
    reused = new byte[request.length];
  }

  @TearDown
  public void tearDown() {
    received.release();
  }

  @Benchmark
  public byte[] zeroedArray() {
    byte[] bytes = new byte[received.readableBytes()];
    received.getBytes(0, bytes);
    return bytes;
  }

  @Benchmark
  public byte[] uninitializedArray() {
    byte[] bytes = ByteArrays.forOverwrite(received.readableBytes());
    received.getBytes(0, bytes);
    return bytes;
  }

  @Benchmark
  public byte[] reusedArray() {
    received.getBytes(0, reused);
    return reused;
  }
}
