package dev.sluice.pdata;

/**
 * Input that is not a well-formed OTLP message. Thrown at the edge only, where a request is
 * rejected whole; carries where the problem is (the field path and the byte or character offset),
 * what was expected, and which {@link Kind} of check refused it.
 *
 * <p>The message reads like {@code
 * resource_spans[0].scope_spans[1].spans[7].attributes[2].value.string_value: invalid UTF-8 at
 * offset 1834}. Its length is bounded ({@link #MAX_MESSAGE_CHARS}) whatever the input: text quoted
 * from the input goes through {@link #quote}, and a longer path or reason is cut.
 */
public final class MalformedOtlpException extends Exception {
  private static final long serialVersionUID = 1L;

  /** The longest message, path, reason and offset included. */
  public static final int MAX_MESSAGE_CHARS = 4096;

  /**
   * The longest field path kept (a path 100 messages deep takes about 2,500); longer paths keep
   * their start and end.
   */
  static final int MAX_PATH_CHARS = 3072;

  /** The most characters of input text that {@link #quote} keeps. */
  public static final int MAX_QUOTED_CHARS = 64;

  private static final String CUT = "...";

  /**
   * Which check refused the input. Everything but {@link #WIRE_FORMAT} and {@link #INVALID_JSON} is
   * a check of Sluice's own that a protobuf parser does not make, so a request refused for it may
   * still parse with protobuf-java.
   */
  public enum Kind {
    /** Not well-formed protobuf: tags, varints, lengths, fixed values, groups. */
    WIRE_FORMAT,
    /** A known field with the wire type of another kind (protobuf-java keeps it as unknown). */
    WIRE_TYPE,
    /** A tag or length varint with bits above 32 (protobuf-java drops them). */
    OVER_32_BITS,
    /**
     * A varint whose tenth byte has the continuation bit set (protobuf-java ignores that bit and
     * reads the next byte as the next tag).
     */
    LONG_VARINT,
    /** A string field that is not valid UTF-8. */
    INVALID_UTF8,
    /** A trace ID that is not 16 bytes or a span ID that is not 8 bytes (and not empty). */
    ID_LENGTH,
    /** A metric with more than one data message (gauge, sum, histogram, ...). */
    DATA_MESSAGES,
    /** Messages (or groups) nested deeper than the limit. */
    NESTING_DEPTH,
    /** A size or count limit of the indexer ({@code IndexLimits}). */
    LIMIT,
    /** Not valid OTLP/JSON: syntax, value types, number ranges, IDs, base64, enum names. */
    INVALID_JSON
  }

  private final String fieldPath;
  private final long offset;
  private final String reason;
  private final Kind kind;

  /**
   * A wire-format problem ({@link Kind#WIRE_FORMAT}).
   *
   * @param fieldPath the path of the field that holds the problem, empty for the message itself
   * @param offset the byte offset (protobuf) or character offset (JSON) of the problem
   * @param reason what is wrong and what was expected
   */
  public MalformedOtlpException(String fieldPath, long offset, String reason) {
    this(fieldPath, offset, Kind.WIRE_FORMAT, reason);
  }

  /**
   * @param fieldPath the path of the field that holds the problem, empty for the message itself
   * @param offset the byte offset (protobuf) or character offset (JSON) of the problem
   * @param kind which check refused the input
   * @param reason what is wrong and what was expected
   */
  public MalformedOtlpException(String fieldPath, long offset, Kind kind, String reason) {
    // Input errors are expected at the edge: skip the stack trace, it says nothing about the input.
    super(format(cutPath(fieldPath), offset, cutReason(reason)), null, false, false);
    this.fieldPath = cutPath(fieldPath);
    this.offset = offset;
    this.kind = kind;
    this.reason = cutReason(reason);
  }

  private static String cutPath(String fieldPath) {
    return cut(fieldPath, MAX_PATH_CHARS);
  }

  private static String cutReason(String reason) {
    // Leaves room for the path and the offset within MAX_MESSAGE_CHARS.
    return cut(reason, MAX_MESSAGE_CHARS - MAX_PATH_CHARS - 64);
  }

  private static String format(String fieldPath, long offset, String reason) {
    String where = fieldPath.isEmpty() ? "request" : fieldPath;
    return where + ": " + reason + " at offset " + offset;
  }

  /** Keeps the start and the end of a text longer than {@code max}. */
  private static String cut(String text, int max) {
    if (text.length() <= max) {
      return text;
    }
    int head = (max - CUT.length()) / 2;
    int tail = max - CUT.length() - head;
    return text.substring(0, head) + CUT + text.substring(text.length() - tail);
  }

  /**
   * Input text for a message: in double quotes, at most {@link #MAX_QUOTED_CHARS} characters of it
   * (then {@code ...}), with quotes, backslashes and control characters escaped, so that what a
   * client sent can neither grow a message nor break a log line.
   */
  public static String quote(CharSequence text) {
    int shown = Math.min(text.length(), MAX_QUOTED_CHARS);
    StringBuilder quoted = new StringBuilder(shown + 8).append('"');
    for (int i = 0; i < shown; i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        quoted.append('\\').append(c);
      } else if (c < 0x20 || c == 0x7F || Character.isSurrogate(c)) {
        quoted.append(String.format("\\u%04x", (int) c));
      } else {
        quoted.append(c);
      }
    }
    if (shown < text.length()) {
      quoted.append(CUT);
    }
    return quoted.append('"').toString();
  }

  /** The field path, such as {@code resource_spans[0].scope_spans[1].spans[7].name}. */
  public String fieldPath() {
    return fieldPath;
  }

  /** The offset of the problem in the input. */
  public long offset() {
    return offset;
  }

  /** What is wrong, without the path and offset. */
  public String reason() {
    return reason;
  }

  /** Which check refused the input. */
  public Kind kind() {
    return kind;
  }
}
