package dev.sluice.processor.probabilisticsampler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The processor decides every span and log record of the agreement tables as the OpenTelemetry
 * Collector's Go processor did, and writes the same {@code tracestate} and sampling attributes: the
 * tables are the Go processor's own output for the same requests (trace IDs, tracestates,
 * priorities, attributes) under each configuration.
 */
class GoAgreementTest {
  private static final String TRACES = "go-traces.tsv";
  private static final String LOGS = "go-logs.tsv";
  private static final int TRACE_CONFIG_COLUMNS = 5;
  private static final int LOG_CONFIG_COLUMNS = 8;

  @Test
  void keepsTheSpansGoKeepsWithTheTracestateGoWrites() throws IOException {
    Map<String, List<String[]>> groups = groups(TRACES, TRACE_CONFIG_COLUMNS);
    int rows = 0;
    int kept = 0;
    for (List<String[]> group : groups.values()) {
      String[] first = group.get(0);
      ProbabilisticSamplerConfig config =
          new ProbabilisticSamplerConfig(
              (float) Double.parseDouble(first[1]),
              Long.parseLong(first[2]),
              blank(first[0]),
              Boolean.parseBoolean(first[4]),
              Integer.parseInt(first[3]),
              "traceID",
              "",
              "");
      ScopeSpans.Builder scope = ScopeSpans.newBuilder();
      for (int i = 0; i < group.size(); i++) {
        String[] row = group.get(i);
        Span.Builder span = SamplerHarness.span(Integer.toString(i), row[5], blank(row[6]));
        if (!blank(row[7]).isEmpty()) {
          span.addAttributes(
              SamplerHarness.attribute("sampling.priority", SamplerHarness.typed(row[7], row[8])));
        }
        scope.addSpans(span);
      }
      ExportTraceServiceRequest out =
          new SamplerHarness(config, Signal.TRACES)
              .traces(
                  ExportTraceServiceRequest.newBuilder()
                      .addResourceSpans(ResourceSpans.newBuilder().addScopeSpans(scope))
                      .build());
      Map<String, String> actual = new TreeMap<>();
      out.getResourceSpansList()
          .forEach(
              r ->
                  r.getScopeSpansList()
                      .forEach(
                          s ->
                              s.getSpansList()
                                  .forEach(sp -> actual.put(sp.getName(), sp.getTraceState()))));
      Map<String, String> expected = new TreeMap<>();
      for (int i = 0; i < group.size(); i++) {
        String[] row = group.get(i);
        if (row[9].equals("keep")) {
          expected.put(Integer.toString(i), blank(row[10]));
        }
      }
      assertThat(actual).as("spans kept and their tracestate under %s", config).isEqualTo(expected);
      rows += group.size();
      kept += expected.size();
    }
    // The table is what it claims: many configurations, both outcomes.
    assertThat(groups).hasSizeGreaterThan(100);
    assertThat(kept).isBetween(rows / 5, rows - rows / 5);
  }

  @Test
  void keepsTheLogRecordsGoKeepsWithTheSamplingAttributesGoWrites() throws IOException {
    Map<String, List<String[]>> groups = groups(LOGS, LOG_CONFIG_COLUMNS);
    int rows = 0;
    int kept = 0;
    for (List<String[]> group : groups.values()) {
      String[] first = group.get(0);
      ProbabilisticSamplerConfig config =
          new ProbabilisticSamplerConfig(
              (float) Double.parseDouble(first[1]),
              Long.parseLong(first[2]),
              blank(first[0]),
              Boolean.parseBoolean(first[4]),
              Integer.parseInt(first[3]),
              blank(first[5]),
              blank(first[6]),
              blank(first[7]));
      ScopeLogs.Builder scope = ScopeLogs.newBuilder();
      for (int i = 0; i < group.size(); i++) {
        String[] row = group.get(i);
        LogRecord.Builder record = SamplerHarness.log(Integer.toString(i), row[8]);
        String attributes = blank(row[9]);
        if (!attributes.isEmpty()) {
          for (String entry : attributes.split(";")) {
            int equals = entry.indexOf('=');
            int colon = entry.indexOf(':', equals);
            record.addAttributes(
                SamplerHarness.attribute(
                    entry.substring(0, equals),
                    SamplerHarness.typed(
                        entry.substring(equals + 1, colon), entry.substring(colon + 1))));
          }
        }
        scope.addLogRecords(record);
      }
      ExportLogsServiceRequest out =
          new SamplerHarness(config, Signal.LOGS)
              .logs(
                  ExportLogsServiceRequest.newBuilder()
                      .addResourceLogs(ResourceLogs.newBuilder().addScopeLogs(scope))
                      .build());
      Map<String, String> actual = new TreeMap<>();
      out.getResourceLogsList()
          .forEach(
              r ->
                  r.getScopeLogsList()
                      .forEach(
                          s ->
                              s.getLogRecordsList()
                                  .forEach(
                                      l ->
                                          actual.put(
                                              l.getBody().getStringValue(),
                                              text(l, "sampling.randomness")
                                                  + " "
                                                  + text(l, "sampling.threshold")))));
      Map<String, String> expected = new TreeMap<>();
      for (int i = 0; i < group.size(); i++) {
        String[] row = group.get(i);
        if (row[10].equals("keep")) {
          expected.put(Integer.toString(i), blank(row[11]) + " " + blank(row[12]));
        }
      }
      assertThat(actual)
          .as("log records kept and their sampling attributes under %s", config)
          .isEqualTo(expected);
      rows += group.size();
      kept += expected.size();
    }
    assertThat(groups).hasSizeGreaterThan(50);
    assertThat(kept).isBetween(rows / 5, rows - rows / 5);
  }

  /** The attribute's value as Go's {@code AsString} gives it for strings and ints; "" if absent. */
  private static String text(LogRecord record, String key) {
    for (KeyValue kv : record.getAttributesList()) {
      if (kv.getKey().equals(key)) {
        AnyValue value = kv.getValue();
        return value.hasIntValue() ? Long.toString(value.getIntValue()) : value.getStringValue();
      }
    }
    return "";
  }

  private static String blank(String cell) {
    return cell.equals("-") ? "" : cell;
  }

  /** The table's rows in runs of one configuration (the first {@code configColumns} cells). */
  static Map<String, List<String[]>> groups(String resource, int configColumns) throws IOException {
    Map<String, List<String[]>> groups = new LinkedHashMap<>();
    String previous = null;
    int run = 0;
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(
                GoAgreementTest.class.getResourceAsStream(resource), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("#")) {
          continue;
        }
        String[] cells = line.split("\t", -1);
        String key = String.join("\t", java.util.Arrays.copyOf(cells, configColumns));
        if (!key.equals(previous)) {
          run++;
          previous = key;
        }
        groups.computeIfAbsent(run + "\t" + key, k -> new ArrayList<>()).add(cells);
      }
    }
    return groups;
  }
}
