package dev.sluice.ottl;

/**
 * A condition that could not be evaluated for one item, such as {@code Substring} past the end of
 * its string. Made only on failure, without a stack trace: what to do with it is the caller's
 * {@link ErrorMode}.
 */
public final class OttlEvaluationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  OttlEvaluationException(String message) {
    super(message, null, false, false);
  }
}
