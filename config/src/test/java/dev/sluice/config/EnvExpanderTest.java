package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvExpanderTest {
  private final EnvExpander expander =
      EnvExpander.of(Map.of("HOST", "collector.local", "PORT", "4317", "EMPTY", "", "PRICE", "$5"));

  private String value(String text) {
    EnvExpander.Expansion e = expander.expand(text);
    assertThat(e.errors()).isEmpty();
    return e.value();
  }

  @Test
  void expandsEnvSchemeAndBareBracedNames() {
    assertThat(value("${env:HOST}:${PORT}")).isEqualTo("collector.local:4317");
  }

  @Test
  void usesTheDefaultOnlyWhenTheVariableIsUnset() {
    assertThat(value("${env:MISSING:-localhost}")).isEqualTo("localhost");
    assertThat(value("${env:HOST:-localhost}")).isEqualTo("collector.local");
    assertThat(value("[${env:EMPTY:-fallback}]")).isEqualTo("[]");
    assertThat(value("${env:MISSING:-}")).isEmpty();
  }

  @Test
  void expandsReferencesInsideADefault() {
    assertThat(value("${env:MISSING:-${env:HOST}:${env:PORT}}")).isEqualTo("collector.local:4317");
  }

  @Test
  void doubleDollarIsOneDollarAndStopsExpansion() {
    assertThat(value("pa$$word")).isEqualTo("pa$word");
    assertThat(value("$${env:HOST}")).isEqualTo("${env:HOST}");
    assertThat(value("$$$${HOST}")).isEqualTo("$${HOST}");
    assertThat(value("$$${HOST}")).isEqualTo("$collector.local");
  }

  @Test
  void leavesUnbracedAndUnclosedDollarsAlone() {
    assertThat(value("$HOST and $ and ${env:HOST")).isEqualTo("$HOST and $ and ${env:HOST");
    assertThat(value("cost: 5$")).isEqualTo("cost: 5$");
  }

  @Test
  void insertsValuesLiterallyWithoutExpandingThemAgain() {
    assertThat(value("${env:PRICE}")).isEqualTo("$5");
  }

  @Test
  void unsetVariableWithoutDefaultExpandsToEmptyWithAWarning() {
    EnvExpander.Expansion e = expander.expand("http://${env:MISSING}/v1");
    assertThat(e.value()).isEqualTo("http:///v1");
    assertThat(e.unsetReference()).isFalse();
    assertThat(e.warnings())
        .containsExactly(
            "environment variable MISSING is not set: ${env:MISSING} expands to an empty string");
  }

  @Test
  void aLoneUnsetReferenceIsMarkedSoTheDefaultApplies() {
    EnvExpander.Expansion e = expander.expand("${MISSING}");
    assertThat(e.value()).isEmpty();
    assertThat(e.unsetReference()).isTrue();
    assertThat(e.warnings())
        .containsExactly(
            "environment variable MISSING is not set: ${MISSING} leaves the value out, so the"
                + " default applies");
  }

  @Test
  void anEmptyVariableIsNotUnset() {
    EnvExpander.Expansion e = expander.expand("${env:EMPTY}");
    assertThat(e.value()).isEmpty();
    assertThat(e.unsetReference()).isFalse();
    assertThat(e.warnings()).isEmpty();
  }

  @Test
  void rejectsOtherProvidersAndInvalidNames() {
    assertThat(expander.expand("${file:/etc/secret}").errors())
        .containsExactly(
            "unsupported config provider \"file\" in ${file:/etc/secret}: only ${env:NAME} and"
                + " ${NAME} are available");
    assertThat(expander.expand("${env:1ST}").errors())
        .containsExactly(
            "invalid environment variable name \"1ST\" in ${env:1ST}: a name is letters, digits"
                + " and underscores, not starting with a digit");
  }

  @Test
  void textWithoutDollarIsUnchanged() {
    EnvExpander.Expansion e = expander.expand("plain");
    assertThat(e.changed()).isFalse();
    assertThat(e.value()).isEqualTo("plain");
  }

  @Test
  void readsAnInjectedFunction() {
    EnvExpander fromFunction = new EnvExpander(name -> name.equals("X") ? "42" : null);
    assertThat(fromFunction.expand("${X}${Y:-}").value()).isEqualTo("42");
  }
}
