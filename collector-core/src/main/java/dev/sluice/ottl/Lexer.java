package dev.sluice.ottl;

/**
 * Splits a statement into tokens, one at a time ({@link #advance}): the current token's kind, where
 * it starts and ends, and its value. Strings take Go's escapes ({@code \" \\ \n \t \r \b \f \v \a
 * \xHH \\uHHHH \UHHHHHHHH}); byte literals are {@code 0x} and an even number of hex digits;
 * integers are 64-bit.
 */
final class Lexer {
  private static final int HEX_RADIX = 16;
  private static final int UNICODE_SHORT_DIGITS = 4;
  private static final int UNICODE_LONG_DIGITS = 8;
  private static final int BYTE_ESCAPE_DIGITS = 2;
  private static final int ASCII_LIMIT = 0x80;

  private final String text;
  private int position;

  TokenKind kind;
  int start;
  int end;
  String identifier;
  String stringValue;
  long intValue;
  double floatValue;
  byte[] bytesValue;

  Lexer(String text) throws OttlException {
    this.text = text;
    advance();
  }

  String text() {
    return text;
  }

  /** Moves to the next token. */
  void advance() throws OttlException {
    skipSpace();
    start = position;
    if (position >= text.length()) {
      kind = TokenKind.END;
      end = position;
      return;
    }
    char c = text.charAt(position);
    if (isIdentifierStart(c)) {
      while (position < text.length() && isIdentifierPart(text.charAt(position))) {
        position++;
      }
      identifier = text.substring(start, position);
      kind = TokenKind.IDENTIFIER;
    } else if (c == '"') {
      readString();
    } else if (c >= '0' && c <= '9') {
      readNumber();
    } else {
      readSymbol(c);
    }
    end = position;
  }

  private void skipSpace() {
    while (position < text.length()) {
      char c = text.charAt(position);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      position++;
    }
  }

  private void readSymbol(char c) throws OttlException {
    char next = position + 1 < text.length() ? text.charAt(position + 1) : 0;
    position++;
    switch (c) {
      case '(' -> kind = TokenKind.LEFT_PAREN;
      case ')' -> kind = TokenKind.RIGHT_PAREN;
      case '[' -> kind = TokenKind.LEFT_BRACKET;
      case ']' -> kind = TokenKind.RIGHT_BRACKET;
      case '{' -> kind = TokenKind.LEFT_BRACE;
      case '}' -> kind = TokenKind.RIGHT_BRACE;
      case ',' -> kind = TokenKind.COMMA;
      case '.' -> kind = TokenKind.DOT;
      case ':' -> kind = TokenKind.COLON;
      case '+' -> kind = TokenKind.PLUS;
      case '-' -> kind = TokenKind.MINUS;
      case '*' -> kind = TokenKind.STAR;
      case '/' -> kind = TokenKind.SLASH;
      case '=' -> kind = twoChar(next == '=', TokenKind.EQ, TokenKind.ASSIGN);
      case '<' -> kind = twoChar(next == '=', TokenKind.LE, TokenKind.LT);
      case '>' -> kind = twoChar(next == '=', TokenKind.GE, TokenKind.GT);
      case '!' -> {
        if (next != '=') {
          throw OttlException.at(text, start, "unexpected '!': use 'not' or '!='");
        }
        kind = twoChar(true, TokenKind.NE, TokenKind.NE);
      }
      default ->
          throw OttlException.at(
              text, start, "unexpected character " + describeChar(text.codePointAt(start)));
    }
  }

  private TokenKind twoChar(boolean matched, TokenKind both, TokenKind single) {
    if (matched) {
      position++;
      return both;
    }
    return single;
  }

  private void readNumber() throws OttlException {
    if (text.startsWith("0x", position) || text.startsWith("0X", position)) {
      readBytes();
      return;
    }
    while (position < text.length() && isDigit(text.charAt(position))) {
      position++;
    }
    boolean isFloat = false;
    if (position < text.length() && text.charAt(position) == '.') {
      isFloat = true;
      position++;
      int digits = position;
      while (position < text.length() && isDigit(text.charAt(position))) {
        position++;
      }
      if (position == digits) {
        throw OttlException.at(text, position, "expected digits after the decimal point");
      }
    }
    if (position < text.length()
        && (text.charAt(position) == 'e' || text.charAt(position) == 'E')) {
      isFloat = true;
      position++;
      if (position < text.length()
          && (text.charAt(position) == '+' || text.charAt(position) == '-')) {
        position++;
      }
      int digits = position;
      while (position < text.length() && isDigit(text.charAt(position))) {
        position++;
      }
      if (position == digits) {
        throw OttlException.at(text, position, "expected digits in the exponent");
      }
    }
    if (position < text.length() && isIdentifierPart(text.charAt(position))) {
      throw OttlException.at(
          text,
          position,
          "unexpected " + describeChar(text.codePointAt(position)) + " in a number");
    }
    String number = text.substring(start, position);
    if (isFloat) {
      kind = TokenKind.FLOAT;
      floatValue = Double.parseDouble(number);
      if (Double.isInfinite(floatValue)) {
        throw OttlException.at(text, start, "number out of range: " + number);
      }
      return;
    }
    kind = TokenKind.INT;
    try {
      intValue = Long.parseLong(number);
    } catch (NumberFormatException e) {
      // A minus sign is a token of its own, so Long.MIN_VALUE is out of reach too: as in Go's OTTL.
      throw OttlException.at(text, start, "integer out of the 64-bit range: " + number);
    }
  }

  private void readBytes() throws OttlException {
    position += 2;
    int digits = position;
    while (position < text.length() && Character.digit(text.charAt(position), HEX_RADIX) >= 0) {
      position++;
    }
    int count = position - digits;
    if (position < text.length() && isIdentifierPart(text.charAt(position))) {
      throw OttlException.at(
          text,
          position,
          "unexpected " + describeChar(text.codePointAt(position)) + " in a byte literal");
    }
    if (count == 0 || count % 2 != 0) {
      throw OttlException.at(text, start, "a byte literal needs an even number of hex digits");
    }
    byte[] bytes = new byte[count / 2];
    for (int i = 0; i < bytes.length; i++) {
      int high = Character.digit(text.charAt(digits + 2 * i), HEX_RADIX);
      int low = Character.digit(text.charAt(digits + 2 * i + 1), HEX_RADIX);
      bytes[i] = (byte) ((high << 4) | low);
    }
    kind = TokenKind.BYTES;
    bytesValue = bytes;
  }

  private void readString() throws OttlException {
    position++;
    StringBuilder value = new StringBuilder();
    while (true) {
      if (position >= text.length()) {
        throw OttlException.at(text, start, "string not closed");
      }
      char c = text.charAt(position);
      if (c == '"') {
        position++;
        break;
      }
      if (c == '\\') {
        readEscape(value);
      } else {
        value.append(c);
        position++;
      }
    }
    kind = TokenKind.STRING;
    stringValue = value.toString();
  }

  private void readEscape(StringBuilder value) throws OttlException {
    int escapeStart = position;
    position++;
    if (position >= text.length()) {
      throw OttlException.at(text, start, "string not closed");
    }
    char c = text.charAt(position++);
    switch (c) {
      case '"' -> value.append('"');
      case '\\' -> value.append('\\');
      case 'n' -> value.append('\n');
      case 't' -> value.append('\t');
      case 'r' -> value.append('\r');
      case 'b' -> value.append('\b');
      case 'f' -> value.append('\f');
      case 'v' -> value.append('\u000B');
      case 'a' -> value.append('\u0007');
      case 'x' -> {
        int b = hex(escapeStart, BYTE_ESCAPE_DIGITS);
        if (b >= ASCII_LIMIT) {
          throw OttlException.at(
              text, escapeStart, "\\x escapes above \\x7f would make invalid UTF-8: use \\u");
        }
        value.append((char) b);
      }
      case 'u' -> appendCodePoint(value, escapeStart, hex(escapeStart, UNICODE_SHORT_DIGITS));
      case 'U' -> appendCodePoint(value, escapeStart, hex(escapeStart, UNICODE_LONG_DIGITS));
      default ->
          throw OttlException.at(
              text,
              escapeStart,
              "unknown escape \\" + describeChar(text.codePointAt(position - 1)));
    }
  }

  private void appendCodePoint(StringBuilder value, int escapeStart, int codePoint)
      throws OttlException {
    if (!Character.isValidCodePoint(codePoint)
        || (codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE)) {
      throw OttlException.at(text, escapeStart, "escape is not a Unicode scalar value");
    }
    value.appendCodePoint(codePoint);
  }

  private int hex(int escapeStart, int digits) throws OttlException {
    if (position + digits > text.length()) {
      throw OttlException.at(text, escapeStart, "escape needs " + digits + " hex digits");
    }
    int v = 0;
    for (int i = 0; i < digits; i++) {
      int d = Character.digit(text.charAt(position + i), HEX_RADIX);
      if (d < 0) {
        throw OttlException.at(text, escapeStart, "escape needs " + digits + " hex digits");
      }
      v = (v << 4) | d;
    }
    position += digits;
    return v;
  }

  static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  static boolean isIdentifierStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  static boolean isIdentifierPart(char c) {
    return isIdentifierStart(c) || isDigit(c);
  }

  /** A character for a message: printable ASCII quoted, anything else as U+XXXX. */
  static String describeChar(int codePoint) {
    if (codePoint > ' ' && codePoint < ASCII_LIMIT - 1) {
      return "'" + (char) codePoint + "'";
    }
    return String.format("U+%04X", codePoint);
  }
}
