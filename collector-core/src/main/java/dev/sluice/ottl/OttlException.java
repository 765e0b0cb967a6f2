package dev.sluice.ottl;

/**
 * A statement or condition that does not parse or compile, with where in its text: line and column
 * (both from 1, columns in characters) within the statement. The configuration layer places the
 * statement itself in the file.
 */
public final class OttlException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int line;
  private final int column;
  private final String reason;

  OttlException(int line, int column, String reason) {
    super(line + ":" + column + ": " + reason, null, false, false);
    this.line = line;
    this.column = column;
    this.reason = reason;
  }

  /** The problem at character {@code index} of {@code text}. */
  static OttlException at(String text, int index, String reason) {
    int line = 1;
    int column = 1;
    int end = Math.min(index, text.length());
    for (int i = 0; i < end; i++) {
      if (text.charAt(i) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return new OttlException(line, column, reason);
  }

  /** At most this many characters of a name or path written in the statement are shown. */
  private static final int MAX_SHOWN_CHARS = 64;

  /** {@code text} for a message: cut short when long, so that a message stays small. */
  static String shown(String text) {
    return text.length() <= MAX_SHOWN_CHARS ? text : text.substring(0, MAX_SHOWN_CHARS) + "...";
  }

  /** Line within the statement, from 1. */
  public int line() {
    return line;
  }

  /** Column within the line, from 1, in characters. */
  public int column() {
    return column;
  }

  /** What is wrong, without the position. */
  public String reason() {
    return reason;
  }
}
