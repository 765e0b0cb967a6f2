package dev.sluice.processor.transform;

import static dev.sluice.processor.transform.Harness.kv;
import static dev.sluice.processor.transform.Harness.resource;
import static dev.sluice.processor.transform.Harness.span;
import static dev.sluice.processor.transform.Harness.traces;

import com.google.protobuf.UnknownFieldSet;
import dev.sluice.processor.transform.TransformConformanceTest.Case;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/** The conformance cases of the span event context, run by {@link TransformConformanceTest}. */
final class SpanEventCases {
  private SpanEventCases() {}

  static Span.Event event(String name, long timeUnixNano, KeyValue... attributes) {
    Span.Event.Builder event = Span.Event.newBuilder().setName(name).setTimeUnixNano(timeUnixNano);
    for (KeyValue a : attributes) {
      event.addAttributes(a);
    }
    return event.build();
  }

  /** Two spans: the first with three events (one with an unknown field), the second with none. */
  static ExportTraceServiceRequest request() {
    Span.Event withUnknown =
        event("retry", 20, kv("attempt", 2)).toBuilder()
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .addField(99, UnknownFieldSet.Field.newBuilder().addVarint(7).build())
                    .build())
            .build();
    Span first =
        span("GET /a", kv("http.route", "/a")).toBuilder()
            .addEvents(event("exception", 10, kv("exception.type", "IOException")))
            .addEvents(withUnknown)
            .addEvents(event("exception", 30, kv("exception.type", "Timeout"), kv("k", "v")))
            .build();
    return traces(resource("svc"), first, span("GET /b"));
  }

  /** {@code request} with {@code change(span, event)} applied to every event of every span. */
  static ExportTraceServiceRequest edit(
      ExportTraceServiceRequest request,
      BiFunction<Span.Builder, Span.Event.Builder, Span.Event.Builder> change) {
    ExportTraceServiceRequest.Builder out = request.toBuilder();
    for (ResourceSpans.Builder r : out.getResourceSpansBuilderList()) {
      for (ScopeSpans.Builder s : r.getScopeSpansBuilderList()) {
        for (Span.Builder span : s.getSpansBuilderList()) {
          for (Span.Event.Builder e : span.getEventsBuilderList()) {
            change.apply(span, e);
          }
        }
      }
    }
    return out.build();
  }

  /** {@code request} with its first span changed. */
  static ExportTraceServiceRequest firstSpan(
      ExportTraceServiceRequest request, UnaryOperator<Span.Builder> change) {
    ExportTraceServiceRequest.Builder out = request.toBuilder();
    change.apply(out.getResourceSpansBuilder(0).getScopeSpansBuilder(0).getSpansBuilder(0));
    return out.build();
  }

  private static String group(String conditions, String... statements) {
    StringBuilder yaml = new StringBuilder("trace_statements:\n  - context: spanevent\n");
    if (conditions != null) {
      yaml.append("    conditions:\n      - '").append(conditions.replace("'", "''")).append("'\n");
    }
    yaml.append("    statements:\n");
    for (String s : statements) {
      yaml.append("      - '").append(s.replace("'", "''")).append("'\n");
    }
    return yaml.toString();
  }

  private static String flat(String... statements) {
    StringBuilder yaml = new StringBuilder("trace_statements:\n");
    for (String s : statements) {
      yaml.append("  - '").append(s.replace("'", "''")).append("'\n");
    }
    return yaml.toString();
  }

  static Stream<Case> cases() {
    ExportTraceServiceRequest in = request();
    String big = "e".repeat(300);
    return Stream.of(
        new Case(
            "spanevent: a where selects events; the others and unknown fields are kept as bytes",
            group(null, "set(attributes[\"x\"], \"y\") where name == \"exception\""),
            in,
            edit(
                in, (s, e) -> e.getName().equals("exception") ? e.addAttributes(kv("x", "y")) : e)),
        new Case(
            "spanevent: the flat form infers the context and reads the span",
            flat(
                "set(spanevent.name, Concat([span.name, spanevent.name], \" \"))"
                    + " where spanevent.attributes[\"k\"] == \"v\""),
            in,
            edit(
                in,
                (s, e) ->
                    e.getAttributesList().contains(kv("k", "v"))
                        ? e.setName(s.getName() + " " + e.getName())
                        : e)),
        new Case(
            "spanevent: time, dropped attributes count, name and each event growing",
            group(
                null,
                "set(time_unix_nano, 5)",
                "set(dropped_attributes_count, 3)",
                "set(name, \"" + big + "\") where time_unix_nano == 5",
                "delete_key(attributes, \"exception.type\")"),
            in,
            edit(
                in,
                (s, e) -> {
                  var kept =
                      e.getAttributesList().stream()
                          .filter(a -> !a.getKey().equals("exception.type"))
                          .toList();
                  return e.setTimeUnixNano(5)
                      .setDroppedAttributesCount(3)
                      .setName(big)
                      .clearAttributes()
                      .addAllAttributes(kept);
                })),
        new Case(
            "spanevent: group conditions hold per event",
            group(
                "attributes[\"exception.type\"] == \"Timeout\" or name == \"retry\"",
                "set(attributes[\"picked\"], true)"),
            in,
            edit(
                in,
                (s, e) ->
                    e.getName().equals("retry") || e.getAttributesList().contains(kv("k", "v"))
                        ? e.addAttributes(
                            kv("picked", AnyValue.newBuilder().setBoolValue(true).build()))
                        : e)),
        new Case(
            "spanevent: a statement writes the span around the event",
            flat(
                "set(span.attributes[\"exception.seen\"], spanevent.attributes[\"exception.type\"])"
                    + " where spanevent.name == \"exception\"",
                "set(spanevent.attributes[\"route\"], span.attributes[\"http.route\"])"),
            in,
            firstSpan(
                edit(in, (s, e) -> e.addAttributes(kv("route", "/a"))),
                s -> s.addAttributes(kv("exception.seen", "Timeout")))),
        new Case(
            "spanevent: the cache starts empty for each event",
            group(
                null,
                "set(attributes[\"before\"], cache[\"n\"])",
                "set(cache[\"n\"], name)",
                "set(attributes[\"after\"], cache[\"n\"])"),
            in,
            edit(in, (s, e) -> e.addAttributes(kv("after", e.getName())))));
  }
}
