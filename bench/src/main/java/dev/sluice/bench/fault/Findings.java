package dev.sluice.bench.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What one part of the fault run measured, and every promise it saw broken. */
final class Findings {
  private final String part;
  private final List<String> figures = new ArrayList<>();
  private final List<String> broken = new ArrayList<>();

  Findings(String part) {
    this.part = part;
  }

  String part() {
    return part;
  }

  /** A line of the summary. */
  void figure(String format, Object... arguments) {
    figures.add(String.format(Locale.ROOT, format, arguments));
  }

  /** A promise that did not hold. */
  void broken(String format, Object... arguments) {
    broken.add(String.format(Locale.ROOT, format, arguments));
  }

  /** Records a broken promise when {@code count} is not 0. */
  void expectZero(long count, String what) {
    if (count != 0) {
      broken(String.format(Locale.ROOT, "%s: %,d", what, count));
    }
  }

  List<String> figures() {
    return figures;
  }

  List<String> broken() {
    return broken;
  }
}
