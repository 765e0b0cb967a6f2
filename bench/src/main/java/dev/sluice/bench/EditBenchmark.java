package dev.sluice.bench;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
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
 * What an {@code attributes} processor costs: upsert one attribute ({@value #KEY}) in every span of
 * a request and write the request out. Run with {@code -prof gc}.
 *
 * <ul>
 *   <li>{@code sluice}: a {@link Batch} of the indexed request, {@link Batch#visit} applying an
 *       {@code upsert} {@link AttributeActions} list through the typed span editor (each span
 *       re-encoded as its original bytes plus the new attribute, by the rewrite engine's one pass
 *       for constant sets), then {@link OtlpMarshaler#marshal} into a reused context; the batch is
 *       cleared at the end, which frees its replacement bytes.
 *   <li>{@code sluiceSpanEditor}: the same, each span changed through the typed editor's {@code
 *       putAttribute} ({@link dev.sluice.pdata.BatchItem#editSpan()}), which writes the span
 *       through the rewrite engine's general pass.
 *   <li>{@code protobufJava}: decode the request into protobuf-java objects, upsert the attribute
 *       in each span through its builder, and encode the result into a reused array: what a
 *       collector that holds data as objects does (see {@code naive.NaiveProtobufProcessor} for the
 *       same round trip inside a pipeline).
 * </ul>
 *
 * All produce the same request (see the bench tests).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class EditBenchmark {
  static final String KEY = "deployment.environment";
  static final String VALUE = "production";

  @Param({"1000"})
  public int spans;

  byte[] request;
  OtlpIndex index;
  MarshalContext context;
  ItemVisitor upsert;
  ItemVisitor put;

  byte[] protobufOutput;
  int protobufSize;
  KeyValue attribute;

  @Setup
  public void setup() throws MalformedOtlpException {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    index = new OtlpIndexer().index(Signal.TRACES, request);
    context = new MarshalContext();
    AttributeActions actions =
        AttributeActions.builder().upsert(KEY, AttributeValue.string(VALUE)).build();
    upsert = item -> item.editSpan().apply(actions);
    put = item -> item.editSpan().putAttribute(KEY, VALUE);
    protobufOutput = new byte[2 * request.length];
    attribute =
        KeyValue.newBuilder()
            .setKey(KEY)
            .setValue(AnyValue.newBuilder().setStringValue(VALUE))
            .build();
  }

  @Benchmark
  public int sluice() {
    Batch batch = Batch.of(index);
    try {
      batch.visit(upsert);
      return OtlpMarshaler.marshal(batch, context);
    } finally {
      batch.clear();
    }
  }

  @Benchmark
  public int sluiceSpanEditor() {
    Batch batch = Batch.of(index);
    try {
      batch.visit(put);
      return OtlpMarshaler.marshal(batch, context);
    } finally {
      batch.clear();
    }
  }

  @Benchmark
  public int protobufJava() throws IOException {
    ExportTraceServiceRequest.Builder builder =
        ExportTraceServiceRequest.parseFrom(request).toBuilder();
    for (ResourceSpans.Builder resource : builder.getResourceSpansBuilderList()) {
      for (ScopeSpans.Builder scope : resource.getScopeSpansBuilderList()) {
        for (Span.Builder span : scope.getSpansBuilderList()) {
          upsert(span);
        }
      }
    }
    CodedOutputStream out = CodedOutputStream.newInstance(protobufOutput);
    builder.build().writeTo(out);
    protobufSize = out.getTotalBytesWritten();
    return protobufSize;
  }

  private void upsert(Span.Builder span) {
    for (int i = 0; i < span.getAttributesCount(); i++) {
      if (span.getAttributes(i).getKey().equals(KEY)) {
        span.setAttributes(i, attribute);
        return;
      }
    }
    span.addAttributes(attribute);
  }

  // For tests: the output of the last operation of each kind.

  byte[] sluiceOutput() {
    return context.toByteArray();
  }

  byte[] protobufJavaOutput() {
    return java.util.Arrays.copyOf(protobufOutput, protobufSize);
  }
}
