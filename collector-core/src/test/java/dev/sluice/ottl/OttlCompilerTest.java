package dev.sluice.ottl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.junit.jupiter.api.Test;

class OttlCompilerTest {
  private record Bad(OttlContext context, String text, int column, String reason) {}

  @Test
  void refusesWhatThisBuildDoesNotHaveNamingIt() {
    List<Bad> table =
        List.of(
            new Bad(
                OttlContext.SPAN, "nmae == \"a\"", 1, "unknown path 'nmae' in the span context"),
            new Bad(OttlContext.SPAN, "nmae == \"a\"", 1, "name, kind"),
            new Bad(OttlContext.SPAN, "body == \"a\"", 1, "unknown path 'body'"),
            new Bad(OttlContext.LOG, "log.bdy == \"a\"", 5, "log paths"),
            new Bad(OttlContext.SPAN, "resource.name == \"a\"", 10, "resource paths attributes"),
            new Bad(OttlContext.SPAN, "resource == nil", 1, "needs a field"),
            new Bad(OttlContext.SPAN, "name[\"a\"] == nil", 5, "'name' takes no keys"),
            new Bad(OttlContext.SPAN, "attributes[0] == nil", 11, "indexed by string keys"),
            new Bad(
                OttlContext.SPAN,
                "kind == SPAN_KIND_SERVERS",
                9,
                "unknown enum 'SPAN_KIND_SERVERS'"),
            new Bad(
                OttlContext.SPAN,
                "IsMach(name, \"a\")",
                1,
                "unknown converter 'IsMach'; this build supports IsMatch"),
            new Bad(OttlContext.SPAN, "set(name, \"a\")", 1, "'set' is an editor"),
            new Bad(OttlContext.SPAN, "IsMatch(name, \"(\")", 15, "invalid regular expression"),
            new Bad(OttlContext.SPAN, "IsMatch(name, name)", 15, "must be a string literal"),
            new Bad(OttlContext.SPAN, "IsMatch(name)", 1, "IsMatch takes 2 arguments, got 1"),
            new Bad(
                OttlContext.SPAN,
                "Substring(kind, 0, 1) == \"a\"",
                11,
                "argument 1 of Substring must be a string, is a int"),
            new Bad(OttlContext.SPAN, "TraceID(0x01) == trace_id", 9, "TraceID takes 16 bytes"),
            new Bad(OttlContext.SPAN, "name == 1", 1, "a string is compared with a int"),
            new Bad(OttlContext.SPAN, "kind == \"2\"", 1, "a int is compared with a string"),
            new Bad(OttlContext.SPAN, "trace_id == \"ab\"", 1, "a bytes is compared with a string"),
            new Bad(OttlContext.SPAN, "true < false", 1, "bools are compared only with == and !="),
            new Bad(OttlContext.SPAN, "attributes == nil", 1, "comparing a map with a nil"),
            new Bad(OttlContext.SPAN, "name < nil", 1, "nil is compared only with == and !="),
            new Bad(OttlContext.SPAN, "name", 1, "expected a condition (a bool), found a string"),
            new Bad(OttlContext.SPAN, "name == \"a\" and kind", 17, "expected a condition"),
            new Bad(OttlContext.SPAN, "Len(name)[0] == 1", 10, "a int takes no keys"),
            new Bad(OttlContext.SPAN, "Split(name, \",\")[\"a\"] == 1", 17, "indexed by integers"),
            new Bad(
                OttlContext.METRIC,
                "value_double > 1",
                1,
                "unknown path 'value_double' in the metric context"),
            new Bad(OttlContext.DATAPOINT, "metric.nam == \"a\"", 8, "metric paths name"),
            new Bad(
                OttlContext.RESOURCE,
                "scope.name == \"a\"",
                1,
                "unknown path 'scope.name' in the resource context"));
    for (Bad bad : table) {
      OttlException e =
          catchThrowableOfType(
              OttlException.class, () -> OttlCondition.parse(bad.text(), bad.context()));
      assertThat(e).as(bad.text()).isNotNull();
      assertThat(e.reason()).as(bad.text()).contains(bad.reason());
      assertThat(e.column()).as(bad.text()).isEqualTo(bad.column());
    }
  }

  @Test
  void acceptsPathsOfEveryContextWithAndWithoutTheirPrefix() {
    List<Bad> fine =
        List.of(
            new Bad(
                OttlContext.RESOURCE,
                "attributes[\"a\"] == \"b\" and resource.dropped_attributes_count == 0",
                0,
                ""),
            new Bad(
                OttlContext.SCOPE,
                "name == \"a\" and scope.version == \"1\" and resource.attributes[\"a\"] == nil",
                0,
                ""),
            new Bad(
                OttlContext.SPANEVENT,
                "name == \"exception\" and spanevent.attributes[\"a\"] == nil and span.name == \"a\" and time_unix_nano > 0",
                0,
                ""),
            new Bad(
                OttlContext.METRIC,
                "name == \"a\" and type == METRIC_DATA_TYPE_SUM and unit == \"ms\" and description != \"\" and is_monotonic == true and aggregation_temporality == AGGREGATION_TEMPORALITY_DELTA",
                0,
                ""),
            new Bad(
                OttlContext.DATAPOINT,
                "attributes[\"a\"] == \"b\" and value_double > 1 and value_int < 2 and count >= 0 and sum <= 1.5 and metric.name == \"a\" and metric.type == METRIC_DATA_TYPE_GAUGE",
                0,
                ""),
            new Bad(
                OttlContext.LOG,
                "severity_number >= SEVERITY_NUMBER_WARN and body == \"x\" and body[\"a\"] == 1 and severity_text == \"WARN\" and event_name == \"e\" and flags == 0 and log.trace_id.string == \"\"",
                0,
                ""),
            new Bad(
                OttlContext.SPAN,
                "status.message == \"m\" and trace_state == \"\" and parent_span_id == SpanID(0x0102030405060708) and span_id.string != \"\" and flags == 1 and dropped_events_count == 0",
                0,
                ""));
    for (Bad ok : fine) {
      assertThatCode(() -> OttlCondition.parse(ok.text(), ok.context()))
          .as(ok.text())
          .doesNotThrowAnyException();
    }
  }

  @Test
  void mixedNumbersAndAttributeValuesCompile() {
    assertThatCode(() -> OttlCondition.parse("kind < 2.5", OttlContext.SPAN))
        .doesNotThrowAnyException();
    assertThatCode(() -> OttlCondition.parse("attributes[\"a\"] == 1", OttlContext.SPAN))
        .doesNotThrowAnyException();
    assertThatCode(() -> OttlCondition.parse("attributes[\"a\"]", OttlContext.SPAN))
        .doesNotThrowAnyException();
  }
}
