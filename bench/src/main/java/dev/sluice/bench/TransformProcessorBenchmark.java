package dev.sluice.bench;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.ottl.ErrorMode;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.processor.transform.TransformConfig;
import dev.sluice.processor.transform.TransformProcessorFactory;
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
 * What a {@code transform} processor costs: mark the health checks ({@value #STATEMENT}; about one
 * span in six of {@link SpanShapes}' routes matches) in a request and write it out. Run with {@code
 * -prof gc}.
 *
 * <ul>
 *   <li>{@code sluice}: a {@link Batch} of the indexed request, the transform processor's function
 *       (the where clause evaluated over the item views; a matching span re-encoded as its bytes
 *       plus the new attribute), then {@link OtlpMarshaler#marshal} into a reused context; the
 *       batch is cleared at the end.
 *   <li>{@code protobufJava}: decode the request into protobuf-java objects, set the attribute on
 *       the matching spans through the builders, and encode the result into a reused array.
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
public class TransformProcessorBenchmark {
  static final String ROUTE_KEY = "http.route";
  static final String HEALTH_ROUTE = "/health";
  static final String KEY = "x";
  static final String VALUE = "y";
  static final String STATEMENT =
      "set(attributes[\"x\"], \"y\") where attributes[\"http.route\"] == \"/health\"";

  @Param({"1000"})
  public int spans;

  byte[] request;
  OtlpIndex index;
  MarshalContext context;
  TransformConfig config;
  BatchFunction<TransformConfig> transform;

  byte[] protobufOutput;
  int protobufSize;

  @Setup
  public void setup() throws MalformedOtlpException {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    index = new OtlpIndexer().index(Signal.TRACES, request);
    context = new MarshalContext();
    config =
        new TransformConfig(
            ErrorMode.PROPAGATE,
            List.of(java.util.Map.of("context", "span", "statements", List.of(STATEMENT))),
            List.of(),
            List.of());
    ComponentSettings settings =
        new ComponentSettings(
            ComponentId.parse("transform"), ComponentKind.PROCESSOR, new MetricRegistry());
    transform = new TransformProcessorFactory().createFunction(settings, config, Signal.TRACES);
    protobufOutput = new byte[2 * request.length];
  }

  @Benchmark
  public int sluice() {
    Batch batch = Batch.of(index);
    try {
      transform.apply(batch, config);
      return OtlpMarshaler.marshal(batch, context);
    } finally {
      batch.clear();
    }
  }

  @Benchmark
  public int protobufJava() throws IOException {
    ExportTraceServiceRequest.Builder builder =
        ExportTraceServiceRequest.parseFrom(request).toBuilder();
    KeyValue marker =
        KeyValue.newBuilder()
            .setKey(KEY)
            .setValue(AnyValue.newBuilder().setStringValue(VALUE))
            .build();
    for (ResourceSpans.Builder resource : builder.getResourceSpansBuilderList()) {
      for (ScopeSpans.Builder scope : resource.getScopeSpansBuilderList()) {
        for (int i = 0; i < scope.getSpansCount(); i++) {
          if (isHealthCheck(scope.getSpans(i))) {
            put(scope.getSpansBuilder(i), marker);
          }
        }
      }
    }
    CodedOutputStream out = CodedOutputStream.newInstance(protobufOutput);
    builder.build().writeTo(out);
    protobufSize = out.getTotalBytesWritten();
    return protobufSize;
  }

  private static boolean isHealthCheck(Span span) {
    for (KeyValue attribute : span.getAttributesList()) {
      if (attribute.getKey().equals(ROUTE_KEY)) {
        return attribute.getValue().getStringValue().equals(HEALTH_ROUTE);
      }
    }
    return false;
  }

  /** As pdata's map put: the existing key's value replaced in place, or the entry appended. */
  private static void put(Span.Builder span, KeyValue entry) {
    for (int i = 0; i < span.getAttributesCount(); i++) {
      if (span.getAttributes(i).getKey().equals(entry.getKey())) {
        span.setAttributes(i, entry);
        return;
      }
    }
    span.addAttributes(entry);
  }

  // For tests: the output of the last operation of each kind.

  byte[] sluiceOutput() {
    return context.toByteArray();
  }

  byte[] protobufJavaOutput() {
    return java.util.Arrays.copyOf(protobufOutput, protobufSize);
  }
}
