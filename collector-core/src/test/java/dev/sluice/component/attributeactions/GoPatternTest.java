package dev.sluice.component.attributeactions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Go's RE2 patterns match in Java as they do in Go. */
class GoPatternTest {
  private static boolean finds(String pattern, String text) {
    return GoPattern.compile(pattern).pattern().matcher(text).find();
  }

  @Test
  void namedGroupsOfBothSpellingsKeepTheirNamesInOrderUnderscoresIncluded() {
    GoPattern p = GoPattern.compile("(?P<first_name>\\w+) (?<last>\\w+)(?:!)?(x)?");

    assertThat(p.groupNames()).containsExactly("first_name", "last", null);
    var m = p.pattern().matcher("Ada Lovelace");
    assertThat(m.find()).isTrue();
    assertThat(m.group(1)).isEqualTo("Ada");
    assertThat(m.group(2)).isEqualTo("Lovelace");
  }

  @ParameterizedTest(name = "{0} on {1}: {2}")
  @CsvSource({
    "'abc$', 'abc', true",
    "'abc$', 'abc\n', false",
    "'(?m)abc$', 'abc\nx', true",
    "'a.c', 'a\rc', true",
    "'a.c', 'a\nc', false",
    "'[[:digit:]]+', 'x42', true",
    "'^[[:^alpha:]]+$', '123', true",
    "'^[a[]+$', 'a[a', true",
    "'^[a&&b]+$', '&&a', true",
    "'\\v', '\u000b', true",
    "'(?i)GET', 'get', true",
    "'^api', 'my api', false"
  })
  void matchesAsGoDoes(String pattern, String text, boolean expected) {
    assertThat(finds(pattern, text)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "a(?=b)   | invalid or unsupported Perl syntax",
        "a(?!b)   | invalid or unsupported Perl syntax",
        "(a)\\1   | back-references are not supported",
        "a++      | invalid nested repetition operator",
        "(?U)a+   | invalid or unsupported Perl syntax",
        "(?P<a-b>x) | invalid named capture",
        "(?P<a>x)(?P<a>y) | duplicate capture group name",
        "[[:nope:]] | invalid character class range",
        "(        | Unclosed group"
      })
  void refusesWhatGoRefuses(String pattern, String message) {
    assertThatThrownBy(() -> GoPattern.compile(pattern))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void groupNamesAreImmutable() {
    assertThatThrownBy(() -> GoPattern.compile("(?P<a>x)").groupNames().add("b"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(Arrays.asList(GoPattern.compile("x").groupNames().toArray())).isEmpty();
  }
}
