package dev.sluice.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TranslationStrategyTest {

  @Test
  void configNamesAreTheCollectorsSpelledExactly() {
    assertThat(TranslationStrategy.of("UnderscoreEscapingWithSuffixes"))
        .contains(TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES);
    assertThat(TranslationStrategy.of("UnderscoreEscapingWithoutSuffixes"))
        .contains(TranslationStrategy.UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES);
    assertThat(TranslationStrategy.of("NoUTF8EscapingWithSuffixes"))
        .contains(TranslationStrategy.NO_UTF8_ESCAPING_WITH_SUFFIXES);
    assertThat(TranslationStrategy.of("NoTranslation"))
        .contains(TranslationStrategy.NO_TRANSLATION);
    assertThat(TranslationStrategy.of("notranslation")).isEmpty();
    assertThat(TranslationStrategy.of("")).isEmpty();
    assertThat(TranslationStrategy.of(null)).isEmpty();
    for (TranslationStrategy strategy : TranslationStrategy.values()) {
      assertThat(TranslationStrategy.of(strategy.configName())).contains(strategy);
    }
  }

  @Test
  void eachStrategyEscapesAndAddsSuffixesAsItsNameSays() {
    assertThat(TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES.escapes()).isTrue();
    assertThat(TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES.addsSuffixes()).isTrue();
    assertThat(TranslationStrategy.UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES.escapes()).isTrue();
    assertThat(TranslationStrategy.UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES.addsSuffixes()).isFalse();
    assertThat(TranslationStrategy.NO_UTF8_ESCAPING_WITH_SUFFIXES.escapes()).isFalse();
    assertThat(TranslationStrategy.NO_UTF8_ESCAPING_WITH_SUFFIXES.addsSuffixes()).isTrue();
    assertThat(TranslationStrategy.NO_TRANSLATION.escapes()).isFalse();
    assertThat(TranslationStrategy.NO_TRANSLATION.addsSuffixes()).isFalse();
  }
}
