package dev.sluice.processor.transform;

import static dev.sluice.processor.transform.Harness.kv;
import static dev.sluice.processor.transform.Harness.resource;
import static dev.sluice.processor.transform.Harness.span;
import static dev.sluice.processor.transform.Harness.traces;

import dev.sluice.processor.transform.TransformConformanceTest.Case;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import java.util.stream.Stream;

/** The conformance cases of targets with nested keys, run by {@link TransformConformanceTest}. */
final class NestedKeyCases {
  private NestedKeyCases() {}

  static AnyValue map(KeyValue... entries) {
    KeyValueList.Builder list = KeyValueList.newBuilder();
    for (KeyValue e : entries) {
      list.addValues(e);
    }
    return AnyValue.newBuilder().setKvlistValue(list).build();
  }

  static AnyValue list(AnyValue... elements) {
    ArrayValue.Builder list = ArrayValue.newBuilder();
    for (AnyValue e : elements) {
      list.addValues(e);
    }
    return AnyValue.newBuilder().setArrayValue(list).build();
  }

  static AnyValue string(String s) {
    return AnyValue.newBuilder().setStringValue(s).build();
  }

  static AnyValue integer(long i) {
    return AnyValue.newBuilder().setIntValue(i).build();
  }

  private static String statements(String errorMode, String... statements) {
    StringBuilder yaml =
        new StringBuilder(errorMode == null ? "" : "error_mode: " + errorMode + "\n")
            .append("trace_statements:\n  - context: span\n    statements:\n");
    for (String s : statements) {
      yaml.append("      - '").append(s.replace("'", "''")).append("'\n");
    }
    return yaml.toString();
  }

  private static ExportLogsServiceRequest log(AnyValue body) {
    LogRecord.Builder record = LogRecord.newBuilder().setTimeUnixNano(1);
    if (body != null) {
      record.setBody(body);
    }
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .setResource(resource("svc"))
                .addScopeLogs(ScopeLogs.newBuilder().addLogRecords(record)))
        .build();
  }

  static Stream<Case> cases() {
    AnyValue nested = map(kv("inner", "v"), kv("list", list(integer(1), string("two"))));
    ExportTraceServiceRequest in =
        traces(resource("svc"), span("n", kv("m", nested), kv("s", "text"), kv("after", 1)));
    return Stream.of(
        new Case(
            "nested keys: a key of a map value is replaced, and one is added with a new map",
            statements(
                null,
                "set(attributes[\"m\"][\"inner\"], \"w\")",
                "set(attributes[\"m\"][\"new\"][\"deep\"], 5)",
                "set(attributes[\"m\"][\"list\"][1], \"second\")"),
            in,
            traces(
                resource("svc"),
                span(
                    "n",
                    kv(
                        "m",
                        map(
                            kv("inner", "w"),
                            kv("list", list(integer(1), string("second"))),
                            kv("new", map(kv("deep", 5))))),
                    kv("s", "text"),
                    kv("after", 1)))),
        new Case(
            "nested keys: a missing key becomes a map, or a list padded up to the index",
            statements(
                null,
                "set(attributes[\"absent\"][\"a\"], \"x\")",
                "set(attributes[\"padded\"][2], true)",
                "replace_pattern(attributes[\"m\"][\"inner\"], \"v\", \"V\")"),
            in,
            traces(
                resource("svc"),
                span(
                    "n",
                    kv("m", map(kv("inner", "V"), kv("list", list(integer(1), string("two"))))),
                    kv("s", "text"),
                    kv("after", 1),
                    kv("absent", map(kv("a", "x"))),
                    kv(
                        "padded",
                        list(
                            AnyValue.getDefaultInstance(),
                            AnyValue.getDefaultInstance(),
                            AnyValue.newBuilder().setBoolValue(true).build()))))),
        new Case(
            "nested keys: a string, a list past its end or a map by index fails the statement",
            statements(
                "ignore",
                "set(attributes[\"s\"][\"x\"], 1)",
                "set(attributes[\"m\"][\"list\"][5], 1)",
                "set(attributes[\"m\"][0], 1)",
                "set(attributes[\"m\"][\"list\"][\"k\"], 1)",
                "set(attributes[\"far\"][2000], 1)",
                "set(attributes[\"ok\"], \"still runs\")"),
            in,
            traces(
                resource("svc"),
                span(
                    "n",
                    kv("m", nested),
                    kv("s", "text"),
                    kv("after", 1),
                    kv("ok", "still runs")))),
        new Case(
            "nested keys: the map editors edit a map inside a value",
            statements(
                null,
                "delete_key(attributes[\"m\"], \"inner\")",
                "set(attributes[\"m\"][\"sub\"][\"a\"], \"1234\")",
                "set(attributes[\"m\"][\"sub\"][\"b\"], \"5678\")",
                "truncate_all(attributes[\"m\"][\"sub\"], 2)",
                "keep_keys(attributes[\"m\"][\"sub\"], [\"b\"])"),
            in,
            traces(
                resource("svc"),
                span(
                    "n",
                    kv(
                        "m",
                        map(
                            kv("list", list(integer(1), string("two"))),
                            kv("sub", map(kv("b", "56"))))),
                    kv("s", "text"),
                    kv("after", 1)))),
        new Case(
            "nested keys: a map editor of a value that is not a map fails the statement",
            statements(
                "ignore",
                "delete_key(attributes[\"s\"], \"x\")",
                "delete_key(attributes[\"missing\"], \"x\")",
                "keep_keys(attributes[\"m\"][\"list\"], [])",
                "set(attributes[\"ok\"], 1)"),
            in,
            traces(
                resource("svc"),
                span("n", kv("m", nested), kv("s", "text"), kv("after", 1), kv("ok", 1)))),
        new Case(
            "nested keys: the cache holds maps at depth",
            statements(
                null,
                "set(cache[\"c\"][\"k\"], name)",
                "set(attributes[\"from.cache\"], cache[\"c\"][\"k\"])"),
            in,
            traces(
                resource("svc"),
                span(
                    "n", kv("m", nested), kv("s", "text"), kv("after", 1), kv("from.cache", "n")))),
        new Case(
            "nested keys: a log body map gets a key; an absent body becomes a map",
            "log_statements:\n"
                + "  - 'set(log.body[\"a\"][\"b\"], \"c\")'\n"
                + "  - 'set(log.body[\"list\"][0], 1)'\n",
            log(map(kv("kept", "yes"))),
            log(map(kv("kept", "yes"), kv("a", map(kv("b", "c"))), kv("list", list(integer(1)))))),
        new Case(
            "nested keys: an absent log body",
            "log_statements:\n  - 'set(log.body[\"a\"], \"c\")'\n",
            log(null),
            log(map(kv("a", "c")))));
  }
}
