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
import dev.sluice.processor.filter.FilterConfig;
import dev.sluice.processor.filter.FilterProcessorFactory;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
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
 * What a {@code filter} processor costs: drop the health checks ({@value #CONDITION}, about one
 * span in six of {@link SpanShapes}' routes) from a request and write the rest out. Run with {@code
 * -prof gc}.
 *
 * <ul>
 *   <li>{@code sluice}: a {@link Batch} of the indexed request, the filter processor's function
 *       (the compiled condition evaluated over the item views, matching spans dropped as ranges),
 *       then {@link OtlpMarshaler#marshal} into a reused context; the batch is cleared at the end.
 *   <li>{@code protobufJava}: decode the request into protobuf-java objects, remove the spans whose
 *       {@code http.route} attribute is {@code /health} through the builders, and encode the result
 *       into a reused array: what a collector that holds data as objects does.
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
public class FilterProcessorBenchmark {
  static final String ROUTE_KEY = "http.route";
  static final String HEALTH_ROUTE = "/health";
  static final String CONDITION = "attributes[\"http.route\"] == \"/health\"";

  @Param({"1000"})
  public int spans;

  byte[] request;
  OtlpIndex index;
  MarshalContext context;
  FilterConfig config;
  BatchFunction<FilterConfig> filter;

  byte[] protobufOutput;
  int protobufSize;

  @Setup
  public void setup() throws MalformedOtlpException {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    index = new OtlpIndexer().index(Signal.TRACES, request);
    context = new MarshalContext();
    config =
        new FilterConfig(
            ErrorMode.PROPAGATE,
            new FilterConfig.Traces(List.of(CONDITION), List.of()),
            FilterConfig.DEFAULT.metrics(),
            FilterConfig.DEFAULT.logs(),
            null);
    ComponentSettings settings =
        new ComponentSettings(
            ComponentId.parse("filter"), ComponentKind.PROCESSOR, new MetricRegistry());
    filter = new FilterProcessorFactory().createFunction(settings, config, Signal.TRACES);
    protobufOutput = new byte[2 * request.length];
  }

  @Benchmark
  public int sluice() {
    Batch batch = Batch.of(index);
    try {
      filter.apply(batch, config);
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
        for (int i = scope.getSpansCount() - 1; i >= 0; i--) {
          if (isHealthCheck(scope.getSpans(i))) {
            scope.removeSpans(i);
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

  // For tests: the output of the last operation of each kind.

  byte[] sluiceOutput() {
    return context.toByteArray();
  }

  byte[] protobufJavaOutput() {
    return java.util.Arrays.copyOf(protobufOutput, protobufSize);
  }
}
