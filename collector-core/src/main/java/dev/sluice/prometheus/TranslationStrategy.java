package dev.sluice.prometheus;

import java.util.Optional;

/**
 * The {@code translation_strategy} values of the Collector's {@code prometheus} and {@code
 * prometheusremotewrite} exporters: whether metric and label names are escaped to the classic
 * Prometheus character set, and whether unit and type suffixes are added to metric names.
 *
 * <p>A config that sets no strategy gets {@link #UNDERSCORE_ESCAPING_WITH_SUFFIXES}, as the Go
 * exporters do with their default {@code add_metric_suffixes: true}.
 */
public enum TranslationStrategy {
  /** Escape names to {@code [a-zA-Z0-9_:]} and add unit and type suffixes: the default. */
  UNDERSCORE_ESCAPING_WITH_SUFFIXES("UnderscoreEscapingWithSuffixes", true, true),
  /** Escape names, add no suffixes. */
  UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES("UnderscoreEscapingWithoutSuffixes", false, true),
  /** Keep names as UTF-8, add unit and type suffixes. */
  NO_UTF8_ESCAPING_WITH_SUFFIXES("NoUTF8EscapingWithSuffixes", true, false),
  /** Keep names as they are (only a namespace is prepended). */
  NO_TRANSLATION("NoTranslation", false, false);

  private final String configName;
  private final boolean addsSuffixes;
  private final boolean escapes;

  TranslationStrategy(String configName, boolean addsSuffixes, boolean escapes) {
    this.configName = configName;
    this.addsSuffixes = addsSuffixes;
    this.escapes = escapes;
  }

  /** The value a config file names it by, e.g. {@code UnderscoreEscapingWithSuffixes}. */
  public String configName() {
    return configName;
  }

  /**
   * The strategy a config value names (spelled exactly, as the Go exporters match it), empty when
   * none does: the caller reports the problem.
   */
  public static Optional<TranslationStrategy> of(String configName) {
    for (TranslationStrategy strategy : values()) {
      if (strategy.configName.equals(configName)) {
        return Optional.of(strategy);
      }
    }
    return Optional.empty();
  }

  /** Whether metric names get unit and type suffixes ({@code _seconds}, {@code _total}, ...). */
  public boolean addsSuffixes() {
    return addsSuffixes;
  }

  /**
   * Whether metric and label names are escaped to the classic Prometheus character set, invalid
   * characters becoming {@code _}.
   */
  public boolean escapes() {
    return escapes;
  }
}
