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
import dev.sluice.processor.resourcedetection.DetectionEnvironment;
import dev.sluice.processor.resourcedetection.EnvDetectorConfig;
import dev.sluice.processor.resourcedetection.ResourceDetectionConfig;
import dev.sluice.processor.resourcedetection.ResourceDetectionProcessorFactory;
import dev.sluice.processor.resourcedetection.SystemDetectorConfig;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import java.io.IOException;
import java.time.Duration;
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
 * What a {@code resourcedetection} processor costs per request: set the detected attributes ({@code
 * detectors: [env, system]}, override on: {@value #ENV_ATTRIBUTES}, {@code host.name} and {@code
 * os.type}) on every resource of a request of {@code SpanShapes} spans and write the request out.
 * Run with {@code -prof gc}.
 *
 * <ul>
 *   <li>{@code sluice}: the processor itself (made by its factory over a fixed machine and started,
 *       so detection is done in set-up) consumes a {@link Batch} of the indexed request; the next
 *       stage marshals it into a reused context and clears it. Each resource block is re-encoded
 *       once; the spans are copied as bytes.
 *   <li>{@code protobufJava}: decode the request into protobuf-java objects, upsert the attributes
 *       in each resource through its builder, and encode the result into a reused array.
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
public class ResourceDetectionBenchmark {
  static final String ENV_ATTRIBUTES = "deployment.environment=production,team=payments";
  static final String HOSTNAME = "node-17.eu-west.example.com";

  @Param({"1000"})
  public int spans;

  byte[] request;
  OtlpIndex index;
  MarshalContext context;
  Processor processor;
  int sluiceSize;

  byte[] protobufOutput;
  int protobufSize;
  List<KeyValue> detected;

  @Setup
  public void setup() throws Exception {
    request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    index = new OtlpIndexer().index(Signal.TRACES, request);
    context = new MarshalContext();
    ResourceDetectionConfig config =
        new ResourceDetectionConfig(
            List.of("env", "system"),
            true,
            Duration.ofSeconds(5),
            Duration.ZERO,
            EnvDetectorConfig.DEFAULT,
            SystemDetectorConfig.DEFAULT);
    processor =
        new ResourceDetectionProcessorFactory(new FixedMachine())
            .create(
                new ComponentSettings(
                    ComponentId.parse("resourcedetection"),
                    ComponentKind.PROCESSOR,
                    new MetricRegistry()),
                config,
                Signal.TRACES,
                batch -> {
                  sluiceSize = OtlpMarshaler.marshal(batch, context);
                  batch.clear();
                  return Admission.ACCEPTED;
                });
    processor.start();
    protobufOutput = new byte[2 * request.length];
    detected =
        List.of(
            attribute("deployment.environment", "production"),
            attribute("team", "payments"),
            attribute("host.name", HOSTNAME),
            attribute("os.type", "linux"));
  }

  private static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  @Benchmark
  public int sluice() throws MalformedOtlpException {
    processor.consume(Batch.of(index));
    return sluiceSize;
  }

  @Benchmark
  public int protobufJava() throws IOException {
    ExportTraceServiceRequest.Builder builder =
        ExportTraceServiceRequest.parseFrom(request).toBuilder();
    for (ResourceSpans.Builder resourceSpans : builder.getResourceSpansBuilderList()) {
      Resource.Builder resource = resourceSpans.getResourceBuilder();
      for (KeyValue attribute : detected) {
        upsert(resource, attribute);
      }
    }
    CodedOutputStream out = CodedOutputStream.newInstance(protobufOutput);
    builder.build().writeTo(out);
    protobufSize = out.getTotalBytesWritten();
    return protobufSize;
  }

  private static void upsert(Resource.Builder resource, KeyValue attribute) {
    for (int i = 0; i < resource.getAttributesCount(); i++) {
      if (resource.getAttributes(i).getKey().equals(attribute.getKey())) {
        resource.setAttributes(i, attribute);
        return;
      }
    }
    resource.addAttributes(attribute);
  }

  /** The machine the processor detects: known attributes, no lookups. */
  static final class FixedMachine implements DetectionEnvironment {
    @Override
    public String variable(String name) {
      return name.equals("OTEL_RESOURCE_ATTRIBUTES") ? ENV_ATTRIBUTES : null;
    }

    @Override
    public String osHostname() {
      return "node-17";
    }

    @Override
    public String fqdn() {
      return HOSTNAME;
    }

    @Override
    public String reverseLookupHostname() {
      return HOSTNAME;
    }

    @Override
    public String osName() {
      return "Linux";
    }

    @Override
    public String osArch() {
      return "amd64";
    }

    @Override
    public String machineId() {
      return "0123456789abcdef0123456789abcdef";
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
