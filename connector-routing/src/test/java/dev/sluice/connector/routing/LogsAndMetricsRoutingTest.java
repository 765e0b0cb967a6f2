package dev.sluice.connector.routing;

import static dev.sluice.connector.routing.Otlp.log;
import static dev.sluice.connector.routing.Otlp.point;
import static dev.sluice.connector.routing.Otlp.sum;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.connector.routing.Otlp.Routing;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Routing log records and metrics: by record, by whole metric, by data point. */
class LogsAndMetricsRoutingTest {
  private static List<String> bodies(List<ExportLogsServiceRequest> requests) {
    List<String> bodies = new ArrayList<>();
    for (ExportLogsServiceRequest request : requests) {
      request
          .getResourceLogsList()
          .forEach(
              r ->
                  r.getScopeLogsList()
                      .forEach(
                          s -> {
                            assertThat(Otlp.service(r.getResource())).isEqualTo("shop");
                            assertThat(s.getScope()).isEqualTo(Otlp.scope("app"));
                            for (LogRecord record : s.getLogRecordsList()) {
                              bodies.add(record.getBody().getStringValue());
                            }
                          }));
    }
    return bodies;
  }

  /** Each data point as {@code metric:host}, after checking its metric's header. */
  private static List<String> points(List<ExportMetricsServiceRequest> requests) {
    List<String> points = new ArrayList<>();
    for (ExportMetricsServiceRequest request : requests) {
      for (ResourceMetrics r : request.getResourceMetricsList()) {
        assertThat(Otlp.service(r.getResource())).isEqualTo("db");
        for (ScopeMetrics s : r.getScopeMetricsList()) {
          assertThat(s.getScope()).isEqualTo(Otlp.scope("pool"));
          for (Metric metric : s.getMetricsList()) {
            assertThat(metric.getUnit()).isEqualTo("By");
            assertThat(metric.getSum().getIsMonotonic()).isTrue();
            for (NumberDataPoint p : metric.getSum().getDataPointsList()) {
              points.add(metric.getName() + ":" + p.getAttributes(0).getValue().getStringValue());
            }
          }
        }
      }
    }
    return points;
  }

  @Test
  void logRoutesSplitRecordsBySeverity() throws Exception {
    Routing routing =
        new Routing(
            Signal.LOGS,
            """
            default_pipelines: [logs/cheap]
            table:
              - context: log
                condition: severity_number >= SEVERITY_NUMBER_ERROR
                pipelines: [logs/errors]
            """,
            "logs/errors",
            "logs/cheap");

    byte[] request = Otlp.logs("shop", "app", log("a", 9), log("b", 17), log("c", 21), log("d", 5));
    assertThat(routing.route(request)).isEqualTo(Admission.ACCEPTED);

    assertThat(bodies(routing.logs("logs/errors"))).containsExactly("b", "c");
    assertThat(bodies(routing.logs("logs/cheap"))).containsExactly("a", "d");
  }

  @Test
  void aConditionComparingAMapBodyWithAStringIsFalseAndTheRecordGoesOn() throws Exception {
    // As in the Collector: values of different types are unequal, whatever the types, so a
    // record with a structured body does not match a string and is routed on (here to the
    // default pipelines) instead of failing the batch.
    Routing routing =
        new Routing(
            Signal.LOGS,
            """
            default_pipelines: [logs/other]
            table:
              - context: log
                condition: body == "cache miss"
                pipelines: [logs/cache]
              - context: log
                condition: body != "cache miss" and severity_number >= SEVERITY_NUMBER_ERROR
                pipelines: [logs/errors]
            """,
            "logs/cache",
            "logs/errors",
            "logs/other");
    LogRecord structured =
        log("", 17).toBuilder()
            .setBody(
                AnyValue.newBuilder()
                    .setKvlistValue(
                        KeyValueList.newBuilder().addValues(Otlp.attribute("msg", "cache miss"))))
            .build();

    byte[] request = Otlp.logs("shop", "app", log("cache miss", 9), structured, log("x", 5));
    assertThat(routing.route(request)).isEqualTo(Admission.ACCEPTED);

    assertThat(bodies(routing.logs("logs/cache"))).containsExactly("cache miss");
    assertThat(routing.logs("logs/errors")).hasSize(1);
    assertThat(
            routing.logs("logs/errors").get(0).getResourceLogs(0).getScopeLogs(0).getLogRecords(0))
        .isEqualTo(structured);
    assertThat(bodies(routing.logs("logs/other"))).containsExactly("x");
  }

  @Test
  void metricRoutesMoveAMetricWithAllItsDataPoints() throws Exception {
    Routing routing =
        new Routing(
            Signal.METRICS,
            """
            default_pipelines: [metrics/other]
            table:
              - context: metric
                condition: name == "bytes.read"
                pipelines: [metrics/io]
            """,
            "metrics/io",
            "metrics/other");

    byte[] request =
        Otlp.metrics(
            "db",
            "pool",
            sum("bytes.read", point("a", 1), point("b", 2), point("c", 3)),
            sum("bytes.written", point("a", 4), point("b", 5)));
    assertThat(routing.route(request)).isEqualTo(Admission.ACCEPTED);

    assertThat(points(routing.metrics("metrics/io")))
        .containsExactly("bytes.read:a", "bytes.read:b", "bytes.read:c");
    assertThat(points(routing.metrics("metrics/other")))
        .containsExactly("bytes.written:a", "bytes.written:b");
  }

  @Test
  void aMetricRouteIsDecidedOncePerMetric() throws Exception {
    Routing routing =
        new Routing(
            Signal.METRICS,
            """
            error_mode: silent
            default_pipelines: [metrics/other]
            table:
              - context: metric
                condition: Substring(name, 40, 2) == "x"
                pipelines: [metrics/io]
            """,
            "metrics/io",
            "metrics/other");

    byte[] request =
        Otlp.metrics(
            "db",
            "pool",
            sum("bytes.read", point("a", 1), point("b", 2), point("c", 3)),
            sum("bytes.written", point("a", 4), point("b", 5)));
    assertThat(routing.route(request)).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.counter("sluice_connector_routing_condition_errors")).isEqualTo(2);
    assertThat(points(routing.metrics("metrics/other"))).hasSize(5);
  }

  @Test
  void dataPointRoutesSplitAMetricAndEachPartKeepsItsHeader() throws Exception {
    Routing routing =
        new Routing(
            Signal.METRICS,
            """
            table:
              - context: datapoint
                condition: attributes["host"] == "b"
                pipelines: [metrics/b]
              - context: datapoint
                condition: attributes["host"] != "b"
                pipelines: [metrics/rest]
            """,
            "metrics/b",
            "metrics/rest");

    byte[] request =
        Otlp.metrics(
            "db",
            "pool",
            sum("bytes.read", point("a", 1), point("b", 2), point("c", 3)),
            sum("bytes.written", point("a", 4), point("b", 5)));
    assertThat(routing.route(request)).isEqualTo(Admission.ACCEPTED);

    assertThat(points(routing.metrics("metrics/b")))
        .containsExactly("bytes.read:b", "bytes.written:b");
    assertThat(points(routing.metrics("metrics/rest")))
        .containsExactly("bytes.read:a", "bytes.read:c", "bytes.written:a");
  }
}
