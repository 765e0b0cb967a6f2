package dev.sluice.bench;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
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
 * Reading a request on arrival: Sluice validates it completely (tags, wire types, lengths, UTF-8,
 * ID lengths, nesting) and indexes it without building objects; protobuf-java parses it into a
 * message tree (which also checks UTF-8 of strings). Divide the scores by {@code spans} for the
 * cost per span.
 *
 * <p>JMH hands the returned values to its Blackhole.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class IndexBenchmark {
  @Param({"16", "1000"})
  public int spans;

  byte[] request;
  OtlpIndexer indexer;

  @Setup
  public void setup() throws MalformedOtlpException {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    indexer = new OtlpIndexer();
    OtlpIndex index = indexer.index(Signal.TRACES, request);
    if (index.unitCount() != spans) {
      throw new IllegalStateException("indexed " + index.unitCount() + " spans of " + spans);
    }
    System.out.printf(
        "%nrequest: %d spans, %d bytes, %.1f bytes per span%n",
        spans, request.length, request.length / (double) spans);
  }

  @Benchmark
  public OtlpIndex sluice() throws MalformedOtlpException {
    return indexer.index(Signal.TRACES, request);
  }

  @Benchmark
  public ExportTraceServiceRequest protobufJava() throws InvalidProtocolBufferException {
    return ExportTraceServiceRequest.parseFrom(request);
  }
}
