package dev.sluice.processor.probabilisticsampler;

import static dev.sluice.processor.probabilisticsampler.SamplerHarness.attribute;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class LogSamplingTest {
  private static final String NO_TRACE = "00000000000000000000000000000000";

  private static ProbabilisticSamplerConfig byRecord(float percent, boolean failClosed) {
    return new ProbabilisticSamplerConfig(
        percent, 0, "", failClosed, 4, "record", "request.id", "");
  }

  private static LogRecord.Builder withId(int i) {
    return SamplerHarness.log("r" + i, NO_TRACE)
        .addAttributes(attribute("before", AnyValue.newBuilder().setIntValue(i)))
        .addAttributes(
            attribute(
                "request.id",
                AnyValue.newBuilder().setStringValue(String.format(Locale.ROOT, "req-%08d", i))))
        .addAttributes(attribute("after", AnyValue.newBuilder().setBoolValue(true)));
  }

  private static List<LogRecord> run(SamplerHarness sampler, List<LogRecord.Builder> records) {
    ScopeLogs.Builder scope = ScopeLogs.newBuilder();
    records.forEach(scope::addLogRecords);
    ExportLogsServiceRequest out =
        sampler.logs(
            ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder().addScopeLogs(scope))
                .build());
    List<LogRecord> kept = new ArrayList<>();
    out.getResourceLogsList()
        .forEach(r -> r.getScopeLogsList().forEach(s -> kept.addAll(s.getLogRecordsList())));
    return kept;
  }

  @Test
  void samplesByTheRecordAttributeAndAppendsTheSamplingAttributes() {
    List<LogRecord.Builder> records = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      records.add(withId(i));
    }
    SamplerHarness sampler = new SamplerHarness(byRecord(20, true), Signal.LOGS);
    List<LogRecord> kept = run(sampler, records);
    assertThat(kept.size()).isBetween(300, 500);
    for (LogRecord record : kept) {
      List<KeyValue> attributes = record.getAttributesList();
      assertThat(attributes)
          .extracting(KeyValue::getKey)
          .containsExactly(
              "before", "request.id", "after", "sampling.randomness", "sampling.threshold");
      assertThat(attributes.get(3).getValue().getStringValue()).hasSize(14);
      assertThat(attributes.get(4).getValue().getStringValue())
          .isEqualTo("ccd"); // 3276 of 16384 buckets
      int i = Integer.parseInt(record.getBody().getStringValue().substring(1));
      LogRecord original = withId(i).build();
      assertThat(record.toBuilder().removeAttributes(4).removeAttributes(3).build())
          .isEqualTo(original);
    }
    // The same attribute values give the same decisions, whatever the trace IDs.
    SamplerHarness again = new SamplerHarness(byRecord(20, true), Signal.LOGS);
    assertThat(run(again, records)).isEqualTo(kept);
    assertThat(sampler.prometheus())
        .contains(
            "otelcol_processor_probabilistic_sampler_count_logs_sampled_total{processor="
                + "\"probabilistic_sampler\",policy=\"request.id\",sampled=\"true\"} "
                + kept.size());
  }

  @Test
  void recordsWithoutTheAttributeDropWhenFailingClosedAndPassUnchangedButMarkedWhenOpen() {
    List<LogRecord.Builder> records =
        List.of(
            SamplerHarness.log("none", NO_TRACE),
            SamplerHarness.log("empty", NO_TRACE)
                .addAttributes(attribute("request.id", AnyValue.newBuilder().setStringValue(""))));
    assertThat(run(new SamplerHarness(byRecord(100, true), Signal.LOGS), records)).isEmpty();
    List<LogRecord> open = run(new SamplerHarness(byRecord(100, false), Signal.LOGS), records);
    assertThat(open).hasSize(2);
    assertThat(open.get(0).getAttributesList())
        .containsExactly(
            attribute("sampling.threshold", AnyValue.newBuilder().setStringValue("0")));
  }

  @Test
  void samplingPriorityGivesTheRecordItsOwnProbability() {
    ProbabilisticSamplerConfig config =
        new ProbabilisticSamplerConfig(1, 0, "", true, 4, "record", "request.id", "priority");
    List<LogRecord.Builder> records = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      records.add(
          withId(i).addAttributes(attribute("priority", AnyValue.newBuilder().setIntValue(100))));
    }
    List<LogRecord> kept = run(new SamplerHarness(config, Signal.LOGS), records);
    assertThat(kept).hasSize(50);
    assertThat(kept)
        .allSatisfy(
            r ->
                assertThat(r.getAttributesList())
                    .contains(
                        attribute(
                            "sampling.threshold", AnyValue.newBuilder().setStringValue("0"))));
  }

  @Test
  void aBatchOfferedAgainIsSampledAsOnce() {
    List<LogRecord.Builder> records = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      records.add(withId(i));
    }
    SamplerHarness sampler = new SamplerHarness(byRecord(30, true), Signal.LOGS);
    List<LogRecord> once = run(sampler, records);
    List<LogRecord.Builder> again = new ArrayList<>();
    once.forEach(r -> again.add(r.toBuilder()));
    assertThat(run(sampler, again)).isEqualTo(once);
  }

  @Test
  void aBytesValueHashesAsTheStringOfTheSameBytesEvenPastTheScratchSize() {
    List<LogRecord.Builder> asBytes = new ArrayList<>();
    List<LogRecord.Builder> asText = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      String id = String.format(Locale.ROOT, "%0100d", i * 7919L); // 100 bytes: past 64
      asText.add(
          SamplerHarness.log("r" + i, NO_TRACE)
              .addAttributes(attribute("request.id", AnyValue.newBuilder().setStringValue(id))));
      asBytes.add(
          SamplerHarness.log("r" + i, NO_TRACE)
              .addAttributes(
                  attribute(
                      "request.id",
                      AnyValue.newBuilder()
                          .setBytesValue(com.google.protobuf.ByteString.copyFromUtf8(id)))));
    }
    List<String> keptText =
        run(new SamplerHarness(byRecord(40, true), Signal.LOGS), asText).stream()
            .map(r -> r.getBody().getStringValue())
            .toList();
    List<String> keptBytes =
        run(new SamplerHarness(byRecord(40, true), Signal.LOGS), asBytes).stream()
            .map(r -> r.getBody().getStringValue())
            .toList();
    assertThat(keptBytes).isEqualTo(keptText).hasSizeBetween(40, 120);
  }

  @Test
  void aKeptRecordLargerThanTheRetainedBufferIsWrittenWhole() {
    // Past the 1 MiB an edit's buffers keep between items.
    String big = "x".repeat((1 << 20) + 1000);
    LogRecord.Builder record =
        withId(1).addAttributes(attribute("big", AnyValue.newBuilder().setStringValue(big)));
    ProbabilisticSamplerConfig all =
        new ProbabilisticSamplerConfig(100, 0, "", true, 4, "record", "request.id", "");
    SamplerHarness sampler = new SamplerHarness(all, Signal.LOGS);
    List<LogRecord> kept = run(sampler, List.of(record, withId(2)));
    assertThat(kept).hasSize(2);
    assertThat(kept.get(0).getAttributes(3).getValue().getStringValue()).isEqualTo(big);
    assertThat(kept.get(0).getAttributesList())
        .extracting(KeyValue::getKey)
        .endsWith("sampling.randomness", "sampling.threshold");
    assertThat(run(sampler, List.of(withId(3)))).hasSize(1);
  }
}
