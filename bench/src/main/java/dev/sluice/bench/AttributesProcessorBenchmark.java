package dev.sluice.bench;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.attributeactions.ActionConfig;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.processor.attributes.AttributesConfig;
import dev.sluice.processor.attributes.AttributesProcessorFactory;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
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
 * What the {@code attributes} processor costs on {@link SpanShapes} spans: upsert one attribute
 * ({@value #KEY}) and delete another ({@value #DELETED}) in every span, then write the request out.
 * Run with {@code -prof gc}.
 *
 * <ul>
 *   <li>{@code sluice}: the processor's function as the factory makes it from its configuration,
 *       over a {@link Batch} of the indexed request, then {@link OtlpMarshaler#marshal} into a
 *       reused context; the batch is cleared at the end, which frees its replacement bytes.
 *   <li>{@code protobufJava}: decode into protobuf-java objects, make both changes through each
 *       span's builder, encode into a reused array.
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
public class AttributesProcessorBenchmark {
  static final String KEY = "deployment.environment";
  static final String VALUE = "production";
  static final String DELETED = "user_agent.original";

  @Param({"1000"})
  public int spans;

  byte[] request;
  OtlpIndex index;
  MarshalContext context;
  AttributesConfig config;
  BatchFunction<AttributesConfig> function;

  byte[] protobufOutput;
  int protobufSize;
  KeyValue attribute;

  @Setup
  public void setup() throws MalformedOtlpException {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    index = new OtlpIndexer().index(Signal.TRACES, request);
    context = new MarshalContext();
    config =
        new AttributesConfig(
            List.of(
                new ActionConfig(KEY, VALUE, null, null, "upsert", null, null),
                new ActionConfig(DELETED, null, null, null, "delete", null, null)),
            null,
            null);
    ComponentSettings settings =
        new ComponentSettings(
            ComponentId.parse("attributes"), ComponentKind.PROCESSOR, new MetricRegistry());
    function = new AttributesProcessorFactory().createFunction(settings, config, Signal.TRACES);
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
      function.apply(batch, config);
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
          edit(span);
        }
      }
    }
    CodedOutputStream out = CodedOutputStream.newInstance(protobufOutput);
    builder.build().writeTo(out);
    protobufSize = out.getTotalBytesWritten();
    return protobufSize;
  }

  private void edit(Span.Builder span) {
    boolean upserted = false;
    for (int i = 0; i < span.getAttributesCount(); i++) {
      if (span.getAttributes(i).getKey().equals(KEY)) {
        span.setAttributes(i, attribute);
        upserted = true;
        break;
      }
    }
    if (!upserted) {
      span.addAttributes(attribute);
    }
    for (int i = span.getAttributesCount() - 1; i >= 0; i--) {
      if (span.getAttributes(i).getKey().equals(DELETED)) {
        span.removeAttributes(i);
      }
    }
  }

  // For tests: the output of the last operation of each kind.

  byte[] sluiceOutput() {
    return context.toByteArray();
  }

  byte[] protobufJavaOutput() {
    return java.util.Arrays.copyOf(protobufOutput, protobufSize);
  }
}
