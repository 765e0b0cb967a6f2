package dev.sluice.processor.resourcedetection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OtelResourceAttributesTest {
  private static final String VAR = "OTEL_RESOURCE_ATTRIBUTES";

  private static Map<String, String> parse(String text) throws DetectionException {
    return OtelResourceAttributes.parse(VAR, text);
  }

  @Test
  void readsPairsInOrderWithSpacesAroundKeysAndValuesIgnored() throws Exception {
    assertThat(parse("  service.name = checkout ,deployment.environment=prod,  team=a b "))
        .containsExactly(
            Map.entry("service.name", "checkout"),
            Map.entry("deployment.environment", "prod"),
            Map.entry("team", "a b"));
  }

  @Test
  void emptyOrBlankVariableHasNoAttributes() throws Exception {
    assertThat(parse("")).isEmpty();
    assertThat(parse("   ")).isEmpty();
  }

  @Test
  void percentDecodesKeysAndValuesButLeavesPlusAlone() throws Exception {
    assertThat(parse("a%3Db=x%2Cy%3Dz,path=%2Fopt%2fapp,sum=1+1,snow=%E2%9D%84"))
        .containsExactly(
            Map.entry("a=b", "x,y=z"),
            Map.entry("path", "/opt/app"),
            Map.entry("sum", "1+1"),
            Map.entry("snow", "\u2744"));
  }

  @Test
  void valueMayHoldEqualsSignsAndBeEmpty() throws Exception {
    assertThat(parse("query=a=b,empty="))
        .containsExactly(entry("query", "a=b"), entry("empty", ""));
  }

  @Test
  void trailingCommaIsAcceptedAndLaterDuplicateWins() throws Exception {
    assertThat(parse("k=1,other=2,k=3,")).containsExactly(entry("k", "3"), entry("other", "2"));
  }

  @Test
  void entryWithoutEqualsDiscardsTheWholeVariableNamingTheEntry() {
    assertThatThrownBy(() -> parse("good=1,justtext,also=2"))
        .isInstanceOf(DetectionException.class)
        .hasMessage("OTEL_RESOURCE_ATTRIBUTES: invalid resource format, invalid text: \"justtext\"")
        .matches(e -> ((DetectionException) e).permanent());
  }

  @Test
  void emptyKeyIsRefused() {
    assertThatThrownBy(() -> parse("=value"))
        .hasMessage("OTEL_RESOURCE_ATTRIBUTES: invalid resource format, empty key in \"=value\"");
    assertThatThrownBy(() -> parse("  =value")).hasMessageContaining("empty key");
  }

  @Test
  void emptyEntryBetweenCommasIsRefused() {
    assertThatThrownBy(() -> parse("a=1,,b=2"))
        .hasMessage("OTEL_RESOURCE_ATTRIBUTES: invalid resource format, empty entry at position 2");
    assertThatThrownBy(() -> parse(",a=1")).hasMessageContaining("empty entry at position 1");
  }

  @Test
  void invalidEscapesAreRefusedWithTheEscapeQuoted() {
    assertThatThrownBy(() -> parse("k=%zz"))
        .hasMessage(
            "OTEL_RESOURCE_ATTRIBUTES: invalid resource format in attribute: \"k=%zz\","
                + " err: invalid URL escape \"%zz\"");
    assertThatThrownBy(() -> parse("k=abc%4")).hasMessageEndingWith("invalid URL escape \"%4\"");
    assertThatThrownBy(() -> parse("k=abc%")).hasMessageEndingWith("invalid URL escape \"%\"");
    assertThatThrownBy(() -> parse("k%G1=v")).hasMessageContaining("\"%G1\"");
  }

  @Test
  void bytesThatAreNotUtf8OnceDecodedAreRefused() {
    assertThatThrownBy(() -> parse("k=%C3%28"))
        .hasMessage(
            "OTEL_RESOURCE_ATTRIBUTES: invalid resource format in attribute: \"k=%C3%28\","
                + " err: not UTF-8 once percent-decoded");
  }

  @Test
  void rawNonAsciiTextIsKept() throws Exception {
    assertThat(parse("city=Zürich")).containsExactly(entry("city", "Zürich"));
  }

  private static Map.Entry<String, String> entry(String key, String value) {
    return Map.entry(key, value);
  }
}
