package dev.sluice.config;

/**
 * A place in a configuration source: its name (the file as given, or the name passed with the
 * text), and the 1-based line and column.
 */
public record Location(String source, int line, int column) {
  @Override
  public String toString() {
    return source + ":" + line + ":" + column;
  }
}
