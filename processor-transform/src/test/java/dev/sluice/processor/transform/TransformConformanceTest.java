package dev.sluice.processor.transform;

import static dev.sluice.processor.transform.Harness.kv;
import static dev.sluice.processor.transform.Harness.resource;
import static dev.sluice.processor.transform.Harness.span;
import static dev.sluice.processor.transform.Harness.traces;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance table: a configuration, an input request built with protobuf-java, and the
 * request expected out, compared after parsing the processor's output back with protobuf-java.
 */
class TransformConformanceTest {
  record Case(String name, String yaml, Message input, Message expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final AnyValue KVLIST =
      AnyValue.newBuilder()
          .setKvlistValue(
              KeyValueList.newBuilder()
                  .addValues(kv("inner", "v"))
                  .addValues(
                      kv(
                          "list",
                          AnyValue.newBuilder()
                              .setArrayValue(
                                  ArrayValue.newBuilder()
                                      .addValues(AnyValue.newBuilder().setIntValue(1))
                                      .addValues(AnyValue.newBuilder().setBoolValue(true)))
                              .build())))
          .build();

  private static Span typed() {
    return span(
        "typed",
        kv("s", "abc"),
        kv("i", 42),
        kv("d", AnyValue.newBuilder().setDoubleValue(1.5).build()),
        kv("b", AnyValue.newBuilder().setBoolValue(true).build()),
        kv(
            "bytes",
            AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {1, 2})).build()),
        kv("m", KVLIST));
  }

  private static ExportTraceServiceRequest oneSpan(Span span) {
    return traces(resource("svc"), span);
  }

  private static ExportTraceServiceRequest edit(
      ExportTraceServiceRequest request, UnaryOperator<Span.Builder> change) {
    ExportTraceServiceRequest.Builder out = request.toBuilder();
    for (ResourceSpans.Builder r : out.getResourceSpansBuilderList()) {
      for (ScopeSpans.Builder s : r.getScopeSpansBuilderList()) {
        for (Span.Builder span : s.getSpansBuilderList()) {
          change.apply(span);
        }
      }
    }
    return out.build();
  }

  private static String list(String context, String... statements) {
    StringBuilder yaml =
        new StringBuilder("trace_statements:\n  - context: " + context + "\n    statements:\n");
    for (String s : statements) {
      yaml.append("      - '").append(s.replace("'", "''")).append("'\n");
    }
    return yaml.toString();
  }

  private static String flat(String key, String... statements) {
    StringBuilder yaml = new StringBuilder(key + ":\n");
    for (String s : statements) {
      yaml.append("  - '").append(s.replace("'", "''")).append("'\n");
    }
    return yaml.toString();
  }

  static Stream<Case> traceCases() {
    ExportTraceServiceRequest health =
        traces(
            resource("svc"),
            span("a", kv("http.route", "/health")),
            span("b", kv("http.route", "/users")));
    ExportTraceServiceRequest typed = oneSpan(typed());
    String big = "x".repeat(300);
    Span withUnknown =
        span("u", kv("k", "v")).toBuilder()
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .addField(99, UnknownFieldSet.Field.newBuilder().addVarint(7).build())
                    .build())
            .build();
    ExportTraceServiceRequest twoScopes =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(resource("svc"))
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .setScope(InstrumentationScope.newBuilder().setName("one"))
                            .addSpans(span("a")))
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .setScope(InstrumentationScope.newBuilder().setName("two"))
                            .addSpans(span("b"))))
            .build();
    return Stream.of(
        new Case(
            "set where a string equality matches",
            list(
                "span",
                "set(attributes[\"x\"], \"y\") where attributes[\"http.route\"] == \"/health\""),
            health,
            edit(health, s -> s.getName().equals("a") ? s.addAttributes(kv("x", "y")) : s)),
        new Case(
            "flat form infers the span context",
            flat(
                "trace_statements",
                "set(span.attributes[\"x\"], \"y\") where span.attributes[\"http.route\"] == \"/health\""),
            health,
            edit(health, s -> s.getName().equals("a") ? s.addAttributes(kv("x", "y")) : s)),
        new Case(
            "set replaces a value of each type in place",
            list(
                "span",
                "set(attributes[\"s\"], 1)",
                "set(attributes[\"i\"], \"text\")",
                "set(attributes[\"d\"], true)",
                "set(attributes[\"b\"], 2.5)",
                "set(attributes[\"bytes\"], [\"a\", 1])"),
            typed,
            edit(
                typed,
                s ->
                    s.setAttributes(0, kv("s", 1))
                        .setAttributes(1, kv("i", "text"))
                        .setAttributes(
                            2,
                            kv("b", AnyValue.newBuilder().setBoolValue(true).build()).toBuilder()
                                .setKey("d"))
                        .setAttributes(
                            3, kv("b", AnyValue.newBuilder().setDoubleValue(2.5).build()))
                        .setAttributes(
                            4,
                            kv(
                                "bytes",
                                AnyValue.newBuilder()
                                    .setArrayValue(
                                        ArrayValue.newBuilder()
                                            .addValues(AnyValue.newBuilder().setStringValue("a"))
                                            .addValues(AnyValue.newBuilder().setIntValue(1)))
                                    .build())))),
        new Case(
            "set copies a value of each type from another key",
            list(
                "span",
                "set(attributes[\"c.s\"], attributes[\"s\"])",
                "set(attributes[\"c.i\"], attributes[\"i\"])",
                "set(attributes[\"c.d\"], attributes[\"d\"])",
                "set(attributes[\"c.b\"], attributes[\"b\"])",
                "set(attributes[\"c.bytes\"], attributes[\"bytes\"])",
                "set(attributes[\"c.m\"], attributes[\"m\"])"),
            typed,
            edit(
                typed,
                s -> {
                  for (int i = 0; i < 6; i++) {
                    s.addAttributes(
                        s.getAttributes(i).toBuilder().setKey("c." + s.getAttributes(i).getKey()));
                  }
                  return s;
                })),
        new Case(
            "a missing key sets nothing and deletes nothing",
            list(
                "span",
                "set(attributes[\"x\"], attributes[\"missing\"])",
                "delete_key(attributes, \"missing\")",
                "set(attributes[\"y\"], resource.attributes[\"missing\"])"),
            typed,
            typed),
        new Case(
            "an item grows beyond its original size",
            list("span", "set(attributes[\"big\"], \"" + big + "\")", "set(name, \"" + big + "\")"),
            health,
            edit(health, s -> s.addAttributes(kv("big", big)).setName(big))),
        new Case(
            "unknown fields are kept through an edit",
            list("span", "set(name, \"renamed\")", "set(attributes[\"k\"], \"w\")"),
            oneSpan(withUnknown),
            edit(oneSpan(withUnknown), s -> s.setName("renamed").setAttributes(0, kv("k", "w")))),
        new Case(
            "a where sees an earlier statement's result",
            list(
                "span",
                "set(attributes[\"a\"], \"1\") where name == \"a\"",
                "set(attributes[\"b\"], \"2\") where attributes[\"a\"] == \"1\""),
            health,
            edit(
                health,
                s ->
                    s.getName().equals("a")
                        ? s.addAttributes(kv("a", "1")).addAttributes(kv("b", "2"))
                        : s)),
        new Case(
            "span fields: name, kind, trace_state, status",
            list(
                "span",
                "set(name, \"n\")",
                "set(kind, SPAN_KIND_CLIENT)",
                "set(trace_state, \"k=v\")",
                "set(status.code, STATUS_CODE_ERROR)",
                "set(status.message, \"failed\")"),
            health,
            edit(
                health,
                s ->
                    s.setName("n")
                        .setKind(Span.SpanKind.SPAN_KIND_CLIENT)
                        .setTraceState("k=v")
                        .setStatus(
                            Status.newBuilder()
                                .setCode(Status.StatusCode.STATUS_CODE_ERROR)
                                .setMessage("failed")))),
        new Case(
            "a resource shared by two scopes changes once",
            list("resource", "set(attributes[\"env\"], \"prod\")"),
            twoScopes,
            twoScopes.toBuilder()
                .setResourceSpans(
                    0,
                    twoScopes.getResourceSpans(0).toBuilder()
                        .setResource(resource("svc").toBuilder().addAttributes(kv("env", "prod"))))
                .build()),
        new Case(
            "a span statement sets its resource's attribute",
            flat(
                "trace_statements",
                "set(resource.attributes[\"seen\"], span.name) where span.name == \"b\""),
            health,
            health.toBuilder()
                .setResourceSpans(
                    0,
                    health.getResourceSpans(0).toBuilder()
                        .setResource(resource("svc").toBuilder().addAttributes(kv("seen", "b"))))
                .build()),
        new Case(
            "scope statements set the scope's fields",
            list("scope", "set(attributes[\"a\"], \"b\")", "set(version, \"2\")"),
            health,
            health.toBuilder()
                .setResourceSpans(
                    0,
                    health.getResourceSpans(0).toBuilder()
                        .setScopeSpans(
                            0,
                            health.getResourceSpans(0).getScopeSpans(0).toBuilder()
                                .setScope(
                                    InstrumentationScope.newBuilder()
                                        .setName("lib")
                                        .setVersion("2")
                                        .addAttributes(kv("a", "b")))))
                .build()),
        new Case(
            "keep_keys and delete_key",
            list(
                "span",
                "keep_keys(attributes, [\"s\", \"i\", \"d\"])",
                "delete_key(attributes, \"i\")"),
            typed,
            edit(
                typed,
                s -> {
                  var a = List.copyOf(s.getAttributesList());
                  return s.clearAttributes().addAttributes(a.get(0)).addAttributes(a.get(2));
                })),
        new Case(
            "keep_keys with no keys empties the map",
            list("span", "keep_keys(attributes, [])"),
            typed,
            edit(typed, Span.Builder::clearAttributes)),
        new Case(
            "matching keys: delete, then keep",
            list(
                "span",
                "delete_matching_keys(attributes, \"^b\")",
                "keep_matching_keys(attributes, \"[sdm]\")"),
            typed,
            edit(
                typed,
                s -> {
                  var a = List.copyOf(s.getAttributesList());
                  return s.clearAttributes()
                      .addAttributes(a.get(0))
                      .addAttributes(a.get(2))
                      .addAttributes(a.get(5));
                })),
        new Case(
            "truncate_all cuts strings at a character boundary",
            list("span", "truncate_all(attributes, 3)"),
            oneSpan(
                span(
                    "t",
                    kv("ascii", "abcdef"),
                    kv("utf8", "a\u00e9b"),
                    kv("short", "ab"),
                    kv("n", 12345))),
            oneSpan(
                span(
                    "t",
                    kv("ascii", "abc"),
                    kv("utf8", "a\u00e9"),
                    kv("short", "ab"),
                    kv("n", 12345)))),
        new Case(
            "limit keeps the priority keys first",
            list("span", "limit(attributes, 2, [\"d\"])"),
            typed,
            edit(
                typed,
                s -> {
                  var a = List.copyOf(s.getAttributesList());
                  return s.clearAttributes().addAttributes(a.get(0)).addAttributes(a.get(2));
                })),
        new Case(
            "replace_pattern, replace_all_patterns and replace_match",
            list(
                "span",
                "replace_pattern(attributes[\"url\"], \"token=([a-z]+)\", \"token=***\")",
                "replace_all_patterns(attributes, \"value\", \"\\\\d+\", \"{n}\")",
                "replace_all_patterns(attributes, \"key\", \"^old\\\\.\", \"new.\")",
                "replace_match(name, \"GET /users/*\", \"GET /users/{id}\")"),
            oneSpan(
                span(
                    "GET /users/42",
                    kv("url", "/a?token=abc&x=1"),
                    kv("old.k", "7 and 8"),
                    kv("n", 5))),
            oneSpan(
                span(
                    "GET /users/{id}",
                    kv("url", "/a?token=***&x={n}"),
                    kv("new.k", "{n} and {n}"),
                    kv("n", 5)))),
        new Case(
            "replace_* with a hash function and a format, each match hashed in its place",
            list(
                "span",
                "replace_pattern(attributes[\"cmd\"], \"passwd=([^ ]*)\", \"$1\", SHA256, \"passwd=%s\")",
                "replace_pattern(attributes[\"two\"], \"abc\", \"$0\", MD5)",
                "replace_pattern(attributes[\"u\"], \"[a-z]+\", \"$0\", ToUpperCase, \"<%s>\")",
                "replace_all_patterns(attributes, \"key\", \"^Hello World$\", \"$0\", SHA1, \"k.%s\")",
                "replace_all_patterns(attributes, \"value\", \"password123\", \"$0\", Murmur3Hash128)",
                "replace_match(name, \"GET /users/*\", \"Hello World\", Murmur3Hash, \"user-%s\")",
                "replace_pattern(attributes[\"s512\"], \"^.*$\", \"$0\", SHA512)"),
            oneSpan(
                span(
                    "GET /users/42",
                    kv("cmd", "run passwd=abc now"),
                    kv("two", "abc and abc"),
                    kv("u", "ab-cd"),
                    kv("Hello World", 1),
                    kv("secret", "my password123"),
                    kv("s512", "abc"))),
            oneSpan(
                span(
                    "user-ce837619",
                    kv(
                        "cmd",
                        "run passwd=ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
                            + " now"),
                    kv(
                        "two",
                        "900150983cd24fb0d6963f7d28e17f72 and 900150983cd24fb0d6963f7d28e17f72"),
                    kv("u", "<AB>-<CD>"),
                    kv("k.0a4d55a8d778e5022fab701977c5d840bbc486d0", 1),
                    kv("secret", "my 0d6e32cdfc91c174947f060f671760fc"),
                    kv(
                        "s512",
                        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                            + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")))),
        new Case(
            "the flat form infers the context past a function's name",
            flat(
                "trace_statements",
                "replace_pattern(span.attributes[\"x\"], \"a+\", \"$0\", Murmur3Hash, \"m-%s\")"),
            oneSpan(span("f", kv("x", "baab"))),
            oneSpan(span("f", kv("x", "bm-a9911037b")))),
        new Case(
            "merge_maps with each strategy",
            list(
                "span",
                "merge_maps(attributes, attributes[\"m\"], \"insert\")",
                "set(attributes[\"m2\"], attributes[\"m\"])",
                "merge_maps(cache, attributes[\"m\"], \"upsert\")",
                "set(attributes[\"inner\"], \"mine\")",
                "merge_maps(attributes, cache, \"update\")",
                "delete_key(attributes, \"m\")",
                "delete_key(attributes, \"m2\")"),
            oneSpan(span("m", kv("inner", "old"), kv("m", KVLIST))),
            oneSpan(
                span(
                    "m",
                    kv("inner", "v"),
                    kv("list", KVLIST.getKvlistValue().getValues(1).getValue())))),
        new Case(
            "the cache carries a value between statements of one item",
            list(
                "span",
                "set(cache[\"n\"], name)",
                "set(attributes[\"copied\"], cache[\"n\"]) where cache[\"n\"] == \"a\""),
            health,
            edit(health, s -> s.getName().equals("a") ? s.addAttributes(kv("copied", "a")) : s)));
  }

  static Stream<Case> logAndMetricCases() {
    ExportLogsServiceRequest logs =
        ExportLogsServiceRequest.newBuilder()
            .addResourceLogs(
                ResourceLogs.newBuilder()
                    .setResource(resource("svc"))
                    .addScopeLogs(
                        ScopeLogs.newBuilder()
                            .addLogRecords(
                                LogRecord.newBuilder()
                                    .setTimeUnixNano(1)
                                    .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_INFO)
                                    .setSeverityText("INFO")
                                    .setBody(AnyValue.newBuilder().setStringValue("request failed"))
                                    .addAttributes(kv("http.route", "/r")))
                            .addLogRecords(
                                LogRecord.newBuilder()
                                    .setTimeUnixNano(2)
                                    .setBody(AnyValue.newBuilder().setStringValue("ok")))))
            .build();
    ExportLogsServiceRequest.Builder logsOut = logs.toBuilder();
    logsOut
        .getResourceLogsBuilder(0)
        .getScopeLogsBuilder(0)
        .getLogRecordsBuilder(0)
        .setSeverityText("FAIL")
        .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_WARN)
        .setBody(AnyValue.newBuilder().setStringValue("/r"));
    ExportMetricsServiceRequest metrics =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(resource("svc"))
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder()
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("old")
                                    .setUnit("ms")
                                    .setSum(
                                        Sum.newBuilder()
                                            .setAggregationTemporalityValue(2)
                                            .setIsMonotonic(true)
                                            .addDataPoints(point("h1", 1))
                                            .addDataPoints(point("h2", 2))))
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("other")
                                    .setGauge(Gauge.newBuilder().addDataPoints(point("h3", 3))))))
            .build();
    ExportMetricsServiceRequest.Builder metricsOut = metrics.toBuilder();
    Metric.Builder renamed =
        metricsOut.getResourceMetricsBuilder(0).getScopeMetricsBuilder(0).getMetricsBuilder(0);
    renamed.setName("new").setDescription("renamed");
    renamed.getSumBuilder().getDataPointsBuilder(0).addAttributes(kv("tagged", "yes"));
    renamed.getSumBuilder().getDataPointsBuilder(1).addAttributes(kv("tagged", "yes"));
    ExportMetricsServiceRequest.Builder described = metrics.toBuilder();
    described
        .getResourceMetricsBuilder(0)
        .getScopeMetricsBuilder(0)
        .getMetricsBuilder(1)
        .setDescription("from a point");
    return Stream.of(
        new Case(
            "a data point statement sets its metric's description",
            flat(
                "metric_statements",
                "set(metric.description, \"from a point\") where datapoint.attributes[\"host\"] == \"h3\""),
            metrics,
            described.build()),
        new Case(
            "log statements: severity, body from an attribute",
            flat(
                "log_statements",
                "set(log.severity_text, \"FAIL\") where log.body == \"request failed\"",
                "set(log.severity_number, SEVERITY_NUMBER_WARN) where log.severity_text == \"FAIL\"",
                "set(log.body, log.attributes[\"http.route\"])"),
            logs,
            logsOut.build()),
        new Case(
            "metric and data point statements",
            "metric_statements:\n"
                + "  - context: metric\n    statements:\n"
                + "      - 'set(description, \"renamed\") where name == \"old\"'\n"
                + "      - 'set(name, \"new\") where name == \"old\"'\n"
                + "  - 'set(datapoint.attributes[\"tagged\"], \"yes\") where metric.name == \"new\"'\n",
            metrics,
            metricsOut.build()));
  }

  private static NumberDataPoint point(String host, double value) {
    return NumberDataPoint.newBuilder()
        .setTimeUnixNano(1_000)
        .setAsDouble(value)
        .addAttributes(kv("host", host))
        .build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({
    "traceCases",
    "logAndMetricCases",
    "dev.sluice.processor.transform.SpanEventCases#cases",
    "dev.sluice.processor.transform.NestedKeyCases#cases",
    "dev.sluice.processor.transform.SharedCacheCases#cases"
  })
  void transformsAsTheCollectorDoes(Case c) throws Exception {
    assertThat(Harness.run(c.yaml(), c.input())).isEqualTo(c.expected());
  }
}
