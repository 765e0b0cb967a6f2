package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CorsTest {

  @ParameterizedTest
  @CsvSource({
    "https://*.example, https://app.example, true",
    "https://*.example, HTTPS://App.EXAMPLE, true",
    "https://*.example, https://example, false",
    "https://*.example, https://app.example.org, false",
    "*, https://anything, true",
    "https://a*b*c, https://aXbYc, true",
    "https://a*b*c, https://aXbYcZ, false",
    "https://app.example, https://app.example, true",
    "https://app.example, https://app.examples, false",
    "https://**.example, https://x.example, true",
  })
  void matchesOriginsByWildcardIgnoringCase(String pattern, String origin, boolean expected) {
    assertThat(Cors.matches(pattern.toLowerCase(java.util.Locale.ROOT), origin))
        .isEqualTo(expected);
  }

  // The timeout is no measurement: the old regular expression would take years on this input.
  @org.junit.jupiter.api.Test
  @org.junit.jupiter.api.Timeout(30)
  void matchesAHostileOriginAgainstManyWildcardsInLinearishSteps() {
    // A regular expression of this shape backtracks polynomially in the origin's length.
    String pattern = "*a*a*a*a*a*a*a*b";
    String origin = "a".repeat(16 * 1024);
    assertThat(Cors.matches(pattern, origin)).isFalse();
  }
}
