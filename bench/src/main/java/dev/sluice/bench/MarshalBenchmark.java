package dev.sluice.bench;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.bench.SpanShapes.HttpServerSpan;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.exporter.internal.otlp.traces.LowAllocationTraceRequestMarshaler;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.util.List;
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
 * Writing a batch out as an {@code ExportTraceServiceRequest}. Run with {@code -prof gc}: the
 * allocation per operation ({@code gc.alloc.rate.norm}) matters as much as the time.
 *
 * <ul>
 *   <li>{@code sluice}: {@link OtlpMarshaler#marshal} of a {@link Batch} of the indexed request,
 *       into a reused {@link MarshalContext}.
 *   <li>{@code protobufJava}: what a collector that decodes requests into objects does to forward
 *       one: parse the received bytes, then write the message into a reused array.
 *   <li>{@code protobufJavaWriteOnly}: the writing half alone, from an already parsed message. A
 *       lower bound for protobuf-java: the message memoizes its sizes after the first write, so
 *       later writes skip the sizing that a fresh message would pay.
 *   <li>{@code otelJava}: opentelemetry-java's exporter path, {@link
 *       LowAllocationTraceRequestMarshaler} over the same spans as {@link SpanData}, reused, into a
 *       reused output stream.
 * </ul>
 *
 * All four produce the same bytes (see the bench tests). JMH hands the returned values to its
 * Blackhole.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class MarshalBenchmark {
  @Param({"16", "1000"})
  public int spans;

  byte[] request;
  Batch batch;
  MarshalContext context;

  ExportTraceServiceRequest parsed;
  byte[] protobufOutput;

  List<SpanData> spanData;
  LowAllocationTraceRequestMarshaler otelMarshaler;
  ReusableOutputStream otelOutput;

  @Setup
  public void setup() throws MalformedOtlpException, IOException {
    List<HttpServerSpan> shapes = SpanShapes.spans(SpanShapes.DEFAULT_SEED, spans);
    request = SpanShapes.toRequest(shapes).toByteArray();

    batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request));
    context = new MarshalContext();

    parsed = ExportTraceServiceRequest.parseFrom(request);
    protobufOutput = new byte[request.length];

    spanData = OtelSpanData.toSpanData(shapes);
    otelMarshaler = new LowAllocationTraceRequestMarshaler();
    otelOutput = new ReusableOutputStream(request.length);
  }

  @Benchmark
  public int sluice() {
    return OtlpMarshaler.marshal(batch, context);
  }

  @Benchmark
  public int protobufJava() throws IOException {
    ExportTraceServiceRequest message = ExportTraceServiceRequest.parseFrom(request);
    CodedOutputStream out = CodedOutputStream.newInstance(protobufOutput);
    message.writeTo(out);
    return out.getTotalBytesWritten();
  }

  @Benchmark
  public int protobufJavaWriteOnly() throws IOException {
    CodedOutputStream out = CodedOutputStream.newInstance(protobufOutput);
    parsed.writeTo(out);
    return out.getTotalBytesWritten();
  }

  @Benchmark
  public int otelJava() throws IOException {
    otelMarshaler.initialize(spanData);
    try {
      otelOutput.reset();
      int size = otelMarshaler.getBinarySerializedSize(); // the exporter's Content-Length
      otelMarshaler.writeBinaryTo(otelOutput);
      return size + otelOutput.size();
    } finally {
      otelMarshaler.reset();
    }
  }

  // For tests: the output of the last operation of each kind.

  byte[] sluiceOutput() {
    return context.toByteArray();
  }

  byte[] protobufJavaOutput() {
    return protobufOutput.clone();
  }

  byte[] otelJavaOutput() {
    return otelOutput.toByteArray();
  }
}
