package dev.sluice.exporter.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.kafka.KafkaEncoding;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cutting batches into records that fit, without a broker: the records are collected. */
class RecordSplitterTest {
  private static final int LIMIT = 2048;

  @Test
  void cutsABatchIntoRecordsThatEachFitAndKeepEverySpanInOrder() throws Exception {
    ExportTraceServiceRequest request = SequencedSpans.request("checkout", 0, 300);
    assertThat(request.getSerializedSize()).isGreaterThan(5 * LIMIT);
    Collected sink = new Collected();
    RecordSplitter splitter = new RecordSplitter(new RecordEncoder(), LIMIT);
    splitter.begin(KafkaEncoding.OTLP_PROTO);

    Batch shared = TestExporters.batch(Signal.TRACES, request);
    assertThat(splitter.sendWhole(shared, null, sink)).isFalse();
    assertThat(sink.values).isEmpty();
    splitter.sendSplit(KeyedParts.copyOf(shared), null, sink);

    assertThat(sink.values).hasSizeGreaterThan(5);
    assertThat(sink.values).allSatisfy(v -> assertThat(v.length).isLessThanOrEqualTo(LIMIT));
    assertThat(names(sink.values)).isEqualTo(names(List.of(request.toByteArray())));
    assertThat(splitter.droppedUnits()).isZero();
    // The shared batch is as it was, and still whole.
    assertThat(shared.unitCount()).isEqualTo(300);
    shared.clear();
  }

  @Test
  void countsTheKeyAgainstTheLimit() throws Exception {
    ExportTraceServiceRequest request = SequencedSpans.request("checkout", 0, 100);
    byte[] key = new byte[LIMIT / 2];
    Collected sink = new Collected();
    RecordSplitter splitter = new RecordSplitter(new RecordEncoder(), LIMIT);
    splitter.begin(KafkaEncoding.OTLP_PROTO);

    splitter.sendSplit(TestExporters.batch(Signal.TRACES, request), key, sink);

    assertThat(sink.values)
        .allSatisfy(v -> assertThat(v.length + key.length).isLessThanOrEqualTo(LIMIT));
    assertThat(names(sink.values)).hasSize(100);
  }

  @Test
  void dropsAndCountsASpanThatAloneExceedsTheLimitAndSendsTheRest() throws Exception {
    ExportTraceServiceRequest small = SequencedSpans.request("checkout", 0, 40);
    Span huge =
        small.getResourceSpans(0).getScopeSpans(0).getSpans(7).toBuilder()
            .setName("x".repeat(3 * LIMIT))
            .build();
    ScopeSpans scope =
        small.getResourceSpans(0).getScopeSpans(0).toBuilder().setSpans(7, huge).build();
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(small.getResourceSpans(0).toBuilder().setScopeSpans(0, scope))
            .build();
    Collected sink = new Collected();
    RecordSplitter splitter = new RecordSplitter(new RecordEncoder(), LIMIT);
    splitter.begin(KafkaEncoding.OTLP_PROTO);

    splitter.sendSplit(TestExporters.batch(Signal.TRACES, request), null, sink);

    assertThat(splitter.droppedUnits()).isEqualTo(1);
    assertThat(splitter.largestDroppedBytes()).isGreaterThan(3 * LIMIT);
    List<String> expected = new ArrayList<>(names(List.of(small.toByteArray())));
    expected.remove("7");
    assertThat(names(sink.values)).isEqualTo(expected);
  }

  @Test
  void cutsOtlpJsonByItsOwnSize() throws Exception {
    ExportTraceServiceRequest request = SequencedSpans.request("checkout", 0, 120);
    Collected sink = new Collected();
    RecordSplitter splitter = new RecordSplitter(new RecordEncoder(), LIMIT);
    splitter.begin(KafkaEncoding.OTLP_JSON);

    splitter.sendSplit(TestExporters.batch(Signal.TRACES, request), null, sink);

    assertThat(sink.values).allSatisfy(v -> assertThat(v.length).isLessThanOrEqualTo(LIMIT));
    List<String> names = new ArrayList<>();
    for (byte[] value : sink.values) {
      ExportTraceServiceRequest.Builder parsed = ExportTraceServiceRequest.newBuilder();
      com.google.protobuf.util.JsonFormat.parser()
          .merge(new String(value, java.nio.charset.StandardCharsets.UTF_8), parsed);
      names.addAll(names(List.of(parsed.build().toByteArray())));
    }
    assertThat(names).isEqualTo(names(List.of(request.toByteArray())));
  }

  static List<String> names(List<byte[]> values) throws Exception {
    List<String> names = new ArrayList<>();
    for (byte[] value : values) {
      for (ResourceSpans resource :
          ExportTraceServiceRequest.parseFrom(value).getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          scope.getSpansList().forEach(span -> names.add(span.getName()));
        }
      }
    }
    return names;
  }

  private static final class Collected implements RecordSink {
    final List<byte[]> values = new ArrayList<>();

    @Override
    public void send(byte[] key, byte[] value) {
      values.add(value);
    }

    @Override
    public boolean accepting() {
      return true;
    }
  }
}
