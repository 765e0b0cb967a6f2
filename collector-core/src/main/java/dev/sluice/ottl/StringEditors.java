package dev.sluice.ottl;

import dev.sluice.pdata.view.Utf8Chars;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The editors of one string value: nothing happens when the target holds no string. */
final class StringEditors {
  private StringEditors() {}

  /**
   * {@code replace_pattern(target, regex, replacement[, function[, format]])}: every match is
   * replaced.
   */
  static final class ReplacePattern extends Editor {
    private final Target target;
    private final Matcher matcher;
    private final Replacement replacement;
    private final Utf8Chars chars = new Utf8Chars();
    private final Value result = new Value();

    ReplacePattern(Target target, Pattern pattern, Replacement replacement) {
      this.target = target;
      this.matcher = pattern.matcher("");
      this.replacement = replacement;
    }

    @Override
    boolean run(EvalContext context) {
      Value v = target.reader.eval(context);
      if (v.kind != Value.Kind.STRING) {
        return false;
      }
      matcher.reset(chars.decode(v.bytes, v.offset, v.length));
      if (!matcher.find()) {
        return false;
      }
      byte[] text = replacement.replaceAll(matcher, context).getBytes(StandardCharsets.UTF_8);
      result.setStringRef(text, 0, text.length);
      return target.write(context, result);
    }
  }

  /**
   * {@code replace_match(target, glob, replacement[, function[, format]])}: the whole string, when
   * it matches.
   */
  static final class ReplaceMatch extends Editor {
    private final Target target;
    private final Matcher matcher;
    private final byte[] replacement;
    private final Replacement function;
    private final Utf8Chars chars = new Utf8Chars();
    private final Value result = new Value();

    ReplaceMatch(Target target, Pattern glob, String replacement, Replacement function) {
      this.target = target;
      this.matcher = glob.matcher("");
      this.replacement = replacement.getBytes(StandardCharsets.UTF_8);
      this.function = function;
    }

    @Override
    boolean run(EvalContext context) {
      Value v = target.reader.eval(context);
      if (v.kind != Value.Kind.STRING) {
        return false;
      }
      matcher.reset(chars.decode(v.bytes, v.offset, v.length));
      if (!matcher.matches()) {
        return false;
      }
      byte[] text = function.whole(replacement, context);
      result.setStringRef(text, 0, text.length);
      return target.write(context, result);
    }
  }

  /**
   * A glob as the Collector's {@code replace_match} reads it: {@code *} any run of characters,
   * {@code ?} one character, {@code [abc]} / {@code [!abc]} classes, {@code {a,b}} alternatives,
   * {@code \} escaping the next character.
   */
  static Pattern glob(String glob) {
    StringBuilder regex = new StringBuilder();
    int braces = 0;
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      switch (c) {
        case '*' -> regex.append(".*");
        case '?' -> regex.append('.');
        case '\\' -> {
          if (i + 1 < glob.length()) {
            regex.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
          } else {
            regex.append("\\\\");
          }
        }
        case '[' -> {
          int end = glob.indexOf(']', i + 1);
          if (end < 0) {
            regex.append("\\[");
          } else {
            String body = glob.substring(i + 1, end);
            boolean negated = body.startsWith("!");
            regex.append('[').append(negated ? "^" : "");
            String members = negated ? body.substring(1) : body;
            for (char m : members.toCharArray()) {
              regex.append(m == '-' ? "-" : escapeClass(m));
            }
            regex.append(']');
            i = end;
          }
        }
        case '{' -> {
          braces++;
          regex.append("(?:");
        }
        case '}' -> {
          if (braces > 0) {
            braces--;
            regex.append(')');
          } else {
            regex.append("\\}");
          }
        }
        case ',' -> regex.append(braces > 0 ? "|" : ",");
        default -> regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    while (braces-- > 0) {
      regex.append(')');
    }
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }

  private static boolean isNameStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  private static boolean isNamePart(char c) {
    return isNameStart(c) || Lexer.isDigit(c);
  }

  private static String escapeClass(char c) {
    return Character.isLetterOrDigit(c) ? String.valueOf(c) : "\\" + c;
  }

  /**
   * A replacement in Go's syntax ({@code $1}, {@code ${name}}, {@code $$} for a dollar) for Java's
   * {@link Matcher#replaceAll}, where a backslash also escapes.
   */
  static String replacement(String go) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < go.length(); i++) {
      char c = go.charAt(i);
      if (c == '\\') {
        out.append("\\\\");
      } else if (c == '$' && i + 1 < go.length() && go.charAt(i + 1) == '$') {
        out.append("\\$");
        i++;
      } else if (c == '$' && i + 1 < go.length() && isNameStart(go.charAt(i + 1))) {
        // Go's $name is Java's ${name}.
        int end = i + 1;
        while (end < go.length() && isNamePart(go.charAt(end))) {
          end++;
        }
        out.append("${").append(go, i + 1, end).append('}');
        i = end - 1;
      } else if (c == '$'
          && (i + 1 == go.length()
              || !(Lexer.isDigit(go.charAt(i + 1)) || go.charAt(i + 1) == '{'))) {
        out.append("\\$");
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
