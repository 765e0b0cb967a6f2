package dev.sluice.processor.filter;

import static dev.sluice.processor.filter.Otlp.resource;
import static dev.sluice.processor.filter.Otlp.scope;
import static dev.sluice.processor.filter.Otlp.span;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.MetricsText;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code error_mode}: a condition that fails for an item ({@code Substring} past the end of a short
 * name) drops the batch under propagate, and counts as not matched under ignore (logged) and silent
 * (not logged); each failure is counted.
 */
class FilterErrorModeTest {
  // Fails for names shorter than 12 bytes; true for "GET /users/{id}".
  private static final String FAILING = "Substring(name, 0, 12) == \"GET /users/{\"";
  private static final Span SHORT = span("short", "/a");
  private static final Span LONG = span("GET /users/{id}", "/users/{id}");
  private static final Span OTHER = span("POST /orders", "/orders");

  private final List<LogRecord> logged = new ArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          logged.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private final Logger logger = Logger.getLogger("sluice.processor.filter");

  @BeforeEach
  void listen() {
    logger.addHandler(handler);
  }

  @AfterEach
  void stopListening() {
    logger.removeHandler(handler);
  }

  private static byte[] request() {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(resource("checkout"))
                .addScopeSpans(
                    ScopeSpans.newBuilder()
                        .setScope(scope("tomcat"))
                        .addSpans(SHORT)
                        .addSpans(LONG)
                        .addSpans(OTHER)))
        .build()
        .toByteArray();
  }

  private static String yaml(String mode) {
    return "error_mode: "
        + mode
        + "\ntraces:\n  span:\n    - '"
        + FAILING
        + "'\n    - name == \"short\"\n";
  }

  private static List<String> names(byte[] out) throws Exception {
    List<String> names = new ArrayList<>();
    for (ResourceSpans r : ExportTraceServiceRequest.parseFrom(out).getResourceSpansList()) {
      for (ScopeSpans s : r.getScopeSpansList()) {
        s.getSpansList().forEach(span -> names.add(span.getName()));
      }
    }
    return names;
  }

  @Test
  void propagateDropsTheBatchAndLogs() throws Exception {
    MetricRegistry metrics = new MetricRegistry();
    byte[] out = Otlp.filter(yaml("propagate"), Signal.TRACES, request(), metrics);
    assertThat(names(out)).isEmpty();
    assertThat(MetricsText.of(metrics))
        .contains("sluice_processor_filter_condition_errors_total{processor=\"filter\"} 1");
    assertThat(logged)
        .extracting(LogRecord::getMessage)
        .anySatisfy(m -> assertThat(m).contains("Dropping the batch").contains("Substring"));
  }

  @Test
  void ignoreTreatsTheFailureAsNoMatchGoesOnAndLogs() throws Exception {
    MetricRegistry metrics = new MetricRegistry();
    byte[] out = Otlp.filter(yaml("ignore"), Signal.TRACES, request(), metrics);
    // "short" fails the first condition, then matches the second; the long name matches the first.
    assertThat(names(out)).containsExactly("POST /orders");
    assertThat(MetricsText.of(metrics))
        .contains("sluice_processor_filter_condition_errors_total{processor=\"filter\"} 1")
        .contains("otelcol_processor_filter_spans_filtered_total{processor=\"filter\"} 2");
    assertThat(logged)
        .extracting(LogRecord::getMessage)
        .anySatisfy(m -> assertThat(m).contains("counts as not matched").contains("past the end"));
  }

  @Test
  void silentTreatsTheFailureAsNoMatchWithoutLogging() throws Exception {
    MetricRegistry metrics = new MetricRegistry();
    byte[] out = Otlp.filter(yaml("silent"), Signal.TRACES, request(), metrics);
    assertThat(names(out)).containsExactly("POST /orders");
    assertThat(MetricsText.of(metrics))
        .contains("sluice_processor_filter_condition_errors_total{processor=\"filter\"} 1");
    assertThat(logged).isEmpty();
  }

  @Test
  void reapplyingDropsNothingMore() throws Exception {
    String yaml = "traces:\n  span:\n    - name == \"short\"\n";
    byte[] once = Otlp.filter(yaml, Signal.TRACES, request());
    byte[] twice = Otlp.filter(yaml, Signal.TRACES, once);
    assertThat(twice).isEqualTo(once);
    assertThat(names(twice)).containsExactly("GET /users/{id}", "POST /orders");
  }
}
