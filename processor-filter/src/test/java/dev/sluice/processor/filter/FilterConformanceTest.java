package dev.sluice.processor.filter;

import static dev.sluice.processor.filter.Otlp.event;
import static dev.sluice.processor.filter.Otlp.gauge;
import static dev.sluice.processor.filter.Otlp.log;
import static dev.sluice.processor.filter.Otlp.point;
import static dev.sluice.processor.filter.Otlp.resource;
import static dev.sluice.processor.filter.Otlp.scope;
import static dev.sluice.processor.filter.Otlp.span;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The filter's conformance table: a configuration, an input request built with protobuf-java, and
 * the request expected out, compared with what the processor writes, parsed back.
 */
class FilterConformanceTest {
  private record Case(String name, String yaml, Signal signal, Message input, Message expected) {}

  private static final Span HEALTH = span("GET /health", "/health");
  private static final Span USERS = span("GET /users/{id}", "/users/{id}");
  private static final Span ORDERS = span("POST /orders", "/orders");

  @TestFactory
  Stream<DynamicTest> table() {
    return cases().stream()
        .map(
            c ->
                DynamicTest.dynamicTest(
                    c.name(),
                    () -> {
                      byte[] out = Otlp.filter(c.yaml(), c.signal(), c.input().toByteArray());
                      Message actual = c.expected().getParserForType().parseFrom(out);
                      assertThat(actual).isEqualTo(c.expected());
                    }));
  }

  private static List<Case> cases() {
    return List.of(
        new Case(
            "spans by attribute",
            "traces:\n  span:\n    - attributes[\"http.route\"] == \"/health\"\n",
            Signal.TRACES,
            traces(resourceSpans("checkout", scopeSpans("tomcat", HEALTH, USERS, HEALTH, ORDERS))),
            traces(resourceSpans("checkout", scopeSpans("tomcat", USERS, ORDERS)))),
        new Case(
            "any of several conditions drops",
            "traces:\n  span:\n    - name == \"POST /orders\"\n    - IsMatch(name, \"^GET /h\")\n",
            Signal.TRACES,
            traces(resourceSpans("checkout", scopeSpans("tomcat", HEALTH, USERS, ORDERS))),
            traces(resourceSpans("checkout", scopeSpans("tomcat", USERS)))),
        new Case(
            "a scope emptied disappears",
            "traces:\n  span:\n    - instrumentation_scope.name == \"jdbc\"\n",
            Signal.TRACES,
            traces(
                resourceSpans(
                    "checkout", scopeSpans("tomcat", USERS), scopeSpans("jdbc", HEALTH, ORDERS))),
            traces(resourceSpans("checkout", scopeSpans("tomcat", USERS)))),
        new Case(
            "a resource emptied disappears",
            "traces:\n  span:\n    - resource.attributes[\"service.name\"] == \"cart\"\n",
            Signal.TRACES,
            traces(
                resourceSpans("cart", scopeSpans("tomcat", USERS, ORDERS)),
                resourceSpans("checkout", scopeSpans("tomcat", HEALTH))),
            traces(resourceSpans("checkout", scopeSpans("tomcat", HEALTH)))),
        new Case(
            "a whole request dropped",
            "traces:\n  span:\n    - kind == SPAN_KIND_SERVER\n",
            Signal.TRACES,
            traces(
                resourceSpans("cart", scopeSpans("tomcat", USERS)),
                resourceSpans("checkout", scopeSpans("tomcat", HEALTH))),
            ExportTraceServiceRequest.getDefaultInstance()),
        new Case(
            "no match keeps the request as it was",
            "traces:\n  span:\n    - name == \"nothing\"\n  spanevent:\n    - name == \"nothing\"\n",
            Signal.TRACES,
            traces(resourceSpans("checkout", scopeSpans("tomcat", withEvents(USERS, "a", "b")))),
            traces(resourceSpans("checkout", scopeSpans("tomcat", withEvents(USERS, "a", "b"))))),
        new Case(
            "span events dropped, the span re-encoded without them",
            "traces:\n  spanevent:\n    - name == \"exception\"\n    - attributes[\"exception.type\"] == \"retry.Type\"\n",
            Signal.TRACES,
            traces(
                resourceSpans(
                    "checkout",
                    scopeSpans(
                        "tomcat",
                        withEvents(USERS, "exception", "start", "retry", "exception", "end"),
                        withEvents(ORDERS, "start")))),
            traces(
                resourceSpans(
                    "checkout",
                    scopeSpans(
                        "tomcat",
                        withEvents(USERS, "start", "end"),
                        withEvents(ORDERS, "start"))))),
        new Case(
            "span events by their span's name",
            "traces:\n  spanevent:\n    - span.name == \"POST /orders\"\n",
            Signal.TRACES,
            traces(
                resourceSpans(
                    "checkout",
                    scopeSpans("tomcat", withEvents(USERS, "a"), withEvents(ORDERS, "a", "b")))),
            traces(
                resourceSpans("checkout", scopeSpans("tomcat", withEvents(USERS, "a"), ORDERS)))),
        new Case(
            "a dropped span takes its events along",
            "traces:\n  span:\n    - name == \"POST /orders\"\n  spanevent:\n    - name == \"a\"\n",
            Signal.TRACES,
            traces(
                resourceSpans(
                    "checkout",
                    scopeSpans("tomcat", withEvents(USERS, "a", "b"), withEvents(ORDERS, "a")))),
            traces(resourceSpans("checkout", scopeSpans("tomcat", withEvents(USERS, "b"))))),
        new Case(
            "metrics by name",
            "metrics:\n  metric:\n    - name == \"jvm.gc.duration\"\n",
            Signal.METRICS,
            metrics(
                resourceMetrics(
                    "checkout",
                    scopeMetrics(
                        "jvm",
                        gauge("jvm.memory.used", point("a", 1)),
                        gauge("jvm.gc.duration", point("a", 2), point("b", 3)),
                        gauge("jvm.threads", point("a", 4))))),
            metrics(
                resourceMetrics(
                    "checkout",
                    scopeMetrics(
                        "jvm",
                        gauge("jvm.memory.used", point("a", 1)),
                        gauge("jvm.threads", point("a", 4)))))),
        new Case(
            "a metric without data points dropped by name",
            "metrics:\n  metric:\n    - name == \"empty\"\n",
            Signal.METRICS,
            metrics(
                resourceMetrics(
                    "checkout",
                    scopeMetrics(
                        "jvm",
                        Metric.newBuilder().setName("empty").build(),
                        gauge("kept", point("a", 1))))),
            metrics(
                resourceMetrics("checkout", scopeMetrics("jvm", gauge("kept", point("a", 1)))))),
        new Case(
            "data points by attribute; a metric left without any is dropped",
            "metrics:\n  datapoint:\n    - attributes[\"host\"] == \"b\"\n    - value_double > 100 and metric.name == \"cpu\"\n",
            Signal.METRICS,
            metrics(
                resourceMetrics(
                    "checkout",
                    scopeMetrics(
                        "host",
                        gauge("cpu", point("a", 1), point("b", 2), point("c", 300)),
                        gauge("memory", point("b", 5)),
                        gauge("disk", point("a", 300))))),
            metrics(
                resourceMetrics(
                    "checkout",
                    scopeMetrics(
                        "host", gauge("cpu", point("a", 1)), gauge("disk", point("a", 300)))))),
        new Case(
            "logs by severity and body",
            "logs:\n  log_record:\n    - severity_number < SEVERITY_NUMBER_INFO\n    - IsMatch(body, \"heartbeat\")\n",
            Signal.LOGS,
            logs(
                resourceLogs(
                    "checkout",
                    scopeLogs(
                        "app",
                        log(5, "debug detail"),
                        log(9, "order placed"),
                        log(13, "heartbeat ok"),
                        log(17, "payment failed")))),
            logs(
                resourceLogs(
                    "checkout",
                    scopeLogs("app", log(9, "order placed"), log(17, "payment failed"))))),
        new Case(
            "logs emptying a resource",
            "logs:\n  log_record:\n    - resource.attributes[\"service.name\"] == \"noisy\"\n",
            Signal.LOGS,
            logs(
                resourceLogs("noisy", scopeLogs("app", log(9, "a"), log(9, "b"))),
                resourceLogs("checkout", scopeLogs("app", log(9, "c")))),
            logs(resourceLogs("checkout", scopeLogs("app", log(9, "c"))))));
  }

  private static Span withEvents(Span span, String... names) {
    Span.Builder b = span.toBuilder();
    for (String name : names) {
      b.addEvents(event(name));
    }
    return b.build();
  }

  private static ExportTraceServiceRequest traces(ResourceSpans... resources) {
    return ExportTraceServiceRequest.newBuilder().addAllResourceSpans(List.of(resources)).build();
  }

  private static ResourceSpans resourceSpans(String service, ScopeSpans... scopes) {
    return ResourceSpans.newBuilder()
        .setResource(resource(service))
        .addAllScopeSpans(List.of(scopes))
        .build();
  }

  private static ScopeSpans scopeSpans(String scope, Span... spans) {
    return ScopeSpans.newBuilder().setScope(scope(scope)).addAllSpans(List.of(spans)).build();
  }

  private static ExportMetricsServiceRequest metrics(ResourceMetrics... resources) {
    return ExportMetricsServiceRequest.newBuilder()
        .addAllResourceMetrics(List.of(resources))
        .build();
  }

  private static ResourceMetrics resourceMetrics(String service, ScopeMetrics... scopes) {
    return ResourceMetrics.newBuilder()
        .setResource(resource(service))
        .addAllScopeMetrics(List.of(scopes))
        .build();
  }

  private static ScopeMetrics scopeMetrics(String scope, Metric... metrics) {
    return ScopeMetrics.newBuilder().setScope(scope(scope)).addAllMetrics(List.of(metrics)).build();
  }

  private static ExportLogsServiceRequest logs(ResourceLogs... resources) {
    return ExportLogsServiceRequest.newBuilder().addAllResourceLogs(List.of(resources)).build();
  }

  private static ResourceLogs resourceLogs(String service, ScopeLogs... scopes) {
    return ResourceLogs.newBuilder()
        .setResource(resource(service))
        .addAllScopeLogs(List.of(scopes))
        .build();
  }

  private static ScopeLogs scopeLogs(
      String scope, io.opentelemetry.proto.logs.v1.LogRecord... records) {
    return ScopeLogs.newBuilder().setScope(scope(scope)).addAllLogRecords(List.of(records)).build();
  }
}
