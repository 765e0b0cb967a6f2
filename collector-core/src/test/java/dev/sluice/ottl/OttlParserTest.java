package dev.sluice.ottl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.junit.jupiter.api.Test;

class OttlParserTest {
  private record Bad(String text, int line, int column, String reason) {}

  @Test
  void acceptsTheGrammarOfConditions() {
    List<String> conditions =
        List.of(
            "name == \"GET /health\"",
            "attributes[\"http.route\"] == \"/health\"",
            "attributes[\"a\"][\"b\"][0] != nil",
            "resource.attributes[\"service.name\"] == \"checkout\"",
            "instrumentation_scope.name == \"io.opentelemetry.jdbc\" and instrumentation_scope.version >= \"2\"",
            "span.name == \"x\" or scope.name == \"y\"",
            "kind == SPAN_KIND_SERVER and status.code != STATUS_CODE_ERROR",
            "not (end_time_unix_nano - 0 == 0)".replace(" - 0", ""),
            "start_time_unix_nano < 1.5e18 and start_time_unix_nano > -1",
            "trace_id == TraceID(0x0102030405060708090a0b0c0d0e0f10)",
            "span_id == 0x0102030405060708",
            "IsMatch(name, \"^GET .*\\\\d+$\")",
            "Len(Split(name, \"/\")) > 3 and Split(name, \"/\")[1] == \"api\"",
            "Concat([name, \"x\", 1, 2.5, true, nil], \"-\") == \"a\"",
            "true",
            "not not IsString(attributes[\"k\"])",
            "(name == \"a\" or name == \"b\")\n  and kind == 2");
    for (String condition : conditions) {
      assertThatCode(() -> OttlCondition.parse(condition, OttlContext.SPAN))
          .as(condition)
          .doesNotThrowAnyException();
    }
  }

  @Test
  void reportsLineAndColumnOfSyntaxErrors() {
    List<Bad> table =
        List.of(
            new Bad("", 1, 1, "the condition is empty"),
            new Bad("name == ", 1, 9, "expected a value, found the end"),
            new Bad("name == \"abc", 1, 9, "string not closed"),
            new Bad("name == \"a\\qb\"", 1, 11, "unknown escape \\'q'"),
            new Bad("name == 'a'", 1, 9, "unexpected character '''"),
            new Bad("name = \"a\"", 1, 6, "to compare, write '=='"),
            new Bad("name ! \"a\"", 1, 6, "use 'not' or '!='"),
            new Bad("name == \"a\" and", 1, 16, "expected a value, found the end"),
            new Bad("name == \"a\"\nand kind == 1 kind", 2, 15, "unexpected 'kind'"),
            new Bad("(name == \"a\"", 1, 1, "'(' not closed"),
            new Bad("IsMatch(name, \"a\"", 1, 8, "'(' of IsMatch not closed"),
            new Bad("attributes[k] == 1", 1, 12, "a key is a string or an integer"),
            new Bad("attributes[\"k\" == 1", 1, 16, "expected ']'"),
            new Bad("name == 0x123", 1, 9, "even number of hex digits"),
            new Bad("kind == 99999999999999999999", 1, 9, "integer out of the 64-bit range"),
            new Bad("kind == 1 + 2", 1, 11, "arithmetic ('+') is not supported"),
            new Bad("kind == 1 == 2", 1, 11, "comparisons do not chain"),
            new Bad("attributes == {}", 1, 15, "map literals are not supported"),
            new Bad("Foo(x = 1)", 1, 7, "names an argument"),
            new Bad("span.", 1, 6, "expected a name after '.'"),
            new Bad("\"a\"[0] == 1", 1, 4, "a literal takes no keys"),
            new Bad("name == 1.", 1, 11, "expected digits after the decimal point"),
            new Bad("name == \"\\u12\"", 1, 10, "escape needs 4 hex digits"),
            new Bad("name == \"\\xff\"", 1, 10, "invalid UTF-8"));
    for (Bad bad : table) {
      OttlException e =
          catchThrowableOfType(OttlException.class, () -> Parser.parseCondition(bad.text()));
      assertThat(e).as(bad.text()).isNotNull();
      assertThat(e.reason()).as(bad.text()).contains(bad.reason());
      assertThat(e.line()).as(bad.text() + " line").isEqualTo(bad.line());
      assertThat(e.column()).as(bad.text() + " column").isEqualTo(bad.column());
      assertThat(e.getMessage()).startsWith(bad.line() + ":" + bad.column() + ": ");
    }
  }

  @Test
  void refusesNestingDeeperThanTheBound() {
    String deep = "(".repeat(Parser.MAX_DEPTH + 1) + "true" + ")".repeat(Parser.MAX_DEPTH + 1);
    String fits = "(".repeat(Parser.MAX_DEPTH) + "true" + ")".repeat(Parser.MAX_DEPTH);
    OttlException e = catchThrowableOfType(OttlException.class, () -> Parser.parseCondition(deep));
    assertThat(e.reason()).contains("nested more than " + Parser.MAX_DEPTH);
    assertThat(e.column()).isEqualTo(Parser.MAX_DEPTH + 1);
    assertThatCode(() -> Parser.parseCondition(fits)).doesNotThrowAnyException();
  }

  @Test
  void readsStringEscapesAsGoDoes() throws OttlException {
    Ast.Node node = Parser.parseCondition("\"q\\\"b\\\\n\\n\\t\\u00e9\\U0001F600\\x41\"");
    assertThat(((Ast.Literal) node).value()).isEqualTo("q\"b\\n\n\t\u00e9\uD83D\uDE00A");
  }

  @Test
  void parsesAStatementWithAWhereClause() throws OttlException {
    Ast.Statement statement =
        Parser.parseStatement("set(attributes[\"x\"], \"y\") where name == \"a\"");
    assertThat(statement.editor().name()).isEqualTo("set");
    assertThat(statement.editor().arguments()).hasSize(2);
    assertThat(statement.condition()).isInstanceOf(Ast.Comparison.class);
    assertThat(Parser.parseStatement("delete_key(attributes, \"k\")").condition()).isNull();
  }

  @Test
  void refusesAStatementThatStartsWithAConverter() {
    OttlException e =
        catchThrowableOfType(
            OttlException.class, () -> Parser.parseStatement("IsMatch(name, \"a\")"));
    assertThat(e.reason()).contains("found the converter IsMatch");
    OttlException trailing =
        catchThrowableOfType(
            OttlException.class, () -> Parser.parseStatement("set(name, \"a\") when true"));
    assertThat(trailing.column()).isEqualTo(16);
  }
}
