package dev.sluice.bench;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.ResourceView;
import dev.sluice.pdata.view.ScopeView;
import dev.sluice.pdata.view.SpanView;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
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
 * Reading fields of a request, as a filter or a router does: every attribute of every span is
 * visited, its key compared with {@code http.route} and its value read by type. Sluice reads them
 * through {@link BatchView} over the indexed bytes ({@code views}: on an already indexed request;
 * {@code indexAndViews}: index the bytes first); protobuf-java parses the request into a message
 * tree first ({@code protobufJava}), or visits a tree parsed beforehand ({@code
 * protobufJavaVisitOnly}). Divide the scores by {@code spans} for the cost per span; run with
 * {@code -prof gc} for the bytes allocated.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ViewBenchmark {
  private static final String ROUTE_KEY = "http.route";
  private static final byte[] ROUTE_KEY_UTF8 = ROUTE_KEY.getBytes(StandardCharsets.UTF_8);

  @Param({"1000"})
  public int spans;

  byte[] request;
  OtlpIndexer indexer;
  Batch indexed;
  ExportTraceServiceRequest parsed;
  final BatchView views = new BatchView();
  final AttributeVisitor visitor = new AttributeVisitor();

  /** Reads every span attribute through the views; keeps a sum so nothing is dead code. */
  static final class AttributeVisitor implements BatchView.SpanVisitor {
    final AttributeCursor attributes = new AttributeCursor();
    long sum;

    @Override
    public void visit(ResourceView resource, ScopeView scope, SpanView span) {
      span.attributes(attributes);
      while (attributes.next()) {
        AnyValueView value = attributes.value();
        if (attributes.keyEquals(ROUTE_KEY_UTF8)) {
          sum++;
        }
        switch (value.type()) {
          case STRING:
            sum += value.stringValue().length();
            break;
          case INT:
            sum += value.intValue();
            break;
          case DOUBLE:
            sum += (long) value.doubleValue();
            break;
          case BOOL:
            sum += value.boolValue() ? 1 : 0;
            break;
          default:
            break;
        }
      }
    }
  }

  @Setup
  public void setup() throws MalformedOtlpException, InvalidProtocolBufferException {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    indexer = new OtlpIndexer();
    indexed = Batch.of(indexer.index(Signal.TRACES, request));
    parsed = ExportTraceServiceRequest.parseFrom(request);
    long ours = views();
    long theirs = visit(parsed);
    if (ours != theirs) {
      throw new IllegalStateException("views read " + ours + ", protobuf-java " + theirs);
    }
  }

  @Benchmark
  public long views() {
    visitor.sum = 0;
    views.forEachSpan(indexed, visitor);
    return visitor.sum;
  }

  @Benchmark
  public long indexAndViews() throws MalformedOtlpException {
    OtlpIndex index = indexer.index(Signal.TRACES, request);
    visitor.sum = 0;
    views.forEachSpan(Batch.of(index), visitor);
    return visitor.sum;
  }

  @Benchmark
  public long protobufJava() throws InvalidProtocolBufferException {
    return visit(ExportTraceServiceRequest.parseFrom(request));
  }

  @Benchmark
  public long protobufJavaVisitOnly() {
    return visit(parsed);
  }

  private static long visit(ExportTraceServiceRequest request) {
    long sum = 0;
    for (ResourceSpans resource : request.getResourceSpansList()) {
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        for (Span span : scope.getSpansList()) {
          for (KeyValue attribute : span.getAttributesList()) {
            AnyValue value = attribute.getValue();
            if (attribute.getKey().equals(ROUTE_KEY)) {
              sum++;
            }
            switch (value.getValueCase()) {
              case STRING_VALUE:
                sum += value.getStringValueBytes().size();
                break;
              case INT_VALUE:
                sum += value.getIntValue();
                break;
              case DOUBLE_VALUE:
                sum += (long) value.getDoubleValue();
                break;
              case BOOL_VALUE:
                sum += value.getBoolValue() ? 1 : 0;
                break;
              default:
                break;
            }
          }
        }
      }
    }
    return sum;
  }
}
