package dev.sluice.processor.attributes;

import static dev.sluice.testkit.AttributeRequests.array;
import static dev.sluice.testkit.AttributeRequests.bool;
import static dev.sluice.testkit.AttributeRequests.bytes;
import static dev.sluice.testkit.AttributeRequests.dbl;
import static dev.sluice.testkit.AttributeRequests.everyType;
import static dev.sluice.testkit.AttributeRequests.gauge;
import static dev.sluice.testkit.AttributeRequests.histogram;
import static dev.sluice.testkit.AttributeRequests.integer;
import static dev.sluice.testkit.AttributeRequests.kv;
import static dev.sluice.testkit.AttributeRequests.kvlist;
import static dev.sluice.testkit.AttributeRequests.log;
import static dev.sluice.testkit.AttributeRequests.logs;
import static dev.sluice.testkit.AttributeRequests.metrics;
import static dev.sluice.testkit.AttributeRequests.plus;
import static dev.sluice.testkit.AttributeRequests.service;
import static dev.sluice.testkit.AttributeRequests.sha256;
import static dev.sluice.testkit.AttributeRequests.span;
import static dev.sluice.testkit.AttributeRequests.str;
import static dev.sluice.testkit.AttributeRequests.traces;
import static dev.sluice.testkit.AttributeRequests.withUnknownField;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import dev.sluice.testkit.AttributeRequests;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The attributes processor's conformance table: a configuration, a request built with
 * protobuf-java, and the request expected out, compared after parsing the processor's output back
 * with protobuf-java. Expected values follow the Go collector's {@code attributesprocessor}.
 */
class AttributesConformanceTest {
  record Case(String name, String yaml, Message input, Message expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final List<KeyValue> HTTP =
      List.of(kv("http.method", str("GET")), kv("http.status_code", integer(200)));

  /** A one-span request whose span has {@code attributes}. */
  private static Message spanWith(List<KeyValue> attributes) {
    return traces(service("shop"), span("GET /", attributes));
  }

  private static Message spanWith(KeyValue... attributes) {
    return spanWith(List.of(attributes));
  }

  private static io.opentelemetry.proto.logs.v1.LogRecord severity(
      io.opentelemetry.proto.logs.v1.LogRecord record, int number) {
    return record.toBuilder().setSeverityNumberValue(number).build();
  }

  private static String actions(String... lines) {
    return "actions:\n" + String.join("\n", lines) + "\n";
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "insert adds a missing key",
            actions("  - {key: env, value: prod, action: insert}"),
            spanWith(HTTP),
            spanWith(plus(HTTP, kv("env", str("prod"))))),
        new Case(
            "insert leaves an existing key as it was",
            actions("  - {key: http.method, value: POST, action: insert}"),
            spanWith(HTTP),
            spanWith(HTTP)),
        new Case(
            "update changes an existing key in place",
            actions("  - {key: http.status_code, value: 404, action: update}"),
            spanWith(HTTP),
            spanWith(kv("http.method", str("GET")), kv("http.status_code", integer(404)))),
        new Case(
            "update of a missing key does nothing",
            actions("  - {key: missing, value: 1, action: update}"),
            spanWith(HTTP),
            spanWith(HTTP)),
        new Case(
            "upsert takes each value type from the file",
            actions(
                "  - {key: s, value: text, action: upsert}",
                "  - {key: i, value: 42, action: upsert}",
                "  - {key: d, value: 1.5, action: upsert}",
                "  - {key: b, value: false, action: upsert}",
                "  - {key: a, value: [1, x], action: upsert}",
                "  - {key: m, value: {k: v}, action: upsert}"),
            spanWith(kv("i", str("old"))),
            spanWith(
                kv("i", integer(42)),
                kv("s", str("text")),
                kv("d", dbl(1.5)),
                kv("b", bool(false)),
                kv("a", array(integer(1), str("x"))),
                kv("m", kvlist(kv("k", str("v")))))),
        new Case(
            "an attribute of each value type is kept through an edit of another",
            actions("  - {key: added, value: 1, action: upsert}"),
            spanWith(everyType()),
            spanWith(plus(everyType(), kv("added", integer(1))))),
        new Case(
            "upsert from_attribute copies the value, whatever its type",
            actions(
                "  - {key: copy_a, from_attribute: a, action: upsert}",
                "  - {key: copy_missing, from_attribute: nope, action: upsert}"),
            spanWith(everyType()),
            spanWith(plus(everyType(), kv("copy_a", array(str("x"), integer(1)))))),
        new Case(
            "insert from_attribute sees the actions before it",
            actions(
                "  - {key: x, value: first, action: insert}",
                "  - {key: y, from_attribute: x, action: insert}"),
            spanWith(),
            spanWith(kv("x", str("first")), kv("y", str("first")))),
        new Case(
            "delete by key and by pattern; a missing key is no change",
            actions(
                "  - {key: d, action: delete}",
                "  - {pattern: '^[abm]$', action: delete}",
                "  - {key: missing, action: delete}"),
            spanWith(everyType()),
            spanWith(
                kv("s", str("text é")),
                kv("i", integer(-7)),
                kv("y", bytes((byte) 1, (byte) 0xff)),
                kv("e", AnyValue.getDefaultInstance()))),
        new Case(
            "hash writes SHA-256 hex of a string, an int, a double and a bool as Go does",
            actions(
                "  - {key: s, action: hash}",
                "  - {key: i, action: hash}",
                "  - {key: d, action: hash}",
                "  - {key: b, action: hash}"),
            spanWith(everyType()),
            spanWith(
                kv("s", str(sha256("text é"))),
                kv("i", str(sha256(-7L))),
                kv("d", str(sha256(2.5))),
                kv("b", str(sha256(new byte[] {1}))),
                kv("y", bytes((byte) 1, (byte) 0xff)),
                kv("a", array(str("x"), integer(1))),
                kv("m", kvlist(kv("k", str("v")))),
                kv("e", AnyValue.getDefaultInstance()))),
        new Case(
            "hash by pattern makes bytes, arrays, maps and the empty value the empty string",
            actions("  - {pattern: '^[yame]$', action: hash}"),
            spanWith(everyType()),
            spanWith(
                kv("s", str("text é")),
                kv("i", integer(-7)),
                kv("d", dbl(2.5)),
                kv("b", bool(true)),
                kv("y", str("")),
                kv("a", str("")),
                kv("m", str("")),
                kv("e", str("")))),
        new Case(
            "hash of a known string, once even when both key and pattern select it",
            actions("  - {key: user, pattern: '^us', action: hash}"),
            spanWith(kv("user", str("abc"))),
            spanWith(
                kv(
                    "user",
                    str("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")))),
        new Case(
            "extract upserts each named group, overwriting an existing key",
            actions(
                "  - key: http.target",
                "    pattern: ^/api/(?P<version>v\\d+)/(?P<resource_name>\\w+)(?:/(?P<id>\\d+))?",
                "    action: extract"),
            spanWith(kv("http.target", str("/api/v2/users?x=1")), kv("version", str("old"))),
            spanWith(
                kv("http.target", str("/api/v2/users?x=1")),
                kv("version", str("v2")),
                kv("resource_name", str("users")),
                kv("id", str("")))),
        new Case(
            "extract finds a match anywhere, in non-ASCII text too",
            actions("  - {key: path, pattern: 'é(?P<rest>.+)', action: extract}"),
            spanWith(kv("path", str("x/é/ü"))),
            spanWith(kv("path", str("x/é/ü")), kv("rest", str("/ü")))),
        new Case(
            "extract leaves a non-string or unmatched value alone",
            actions(
                "  - {key: i, pattern: '(?P<digits>\\d+)', action: extract}",
                "  - {key: s, pattern: '^(?P<n>\\d+)$', action: extract}"),
            spanWith(everyType()),
            spanWith(everyType())),
        new Case(
            "convert to int as Go does, leaving what does not parse",
            actions(
                "  - {key: a, action: convert, converted_type: int}",
                "  - {key: b, action: convert, converted_type: int}",
                "  - {key: c, action: convert, converted_type: int}",
                "  - {key: d, action: convert, converted_type: int}",
                "  - {key: e, action: convert, converted_type: int}",
                "  - {key: f, action: convert, converted_type: int}"),
            spanWith(
                kv("a", str("-123")),
                kv("b", str("12.5")),
                kv("c", dbl(-3.9)),
                kv("d", bool(true)),
                kv("e", str("9223372036854775808")),
                kv("f", bytes((byte) 1))),
            spanWith(
                kv("a", integer(-123)),
                kv("b", str("12.5")),
                kv("c", integer(-3)),
                kv("d", integer(1)),
                kv("e", str("9223372036854775808")),
                kv("f", bytes((byte) 1)))),
        new Case(
            "convert to double as Go does",
            actions(
                "  - {key: a, action: convert, converted_type: double}",
                "  - {key: b, action: convert, converted_type: double}",
                "  - {key: c, action: convert, converted_type: double}",
                "  - {key: d, action: convert, converted_type: double}",
                "  - {key: e, action: convert, converted_type: double}",
                "  - {key: f, action: convert, converted_type: double}"),
            spanWith(
                kv("a", integer(42)),
                kv("b", str("1.5e3")),
                kv("c", str("Inf")),
                kv("d", bool(false)),
                kv("e", str("1.5d")),
                kv("f", str("0x1p-2"))),
            spanWith(
                kv("a", dbl(42)),
                kv("b", dbl(1500)),
                kv("c", dbl(Double.POSITIVE_INFINITY)),
                kv("d", dbl(0)),
                kv("e", str("1.5d")),
                kv("f", dbl(0.25)))),
        new Case(
            "convert to string writes ints, doubles, bools, bytes, arrays and maps as Go does",
            actions(
                "  - {key: i, action: convert, converted_type: string}",
                "  - {key: d, action: convert, converted_type: string}",
                "  - {key: b, action: convert, converted_type: string}",
                "  - {key: y, action: convert, converted_type: string}",
                "  - {key: a, action: convert, converted_type: string}",
                "  - {key: m, action: convert, converted_type: string}",
                "  - {key: e, action: convert, converted_type: string}",
                "  - {key: small, action: convert, converted_type: string}",
                "  - {key: big, action: convert, converted_type: string}"),
            spanWith(plus(everyType(), kv("small", dbl(1.5e-7)), kv("big", dbl(1e21)))),
            spanWith(
                kv("s", str("text é")),
                kv("i", str("-7")),
                kv("d", str("2.5")),
                kv("b", str("true")),
                kv("y", str("Af8=")),
                kv("a", str("[\"x\",1]")),
                kv("m", str("{\"k\":\"v\"}")),
                kv("e", str("")),
                kv("small", str("1.5e-7")),
                kv("big", str("1e+21")))),
        new Case(
            "unknown fields of the span and of untouched entries are kept through an edit",
            actions("  - {key: env, value: prod, action: upsert}"),
            traces(
                service("shop"),
                withUnknownField(span("GET /", List.of(withUnknownField(kv("kept", str("yes"))))))),
            traces(
                service("shop"),
                withUnknownField(
                    span(
                        "GET /",
                        List.of(
                            withUnknownField(kv("kept", str("yes"))), kv("env", str("prod"))))))),
        new Case(
            "log records: the actions apply to their attributes",
            actions(
                "  - {key: level, value: warn, action: upsert}", "  - {key: x, action: delete}"),
            logs(service("shop"), log("hello", List.of(kv("x", integer(1))))),
            logs(service("shop"), log("hello", List.of(kv("level", str("warn")))))),
        new Case(
            "metrics: the actions apply to every data point of every type",
            actions("  - {key: host, value: h1, action: insert}"),
            metrics(
                service("shop"),
                gauge("g", List.of(), List.of(kv("host", str("h0")))),
                histogram("h", List.of())),
            metrics(
                service("shop"),
                gauge("g", List.of(kv("host", str("h1"))), List.of(kv("host", str("h0")))),
                histogram("h", List.of(kv("host", str("h1")))))),
        new Case(
            "include services (strict) selects spans of the listed services only",
            "include: {match_type: strict, services: [shop]}\n"
                + actions("  - {key: hit, value: true, action: insert}"),
            traces(service("shop"), span("a", List.of())),
            traces(service("shop"), span("a", List.of(kv("hit", bool(true)))))),
        new Case(
            "include services does not select another service",
            "include: {match_type: strict, services: [shop]}\n"
                + actions("  - {key: hit, value: true, action: insert}"),
            traces(service("cart"), span("a", List.of())),
            traces(service("cart"), span("a", List.of()))),
        new Case(
            "exclude span_names (regexp) leaves the spans it finds",
            "exclude: {match_type: regexp, span_names: ['^health']}\n"
                + actions("  - {key: hit, value: true, action: insert}"),
            traces(service("shop"), span("healthz", List.of()), span("GET /", List.of())),
            traces(
                service("shop"),
                span("healthz", List.of()),
                span("GET /", List.of(kv("hit", bool(true)))))),
        new Case(
            "include span_kinds, libraries and typed attributes all must match",
            "include:\n"
                + "  match_type: strict\n"
                + "  span_kinds: [SPAN_KIND_SERVER]\n"
                + "  libraries: [{name: lib, version: '1'}]\n"
                + "  attributes: [{key: http.status_code, value: 200}, {key: http.method}]\n"
                + actions("  - {key: hit, value: true, action: insert}"),
            traces(
                service("shop"),
                span("a", HTTP),
                span(
                    "b", List.of(kv("http.status_code", str("200")), kv("http.method", str("G"))))),
            traces(
                service("shop"),
                span("a", plus(HTTP, kv("hit", bool(true)))),
                span(
                    "b",
                    List.of(kv("http.status_code", str("200")), kv("http.method", str("G")))))),
        new Case(
            "regexp attribute values match an int's decimal text",
            "include: {match_type: regexp, attributes: [{key: http.status_code, value: '^2'}]}\n"
                + actions("  - {key: ok, value: true, action: insert}"),
            spanWith(HTTP),
            spanWith(plus(HTTP, kv("ok", bool(true))))),
        new Case(
            "include resources and exclude libraries on log records",
            "include: {match_type: strict, resources: [{key: service.name, value: shop}]}\n"
                + "exclude: {match_type: strict, log_bodies: [skip]}\n"
                + actions("  - {key: hit, value: true, action: insert}"),
            logs(service("shop"), log("keep", List.of()), log("skip", List.of())),
            logs(
                service("shop"),
                log("keep", List.of(kv("hit", bool(true)))),
                log("skip", List.of()))),
        new Case(
            "include log_severity_number selects records from min up, undefined ones if asked",
            "include: {match_type: strict, log_severity_number: {min: WARN, match_undefined: true}}\n"
                + actions("  - {key: hit, value: true, action: insert}"),
            logs(
                service("shop"),
                severity(log("info", List.of()), 9),
                severity(log("error", List.of()), 17),
                severity(log("none", List.of()), 0)),
            logs(
                service("shop"),
                severity(log("info", List.of()), 9),
                severity(log("error", List.of(kv("hit", bool(true)))), 17),
                severity(log("none", List.of(kv("hit", bool(true)))), 0))),
        new Case(
            "include metric_names selects the data points of the named metrics",
            "include: {match_type: regexp, metric_names: ['^http\\.']}\n"
                + actions("  - {key: hit, value: true, action: insert}"),
            metrics(service("shop"), gauge("http.requests", List.of()), gauge("cpu", List.of())),
            metrics(
                service("shop"),
                gauge("http.requests", List.of(kv("hit", bool(true)))),
                gauge("cpu", List.of()))),
        new Case(
            "services compares a missing service.name as <nil-service-name>",
            "include: {match_type: strict, services: ['<nil-service-name>']}\n"
                + actions("  - {key: hit, value: true, action: insert}"),
            traces(AttributeRequests.resource(), span("a", List.of())),
            traces(AttributeRequests.resource(), span("a", List.of(kv("hit", bool(true)))))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void producesWhatTheGoCollectorProduces(Case c) throws Exception {
    assertThat(Harness.run(c.yaml(), c.input())).isEqualTo(c.expected());
  }
}
