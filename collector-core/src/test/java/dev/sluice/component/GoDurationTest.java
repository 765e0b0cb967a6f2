package dev.sluice.component;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GoDurationTest {
  @ParameterizedTest
  @CsvSource({
    "5s, PT5S",
    "200ms, PT0.2S",
    "1m30s, PT1M30S",
    "1h, PT1H",
    "1.5s, PT1.5S",
    "0, PT0S",
    "-0, PT0S",
    "+2m, PT2M",
    "-1.5h, PT-1H-30M",
    "2h45m10.5s, PT2H45M10.5S",
    "1us, PT0.000001S",
    "1µs, PT0.000001S",
    "3ns, PT0.000000003S",
    ".5s, PT0.5S",
    "1.s, PT1S",
    "1.0000000019s, PT1.000000001S",
    "2562047h47m16.854775807s, PT2562047H47M16.854775807S"
  })
  void parsesGoSyntax(String text, String expected) {
    assertThat(GoDuration.parse(text)).isEqualTo(Duration.parse(expected));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "5", "5x", "s", "1.5", "-", "1s2", "..5s", "1 s", "5S", "1d"})
  void rejectsWhatGoRejects(String text) {
    assertThatThrownBy(() -> GoDuration.parse(text)).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"2562048h", "9223372036854775808ns"})
  void rejectsDurationsBeyondGoRange(String text) {
    assertThatThrownBy(() -> GoDuration.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("out of range");
  }

  @ParameterizedTest
  @CsvSource({"PT0S, 0s", "PT0.2S, 200ms", "PT1M30S, 1m30s", "PT1H, 1h0m0s", "PT1.5S, 1.5s"})
  void formatsAsGoDoes(String duration, String expected) {
    assertThat(GoDuration.format(Duration.parse(duration))).isEqualTo(expected);
  }
}
