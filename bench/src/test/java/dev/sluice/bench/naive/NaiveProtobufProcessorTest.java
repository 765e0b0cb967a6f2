package dev.sluice.bench.naive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.load.RequestShapes;
import dev.sluice.bench.load.Workload;
import dev.sluice.component.Admission;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class NaiveProtobufProcessorTest {
  private static byte[] request(Signal signal) {
    return Workload.build(
            new Workload.Spec(signal, RequestShapes.SpanShape.REALISTIC, 300, 20, 7, 1, 11))
        .requests()
        .get(0);
  }

  private static Object parse(Signal signal, byte[] bytes) throws Exception {
    return switch (signal) {
      case TRACES -> ExportTraceServiceRequest.parseFrom(bytes);
      case METRICS -> ExportMetricsServiceRequest.parseFrom(bytes);
      case LOGS -> ExportLogsServiceRequest.parseFrom(bytes);
    };
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void outputEqualsInputSemantically(Signal signal) throws Exception {
    byte[] bytes = request(signal);
    OtlpIndex index = new OtlpIndexer().index(signal, bytes);
    AtomicBoolean released = new AtomicBoolean();
    index.hold(r -> released.set(true));
    Batch batch = Batch.of(index);
    index.releaseHold();

    List<Batch> passed = new ArrayList<>();
    NaiveProtobufProcessor processor =
        new NaiveProtobufProcessor(
            signal,
            b -> {
              passed.add(b);
              return Admission.ACCEPTED;
            });
    assertThat(processor.consume(batch)).isEqualTo(Admission.ACCEPTED);
    assertThat(passed).hasSize(1);
    Batch out = passed.get(0);
    assertThat(out).isNotSameAs(batch);
    assertThat(out.unitCount()).isEqualTo(index.unitCount());
    assertThat(parse(signal, OtlpMarshaler.toByteArray(out))).isEqualTo(parse(signal, bytes));

    assertThat(released).as("the original is held while its re-encoding lives").isFalse();
    out.clear();
    assertThat(released).as("and let go with it").isTrue();
  }

  @Test
  void aRefusedBatchComesBackUnchanged() throws Exception {
    byte[] bytes = request(Signal.TRACES);
    OtlpIndex index = new OtlpIndexer().index(Signal.TRACES, bytes);
    AtomicBoolean released = new AtomicBoolean();
    index.hold(r -> released.set(true));
    Batch batch = Batch.of(index);
    index.releaseHold();

    NaiveProtobufProcessor processor =
        new NaiveProtobufProcessor(Signal.TRACES, b -> Admission.FULL);
    assertThat(processor.consume(batch)).isEqualTo(Admission.FULL);
    assertThat(batch.unitCount()).isEqualTo(300);
    assertThat(OtlpMarshaler.toByteArray(batch)).isEqualTo(bytes);
    assertThat(released).isFalse();
    batch.clear();
    assertThat(released).isTrue();
  }

  @Test
  void theFactoryIsFoundByTheServiceLoader() {
    List<String> types = new ArrayList<>();
    for (dev.sluice.component.ComponentFactory<?> factory :
        java.util.ServiceLoader.load(dev.sluice.component.ComponentFactory.class)) {
      types.add(factory.type());
    }
    assertThat(types).contains("naive_protobuf");
  }
}
