package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.bench.load.RequestShapes;
import dev.sluice.exporter.prometheusremotewrite.testkit.NaiveRemoteWrite;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.prometheus.TranslationStrategy;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What turning a 1000-point metrics request into a remote-write 1.0 body costs, before snappy and
 * HTTP (which both paths would share): {@link RequestShapes#metrics} gauges, counters and
 * histograms of 10 bounds, under the resource every benchmark uses. Run with {@code -prof gc}. In
 * the exporter's package, since the encoder is its own.
 *
 * <ul>
 *   <li>{@code sluice}: the exporter's encoder over a {@link Batch} of the indexed request: points
 *       read through the views, labels built in reused buffers, series found by hashing their label
 *       bytes, the request written straight into protobuf.
 *   <li>{@code protobufJava}: the Collector's way ({@link NaiveRemoteWrite}): decode the request
 *       with protobuf-java, build labels in maps, group samples by label list, build the {@code
 *       WriteRequest} with protobuf-java and serialize it.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RemoteWriteBenchmark {
  /** Metrics of {@link #POINTS} points each: 1000 data points, a third of them histograms. */
  static final int METRICS = 200;

  static final int POINTS = 5;

  @Param({"1000"})
  public int points;

  byte[] request;
  OtlpIndex index;
  RemoteWriteEncoder encoder;
  NaiveRemoteWrite naive;

  @Setup
  public void setup() throws MalformedOtlpException {
    request = RequestShapes.metrics(points / POINTS, POINTS, 42).toByteArray();
    index = new OtlpIndexer().index(Signal.METRICS, request);
    encoder = new RemoteWriteEncoder(settings(), 3_000_000, false);
    naive =
        new NaiveRemoteWrite(
            "", TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES, Map.of(), true, true);
  }

  static TranslationSettings settings() {
    return new TranslationSettings(
        "",
        TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES,
        Map.of(),
        true,
        true,
        ResourceAttributes.NONE);
  }

  /** Bytes of remote-write requests written. */
  @Benchmark
  public int sluice() {
    Batch batch = Batch.of(index);
    encoder.encode(batch);
    int bytes = 0;
    while (encoder.nextRequest()) {
      bytes += encoder.request().size;
    }
    encoder.release();
    batch.clear();
    return bytes;
  }

  @Benchmark
  public int protobufJava() throws Exception {
    return naive.translate(request).toByteArray().length;
  }
}
