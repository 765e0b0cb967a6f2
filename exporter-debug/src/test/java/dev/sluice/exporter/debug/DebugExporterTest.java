package dev.sluice.exporter.debug;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpJsonDecoder;
import dev.sluice.pdata.codec.OtlpJsonEncoder;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.RandomRequests;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DebugExporterTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  private String export(DebugConfig.Verbosity verbosity, int spans) {
    return export(verbosity, Batch.of(SequencedSpans.indexed("svc", 0, spans)));
  }

  private String export(DebugConfig.Verbosity verbosity, Batch batch) {
    out.reset();
    DebugExporter exporter =
        new DebugExporter(
            new ComponentSettings(
                ComponentId.parse("debug"), ComponentKind.EXPORTER, new MetricRegistry()),
            new DebugConfig(verbosity, 10, 1, false),
            new PrintStream(out, true, StandardCharsets.UTF_8));
    exporter.export(batch, Long.MAX_VALUE);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void basicWritesOneLineOfCountsPerBatch() {
    assertThat(export(DebugConfig.Verbosity.BASIC, 3))
        .isEqualTo("Traces: 1 resource blocks, 1 scope blocks, 3 spans" + System.lineSeparator());
  }

  @Test
  void normalAddsALineOfJsonPerItem() {
    String[] lines = export(DebugConfig.Verbosity.NORMAL, 3).split(System.lineSeparator());

    assertThat(lines).hasSize(4);
    assertThat(lines[1]).startsWith("{").contains("\"name\":\"0\"").contains("\"kind\":2");
    assertThat(lines[3]).contains("\"name\":\"2\"");
  }

  @Test
  void detailedWritesTheBatchAsOtlpJson() throws Exception {
    String text = export(DebugConfig.Verbosity.DETAILED, 2);
    String json = text.substring(text.indexOf('{'));

    byte[] decoded =
        new OtlpJsonDecoder().decode(Signal.TRACES, json.getBytes(StandardCharsets.UTF_8));

    assertThat(ExportTraceServiceRequest.parseFrom(decoded))
        .isEqualTo(SequencedSpans.request("svc", 0, 2));
  }

  @Test
  void basicCountsBlocksAsTheBatchIsMarshaledWithEqualHeadersMerged() {
    Batch batch = Batch.of(SequencedSpans.indexed("svc", 0, 2));
    batch.add(SequencedSpans.indexed("svc", 2, 3));
    batch.add(SequencedSpans.indexed("other", 5, 1));

    assertThat(export(DebugConfig.Verbosity.BASIC, batch))
        .isEqualTo("Traces: 2 resource blocks, 2 scope blocks, 6 spans" + System.lineSeparator());
  }

  @Test
  void normalWritesEachMetricPartAsTheMarshaledBatchHoldsIt() throws Exception {
    for (int seed = 0; seed < 20; seed++) {
      OtlpIndex index =
          new OtlpIndexer().index(Signal.METRICS, RandomRequests.metrics(seed).toByteArray());
      Batch rest = Batch.of(index);
      while (!rest.isEmpty()) {
        Batch part = new Batch(Signal.METRICS);
        rest.moveTo(part, 2);
        List<String> expected = metricLines(OtlpMarshaler.toByteArray(part));

        String[] lines = export(DebugConfig.Verbosity.NORMAL, part).split(System.lineSeparator());

        assertThat(lines[0]).endsWith(", " + part.unitCount() + " data points");
        assertThat(Arrays.asList(lines).subList(1, lines.length))
            .as("seed " + seed)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void normalWritesALineOfJsonPerLogRecord() throws Exception {
    ExportLogsServiceRequest request = RandomRequests.logs(7);
    int records =
        request.getResourceLogsList().stream()
            .flatMap(r -> r.getScopeLogsList().stream())
            .mapToInt(s -> s.getLogRecordsCount())
            .sum();
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.LOGS, request.toByteArray()));

    String[] lines = export(DebugConfig.Verbosity.NORMAL, batch).split(System.lineSeparator());

    assertThat(lines).hasSize(1 + records);
    assertThat(lines[0]).startsWith("Logs: ").endsWith(records + " log records");
  }

  /** What the exporter wrote before it read items through views: JSON of each marshaled metric. */
  private static List<String> metricLines(byte[] marshaled) throws Exception {
    OtlpJsonEncoder encoder = new OtlpJsonEncoder();
    List<String> lines = new ArrayList<>();
    for (ResourceMetrics r :
        ExportMetricsServiceRequest.parseFrom(marshaled).getResourceMetricsList()) {
      for (ScopeMetrics s : r.getScopeMetricsList()) {
        for (Metric metric : s.getMetricsList()) {
          byte[] bytes = metric.toByteArray();
          ByteArrayOutputStream json = new ByteArrayOutputStream();
          try (JsonGenerator generator = new JsonFactory().createGenerator(json)) {
            encoder.write(Signal.METRICS.item(), bytes, 0, bytes.length, generator);
          }
          lines.add(json.toString(StandardCharsets.UTF_8));
        }
      }
    }
    return lines;
  }

  @Test
  void samplesAfterTheInitialOutputsOfEachSecond() {
    OutputSampler sampler = new OutputSampler(2, 3);
    long start = 1_000;
    int taken = 0;
    for (int i = 0; i < 11; i++) {
      taken += sampler.take(start + i) ? 1 : 0;
    }
    assertThat(taken).isEqualTo(2 + 3);
    assertThat(sampler.take(start + TimeUnit.SECONDS.toNanos(1))).isTrue();
  }
}
