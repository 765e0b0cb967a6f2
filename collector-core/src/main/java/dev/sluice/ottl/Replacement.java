package dev.sluice.ottl;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;

/**
 * What the replace editors put in place of a match: the replacement (groups expanded), or with the
 * Collector's optional {@code function} argument that converter's result on it, written into the
 * optional {@code replacementFormat} at its {@code %s}. Compiled once per statement; its buffers
 * are reused, so one thread at a time.
 */
final class Replacement {
  /** What a format holds where the converter's result goes. */
  static final String FORMAT_VERB = "%s";

  /** A replace editor's function: a converter of one string that returns a string. */
  static final List<String> FUNCTIONS =
      List.of(
          "SHA1",
          "SHA256",
          "SHA512",
          "MD5",
          "Murmur3Hash",
          "Murmur3Hash128",
          "ToLowerCase",
          "ToUpperCase");

  /** The converter's argument: the replacement of one match. */
  static final class Input extends Expr {
    Input() {
      super(OttlType.STRING);
    }

    void set(byte[] utf8) {
      out.setStringRef(utf8, 0, utf8.length);
    }

    @Override
    Value eval(EvalContext context) {
      return out;
    }
  }

  /** The replacement in Java's syntax ({@link Matcher#appendReplacement}). */
  private final String template;

  private final Expr function;
  private final Input input;
  private final String before;
  private final String after;
  private final StringBuilder text = new StringBuilder();

  /**
   * @param function the converter over {@code input}, or null
   * @param format the format, with one {@code %s}, or null for the result as it is
   */
  Replacement(String template, Expr function, Input input, String format) {
    this.template = template;
    this.function = function;
    this.input = input;
    int verb = format == null ? -1 : format.indexOf(FORMAT_VERB);
    this.before = verb < 0 ? "" : format.substring(0, verb);
    this.after = verb < 0 ? "" : format.substring(verb + FORMAT_VERB.length());
  }

  boolean hasFunction() {
    return function != null;
  }

  /**
   * The matcher's input with every match replaced, each match's expanded replacement passed through
   * the function when there is one. Replaces at each match's place (the Collector replaces every
   * occurrence of each matched text, also where the pattern did not match it).
   */
  String replaceAll(Matcher matcher, EvalContext context) {
    if (function == null) {
      return matcher.replaceAll(template);
    }
    matcher.reset();
    text.setLength(0);
    int lastEnd = 0;
    while (matcher.find()) {
      int kept = text.length() + matcher.start() - lastEnd;
      matcher.appendReplacement(text, template);
      String expanded = text.substring(kept);
      text.setLength(kept);
      text.append(before).append(apply(expanded, context)).append(after);
      lastEnd = matcher.end();
    }
    matcher.appendTail(text);
    return text.toString();
  }

  /** {@code replacement} through the function and into the format (replace_match). */
  byte[] whole(byte[] replacement, EvalContext context) {
    if (function == null) {
      return replacement;
    }
    return (before + apply(new String(replacement, StandardCharsets.UTF_8), context) + after)
        .getBytes(StandardCharsets.UTF_8);
  }

  private String apply(String replacement, EvalContext context) {
    input.set(replacement.getBytes(StandardCharsets.UTF_8));
    Value result = function.eval(context);
    if (result.kind != Value.Kind.STRING) {
      throw new OttlEvaluationException(
          "the replacement function returned a " + result.typeName() + ", not a string");
    }
    return new String(result.bytes, result.offset, result.length, StandardCharsets.UTF_8);
  }
}
