package dev.sluice.bench;

import dev.sluice.bench.SpanShapes.Attribute;
import dev.sluice.bench.SpanShapes.HttpServerSpan;
import dev.sluice.pdata.build.TracesBuilder;
import dev.sluice.pdata.build.TracesBuilder.SpanWriter;
import dev.sluice.pdata.build.ValueWriter;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.internal.OtlpEnums.SpanKind;
import dev.sluice.pdata.internal.OtlpEnums.StatusCode;
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
 * Writing new data, as a connector or a receiver of another format does: the {@link SpanShapes}
 * spans (ten attributes each, under one resource and one scope) made into an {@code
 * ExportTraceServiceRequest}'s bytes. Run with {@code -prof gc}.
 *
 * <ul>
 *   <li>{@code sluice}: a reused {@link TracesBuilder}, written into a reused array ({@code
 *       writeTo}).
 *   <li>{@code sluiceToByteArray}: the same, into a new array of the request's size.
 *   <li>{@code sluiceBuild}: the same, validated and indexed ({@code build()}): what a component
 *       sends downstream.
 *   <li>{@code protobufJava}: the generated builders ({@link SpanShapes#toRequest}), then {@code
 *       toByteArray()}.
 * </ul>
 *
 * All write the same bytes (see the bench tests).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class BuilderBenchmark {
  @Param({"1000"})
  public int spans;

  List<HttpServerSpan> shapes;
  TracesBuilder builder;
  byte[] output;

  @Setup
  public void setup() {
    shapes = SpanShapes.spans(SpanShapes.DEFAULT_SEED, spans);
    builder = new TracesBuilder();
    write(builder, shapes);
    output = new byte[builder.encodedSize()];
  }

  @Benchmark
  public int sluice() {
    builder.reset();
    write(builder, shapes);
    return builder.writeTo(output, 0);
  }

  @Benchmark
  public byte[] sluiceToByteArray() {
    builder.reset();
    write(builder, shapes);
    return builder.toByteArray();
  }

  @Benchmark
  public OtlpIndex sluiceBuild() {
    builder.reset();
    write(builder, shapes);
    return builder.build();
  }

  @Benchmark
  public byte[] protobufJava() {
    return SpanShapes.toRequest(shapes).toByteArray();
  }

  /** What {@link SpanShapes#toRequest} writes, with the builder. */
  static void write(TracesBuilder traces, List<HttpServerSpan> spans) {
    ValueWriter resource = traces.resource().schemaUrl(SpanShapes.RESOURCE_SCHEMA_URL).attributes();
    for (Attribute attribute : SpanShapes.RESOURCE_ATTRIBUTES) {
      put(resource, attribute);
    }
    traces
        .scope()
        .name(SpanShapes.SCOPE_NAME)
        .version(SpanShapes.SCOPE_VERSION)
        .schemaUrl(SpanShapes.SCOPE_SCHEMA_URL);
    for (HttpServerSpan span : spans) {
      SpanWriter writer =
          traces
              .span()
              .traceId(span.traceId())
              .spanId(span.spanId())
              .parentSpanId(span.parentSpanId())
              .flags(0x301)
              .name(span.name())
              .kind(SpanKind.SERVER)
              .startTimeUnixNano(span.startEpochNanos())
              .endTimeUnixNano(span.endEpochNanos())
              .status(span.error() ? StatusCode.ERROR : StatusCode.UNSET, "");
      ValueWriter attributes = writer.attributes();
      for (Attribute attribute : span.attributes()) {
        put(attributes, attribute);
      }
    }
  }

  private static void put(ValueWriter values, Attribute attribute) {
    if (attribute.value() instanceof String text) {
      values.put(attribute.key(), text);
    } else {
      values.put(attribute.key(), (long) (Long) attribute.value());
    }
  }

  // For tests: the output of the last operation.

  byte[] sluiceOutput() {
    return output.clone();
  }
}
