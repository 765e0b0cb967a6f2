package dev.sluice.bench;

import dev.sluice.grpc.ZstdCodec;
import io.grpc.Codec;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * What compression alone costs per span, to set the OTLP exporter's cost against: the marshaled
 * 1000-span request ({@link SpanShapes}, about 430 KB) compressed as Sluice's gRPC exporter has it
 * compressed.
 *
 * <ul>
 *   <li>{@code gzip}: grpc-java's own {@link Codec.Gzip}, a {@code GZIPOutputStream} with the JDK's
 *       default level (6), as used for {@code compression: gzip}.
 *   <li>{@code gzipDeflaterReused}: the same level with one {@link Deflater} kept between requests
 *       (what a codec could save by not making a new one per message).
 *   <li>{@code zstd}: Sluice's {@link ZstdCodec} (zstd-jni, level 1), as used for {@code
 *       compression: zstd}.
 * </ul>
 *
 * <p>Scores are in nanoseconds per span ({@code @OperationsPerInvocation(1000)}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(GzipBenchmark.SPANS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class GzipBenchmark {
  static final int SPANS = 1000;

  byte[] request;
  ReusableOutputStream out;
  Deflater deflater;
  byte[] deflateBuffer;
  Codec gzip;

  @Setup
  public void setup() throws IOException {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, SPANS);
    out = new ReusableOutputStream(request.length);
    deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    deflateBuffer = new byte[64 * 1024];
    gzip = new Codec.Gzip();
    System.out.printf(
        "%nrequest: %d spans, %d bytes; gzip %d bytes, zstd %d bytes%n",
        SPANS, request.length, gzip(), zstd());
  }

  @Benchmark
  public int gzip() throws IOException {
    out.reset();
    try (OutputStream compressing = gzip.compress(out)) {
      compressing.write(request);
    }
    return out.size();
  }

  @Benchmark
  public int gzipDeflaterReused() {
    out.reset();
    deflater.reset();
    deflater.setInput(request);
    deflater.finish();
    while (!deflater.finished()) {
      int n = deflater.deflate(deflateBuffer);
      out.write(deflateBuffer, 0, n);
    }
    return out.size();
  }

  @Benchmark
  public int zstd() throws IOException {
    out.reset();
    try (OutputStream compressing = ZstdCodec.INSTANCE.compress(out)) {
      compressing.write(request);
    }
    return out.size();
  }
}
