package dev.sluice.bench;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.processor.probabilisticsampler.ProbabilisticSamplerConfig;
import dev.sluice.processor.probabilisticsampler.ProbabilisticSamplerProcessorFactory;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
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
 * What a {@code probabilistic_sampler} costs: keep 25 % of a request's spans by the hash of their
 * trace IDs ({@code hash_seed} mode, the Collector's default), mark each kept span's tracestate
 * {@code ot=rv:...;th:c}, and write the request out. Run with {@code -prof gc}.
 *
 * <ul>
 *   <li>{@code sluice}: the processor itself (its factory's pipeline stage) over a {@link Batch} of
 *       the indexed request; the next stage marshals into a reused context and clears the batch.
 *   <li>{@code protobufJava}: decode the request into protobuf-java objects, remove the spans not
 *       sampled and set the tracestate of the others through their builders (the same FNV-1a hash
 *       and bucket rule), and encode the result into a reused array.
 * </ul>
 *
 * Both produce the same request (see the bench tests).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ProbabilisticSamplerBenchmark {
  static final float PERCENT = 25;
  static final int SEED = 0;

  private static final int BUCKETS = 1 << 14;
  private static final int FNV_OFFSET_BASIS = 0x811c9dc5;
  private static final int FNV_PRIME = 0x01000193;
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  @Param({"1000"})
  public int spans;

  byte[] request;
  OtlpIndex index;
  MarshalContext context;
  Processor sampler;
  int sluiceSize;

  byte[] protobufOutput;
  int protobufSize;
  long acceptedBuckets;
  String thresholdSuffix;

  @Setup
  public void setup() throws MalformedOtlpException {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    index = new OtlpIndexer().index(Signal.TRACES, request);
    context = new MarshalContext();
    ProbabilisticSamplerConfig config =
        new ProbabilisticSamplerConfig(PERCENT, SEED, "", true, 4, "traceID", "", "");
    sampler =
        new ProbabilisticSamplerProcessorFactory()
            .create(
                new ComponentSettings(
                    ComponentId.parse("probabilistic_sampler"),
                    ComponentKind.PROCESSOR,
                    new MetricRegistry()),
                config,
                Signal.TRACES,
                batch -> {
                  sluiceSize = OtlpMarshaler.marshal(batch, context);
                  batch.clear();
                  return Admission.ACCEPTED;
                });
    protobufOutput = new byte[2 * request.length];
    acceptedBuckets = (long) (PERCENT * (BUCKETS / 100.0f));
    thresholdSuffix = ";th:c"; // 25 %: 12288 of 16384 buckets rejected, 0x3000 << 42
  }

  @Benchmark
  public int sluice() {
    Batch batch = Batch.of(index);
    sampler.consume(batch);
    batch.clear();
    return sluiceSize;
  }

  @Benchmark
  public int protobufJava() throws IOException {
    ExportTraceServiceRequest.Builder builder =
        ExportTraceServiceRequest.parseFrom(request).toBuilder();
    for (ResourceSpans.Builder resource : builder.getResourceSpansBuilderList()) {
      for (ScopeSpans.Builder scope : resource.getScopeSpansBuilderList()) {
        for (int i = scope.getSpansCount() - 1; i >= 0; i--) {
          Span.Builder span = scope.getSpansBuilder(i);
          int hash = hash(span.getTraceId().toByteArray());
          long bucket = hash & (BUCKETS - 1);
          if (bucket >= acceptedBuckets) {
            scope.removeSpans(i);
          } else {
            span.setTraceState("ot=rv:" + randomnessHex(hash, bucket) + thresholdSuffix);
          }
        }
      }
    }
    // SpanShapes requests have one resource and one scope, which keep spans at 25 %; a request
    // whose blocks emptied would need them removed as well (the Collector removes them).
    CodedOutputStream out = CodedOutputStream.newInstance(protobufOutput);
    builder.build().writeTo(out);
    protobufSize = out.getTotalBytesWritten();
    return protobufSize;
  }

  private static int hash(byte[] traceId) {
    int hash = FNV_OFFSET_BASIS;
    for (int i = 0; i < Integer.BYTES; i++) {
      hash = (hash ^ ((SEED >>> (8 * i)) & 0xFF)) * FNV_PRIME;
    }
    for (byte b : traceId) {
      hash = (hash ^ (b & 0xFF)) * FNV_PRIME;
    }
    return hash;
  }

  /** The Collector's 56-bit randomness from the hash, as 14 hex digits. */
  private static String randomnessHex(int hash, long bucket) {
    long high = (hash & 0xFFFFFFFFL) >>> 18;
    long randomness = ((BUCKETS - 1 - bucket) << 42) | ((high ^ (high << 10)) << 14) | bucket;
    char[] digits = new char[14];
    for (int i = 13; i >= 0; i--) {
      digits[i] = HEX[(int) (randomness & 0xF)];
      randomness >>>= 4;
    }
    return new String(digits);
  }

  // For tests: the output of the last operation of each kind.

  byte[] sluiceOutput() {
    return context.toByteArray();
  }

  byte[] protobufJavaOutput() {
    return java.util.Arrays.copyOf(protobufOutput, protobufSize);
  }
}
