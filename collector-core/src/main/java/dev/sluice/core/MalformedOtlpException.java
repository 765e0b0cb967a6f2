package dev.sluice.core;

/**
 * Input that is not a well-formed OTLP message. Thrown at the edge only, where a request is
 * rejected whole; carries where the problem is (the field path and the byte or character offset)
 * and what was expected.
 *
 * <p>The message reads like {@code
 * resource_spans[0].scope_spans[1].spans[7].attributes[2].value.string_value: invalid UTF-8 at
 * offset 1834}.
 */
public final class MalformedOtlpException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String fieldPath;
  private final long offset;
  private final String reason;

  /**
   * @param fieldPath the path of the field that holds the problem, empty for the message itself
   * @param offset the byte offset (protobuf) or character offset (JSON) of the problem
   * @param reason what is wrong and what was expected
   */
  public MalformedOtlpException(String fieldPath, long offset, String reason) {
    // Input errors are expected at the edge: skip the stack trace, it says nothing about the input.
    super(format(fieldPath, offset, reason), null, false, false);
    this.fieldPath = fieldPath;
    this.offset = offset;
    this.reason = reason;
  }

  private static String format(String fieldPath, long offset, String reason) {
    String where = fieldPath.isEmpty() ? "request" : fieldPath;
    return where + ": " + reason + " at offset " + offset;
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
}
