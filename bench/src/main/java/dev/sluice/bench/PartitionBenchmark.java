package dev.sluice.bench;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.PartKey;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.view.SpanView;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.util.Arrays;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What an exporter that routes by trace ID (Kafka's {@code partition_traces_by_id}, the
 * load-balancing exporter) pays to split one request of {@code spans} spans into {@value #PARTS}
 * requests, one per part, and write each out. Every span of {@link SpanShapes} has its own random
 * trace ID, so about three spans in four start a new run of their part: the worst case for slices.
 * Run with {@code -prof gc}.
 *
 * <ul>
 *   <li>{@code sluice}: {@link Batch#partitionInto} of a shared read-only batch of the indexed
 *       request into {@value #PARTS} reused batches, each marshaled into a reused context, then
 *       cleared.
 *   <li>{@code sluicePartitionOnly}: the split and the clearing, without the marshaling.
 *   <li>{@code protobufJava}: decode the request into protobuf-java objects, add each span to the
 *       builder of its part (a resource and scope block per part, as in the input), and encode each
 *       part into a reused array: what a collector that holds data as objects does.
 * </ul>
 *
 * Both write the same requests (see the bench tests).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class PartitionBenchmark {
  static final int PARTS = 4;

  @Param({"1000"})
  public int spans;

  byte[] request;
  Batch shared;
  Batch[] parts;
  MarshalContext[] contexts;
  PartKey byTraceId;

  byte[][] protobufOutputs;
  int[] protobufSizes;

  @Setup
  public void setup() throws MalformedOtlpException {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    shared = Batch.of(new OtlpIndexer().index(Signal.TRACES, request));
    parts = new Batch[PARTS];
    contexts = new MarshalContext[PARTS];
    protobufOutputs = new byte[PARTS][request.length + 1024];
    protobufSizes = new int[PARTS];
    for (int p = 0; p < PARTS; p++) {
      parts[p] = new Batch(Signal.TRACES);
      contexts[p] = new MarshalContext();
    }
    byTraceId =
        item -> {
          SpanView span = item.span();
          return partOf(span.traceIdHigh(), span.traceIdLow());
        };
  }

  @TearDown
  public void tearDown() {
    for (Batch part : parts) {
      part.clear();
    }
    shared.clear();
  }

  /** The part of a trace ID given as two big-endian halves. */
  static int partOf(long high, long low) {
    return Math.floorMod(Long.hashCode(high ^ low), PARTS);
  }

  @Benchmark
  public int sluice() {
    shared.partitionInto(parts, byTraceId);
    int bytes = 0;
    for (int p = 0; p < PARTS; p++) {
      bytes += OtlpMarshaler.marshal(parts[p], contexts[p]);
      parts[p].clear();
    }
    return bytes;
  }

  @Benchmark
  public long sluicePartitionOnly() {
    shared.partitionInto(parts, byTraceId);
    long slices = 0;
    for (Batch part : parts) {
      slices += part.sliceCount();
      part.clear();
    }
    return slices;
  }

  @Benchmark
  public int protobufJava() throws IOException {
    ExportTraceServiceRequest decoded = ExportTraceServiceRequest.parseFrom(request);
    ExportTraceServiceRequest.Builder[] requests = new ExportTraceServiceRequest.Builder[PARTS];
    for (int p = 0; p < PARTS; p++) {
      requests[p] = ExportTraceServiceRequest.newBuilder();
    }
    ScopeSpans.Builder[] scopes = new ScopeSpans.Builder[PARTS];
    for (ResourceSpans resource : decoded.getResourceSpansList()) {
      ResourceSpans.Builder[] resources = new ResourceSpans.Builder[PARTS];
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        Arrays.fill(scopes, null);
        for (Span span : scope.getSpansList()) {
          ByteString id = span.getTraceId();
          int p = partOf(bigEndianLong(id, 0), bigEndianLong(id, Long.BYTES));
          if (scopes[p] == null) {
            if (resources[p] == null) {
              resources[p] =
                  requests[p]
                      .addResourceSpansBuilder()
                      .setResource(resource.getResource())
                      .setSchemaUrl(resource.getSchemaUrl());
            }
            scopes[p] =
                resources[p]
                    .addScopeSpansBuilder()
                    .setScope(scope.getScope())
                    .setSchemaUrl(scope.getSchemaUrl());
          }
          scopes[p].addSpans(span);
        }
      }
    }
    int bytes = 0;
    for (int p = 0; p < PARTS; p++) {
      CodedOutputStream out = CodedOutputStream.newInstance(protobufOutputs[p]);
      requests[p].build().writeTo(out);
      protobufSizes[p] = out.getTotalBytesWritten();
      bytes += protobufSizes[p];
    }
    return bytes;
  }

  /** Eight bytes of an ID from {@code offset} as a big-endian long; 0 for an empty ID. */
  private static long bigEndianLong(ByteString id, int offset) {
    if (id.size() < offset + Long.BYTES) {
      return 0;
    }
    long value = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      value = (value << Byte.SIZE) | (id.byteAt(offset + i) & 0xFF);
    }
    return value;
  }

  // For tests: each part's output of the last operation of each kind.

  byte[] sluiceOutput(int part) {
    shared.partitionInto(parts, byTraceId);
    OtlpMarshaler.marshal(parts[part], contexts[part]);
    for (Batch batch : parts) {
      batch.clear();
    }
    return contexts[part].toByteArray();
  }

  byte[] protobufJavaOutput(int part) {
    return Arrays.copyOf(protobufOutputs[part], protobufSizes[part]);
  }
}
